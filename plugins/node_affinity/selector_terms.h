#pragma once
// Compiled node selector terms with upstream's parse-error semantics
// (k8s.io/component-helpers/scheduling/corev1/nodeaffinity):
//  - a term with no requirements is dropped (it selects nothing, and is not an error);
//  - a term whose requirements do not parse (bad label key or value, wrong value count, a
//    non-integer Gt/Lt value, a matchFields requirement without exactly one value) never matches,
//    and its errors are kept, formatted as apimachinery's field errors
//    (`<path>: Invalid value: "<v>": <detail>`);
//  - matchFields only know metadata.name, and are ignored for a node without a name.
// The compiled objects point into the api objects they were built from; the caller keeps those
// alive (a shared Pod, or the plugin's own copy of its args). Immutable after construction;
// Match/Score are safe from concurrent Filter/Score workers and allocate nothing.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/types.h"

namespace berth::plugins::node_affinity {

bool IsEmptyTerm(const api::NodeSelectorTerm& term);

// Appends the parse errors of `term` (path like "nodeSelectorTerms[0]") to *errs.
void ValidateTerm(const api::NodeSelectorTerm& term, const std::string& path,
                  std::vector<std::string>* errs);

// Matches a term that parsed without errors.
bool TermMatches(const api::NodeSelectorTerm& term, const api::Node& node);

// apimachinery's errors.Flatten(NewAggregate(errs)).Error(): one message as is, several as
// "[a, b]" with duplicates dropped.
std::string AggregateMessage(const std::vector<std::string>& errs);

// A required node selector: terms ORed (upstream's LazyErrorNodeSelector).
class RequiredTerms {
 public:
  struct MatchResult {
    bool matched = false;
    // True when nothing matched and some term had parse errors (upstream returns an error then).
    bool had_errors = false;
  };

  RequiredTerms() = default;
  // `path` prefixes error paths, e.g.
  // "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
  // ("" for a pod's own affinity).
  RequiredTerms(const api::NodeSelector& selector, const std::string& path);

  MatchResult Match(const api::Node& node) const;
  const std::vector<std::string>& errors() const { return errors_; }

  // The non-empty terms, in order; `index` is the term's place in nodeSelectorTerms, `valid`
  // false when it does not parse (it never matches).
  struct Term {
    const api::NodeSelectorTerm* term;
    bool valid;
    size_t index;
  };
  const std::vector<Term>& terms() const { return terms_; }

 private:
  std::vector<Term> terms_;
  std::vector<std::string> errors_;
};

// Preferred terms with their weights (upstream's PreferredSchedulingTerms). Terms with weight 0
// or no requirements are dropped.
class PreferredTerms {
 public:
  PreferredTerms() = default;
  // Compiles the terms; on parse errors *errs is filled and the result must not be used.
  PreferredTerms(const std::vector<api::PreferredSchedulingTerm>& terms, const std::string& path,
                 std::vector<std::string>* errs);

  // Sum of the weights of the terms the node matches.
  int64_t Score(const api::Node& node) const;

 private:
  std::vector<std::pair<const api::NodeSelectorTerm*, int64_t>> terms_;
};

}  // namespace berth::plugins::node_affinity
