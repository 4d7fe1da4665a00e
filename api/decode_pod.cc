// Pod decoding (v1.Pod): the spec fields the scheduler's plugins read, with the API server's
// validation for enums, ports, tolerations and affinity terms, and the status fields the
// scheduler reads (conditions, and the resources of an in-place resize).

#include <algorithm>
#include <vector>

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace {

Ok DecodeContainerPort(const Reader& in, ContainerPort* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  BERTH_RETURN_IF_ERROR(in.Require("containerPort"));
  BERTH_RETURN_IF_ERROR(in.Int32("containerPort", &out->container_port));
  if (out->container_port < 1 || out->container_port > 65535) {
    return PathError(in.PathOf("containerPort"), "must be between 1 and 65535, inclusive");
  }
  BERTH_RETURN_IF_ERROR(in.Int32("hostPort", &out->host_port));
  if (out->host_port < 0 || out->host_port > 65535) {
    return PathError(in.PathOf("hostPort"), "must be between 1 and 65535, inclusive");
  }
  BERTH_RETURN_IF_ERROR(in.Enum("protocol", {"TCP", "UDP", "SCTP"}, &out->protocol));
  return in.String("hostIP", &out->host_ip);
}

Ok DecodeRestartRuleAction(const Reader& in, std::string* out) { return in.String("action", out); }

// Only whether any mount has bindMountOptions is kept.
Ok DecodeVolumeMountBindOptions(const Reader& in, bool* has_options) {
  std::vector<std::string> options;
  BERTH_RETURN_IF_ERROR(in.Strings("bindMountOptions", &options));
  *has_options = !options.empty();
  return Ok();
}

Ok DecodeContainerCommon(const Reader& in, Container* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  BERTH_RETURN_IF_ERROR(in.String("image", &out->image));
  BERTH_ASSIGN_OR_RETURN(Reader resources, in.Child("resources"));
  BERTH_RETURN_IF_ERROR(internal::DecodeResourceRequirements(resources, &out->resources));
  BERTH_RETURN_IF_ERROR(
      in.List("restartPolicyRules", &out->restart_policy_rule_actions, DecodeRestartRuleAction));
  std::vector<bool> mounts;
  BERTH_RETURN_IF_ERROR(in.List("volumeMounts", &mounts, [](const Reader& m, bool* has) {
    return DecodeVolumeMountBindOptions(m, has);
  }));
  out->has_bind_mount_options = std::find(mounts.begin(), mounts.end(), true) != mounts.end();
  return in.List("ports", &out->ports, DecodeContainerPort);
}

Ok DecodeContainer(const Reader& in, Container* out) {
  BERTH_RETURN_IF_ERROR(DecodeContainerCommon(in, out));
  return in.Enum("restartPolicy", {"", "Always", "OnFailure", "Never"}, &out->restart_policy);
}

Ok DecodeInitContainer(const Reader& in, Container* out) {
  BERTH_RETURN_IF_ERROR(DecodeContainerCommon(in, out));
  // Only "Always" (a restartable sidecar) is allowed on init containers.
  return in.Enum("restartPolicy", {"", "Always"}, &out->restart_policy);
}

Ok DecodeToleration(const Reader& in, Toleration* out) {
  BERTH_RETURN_IF_ERROR(in.String("key", &out->key));
  out->operator_.clear();
  BERTH_RETURN_IF_ERROR(in.Enum("operator", {"", "Equal", "Exists"}, &out->operator_));
  if (out->operator_.empty()) out->operator_ = "Equal";
  BERTH_RETURN_IF_ERROR(in.String("value", &out->value));
  BERTH_RETURN_IF_ERROR(
      in.Enum("effect", {"", "NoSchedule", "PreferNoSchedule", "NoExecute"}, &out->effect));
  BERTH_RETURN_IF_ERROR(in.OptInt64("tolerationSeconds", &out->toleration_seconds));
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

Ok DecodePodAffinityTerm(const Reader& in, PodAffinityTerm* out) {
  BERTH_RETURN_IF_ERROR(
      internal::DecodeOptLabelSelector(in, "labelSelector", &out->label_selector));
  BERTH_RETURN_IF_ERROR(in.Strings("namespaces", &out->namespaces));
  BERTH_RETURN_IF_ERROR(in.String("topologyKey", &out->topology_key));
  if (out->topology_key.empty()) return PathError(in.PathOf("topologyKey"), "can not be empty");
  BERTH_RETURN_IF_ERROR(
      internal::DecodeOptLabelSelector(in, "namespaceSelector", &out->namespace_selector));
  BERTH_RETURN_IF_ERROR(in.Strings("matchLabelKeys", &out->match_label_keys));
  return in.Strings("mismatchLabelKeys", &out->mismatch_label_keys);
}

Ok DecodeWeightedPodAffinityTerm(const Reader& in, WeightedPodAffinityTerm* out) {
  BERTH_RETURN_IF_ERROR(in.Int32("weight", &out->weight));
  if (out->weight < 1 || out->weight > 100) {
    return PathError(in.PathOf("weight"), "must be in the range 1-100");
  }
  BERTH_ASSIGN_OR_RETURN(Reader term, in.Child("podAffinityTerm"));
  if (!term.present()) {
    return RequiredError(in.PathOf("podAffinityTerm"));
  }
  return DecodePodAffinityTerm(term, &out->term);
}

Ok DecodePodAffinity(const Reader& parent, std::string_view key, std::optional<PodAffinity>* out) {
  BERTH_ASSIGN_OR_RETURN(Reader in, parent.Child(key));
  if (!in.present()) return Ok();
  PodAffinity affinity;
  BERTH_RETURN_IF_ERROR(in.List("requiredDuringSchedulingIgnoredDuringExecution",
                                &affinity.required, DecodePodAffinityTerm));
  BERTH_RETURN_IF_ERROR(in.List("preferredDuringSchedulingIgnoredDuringExecution",
                                &affinity.preferred, DecodeWeightedPodAffinityTerm));
  *out = std::move(affinity);
  return Ok();
}

Ok DecodeAffinity(const Reader& spec, std::optional<Affinity>* out) {
  BERTH_ASSIGN_OR_RETURN(Reader in, spec.Child("affinity"));
  if (!in.present()) return Ok();
  Affinity affinity;
  BERTH_ASSIGN_OR_RETURN(Reader node, in.Child("nodeAffinity"));
  if (node.present()) {
    NodeAffinity node_affinity;
    BERTH_RETURN_IF_ERROR(internal::DecodeNodeAffinityInto(node, &node_affinity));
    affinity.node_affinity = std::move(node_affinity);
  }
  BERTH_RETURN_IF_ERROR(DecodePodAffinity(in, "podAffinity", &affinity.pod_affinity));
  BERTH_RETURN_IF_ERROR(DecodePodAffinity(in, "podAntiAffinity", &affinity.pod_anti_affinity));
  *out = std::move(affinity);
  return Ok();
}

Ok DecodeVolume(const Reader& in, Volume* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  BERTH_ASSIGN_OR_RETURN(Reader image, in.Child("image"));
  if (image.present()) {
    std::string reference;
    BERTH_RETURN_IF_ERROR(image.String("reference", &reference));
    out->image_reference = std::move(reference);
  }
  BERTH_ASSIGN_OR_RETURN(Reader pvc, in.Child("persistentVolumeClaim"));
  if (pvc.present()) {
    BERTH_RETURN_IF_ERROR(pvc.String("claimName", &out->pvc_claim_name));
    if (out->pvc_claim_name.empty()) {
      return RequiredError(pvc.PathOf("claimName"));
    }
    BERTH_RETURN_IF_ERROR(pvc.Bool("readOnly", &out->pvc_read_only));
  }
  BERTH_ASSIGN_OR_RETURN(Reader ephemeral, in.Child("ephemeral"));
  out->ephemeral = ephemeral.present();
  BERTH_ASSIGN_OR_RETURN(Reader gce, in.Child("gcePersistentDisk"));
  BERTH_RETURN_IF_ERROR(gce.String("pdName", &out->gce_pd_name));
  BERTH_RETURN_IF_ERROR(gce.Bool("readOnly", &out->gce_pd_read_only));
  BERTH_ASSIGN_OR_RETURN(Reader ebs, in.Child("awsElasticBlockStore"));
  BERTH_RETURN_IF_ERROR(ebs.String("volumeID", &out->aws_ebs_volume_id));
  BERTH_ASSIGN_OR_RETURN(Reader iscsi, in.Child("iscsi"));
  BERTH_RETURN_IF_ERROR(iscsi.String("targetPortal", &out->iscsi_target_portal));
  BERTH_RETURN_IF_ERROR(iscsi.String("iqn", &out->iscsi_iqn));
  BERTH_RETURN_IF_ERROR(iscsi.Int32("lun", &out->iscsi_lun));
  BERTH_RETURN_IF_ERROR(iscsi.Bool("readOnly", &out->iscsi_read_only));
  BERTH_ASSIGN_OR_RETURN(Reader rbd, in.Child("rbd"));
  if (rbd.present()) {
    out->rbd_pool = "rbd";  // the API's default pool
    BERTH_RETURN_IF_ERROR(rbd.Strings("monitors", &out->rbd_monitors));
    BERTH_RETURN_IF_ERROR(rbd.String("pool", &out->rbd_pool));
    BERTH_RETURN_IF_ERROR(rbd.String("image", &out->rbd_image));
    BERTH_RETURN_IF_ERROR(rbd.Bool("readOnly", &out->rbd_read_only));
  }
  BERTH_ASSIGN_OR_RETURN(Reader csi, in.Child("csi"));
  BERTH_RETURN_IF_ERROR(csi.String("driver", &out->csi_driver));
  return Ok();
}

Ok DecodePodResourceClaim(const Reader& in, PodResourceClaim* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  if (out->name.empty()) return RequiredError(in.PathOf("name"));
  BERTH_RETURN_IF_ERROR(in.String("resourceClaimName", &out->resource_claim_name));
  return in.String("resourceClaimTemplateName", &out->resource_claim_template_name);
}

Ok DecodeSchedulingGate(const Reader& in, std::string* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", out));
  if (out->empty()) return RequiredError(in.PathOf("name"));
  return Ok();
}

Ok DecodePodCondition(const Reader& in, PodCondition* out) {
  BERTH_RETURN_IF_ERROR(in.String("type", &out->type));
  BERTH_RETURN_IF_ERROR(in.String("status", &out->status));
  BERTH_RETURN_IF_ERROR(in.String("reason", &out->reason));
  return in.String("message", &out->message);
}

// An optional resource map: nullopt when absent or null (Go's nil map), else the decoded list.
Ok OptResources(const Reader& in, std::string_view key, std::optional<ResourceList>* out) {
  if (in.Get(key) == nullptr) return Ok();
  ResourceList list;
  BERTH_RETURN_IF_ERROR(in.Resources(key, &list));
  *out = std::move(list);
  return Ok();
}

// The in-place-resize fields of a container status (the rest is the kubelet's business).
Ok DecodeContainerStatus(const Reader& in, ContainerStatus* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  BERTH_RETURN_IF_ERROR(OptResources(in, "allocatedResources", &out->allocated_resources));
  BERTH_ASSIGN_OR_RETURN(Reader resources, in.Child("resources"));
  return OptResources(resources, "requests", &out->resources_requests);
}

Ok DecodePodResourceClaimStatus(const Reader& in, PodResourceClaimStatus* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  if (out->name.empty()) return RequiredError(in.PathOf("name"));
  return in.OptString("resourceClaimName", &out->resource_claim_name);
}

Ok DecodeExtendedResourceRequest(const Reader& in, ContainerExtendedResourceRequest* out) {
  BERTH_RETURN_IF_ERROR(in.String("containerName", &out->container_name));
  BERTH_RETURN_IF_ERROR(in.String("resourceName", &out->resource_name));
  return in.String("requestName", &out->request_name);
}

Ok DecodeExtendedResourceClaimStatus(const Reader& in, PodExtendedResourceClaimStatus* out) {
  BERTH_RETURN_IF_ERROR(
      in.List("requestMappings", &out->request_mappings, DecodeExtendedResourceRequest));
  return in.String("resourceClaimName", &out->resource_claim_name);
}

Ok DecodePodStatus(const Reader& in, PodStatus* out) {
  BERTH_RETURN_IF_ERROR(in.String("phase", &out->phase));
  BERTH_RETURN_IF_ERROR(in.String("nominatedNodeName", &out->nominated_node_name));
  BERTH_RETURN_IF_ERROR(in.Timestamp("startTime", &out->start_time));
  BERTH_RETURN_IF_ERROR(in.List("conditions", &out->conditions, DecodePodCondition));
  BERTH_RETURN_IF_ERROR(
      in.List("containerStatuses", &out->container_statuses, DecodeContainerStatus));
  BERTH_RETURN_IF_ERROR(
      in.List("initContainerStatuses", &out->init_container_statuses, DecodeContainerStatus));
  BERTH_RETURN_IF_ERROR(OptResources(in, "allocatedResources", &out->allocated_resources));
  BERTH_RETURN_IF_ERROR(in.List("resourceClaimStatuses", &out->resource_claim_statuses,
                                DecodePodResourceClaimStatus));
  BERTH_RETURN_IF_ERROR(in.Object("extendedResourceClaimStatus", [out](const Reader& r) -> Ok {
    PodExtendedResourceClaimStatus status;
    BERTH_RETURN_IF_ERROR(DecodeExtendedResourceClaimStatus(r, &status));
    out->extended_resource_claim_status = std::move(status);
    return Ok();
  }));
  BERTH_ASSIGN_OR_RETURN(Reader resources, in.Child("resources"));
  if (!resources.present()) return Ok();
  PodStatusResources r;
  BERTH_RETURN_IF_ERROR(OptResources(resources, "requests", &r.requests));
  BERTH_RETURN_IF_ERROR(OptResources(resources, "limits", &r.limits));
  out->resources = std::move(r);
  return Ok();
}

Ok DecodePodSpec(const Reader& in, PodSpec* out) {
  BERTH_RETURN_IF_ERROR(in.String("nodeName", &out->node_name));
  BERTH_RETURN_IF_ERROR(in.String("schedulerName", &out->scheduler_name));
  if (out->scheduler_name.empty()) out->scheduler_name = "default-scheduler";
  BERTH_RETURN_IF_ERROR(in.List("containers", &out->containers, DecodeContainer));
  BERTH_RETURN_IF_ERROR(in.List("initContainers", &out->init_containers, DecodeInitContainer));
  BERTH_RETURN_IF_ERROR(in.Resources("overhead", &out->overhead));
  BERTH_RETURN_IF_ERROR(in.StringMap("nodeSelector", &out->node_selector));
  BERTH_RETURN_IF_ERROR(DecodeAffinity(in, &out->affinity));
  BERTH_RETURN_IF_ERROR(in.List("tolerations", &out->tolerations, DecodeToleration));
  BERTH_RETURN_IF_ERROR(in.OptInt32("priority", &out->priority));
  BERTH_RETURN_IF_ERROR(in.String("priorityClassName", &out->priority_class_name));
  BERTH_RETURN_IF_ERROR(
      in.Enum("preemptionPolicy", {"", "PreemptLowerPriority", "Never"}, &out->preemption_policy));
  BERTH_RETURN_IF_ERROR(in.List("schedulingGates", &out->scheduling_gates, DecodeSchedulingGate));
  BERTH_RETURN_IF_ERROR(in.List("resourceClaims", &out->resource_claims, DecodePodResourceClaim));
  BERTH_RETURN_IF_ERROR(in.List("topologySpreadConstraints", &out->topology_spread_constraints,
                                internal::DecodeTopologySpreadConstraintInto));
  BERTH_RETURN_IF_ERROR(in.List("volumes", &out->volumes, DecodeVolume));
  BERTH_RETURN_IF_ERROR(in.OptBool("hostUsers", &out->host_users));
  BERTH_RETURN_IF_ERROR(
      in.List("ephemeralContainers", &out->ephemeral_containers, DecodeContainerCommon));
  BERTH_ASSIGN_OR_RETURN(Reader resources, in.Child("resources"));
  BERTH_RETURN_IF_ERROR(internal::DecodeResourceRequirements(resources, &out->resources));
  return in.Bool("hostNetwork", &out->host_network);
}

Ok DecodePodInto(const Reader& root, Pod* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  BERTH_RETURN_IF_ERROR(internal::DecodeObjectMeta(meta, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(DecodePodSpec(spec, &out->spec));
  // A generic ephemeral volume's claim is named "<pod>-<volume>" by the ephemeral controller.
  for (auto& volume : out->spec.volumes) {
    if (volume.ephemeral && volume.pvc_claim_name.empty()) {
      volume.pvc_claim_name = out->metadata.name + "-" + volume.name;
    }
  }
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  return DecodePodStatus(status, &out->status);
}

}  // namespace

Result<Pod> DecodePod(const Value& v) { return internal::DecodeRoot<Pod>(v, DecodePodInto); }

}  // namespace berth::api
