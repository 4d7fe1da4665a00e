// Object metadata, label/node selectors, node affinity and topology spread constraints, with the
// validation the API server applies to them.

#include <charconv>

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace internal {
namespace {

Ok ParseOperator(const ObjectReader& in, bool node_selector, SelectorOperator* out) {
  const Value* f = in.Get("operator");
  std::string path = in.PathOf("operator");
  if (f == nullptr) return PathError(path, "operator is required");
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
Ok CheckValues(const ObjectReader& in, SelectorOperator op,
               const std::vector<std::string>& values) {
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
            internal::IndexPath(path, 0),
            "must be an integer when `operator` is 'Lt' or 'Gt', got \"" + values[0] + "\"");
      }
      return Ok();
  }
  return Ok();
}

Ok RequireKey(const ObjectReader& in, std::string* key) {
  BERTH_DECODE_TRY(in.String("key", key));
  if (key->empty()) return PathError(in.PathOf("key"), "key is required");
  return Ok();
}

Ok DecodeNodeSelectorRequirement(const ObjectReader& in, NodeSelectorRequirement* out) {
  BERTH_DECODE_TRY(RequireKey(in, &out->key));
  BERTH_DECODE_TRY(ParseOperator(in, /*node_selector=*/true, &out->op));
  BERTH_DECODE_TRY(in.Strings("values", &out->values));
  return CheckValues(in, out->op, out->values);
}

Ok DecodeFieldRequirement(const ObjectReader& in, NodeSelectorRequirement* out) {
  BERTH_DECODE_TRY(RequireKey(in, &out->key));
  if (out->key != "metadata.name") {
    return PathError(in.PathOf("key"), "unsupported field key \"" + out->key +
                                           "\": only \"metadata.name\" is supported");
  }
  BERTH_DECODE_TRY(ParseOperator(in, /*node_selector=*/true, &out->op));
  if (out->op != SelectorOperator::kIn && out->op != SelectorOperator::kNotIn) {
    return PathError(in.PathOf("operator"), "only 'In' and 'NotIn' are supported for matchFields");
  }
  BERTH_DECODE_TRY(in.Strings("values", &out->values));
  if (out->values.size() != 1) {
    return PathError(in.PathOf("values"),
                     "must be only one value when `operator` is 'In' or 'NotIn' for node field "
                     "selector");
  }
  return Ok();
}

Ok DecodeLabelSelectorRequirement(const ObjectReader& in, LabelSelectorRequirement* out) {
  BERTH_DECODE_TRY(RequireKey(in, &out->key));
  BERTH_DECODE_TRY(ParseOperator(in, /*node_selector=*/false, &out->op));
  BERTH_DECODE_TRY(in.Strings("values", &out->values));
  return CheckValues(in, out->op, out->values);
}

Ok DecodePreferredSchedulingTerm(const ObjectReader& in, PreferredSchedulingTerm* out) {
  BERTH_DECODE_TRY(in.Int32("weight", &out->weight));
  if (out->weight < 1 || out->weight > 100) {
    return PathError(in.PathOf("weight"), "must be in the range 1-100");
  }
  auto pref = in.Child("preference");
  BERTH_DECODE_TRY(pref);
  if (!pref->present()) return PathError(in.PathOf("preference"), "preference is required");
  return DecodeNodeSelectorTerm(*pref, &out->preference);
}

Ok DecodeOwnerReference(const ObjectReader& in, OwnerReference* out) {
  BERTH_DECODE_TRY(in.String("apiVersion", &out->api_version));
  BERTH_DECODE_TRY(in.String("kind", &out->kind));
  BERTH_DECODE_TRY(in.String("name", &out->name));
  BERTH_DECODE_TRY(in.String("uid", &out->uid));
  return in.Bool("controller", &out->controller);
}

}  // namespace

Ok DecodeObjectMeta(const ObjectReader& in, ObjectMeta* out) {
  BERTH_DECODE_TRY(in.String("name", &out->name));
  BERTH_DECODE_TRY(in.String("namespace", &out->namespace_));
  BERTH_DECODE_TRY(in.String("uid", &out->uid));
  BERTH_DECODE_TRY(in.String("resourceVersion", &out->resource_version));
  BERTH_DECODE_TRY(in.String("generateName", &out->generate_name));
  BERTH_DECODE_TRY(in.Int64("generation", &out->generation));
  BERTH_DECODE_TRY(in.StringMap("labels", &out->labels));
  BERTH_DECODE_TRY(in.StringMap("annotations", &out->annotations));
  BERTH_DECODE_TRY(in.Timestamp("creationTimestamp", &out->creation_timestamp));
  BERTH_DECODE_TRY(in.Timestamp("deletionTimestamp", &out->deletion_timestamp));
  return in.List("ownerReferences", &out->owner_references, DecodeOwnerReference);
}

Ok DecodeLabelSelectorInto(const ObjectReader& in, LabelSelector* out) {
  BERTH_DECODE_TRY(in.StringMap("matchLabels", &out->match_labels));
  return in.List("matchExpressions", &out->match_expressions, DecodeLabelSelectorRequirement);
}

Ok DecodeOptLabelSelector(const ObjectReader& parent, std::string_view key,
                          std::optional<LabelSelector>* out) {
  auto in = parent.Child(key);
  BERTH_DECODE_TRY(in);
  if (!in->present()) return Ok();
  LabelSelector selector;
  BERTH_DECODE_TRY(DecodeLabelSelectorInto(*in, &selector));
  *out = std::move(selector);
  return Ok();
}

Ok DecodeNodeSelectorTerm(const ObjectReader& in, NodeSelectorTerm* out) {
  BERTH_DECODE_TRY(
      in.List("matchExpressions", &out->match_expressions, DecodeNodeSelectorRequirement));
  return in.List("matchFields", &out->match_fields, DecodeFieldRequirement);
}

Ok DecodeNodeSelectorInto(const ObjectReader& in, NodeSelector* out) {
  return in.List("nodeSelectorTerms", &out->terms, DecodeNodeSelectorTerm);
}

Ok DecodeNodeAffinityInto(const ObjectReader& in, NodeAffinity* out) {
  auto required = in.Child("requiredDuringSchedulingIgnoredDuringExecution");
  BERTH_DECODE_TRY(required);
  if (required->present()) {
    NodeSelector selector;
    BERTH_DECODE_TRY(DecodeNodeSelectorInto(*required, &selector));
    out->required = std::move(selector);
  }
  return in.List("preferredDuringSchedulingIgnoredDuringExecution", &out->preferred,
                 DecodePreferredSchedulingTerm);
}

Ok DecodeTopologySpreadConstraintInto(const ObjectReader& in, TopologySpreadConstraint* out) {
  BERTH_DECODE_TRY(in.Int32("maxSkew", &out->max_skew));
  if (out->max_skew <= 0) {
    return PathError(in.PathOf("maxSkew"), "must be greater than zero");
  }
  BERTH_DECODE_TRY(in.String("topologyKey", &out->topology_key));
  if (out->topology_key.empty()) {
    return PathError(in.PathOf("topologyKey"), "can not be empty");
  }
  if (in.Get("whenUnsatisfiable") == nullptr) {
    return PathError(in.PathOf("whenUnsatisfiable"), "whenUnsatisfiable is required");
  }
  BERTH_DECODE_TRY(
      in.Enum("whenUnsatisfiable", {"DoNotSchedule", "ScheduleAnyway"}, &out->when_unsatisfiable));
  BERTH_DECODE_TRY(DecodeOptLabelSelector(in, "labelSelector", &out->label_selector));
  BERTH_DECODE_TRY(in.OptInt32("minDomains", &out->min_domains));
  if (out->min_domains.has_value()) {
    if (*out->min_domains <= 0) {
      return PathError(in.PathOf("minDomains"), "must be greater than zero");
    }
    if (out->when_unsatisfiable != "DoNotSchedule") {
      return PathError(in.PathOf("minDomains"),
                       "can only be used when whenUnsatisfiable is DoNotSchedule");
    }
  }
  BERTH_DECODE_TRY(
      in.Enum("nodeAffinityPolicy", {"", "Honor", "Ignore"}, &out->node_affinity_policy));
  BERTH_DECODE_TRY(in.Enum("nodeTaintsPolicy", {"", "Honor", "Ignore"}, &out->node_taints_policy));
  return in.Strings("matchLabelKeys", &out->match_label_keys);
}

Ok DecodeResourceRequirements(const ObjectReader& in, ResourceRequirements* out) {
  BERTH_DECODE_TRY(in.Resources("requests", &out->requests));
  return in.Resources("limits", &out->limits);
}

}  // namespace internal

namespace {

// Runs `decode` on `v` (which must be an object) with error paths prefixed by `path`.
template <typename T, typename F>
Result<T> DecodePiece(const Value& v, const std::string& path, F decode) {
  if (!v.IsObject()) return internal::TypeError(path, "object", v);
  auto in = internal::ObjectReader::Of(&v, path);
  BERTH_DECODE_TRY(in);
  T out{};
  BERTH_DECODE_TRY(decode(*in, &out));
  return out;
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
