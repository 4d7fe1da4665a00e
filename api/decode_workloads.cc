// ReplicationController, ReplicaSet and StatefulSet decoding: only what system default spreading
// reads (metadata and spec.selector), as upstream's helper.DefaultSelector does.

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace {

Ok DecodeMeta(const Reader& root, ObjectMeta* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  return internal::DecodeObjectMeta(meta, out);
}

Ok DecodeReplicationControllerInto(const Reader& root, ReplicationController* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  return spec.StringMap("selector", &out->selector);
}

// ReplicaSet and StatefulSet: spec.selector is a metav1.LabelSelector.
template <typename T>
Ok DecodeSelectedInto(const Reader& root, T* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  return internal::DecodeOptLabelSelector(spec, "selector", &out->selector);
}

}  // namespace

Result<ReplicationController> DecodeReplicationController(const Value& v) {
  return internal::DecodeRoot<ReplicationController>(v, DecodeReplicationControllerInto);
}

Result<ReplicaSet> DecodeReplicaSet(const Value& v) {
  return internal::DecodeRoot<ReplicaSet>(v, DecodeSelectedInto<ReplicaSet>);
}

Result<StatefulSet> DecodeStatefulSet(const Value& v) {
  return internal::DecodeRoot<StatefulSet>(v, DecodeSelectedInto<StatefulSet>);
}

}  // namespace berth::api
