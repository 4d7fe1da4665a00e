#pragma once
// Typed pieces shared by the decode_*.cc files; not part of berth_api's interface. They read
// through api::Reader (api/reader.h) in kObjectMode: unknown fields are ignored, as the API
// server's clients do.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/decode.h"
#include "api/reader.h"
#include "api/types.h"
#include "api/value.h"
#include "base/result.h"

namespace berth::api::internal {

// Typed pieces shared across kinds.
Ok DecodeObjectMeta(const Reader& in, ObjectMeta* out);
Ok DecodeLabelSelectorInto(const Reader& in, LabelSelector* out);
Ok DecodeOptLabelSelector(const Reader& parent, std::string_view key,
                          std::optional<LabelSelector>* out);
Ok DecodeNodeSelectorInto(const Reader& in, NodeSelector* out);
Ok DecodeNodeSelectorTerm(const Reader& in, NodeSelectorTerm* out);
Ok DecodeNodeAffinityInto(const Reader& in, NodeAffinity* out);
Ok DecodeTopologySpreadConstraintInto(const Reader& in, TopologySpreadConstraint* out);
Ok DecodeResourceRequirements(const Reader& in, ResourceRequirements* out);

// Decodes a whole object of type T with `decode(const Reader& root, T*)`.
template <typename T, typename F>
Result<T> DecodeRoot(const Value& v, F decode) {
  return ReadObject<T>(v, "", kObjectMode, decode);
}

}  // namespace berth::api::internal
