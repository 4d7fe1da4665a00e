#pragma once
// Label selector and node selector matching, with upstream's semantics:
// - LabelSelector: matchLabels AND every matchExpression (In/NotIn/Exists/DoesNotExist); an empty
//   selector matches everything (metav1.LabelSelectorAsSelector).
// - NodeSelector: terms ORed, requirements ANDed; a term with no requirements matches nothing;
//   Gt/Lt compare the label value as an integer (a non-integer never matches); matchFields supports
//   only metadata.name.
// Validation (what the API server would reject) is done by the decoder, not here.

#include <string_view>

#include "api/types.h"

namespace berth::api {

bool Matches(const LabelSelector& selector, const Labels& labels);
// A matchLabels-only selector over a plain map (Service.spec.selector, nodeSelector).
bool MatchesMap(const Labels& selector, const Labels& labels);

bool MatchesRequirement(const NodeSelectorRequirement& req, const Labels& labels);
// node_name is used for matchFields (metadata.name).
bool MatchesTerm(const NodeSelectorTerm& term, const Labels& labels, std::string_view node_name);
bool Matches(const NodeSelector& selector, const Labels& labels, std::string_view node_name);

// Tolerations: upstream's v1.Toleration.ToleratesTaint.
bool Tolerates(const Toleration& toleration, const Taint& taint);
// True when any toleration tolerates the taint.
bool TolerationsTolerate(const std::vector<Toleration>& tolerations, const Taint& taint);

}  // namespace berth::api
