#include "plugins/node_affinity/explain.h"

#include <string_view>
#include <vector>

#include "api/selector.h"
#include "base/strings.h"

namespace berth::plugins::node_affinity {
namespace {

std::string_view OperatorName(api::SelectorOperator op) {
  static constexpr std::string_view kNames[] = {"In",           "NotIn", "Exists",
                                                "DoesNotExist", "Gt",    "Lt"};
  return kNames[static_cast<int>(op)];
}

// "zone In [eu-1a, eu-1b]", "gpu Exists", "cores Gt 4".
std::string RequirementText(const api::NodeSelectorRequirement& r) {
  std::string out = r.key + " " + std::string(OperatorName(r.op));
  switch (r.op) {
    case api::SelectorOperator::kIn:
    case api::SelectorOperator::kNotIn:
      out += " [";
      out += Join(r.values);
      out += ']';
      break;
    case api::SelectorOperator::kGt:
    case api::SelectorOperator::kLt:
      out += ' ';
      out += Join(r.values);
      break;
    case api::SelectorOperator::kExists:
    case api::SelectorOperator::kDoesNotExist:
      break;
  }
  return out;
}

// "node has zone=eu-1c" / "node has no label zone".
std::string NodeLabelText(const std::string& key, const api::Labels& labels) {
  auto it = labels.find(key);
  if (it == labels.end()) return "node has no label " + key;
  return "node has " + key + "=" + it->second;
}

}  // namespace

std::string ExplainNodeSelector(const api::Labels& selector, const api::Node& node) {
  const api::Labels& labels = node.metadata.labels;
  std::vector<std::string> parts;
  for (const auto& [key, want] : selector) {
    auto it = labels.find(key);
    if (it != labels.end() && it->second == want) continue;
    parts.push_back("needs label " + key + "=" + want + " (node has " +
                    (it == labels.end() ? std::string("none") : key + "=" + it->second) + ")");
  }
  return Join(parts, "; ");
}

std::string ExplainTerm(const api::NodeSelectorTerm& term, const api::Node& node) {
  for (const auto& r : term.match_expressions) {
    if (!api::MatchesRequirement(r, node.metadata.labels)) {
      return RequirementText(r) + "; " + NodeLabelText(r.key, node.metadata.labels);
    }
  }
  // As TermMatches: matchFields know metadata.name only, and are ignored for a nameless node.
  if (node.metadata.name.empty()) return "";
  for (const auto& r : term.match_fields) {
    const std::string want = r.values.empty() ? std::string() : r.values.front();
    const bool has = r.key == "metadata.name" ? node.metadata.name == want : want.empty();
    if (r.op == api::SelectorOperator::kIn ? !has : has) {
      return RequirementText(r) + "; node is " + node.metadata.name;
    }
  }
  return "";
}

std::string ExplainRequiredTerms(const RequiredTerms& terms, const api::Node& node) {
  std::vector<std::string> parts;
  for (const auto& t : terms.terms()) {
    std::string part = t.valid
                           ? ExplainTerm(*t.term, node)
                           : "nodeSelectorTerms[" + std::to_string(t.index) + "] does not parse";
    if (part.empty()) return "";  // this term matches, so the selector does
    parts.push_back(std::move(part));
  }
  if (parts.size() <= 1) return parts.empty() ? "" : parts.front();
  for (auto& p : parts) p = "(" + p + ")";
  return Join(parts, " or ");
}

}  // namespace berth::plugins::node_affinity
