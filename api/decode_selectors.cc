// Object metadata, label/node selectors, node affinity and topology spread constraints, with the
// validation the API server applies to them.

#include <charconv>

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace internal {
namespace {

Ok ParseOperator(const Reader& in, bool node_selector, SelectorOperator* out) {
  const Value* f = in.Get("operator");
  std::string path = in.PathOf("operator");
  if (f == nullptr) return RequiredError(path);
  if (!f->IsString()) return TypeError(path, "string", *f);
  const std::string& s = f->AsString();
  if (s == "In") {
    *out = SelectorOperator::kIn;
  } else if (s == "NotIn") {
    *out = SelectorOperator::kNotIn;
  } else if (s == "Exists") {
    *out = SelectorOperator::kExists;
  } else if (s == "DoesNotExist") {
    *out = SelectorOperator::kDoesNotExist;
  } else if (node_selector && s == "Gt") {
    *out = SelectorOperator::kGt;
  } else if (node_selector && s == "Lt") {
    *out = SelectorOperator::kLt;
  } else {
    return PathError(path, "unsupported operator \"" + s + "\"");
  }
  return Ok();
}

bool IsInt64(std::string_view s) {
  bool plus = !s.empty() && s[0] == '+';
  if (plus) s.remove_prefix(1);
  if (s.empty() || (plus && (s[0] == '+' || s[0] == '-'))) return false;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

// Upstream's ValidateNodeSelectorRequirement / ValidateLabelSelectorRequirement value rules.
Ok CheckValues(const Reader& in, SelectorOperator op, const std::vector<std::string>& values) {
  std::string path = in.PathOf("values");
  switch (op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      if (values.empty()) {
        return PathError(path, "must be specified when `operator` is 'In' or 'NotIn'");
      }
      return Ok();
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      if (!values.empty()) {
        return PathError(path,
                         "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      }
      return Ok();
    case SelectorOperator::kGt:
    case SelectorOperator::kLt:
      if (values.size() != 1) {
        return PathError(path, "must be specified single value when `operator` is 'Lt' or 'Gt'");
      }
      if (!IsInt64(values[0])) {
        return PathError(
            IndexPath(path, 0),
            "must be an integer when `operator` is 'Lt' or 'Gt', got \"" + values[0] + "\"");
      }
      return Ok();
  }
  return Ok();
}

Ok RequireKey(const Reader& in, std::string* key) {
  BERTH_RETURN_IF_ERROR(in.String("key", key));
  if (key->empty()) return RequiredError(in.PathOf("key"));
  return Ok();
}

Ok DecodeNodeSelectorRequirement(const Reader& in, NodeSelectorRequirement* out) {
  BERTH_RETURN_IF_ERROR(RequireKey(in, &out->key));
  BERTH_RETURN_IF_ERROR(ParseOperator(in, /*node_selector=*/true, &out->op));
  BERTH_RETURN_IF_ERROR(in.Strings("values", &out->values));
  return CheckValues(in, out->op, out->values);
}

Ok DecodeFieldRequirement(const Reader& in, NodeSelectorRequirement* out) {
  BERTH_RETURN_IF_ERROR(RequireKey(in, &out->key));
  if (out->key != "metadata.name") {
    return PathError(in.PathOf("key"), "unsupported field key \"" + out->key +
                                           "\": only \"metadata.name\" is supported");
  }
  BERTH_RETURN_IF_ERROR(ParseOperator(in, /*node_selector=*/true, &out->op));
  if (out->op != SelectorOperator::kIn && out->op != SelectorOperator::kNotIn) {
    return PathError(in.PathOf("operator"), "only 'In' and 'NotIn' are supported for matchFields");
  }
  BERTH_RETURN_IF_ERROR(in.Strings("values", &out->values));
  if (out->values.size() != 1) {
    return PathError(in.PathOf("values"),
                     "must be only one value when `operator` is 'In' or 'NotIn' for node field "
                     "selector");
  }
  return Ok();
}

Ok DecodeLabelSelectorRequirement(const Reader& in, LabelSelectorRequirement* out) {
  BERTH_RETURN_IF_ERROR(RequireKey(in, &out->key));
  BERTH_RETURN_IF_ERROR(ParseOperator(in, /*node_selector=*/false, &out->op));
  BERTH_RETURN_IF_ERROR(in.Strings("values", &out->values));
  return CheckValues(in, out->op, out->values);
}

Ok DecodePreferredSchedulingTerm(const Reader& in, PreferredSchedulingTerm* out) {
  BERTH_RETURN_IF_ERROR(in.Int32("weight", &out->weight));
  if (out->weight < 1 || out->weight > 100) {
    return PathError(in.PathOf("weight"), "must be in the range 1-100");
  }
  BERTH_ASSIGN_OR_RETURN(Reader pref, in.Child("preference"));
  if (!pref.present()) return RequiredError(in.PathOf("preference"));
  return DecodeNodeSelectorTerm(pref, &out->preference);
}

Ok DecodeOwnerReference(const Reader& in, OwnerReference* out) {
  BERTH_RETURN_IF_ERROR(in.String("apiVersion", &out->api_version));
  BERTH_RETURN_IF_ERROR(in.String("kind", &out->kind));
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  BERTH_RETURN_IF_ERROR(in.String("uid", &out->uid));
  return in.Bool("controller", &out->controller);
}

}  // namespace

Ok DecodeObjectMeta(const Reader& in, ObjectMeta* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  BERTH_RETURN_IF_ERROR(in.String("namespace", &out->namespace_));
  BERTH_RETURN_IF_ERROR(in.String("uid", &out->uid));
  BERTH_RETURN_IF_ERROR(in.String("resourceVersion", &out->resource_version));
  BERTH_RETURN_IF_ERROR(in.String("generateName", &out->generate_name));
  BERTH_RETURN_IF_ERROR(in.Int64("generation", &out->generation));
  BERTH_RETURN_IF_ERROR(in.StringMap("labels", &out->labels));
  BERTH_RETURN_IF_ERROR(in.StringMap("annotations", &out->annotations));
  BERTH_RETURN_IF_ERROR(in.Timestamp("creationTimestamp", &out->creation_timestamp));
  BERTH_RETURN_IF_ERROR(in.Timestamp("deletionTimestamp", &out->deletion_timestamp));
  return in.List("ownerReferences", &out->owner_references, DecodeOwnerReference);
}

Ok DecodeLabelSelectorInto(const Reader& in, LabelSelector* out) {
  BERTH_RETURN_IF_ERROR(in.StringMap("matchLabels", &out->match_labels));
  return in.List("matchExpressions", &out->match_expressions, DecodeLabelSelectorRequirement);
}

Ok DecodeOptLabelSelector(const Reader& parent, std::string_view key,
                          std::optional<LabelSelector>* out) {
  BERTH_ASSIGN_OR_RETURN(Reader in, parent.Child(key));
  if (!in.present()) return Ok();
  LabelSelector selector;
  BERTH_RETURN_IF_ERROR(DecodeLabelSelectorInto(in, &selector));
  *out = std::move(selector);
  return Ok();
}

Ok DecodeNodeSelectorTerm(const Reader& in, NodeSelectorTerm* out) {
  BERTH_RETURN_IF_ERROR(
      in.List("matchExpressions", &out->match_expressions, DecodeNodeSelectorRequirement));
  return in.List("matchFields", &out->match_fields, DecodeFieldRequirement);
}

Ok DecodeNodeSelectorInto(const Reader& in, NodeSelector* out) {
  return in.List("nodeSelectorTerms", &out->terms, DecodeNodeSelectorTerm);
}

Ok DecodeNodeAffinityInto(const Reader& in, NodeAffinity* out) {
  BERTH_ASSIGN_OR_RETURN(Reader required,
                         in.Child("requiredDuringSchedulingIgnoredDuringExecution"));
  if (required.present()) {
    NodeSelector selector;
    BERTH_RETURN_IF_ERROR(DecodeNodeSelectorInto(required, &selector));
    out->required = std::move(selector);
  }
  return in.List("preferredDuringSchedulingIgnoredDuringExecution", &out->preferred,
                 DecodePreferredSchedulingTerm);
}

Ok DecodeTopologySpreadConstraintInto(const Reader& in, TopologySpreadConstraint* out) {
  BERTH_RETURN_IF_ERROR(in.Int32("maxSkew", &out->max_skew));
  if (out->max_skew <= 0) {
    return PathError(in.PathOf("maxSkew"), "must be greater than zero");
  }
  BERTH_RETURN_IF_ERROR(in.String("topologyKey", &out->topology_key));
  if (out->topology_key.empty()) {
    return PathError(in.PathOf("topologyKey"), "can not be empty");
  }
  BERTH_RETURN_IF_ERROR(in.Require("whenUnsatisfiable"));
  BERTH_RETURN_IF_ERROR(
      in.Enum("whenUnsatisfiable", {"DoNotSchedule", "ScheduleAnyway"}, &out->when_unsatisfiable));
  BERTH_RETURN_IF_ERROR(DecodeOptLabelSelector(in, "labelSelector", &out->label_selector));
  BERTH_RETURN_IF_ERROR(in.OptInt32("minDomains", &out->min_domains));
  if (out->min_domains.has_value()) {
    if (*out->min_domains <= 0) {
      return PathError(in.PathOf("minDomains"), "must be greater than zero");
    }
    if (out->when_unsatisfiable != "DoNotSchedule") {
      return PathError(in.PathOf("minDomains"),
                       "can only be used when whenUnsatisfiable is DoNotSchedule");
    }
  }
  BERTH_RETURN_IF_ERROR(
      in.Enum("nodeAffinityPolicy", {"", "Honor", "Ignore"}, &out->node_affinity_policy));
  BERTH_RETURN_IF_ERROR(
      in.Enum("nodeTaintsPolicy", {"", "Honor", "Ignore"}, &out->node_taints_policy));
  return in.Strings("matchLabelKeys", &out->match_label_keys);
}

Ok DecodeResourceRequirements(const Reader& in, ResourceRequirements* out) {
  BERTH_RETURN_IF_ERROR(in.Resources("requests", &out->requests));
  return in.Resources("limits", &out->limits);
}

}  // namespace internal

namespace {

// Runs `decode` on `v` (which must be an object) with error paths prefixed by `path`.
// Pieces embedded in plugin args are read as objects are (unknown fields ignored).
template <typename T, typename F>
Result<T> DecodePiece(const Value& v, const std::string& path, F decode) {
  return ReadObject<T>(v, path, kObjectMode, decode);
}

}  // namespace

Result<NodeAffinity> DecodeNodeAffinity(const Value& v, const std::string& path) {
  return DecodePiece<NodeAffinity>(v, path, internal::DecodeNodeAffinityInto);
}

Result<NodeSelector> DecodeNodeSelector(const Value& v, const std::string& path) {
  return DecodePiece<NodeSelector>(v, path, internal::DecodeNodeSelectorInto);
}

Result<LabelSelector> DecodeLabelSelector(const Value& v, const std::string& path) {
  return DecodePiece<LabelSelector>(v, path, internal::DecodeLabelSelectorInto);
}

Result<TopologySpreadConstraint> DecodeTopologySpreadConstraint(const Value& v,
                                                                const std::string& path) {
  return DecodePiece<TopologySpreadConstraint>(v, path,
                                               internal::DecodeTopologySpreadConstraintInto);
}

}  // namespace berth::api
