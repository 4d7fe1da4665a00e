#include "cel/semver.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"

namespace berth::cel {
namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool AlnumHyphen(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
  });
}

std::vector<std::string> SplitDots(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    out.emplace_back(s.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

Result<uint64_t> ParseNumber(std::string_view s, std::string_view what) {
  if (!AllDigits(s)) {
    return Error{"Invalid character(s) found in " + std::string(what) + " number " + Quote(s)};
  }
  if (s.size() > 1 && s[0] == '0') {
    std::string cap(what);
    cap[0] = static_cast<char>(std::toupper(cap[0]));
    return Error{cap + " number must not contain leading zeroes " + Quote(s)};
  }
  uint64_t v = 0;
  for (char c : s) {
    if (v > (UINT64_MAX - 9) / 10) return Error{"Invalid " + std::string(what) + " number"};
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

}  // namespace

Result<Semver> Semver::Parse(std::string_view text) {
  if (text.empty()) return Error{"Version string empty"};
  // blang splits on the first two dots only; the rest belongs to patch (and is then invalid).
  size_t first = text.find('.');
  size_t second = first == std::string_view::npos ? first : text.find('.', first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos) {
    return Error{"No Major.Minor.Patch elements found"};
  }
  std::string_view major = text.substr(0, first);
  std::string_view minor = text.substr(first + 1, second - first - 1);
  std::string_view rest = text.substr(second + 1);
  Semver v;
  BERTH_ASSIGN_OR_RETURN(v.major, ParseNumber(major, "major"));
  BERTH_ASSIGN_OR_RETURN(v.minor, ParseNumber(minor, "minor"));
  size_t ext = rest.find_first_of("-+");
  std::string_view patch = rest.substr(0, ext);
  BERTH_ASSIGN_OR_RETURN(v.patch, ParseNumber(patch, "patch"));
  if (ext == std::string_view::npos) return v;
  std::string_view tail = rest.substr(ext);
  std::string_view build_part;
  if (size_t plus = tail.find('+'); plus != std::string_view::npos) {
    build_part = tail.substr(plus + 1);
    tail = tail.substr(0, plus);
    for (auto& b : SplitDots(build_part)) {
      if (b.empty()) return Error{"Build meta data is empty"};
      if (!AlnumHyphen(b))
        return Error{"Invalid character(s) found in build meta data " + Quote(b)};
      v.build.push_back(b);
    }
  }
  if (!tail.empty() && tail[0] == '-') {
    for (auto& p : SplitDots(tail.substr(1))) {
      if (p.empty()) return Error{"Prerelease is empty"};
      if (!AlnumHyphen(p)) return Error{"Invalid character(s) found in prerelease " + Quote(p)};
      if (AllDigits(p) && p.size() > 1 && p[0] == '0') {
        return Error{"Numeric PreRelease version must not contain leading zeroes " + Quote(p)};
      }
      v.pre.push_back(p);
    }
  }
  return v;
}

// Same steps as the semver library's normalizeAndParse.
Result<Semver> Semver::ParseNormalized(std::string_view text) {
  if (!text.empty() && text[0] == 'v') text.remove_prefix(1);
  std::vector<std::string> parts;
  for (int i = 0; i < 2; ++i) {
    size_t dot = text.find('.');
    if (dot == std::string_view::npos) break;
    parts.emplace_back(text.substr(0, dot));
    text.remove_prefix(dot + 1);
  }
  parts.emplace_back(text);
  for (auto& p : parts) {
    if (p.size() > 1) {
      size_t nz = p.find_first_not_of('0');
      p = nz == std::string::npos ? "" : p.substr(nz);
      if (p.empty() || !(p[0] >= '0' && p[0] <= '9')) p = "0" + p;
    }
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return Error{"short version cannot contain PreRelease/Build meta data"};
    }
    while (parts.size() < 3) parts.push_back("0");
  }
  return Parse(parts[0] + "." + parts[1] + "." + parts[2]);
}

int Semver::Compare(const Semver& o) const {
  auto cmp = [](uint64_t a, uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); };
  if (int c = cmp(major, o.major)) return c;
  if (int c = cmp(minor, o.minor)) return c;
  if (int c = cmp(patch, o.patch)) return c;
  if (pre.empty() && o.pre.empty()) return 0;
  if (pre.empty()) return 1;
  if (o.pre.empty()) return -1;
  for (size_t i = 0; i < pre.size() && i < o.pre.size(); ++i) {
    bool an = AllDigits(pre[i]), bn = AllDigits(o.pre[i]);
    if (an && bn) {
      if (pre[i].size() != o.pre[i].size()) return pre[i].size() < o.pre[i].size() ? -1 : 1;
      if (int c = pre[i].compare(o.pre[i])) return c < 0 ? -1 : 1;
    } else if (an != bn) {
      return an ? -1 : 1;
    } else if (int c = pre[i].compare(o.pre[i])) {
      return c < 0 ? -1 : 1;
    }
  }
  return cmp(pre.size(), o.pre.size());
}

std::string Semver::ToString() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  for (size_t i = 0; i < pre.size(); ++i) s += (i == 0 ? "-" : ".") + pre[i];
  for (size_t i = 0; i < build.size(); ++i) s += (i == 0 ? "+" : ".") + build[i];
  return s;
}

}  // namespace berth::cel
