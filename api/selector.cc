#include "api/selector.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

namespace berth::api {
namespace {

bool Contains(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no spaces.
bool ParseInt64(std::string_view s, int64_t* out) {
  bool plus = !s.empty() && s[0] == '+';
  if (plus) s.remove_prefix(1);
  if (s.empty() || (plus && (s[0] == '+' || s[0] == '-'))) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

// labels.Requirement.Matches for the six operators.
bool MatchesOperator(SelectorOperator op, const std::string& key,
                     const std::vector<std::string>& values, const Labels& labels) {
  auto it = labels.find(key);
  bool has = it != labels.end();
  switch (op) {
    case SelectorOperator::kIn:
      return has && Contains(values, it->second);
    case SelectorOperator::kNotIn:
      return !has || !Contains(values, it->second);
    case SelectorOperator::kExists:
      return has;
    case SelectorOperator::kDoesNotExist:
      return !has;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt: {
      if (!has || values.size() != 1) return false;
      int64_t label_value = 0, bound = 0;
      if (!ParseInt64(it->second, &label_value) || !ParseInt64(values[0], &bound)) return false;
      return op == SelectorOperator::kGt ? label_value > bound : label_value < bound;
    }
  }
  return false;
}

bool MatchesField(const NodeSelectorRequirement& req, std::string_view node_name) {
  if (req.key != "metadata.name") return false;
  switch (req.op) {
    case SelectorOperator::kIn:
      return Contains(req.values, node_name);
    case SelectorOperator::kNotIn:
      return !Contains(req.values, node_name);
    default:
      return false;
  }
}

}  // namespace

bool Matches(const LabelSelector& selector, const Labels& labels) {
  if (!MatchesMap(selector.match_labels, labels)) return false;
  for (const auto& req : selector.match_expressions) {
    if (!MatchesOperator(req.op, req.key, req.values, labels)) return false;
  }
  return true;
}

bool MatchesMap(const Labels& selector, const Labels& labels) {
  for (const auto& [k, v] : selector) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

bool MatchesRequirement(const NodeSelectorRequirement& req, const Labels& labels) {
  return MatchesOperator(req.op, req.key, req.values, labels);
}

bool MatchesTerm(const NodeSelectorTerm& term, const Labels& labels, std::string_view node_name) {
  // Same as upstream's nodeaffinity.nodeSelectorTerm: an empty term matches no objects.
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& req : term.match_expressions) {
    if (!MatchesRequirement(req, labels)) return false;
  }
  for (const auto& req : term.match_fields) {
    if (!MatchesField(req, node_name)) return false;
  }
  return true;
}

bool Matches(const NodeSelector& selector, const Labels& labels, std::string_view node_name) {
  for (const auto& term : selector.terms) {
    if (MatchesTerm(term, labels, node_name)) return true;
  }
  return false;
}

bool Tolerates(const Toleration& toleration, const Taint& taint) {
  // Same as upstream's v1.Toleration.ToleratesTaint.
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.operator_.empty() || toleration.operator_ == "Equal") {
    return toleration.value == taint.value;
  }
  return toleration.operator_ == "Exists";
}

bool TolerationsTolerate(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return Tolerates(t, taint); });
}

}  // namespace berth::api
