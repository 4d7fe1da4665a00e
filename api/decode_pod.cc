// Pod decoding (v1.Pod): the spec fields the scheduler's plugins read, with the API server's
// validation for enums, ports, tolerations and affinity terms.

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace {

using internal::ObjectReader;
using internal::PathError;

Ok DecodeContainerPort(const ObjectReader& in, ContainerPort* out) {
  BERTH_DECODE_TRY(in.String("name", &out->name));
  if (in.Get("containerPort") == nullptr) {
    return PathError(in.PathOf("containerPort"), "containerPort is required");
  }
  BERTH_DECODE_TRY(in.Int32("containerPort", &out->container_port));
  if (out->container_port < 1 || out->container_port > 65535) {
    return PathError(in.PathOf("containerPort"), "must be between 1 and 65535, inclusive");
  }
  BERTH_DECODE_TRY(in.Int32("hostPort", &out->host_port));
  if (out->host_port < 0 || out->host_port > 65535) {
    return PathError(in.PathOf("hostPort"), "must be between 1 and 65535, inclusive");
  }
  BERTH_DECODE_TRY(in.Enum("protocol", {"TCP", "UDP", "SCTP"}, &out->protocol));
  return in.String("hostIP", &out->host_ip);
}

Ok DecodeContainerCommon(const ObjectReader& in, Container* out) {
  BERTH_DECODE_TRY(in.String("name", &out->name));
  BERTH_DECODE_TRY(in.String("image", &out->image));
  auto resources = in.Child("resources");
  BERTH_DECODE_TRY(resources);
  BERTH_DECODE_TRY(internal::DecodeResourceRequirements(*resources, &out->resources));
  return in.List("ports", &out->ports, DecodeContainerPort);
}

Ok DecodeContainer(const ObjectReader& in, Container* out) {
  BERTH_DECODE_TRY(DecodeContainerCommon(in, out));
  return in.Enum("restartPolicy", {"", "Always", "OnFailure", "Never"}, &out->restart_policy);
}

Ok DecodeInitContainer(const ObjectReader& in, Container* out) {
  BERTH_DECODE_TRY(DecodeContainerCommon(in, out));
  // Only "Always" (a restartable sidecar) is allowed on init containers.
  return in.Enum("restartPolicy", {"", "Always"}, &out->restart_policy);
}

Ok DecodeToleration(const ObjectReader& in, Toleration* out) {
  BERTH_DECODE_TRY(in.String("key", &out->key));
  out->operator_.clear();
  BERTH_DECODE_TRY(in.Enum("operator", {"", "Equal", "Exists"}, &out->operator_));
  if (out->operator_.empty()) out->operator_ = "Equal";
  BERTH_DECODE_TRY(in.String("value", &out->value));
  BERTH_DECODE_TRY(
      in.Enum("effect", {"", "NoSchedule", "PreferNoSchedule", "NoExecute"}, &out->effect));
  BERTH_DECODE_TRY(in.OptInt64("tolerationSeconds", &out->toleration_seconds));
  // Same rules as upstream's ValidateTolerations.
  if (out->key.empty() && out->operator_ != "Exists") {
    return PathError(in.PathOf("operator"),
                     "operator must be Exists when `key` is empty, which means \"match all values "
                     "and all keys\"");
  }
  if (out->operator_ == "Exists" && !out->value.empty()) {
    return PathError(in.PathOf("value"), "value must be empty when `operator` is 'Exists'");
  }
  if (out->toleration_seconds.has_value() && out->effect != "NoExecute") {
    return PathError(in.PathOf("effect"),
                     "effect must be 'NoExecute' when `tolerationSeconds` is set");
  }
  return Ok();
}

Ok DecodePodAffinityTerm(const ObjectReader& in, PodAffinityTerm* out) {
  BERTH_DECODE_TRY(internal::DecodeOptLabelSelector(in, "labelSelector", &out->label_selector));
  BERTH_DECODE_TRY(in.Strings("namespaces", &out->namespaces));
  BERTH_DECODE_TRY(in.String("topologyKey", &out->topology_key));
  if (out->topology_key.empty()) return PathError(in.PathOf("topologyKey"), "can not be empty");
  BERTH_DECODE_TRY(
      internal::DecodeOptLabelSelector(in, "namespaceSelector", &out->namespace_selector));
  BERTH_DECODE_TRY(in.Strings("matchLabelKeys", &out->match_label_keys));
  return in.Strings("mismatchLabelKeys", &out->mismatch_label_keys);
}

Ok DecodeWeightedPodAffinityTerm(const ObjectReader& in, WeightedPodAffinityTerm* out) {
  BERTH_DECODE_TRY(in.Int32("weight", &out->weight));
  if (out->weight < 1 || out->weight > 100) {
    return PathError(in.PathOf("weight"), "must be in the range 1-100");
  }
  auto term = in.Child("podAffinityTerm");
  BERTH_DECODE_TRY(term);
  if (!term->present()) {
    return PathError(in.PathOf("podAffinityTerm"), "podAffinityTerm is required");
  }
  return DecodePodAffinityTerm(*term, &out->term);
}

Ok DecodePodAffinity(const ObjectReader& parent, std::string_view key,
                     std::optional<PodAffinity>* out) {
  auto in = parent.Child(key);
  BERTH_DECODE_TRY(in);
  if (!in->present()) return Ok();
  PodAffinity affinity;
  BERTH_DECODE_TRY(in->List("requiredDuringSchedulingIgnoredDuringExecution", &affinity.required,
                            DecodePodAffinityTerm));
  BERTH_DECODE_TRY(in->List("preferredDuringSchedulingIgnoredDuringExecution", &affinity.preferred,
                            DecodeWeightedPodAffinityTerm));
  *out = std::move(affinity);
  return Ok();
}

Ok DecodeAffinity(const ObjectReader& spec, std::optional<Affinity>* out) {
  auto in = spec.Child("affinity");
  BERTH_DECODE_TRY(in);
  if (!in->present()) return Ok();
  Affinity affinity;
  auto node = in->Child("nodeAffinity");
  BERTH_DECODE_TRY(node);
  if (node->present()) {
    NodeAffinity node_affinity;
    BERTH_DECODE_TRY(internal::DecodeNodeAffinityInto(*node, &node_affinity));
    affinity.node_affinity = std::move(node_affinity);
  }
  BERTH_DECODE_TRY(DecodePodAffinity(*in, "podAffinity", &affinity.pod_affinity));
  BERTH_DECODE_TRY(DecodePodAffinity(*in, "podAntiAffinity", &affinity.pod_anti_affinity));
  *out = std::move(affinity);
  return Ok();
}

Ok DecodeVolume(const ObjectReader& in, Volume* out) {
  BERTH_DECODE_TRY(in.String("name", &out->name));
  auto pvc = in.Child("persistentVolumeClaim");
  BERTH_DECODE_TRY(pvc);
  if (pvc->present()) {
    BERTH_DECODE_TRY(pvc->String("claimName", &out->pvc_claim_name));
    if (out->pvc_claim_name.empty()) {
      return PathError(pvc->PathOf("claimName"), "claimName is required");
    }
    BERTH_DECODE_TRY(pvc->Bool("readOnly", &out->pvc_read_only));
  }
  auto ephemeral = in.Child("ephemeral");
  BERTH_DECODE_TRY(ephemeral);
  out->ephemeral = ephemeral->present();
  auto gce = in.Child("gcePersistentDisk");
  BERTH_DECODE_TRY(gce);
  BERTH_DECODE_TRY(gce->String("pdName", &out->gce_pd_name));
  BERTH_DECODE_TRY(gce->Bool("readOnly", &out->gce_pd_read_only));
  auto ebs = in.Child("awsElasticBlockStore");
  BERTH_DECODE_TRY(ebs);
  BERTH_DECODE_TRY(ebs->String("volumeID", &out->aws_ebs_volume_id));
  auto iscsi = in.Child("iscsi");
  BERTH_DECODE_TRY(iscsi);
  BERTH_DECODE_TRY(iscsi->String("targetPortal", &out->iscsi_target_portal));
  BERTH_DECODE_TRY(iscsi->String("iqn", &out->iscsi_iqn));
  BERTH_DECODE_TRY(iscsi->Int32("lun", &out->iscsi_lun));
  BERTH_DECODE_TRY(iscsi->Bool("readOnly", &out->iscsi_read_only));
  auto rbd = in.Child("rbd");
  BERTH_DECODE_TRY(rbd);
  if (rbd->present()) {
    out->rbd_pool = "rbd";  // the API's default pool
    BERTH_DECODE_TRY(rbd->Strings("monitors", &out->rbd_monitors));
    BERTH_DECODE_TRY(rbd->String("pool", &out->rbd_pool));
    BERTH_DECODE_TRY(rbd->String("image", &out->rbd_image));
    BERTH_DECODE_TRY(rbd->Bool("readOnly", &out->rbd_read_only));
  }
  auto csi = in.Child("csi");
  BERTH_DECODE_TRY(csi);
  BERTH_DECODE_TRY(csi->String("driver", &out->csi_driver));
  return Ok();
}

Ok DecodeSchedulingGate(const ObjectReader& in, std::string* out) {
  BERTH_DECODE_TRY(in.String("name", out));
  if (out->empty()) return PathError(in.PathOf("name"), "name is required");
  return Ok();
}

Ok DecodePodCondition(const ObjectReader& in, PodCondition* out) {
  BERTH_DECODE_TRY(in.String("type", &out->type));
  BERTH_DECODE_TRY(in.String("status", &out->status));
  BERTH_DECODE_TRY(in.String("reason", &out->reason));
  return in.String("message", &out->message);
}

Ok DecodePodSpec(const ObjectReader& in, PodSpec* out) {
  BERTH_DECODE_TRY(in.String("nodeName", &out->node_name));
  BERTH_DECODE_TRY(in.String("schedulerName", &out->scheduler_name));
  if (out->scheduler_name.empty()) out->scheduler_name = "default-scheduler";
  BERTH_DECODE_TRY(in.List("containers", &out->containers, DecodeContainer));
  BERTH_DECODE_TRY(in.List("initContainers", &out->init_containers, DecodeInitContainer));
  BERTH_DECODE_TRY(in.Resources("overhead", &out->overhead));
  BERTH_DECODE_TRY(in.StringMap("nodeSelector", &out->node_selector));
  BERTH_DECODE_TRY(DecodeAffinity(in, &out->affinity));
  BERTH_DECODE_TRY(in.List("tolerations", &out->tolerations, DecodeToleration));
  BERTH_DECODE_TRY(in.OptInt32("priority", &out->priority));
  BERTH_DECODE_TRY(in.String("priorityClassName", &out->priority_class_name));
  BERTH_DECODE_TRY(
      in.Enum("preemptionPolicy", {"", "PreemptLowerPriority", "Never"}, &out->preemption_policy));
  BERTH_DECODE_TRY(in.List("schedulingGates", &out->scheduling_gates, DecodeSchedulingGate));
  BERTH_DECODE_TRY(in.List("topologySpreadConstraints", &out->topology_spread_constraints,
                           internal::DecodeTopologySpreadConstraintInto));
  BERTH_DECODE_TRY(in.List("volumes", &out->volumes, DecodeVolume));
  return in.Bool("hostNetwork", &out->host_network);
}

Ok DecodePodInto(const ObjectReader& root, Pod* out) {
  auto meta = root.Child("metadata");
  BERTH_DECODE_TRY(meta);
  BERTH_DECODE_TRY(internal::DecodeObjectMeta(*meta, &out->metadata));
  auto spec = root.Child("spec");
  BERTH_DECODE_TRY(spec);
  BERTH_DECODE_TRY(DecodePodSpec(*spec, &out->spec));
  // A generic ephemeral volume's claim is named "<pod>-<volume>" by the ephemeral controller.
  for (auto& volume : out->spec.volumes) {
    if (volume.ephemeral && volume.pvc_claim_name.empty()) {
      volume.pvc_claim_name = out->metadata.name + "-" + volume.name;
    }
  }
  auto status = root.Child("status");
  BERTH_DECODE_TRY(status);
  BERTH_DECODE_TRY(status->String("phase", &out->status.phase));
  BERTH_DECODE_TRY(status->String("nominatedNodeName", &out->status.nominated_node_name));
  BERTH_DECODE_TRY(status->Timestamp("startTime", &out->status.start_time));
  return status->List("conditions", &out->status.conditions, DecodePodCondition);
}

}  // namespace

Result<Pod> DecodePod(const Value& v) { return internal::DecodeRoot<Pod>(v, DecodePodInto); }

}  // namespace berth::api
