#pragma once
// Semantic versions as github.com/blang/semver/v4 parses and orders them (the type behind
// Kubernetes CEL's semver library and DRA's version attributes).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace berth::cel {

struct Semver {
  uint64_t major = 0, minor = 0, patch = 0;
  std::vector<std::string> pre;    // dot-separated pre-release identifiers
  std::vector<std::string> build;  // ignored by comparisons

  // blang's Parse (strict MAJOR.MINOR.PATCH); errors carry blang's messages, e.g.
  // "No Major.Minor.Patch elements found".
  static Result<Semver> Parse(std::string_view text);
  // The semver library's normalising parse: strips a leading "v" and fills a missing minor or
  // patch with 0 before parsing strictly.
  static Result<Semver> ParseNormalized(std::string_view text);

  // -1, 0 or 1 by semver precedence (build metadata ignored).
  int Compare(const Semver& o) const;
  std::string ToString() const;
};

}  // namespace berth::cel
