#pragma once
// NodeAffinity's explanations (berth's FilterExplainer, scheduler/framework/explain.h): which
// label a node lacks for a nodeSelector or a required node selector. Only for the few nearest
// nodes of a failed pod (kFull); these functions allocate freely. Pure: safe from any thread.

#include <string>

#include "api/types.h"
#include "plugins/node_affinity/selector_terms.h"

namespace berth::plugins::node_affinity {

// The keys of a nodeSelector the node fails, in key order, joined with "; ":
// "needs label zone=eu-1a (node has zone=eu-1b)", "needs label disktype=ssd (node has none)".
// Empty when the node matches.
std::string ExplainNodeSelector(const api::Labels& selector, const api::Node& node);

// The first requirement of `term` the node fails:
//   "zone In [eu-1a, eu-1b]; node has zone=eu-1c", "gpu Exists; node has no label gpu",
//   "cores Gt 4; node has cores=2", "metadata.name In [n1]; node is n2".
// Empty when the node matches the term.
std::string ExplainTerm(const api::NodeSelectorTerm& term, const api::Node& node);

// What the node lacks to match `terms` (ORed): one term's ExplainTerm, or for several each term's
// in parentheses joined with " or "; a term that does not parse reads
// "nodeSelectorTerms[1] does not parse". Empty when the node matches, or there are no terms.
std::string ExplainRequiredTerms(const RequiredTerms& terms, const api::Node& node);

}  // namespace berth::plugins::node_affinity
