#include "plugins/node_affinity/selector_terms.h"

#include <charconv>
#include <set>
#include <string_view>

#include "api/selector.h"
#include "base/strings.h"

namespace berth::plugins::node_affinity {
namespace {

// ---- field paths and error formatting (apimachinery's field.Path / field.Error) ----

std::string Child(const std::string& path, std::string_view name) {
  if (path.empty()) return std::string(name);
  std::string out = path;
  out += '.';
  out += name;
  return out;
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Go's %q for a string.
std::string GoQuote(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

// Go's %#v for a []string (an absent list reads as nil).
std::string GoStringSlice(const std::vector<std::string>& v) {
  if (v.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(v[i]);
  }
  out += '}';
  return out;
}

std::string Invalid(const std::string& path, const std::string& value_repr,
                    std::string_view detail) {
  std::string out = path + ": Invalid value: " + value_repr;
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

// ---- apimachinery's validation helpers ----

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesQualifiedNameRegex(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool IsDNSLabelChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*
bool MatchesDNS1123SubdomainRegex(std::string_view s) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !IsDNSLabelChar(label.front()) || !IsDNSLabelChar(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!IsDNSLabelChar(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  out += " (e.g. ";
  bool first = true;
  for (auto e : examples) {
    if (!first) out += " or ";
    out += "'";
    out += e;
    out += "', ";
    first = false;
  }
  out += "regex used for validation is '";
  out += fmt;
  out += "')";
  return out;
}

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t slash = value.find('/', start);
    if (slash == std::string_view::npos) {
      parts.push_back(value.substr(start));
      break;
    }
    parts.push_back(value.substr(start, slash - start));
    start = slash + 1;
  }
  std::string_view name;
  if (parts.size() == 1) {
    name = parts[0];
  } else if (parts.size() == 2) {
    std::string_view prefix = parts[0];
    name = parts[1];
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) errs.push_back("prefix part must be no more than 253 characters");
      if (!MatchesDNS1123SubdomainRegex(prefix)) {
        errs.push_back(
            "prefix part " +
            RegexError("a lowercase RFC 1123 subdomain must consist of lower case "
                       "alphanumeric characters, '-' or '.', and must start and end "
                       "with an alphanumeric character",
                       "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
                       {"example.com"}));
      }
    }
  } else {
    errs.push_back(
        "a qualified name " +
        RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part must be no more than 63 characters");
  }
  if (!MatchesQualifiedNameRegex(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back("must be no more than 63 characters");
  if (!value.empty() && !MatchesQualifiedNameRegex(value)) {
    errs.push_back(RegexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character",
        "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?", {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

// Go's strconv.ParseInt(s, 10, 64) succeeds.
bool ParsesAsInt64(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  if (s.front() == '+') return false;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// labels.NewRequirement's validation for one matchExpressions entry.
void ValidateExpression(const api::NodeSelectorRequirement& r, const std::string& path,
                        std::vector<std::string>* errs) {
  if (auto key_errs = IsQualifiedName(r.key); !key_errs.empty()) {
    errs->push_back(Invalid(Child(path, "key"), GoQuote(r.key), Join(key_errs, "; ")));
  }
  const std::string values_path = Child(path, "values");
  switch (r.op) {
    case api::SelectorOperator::kIn:
    case api::SelectorOperator::kNotIn:
      if (r.values.empty()) {
        errs->push_back(Invalid(values_path, GoStringSlice(r.values),
                                "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case api::SelectorOperator::kExists:
    case api::SelectorOperator::kDoesNotExist:
      if (!r.values.empty()) {
        errs->push_back(Invalid(values_path, GoStringSlice(r.values),
                                "values set must be empty for exists and does not exist"));
      }
      break;
    case api::SelectorOperator::kGt:
    case api::SelectorOperator::kLt:
      if (r.values.size() != 1) {
        errs->push_back(Invalid(values_path, GoStringSlice(r.values),
                                "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < r.values.size(); ++i) {
        if (!ParsesAsInt64(r.values[i])) {
          errs->push_back(Invalid(Index(values_path, i), GoQuote(r.values[i]),
                                  "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    if (auto v_errs = IsValidLabelValue(r.values[i]); !v_errs.empty()) {
      errs->push_back(Invalid(Index(values_path, i) + "[" + r.key + "]", GoQuote(r.values[i]),
                              Join(v_errs, "; ")));
    }
  }
}

// nodeSelectorRequirementsAsFieldSelector's checks for one matchFields entry.
void ValidateField(const api::NodeSelectorRequirement& r, const std::string& path,
                   std::vector<std::string>* errs) {
  if (r.op == api::SelectorOperator::kIn || r.op == api::SelectorOperator::kNotIn) {
    if (r.values.size() != 1) {
      errs->push_back(
          Invalid(Child(path, "values"), GoStringSlice(r.values), "must have one element"));
    }
    return;
  }
  static constexpr std::string_view kOpNames[] = {"In",           "NotIn", "Exists",
                                                  "DoesNotExist", "Gt",    "Lt"};
  errs->push_back(Child(path, "operator") +
                  ": Unsupported value: " + GoQuote(kOpNames[static_cast<int>(r.op)]) +
                  ": supported values: \"In\", \"NotIn\"");
}

}  // namespace

bool IsEmptyTerm(const api::NodeSelectorTerm& term) {
  return term.match_expressions.empty() && term.match_fields.empty();
}

void ValidateTerm(const api::NodeSelectorTerm& term, const std::string& path,
                  std::vector<std::string>* errs) {
  const std::string exprs_path = Child(path, "matchExpressions");
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    ValidateExpression(term.match_expressions[i], Index(exprs_path, i), errs);
  }
  const std::string fields_path = Child(path, "matchFields");
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    ValidateField(term.match_fields[i], Index(fields_path, i), errs);
  }
}

bool TermMatches(const api::NodeSelectorTerm& term, const api::Node& node) {
  if (IsEmptyTerm(term)) return false;
  for (const auto& r : term.match_expressions) {
    if (!api::MatchesRequirement(r, node.metadata.labels)) return false;
  }
  // Upstream only builds a field set from a non-empty node name; without one, fields are ignored.
  if (!term.match_fields.empty() && !node.metadata.name.empty()) {
    for (const auto& r : term.match_fields) {
      const std::string& want = r.values.front();  // validated: exactly one value
      const bool has = r.key == "metadata.name" ? node.metadata.name == want : want.empty();
      if (r.op == api::SelectorOperator::kIn ? !has : has) return false;
    }
  }
  return true;
}

std::string AggregateMessage(const std::vector<std::string>& errs) {
  if (errs.empty()) return "";
  if (errs.size() == 1) return errs.front();
  std::set<std::string_view> seen;
  std::string out;
  for (const auto& e : errs) {
    if (!seen.insert(e).second) continue;
    if (seen.size() > 1) out += ", ";
    out += e;
  }
  if (seen.size() == 1) return out;
  return "[" + out + "]";
}

RequiredTerms::RequiredTerms(const api::NodeSelector& selector, const std::string& path) {
  const std::string terms_path = Child(path, "nodeSelectorTerms");
  for (size_t i = 0; i < selector.terms.size(); ++i) {
    const auto& term = selector.terms[i];
    if (IsEmptyTerm(term)) continue;
    const size_t before = errors_.size();
    ValidateTerm(term, Index(terms_path, i), &errors_);
    terms_.push_back(Term{&term, errors_.size() == before, i});
  }
}

RequiredTerms::MatchResult RequiredTerms::Match(const api::Node& node) const {
  MatchResult r;
  for (const auto& t : terms_) {
    if (!t.valid) {
      r.had_errors = true;
      continue;
    }
    if (TermMatches(*t.term, node)) return MatchResult{true, false};
  }
  return r;
}

PreferredTerms::PreferredTerms(const std::vector<api::PreferredSchedulingTerm>& terms,
                               const std::string& path, std::vector<std::string>* errs) {
  for (size_t i = 0; i < terms.size(); ++i) {
    const auto& t = terms[i];
    if (t.weight == 0 || IsEmptyTerm(t.preference)) continue;
    const size_t before = errs->size();
    ValidateTerm(t.preference, Index(path, i), errs);
    if (errs->size() == before) terms_.emplace_back(&t.preference, t.weight);
  }
}

int64_t PreferredTerms::Score(const api::Node& node) const {
  int64_t score = 0;
  for (const auto& [term, weight] : terms_) {
    if (TermMatches(*term, node)) score += weight;
  }
  return score;
}

}  // namespace berth::plugins::node_affinity
