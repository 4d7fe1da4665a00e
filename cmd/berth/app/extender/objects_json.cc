#include "cmd/berth/app/extender/objects_json.h"

#include "api/decode.h"

namespace berth::extenders {
namespace {

using api::Value;

Value Str(const std::string& s) { return Value::String(s); }

void SetIf(Value& obj, const char* key, const std::string& s) {
  if (!s.empty()) obj.Set(key, Str(s));
}

Value StringList(const std::vector<std::string>& v) {
  Value a = Value::MakeArray();
  for (const auto& s : v) a.Push(Str(s));
  return a;
}

Value StringMap(const std::map<std::string, std::string>& m) {
  Value o = Value::MakeObject();
  for (const auto& [k, v] : m) o.Set(k, Str(v));
  return o;
}

Value Resources(const api::ResourceList& r) {
  Value o = Value::MakeObject();
  for (const auto& [k, q] : r) o.Set(k, Str(q.ToString()));
  return o;
}

const char* OperatorName(api::SelectorOperator op) {
  switch (op) {
    case api::SelectorOperator::kIn:
      return "In";
    case api::SelectorOperator::kNotIn:
      return "NotIn";
    case api::SelectorOperator::kExists:
      return "Exists";
    case api::SelectorOperator::kDoesNotExist:
      return "DoesNotExist";
    case api::SelectorOperator::kGt:
      return "Gt";
    case api::SelectorOperator::kLt:
      return "Lt";
  }
  return "In";
}

Value Meta(const api::ObjectMeta& m) {
  Value o = Value::MakeObject();
  SetIf(o, "name", m.name);
  SetIf(o, "namespace", m.namespace_);
  SetIf(o, "uid", m.uid);
  SetIf(o, "resourceVersion", m.resource_version);
  SetIf(o, "generateName", m.generate_name);
  if (m.generation != 0) o.Set("generation", Value::Int(m.generation));
  if (m.creation_timestamp) o.Set("creationTimestamp", Str(api::FormatTime(*m.creation_timestamp)));
  if (m.deletion_timestamp) o.Set("deletionTimestamp", Str(api::FormatTime(*m.deletion_timestamp)));
  if (!m.labels.empty()) o.Set("labels", StringMap(m.labels));
  if (!m.annotations.empty()) o.Set("annotations", StringMap(m.annotations));
  if (!m.owner_references.empty()) {
    Value refs = Value::MakeArray();
    for (const auto& r : m.owner_references) {
      Value ref = Value::MakeObject();
      ref.Set("apiVersion", Str(r.api_version));
      ref.Set("kind", Str(r.kind));
      ref.Set("name", Str(r.name));
      ref.Set("uid", Str(r.uid));
      if (r.controller) ref.Set("controller", Value::Bool(true));
      refs.Push(std::move(ref));
    }
    o.Set("ownerReferences", std::move(refs));
  }
  return o;
}

Value LabelSelector(const api::LabelSelector& s) {
  Value o = Value::MakeObject();
  if (!s.match_labels.empty()) o.Set("matchLabels", StringMap(s.match_labels));
  if (!s.match_expressions.empty()) {
    Value exprs = Value::MakeArray();
    for (const auto& r : s.match_expressions) {
      Value e = Value::MakeObject();
      e.Set("key", Str(r.key));
      e.Set("operator", Str(OperatorName(r.op)));
      if (!r.values.empty()) e.Set("values", StringList(r.values));
      exprs.Push(std::move(e));
    }
    o.Set("matchExpressions", std::move(exprs));
  }
  return o;
}

Value NodeSelectorRequirements(const std::vector<api::NodeSelectorRequirement>& reqs) {
  Value a = Value::MakeArray();
  for (const auto& r : reqs) {
    Value e = Value::MakeObject();
    e.Set("key", Str(r.key));
    e.Set("operator", Str(OperatorName(r.op)));
    if (!r.values.empty()) e.Set("values", StringList(r.values));
    a.Push(std::move(e));
  }
  return a;
}

Value NodeSelectorTerm(const api::NodeSelectorTerm& t) {
  Value o = Value::MakeObject();
  if (!t.match_expressions.empty()) {
    o.Set("matchExpressions", NodeSelectorRequirements(t.match_expressions));
  }
  if (!t.match_fields.empty()) o.Set("matchFields", NodeSelectorRequirements(t.match_fields));
  return o;
}

Value PodAffinityTerm(const api::PodAffinityTerm& t) {
  Value o = Value::MakeObject();
  if (t.label_selector) o.Set("labelSelector", LabelSelector(*t.label_selector));
  if (!t.namespaces.empty()) o.Set("namespaces", StringList(t.namespaces));
  o.Set("topologyKey", Str(t.topology_key));
  if (t.namespace_selector) o.Set("namespaceSelector", LabelSelector(*t.namespace_selector));
  if (!t.match_label_keys.empty()) o.Set("matchLabelKeys", StringList(t.match_label_keys));
  if (!t.mismatch_label_keys.empty()) {
    o.Set("mismatchLabelKeys", StringList(t.mismatch_label_keys));
  }
  return o;
}

Value PodAffinity(const api::PodAffinity& a) {
  Value o = Value::MakeObject();
  if (!a.required.empty()) {
    Value req = Value::MakeArray();
    for (const auto& t : a.required) req.Push(PodAffinityTerm(t));
    o.Set("requiredDuringSchedulingIgnoredDuringExecution", std::move(req));
  }
  if (!a.preferred.empty()) {
    Value pref = Value::MakeArray();
    for (const auto& w : a.preferred) {
      Value e = Value::MakeObject();
      e.Set("weight", Value::Int(w.weight));
      e.Set("podAffinityTerm", PodAffinityTerm(w.term));
      pref.Push(std::move(e));
    }
    o.Set("preferredDuringSchedulingIgnoredDuringExecution", std::move(pref));
  }
  return o;
}

Value Affinity(const api::Affinity& a) {
  Value o = Value::MakeObject();
  if (a.node_affinity) {
    Value na = Value::MakeObject();
    if (a.node_affinity->required) {
      Value terms = Value::MakeArray();
      for (const auto& t : a.node_affinity->required->terms) terms.Push(NodeSelectorTerm(t));
      Value sel = Value::MakeObject();
      sel.Set("nodeSelectorTerms", std::move(terms));
      na.Set("requiredDuringSchedulingIgnoredDuringExecution", std::move(sel));
    }
    if (!a.node_affinity->preferred.empty()) {
      Value pref = Value::MakeArray();
      for (const auto& p : a.node_affinity->preferred) {
        Value e = Value::MakeObject();
        e.Set("weight", Value::Int(p.weight));
        e.Set("preference", NodeSelectorTerm(p.preference));
        pref.Push(std::move(e));
      }
      na.Set("preferredDuringSchedulingIgnoredDuringExecution", std::move(pref));
    }
    o.Set("nodeAffinity", std::move(na));
  }
  if (a.pod_affinity) o.Set("podAffinity", PodAffinity(*a.pod_affinity));
  if (a.pod_anti_affinity) o.Set("podAntiAffinity", PodAffinity(*a.pod_anti_affinity));
  return o;
}

Value Containers(const std::vector<api::Container>& cs) {
  Value a = Value::MakeArray();
  for (const auto& c : cs) {
    Value o = Value::MakeObject();
    o.Set("name", Str(c.name));
    SetIf(o, "image", c.image);
    Value res = Value::MakeObject();
    if (!c.resources.requests.empty()) res.Set("requests", Resources(c.resources.requests));
    if (!c.resources.limits.empty()) res.Set("limits", Resources(c.resources.limits));
    o.Set("resources", std::move(res));
    if (!c.ports.empty()) {
      Value ports = Value::MakeArray();
      for (const auto& p : c.ports) {
        Value port = Value::MakeObject();
        SetIf(port, "name", p.name);
        port.Set("containerPort", Value::Int(p.container_port));
        if (p.host_port != 0) port.Set("hostPort", Value::Int(p.host_port));
        port.Set("protocol", Str(p.protocol));
        SetIf(port, "hostIP", p.host_ip);
        ports.Push(std::move(port));
      }
      o.Set("ports", std::move(ports));
    }
    SetIf(o, "restartPolicy", c.restart_policy);
    a.Push(std::move(o));
  }
  return a;
}

Value Volume(const api::Volume& v) {
  Value o = Value::MakeObject();
  o.Set("name", Str(v.name));
  if (v.ephemeral) {
    // The decoder names the claim "<pod>-<volume>"; the source itself is what the API holds.
    o.Set("ephemeral", Value::MakeObject());
  } else if (!v.pvc_claim_name.empty()) {
    Value pvc = Value::MakeObject();
    pvc.Set("claimName", Str(v.pvc_claim_name));
    if (v.pvc_read_only) pvc.Set("readOnly", Value::Bool(true));
    o.Set("persistentVolumeClaim", std::move(pvc));
  } else if (!v.gce_pd_name.empty()) {
    Value pd = Value::MakeObject();
    pd.Set("pdName", Str(v.gce_pd_name));
    if (v.gce_pd_read_only) pd.Set("readOnly", Value::Bool(true));
    o.Set("gcePersistentDisk", std::move(pd));
  } else if (!v.aws_ebs_volume_id.empty()) {
    Value ebs = Value::MakeObject();
    ebs.Set("volumeID", Str(v.aws_ebs_volume_id));
    o.Set("awsElasticBlockStore", std::move(ebs));
  } else if (!v.iscsi_iqn.empty()) {
    Value iscsi = Value::MakeObject();
    iscsi.Set("targetPortal", Str(v.iscsi_target_portal));
    iscsi.Set("iqn", Str(v.iscsi_iqn));
    iscsi.Set("lun", Value::Int(v.iscsi_lun));
    if (v.iscsi_read_only) iscsi.Set("readOnly", Value::Bool(true));
    o.Set("iscsi", std::move(iscsi));
  } else if (!v.rbd_image.empty()) {
    Value rbd = Value::MakeObject();
    rbd.Set("monitors", StringList(v.rbd_monitors));
    rbd.Set("pool", Str(v.rbd_pool));
    rbd.Set("image", Str(v.rbd_image));
    if (v.rbd_read_only) rbd.Set("readOnly", Value::Bool(true));
    o.Set("rbd", std::move(rbd));
  } else if (!v.csi_driver.empty()) {
    Value csi = Value::MakeObject();
    csi.Set("driver", Str(v.csi_driver));
    o.Set("csi", std::move(csi));
  } else {
    o.Set("emptyDir", Value::MakeObject());
  }
  return o;
}

Value PodConditions(const std::vector<api::PodCondition>& cs) {
  Value a = Value::MakeArray();
  for (const auto& c : cs) {
    Value o = Value::MakeObject();
    o.Set("type", Str(c.type));
    o.Set("status", Str(c.status));
    SetIf(o, "reason", c.reason);
    SetIf(o, "message", c.message);
    a.Push(std::move(o));
  }
  return a;
}

}  // namespace

Value PodToValue(const api::Pod& pod) {
  Value o = Value::MakeObject();
  o.Set("apiVersion", Str("v1"));
  o.Set("kind", Str("Pod"));
  o.Set("metadata", Meta(pod.metadata));
  const api::PodSpec& s = pod.spec;
  Value spec = Value::MakeObject();
  if (!s.volumes.empty()) {
    Value vols = Value::MakeArray();
    for (const auto& v : s.volumes) vols.Push(Volume(v));
    spec.Set("volumes", std::move(vols));
  }
  if (!s.init_containers.empty()) spec.Set("initContainers", Containers(s.init_containers));
  spec.Set("containers", Containers(s.containers));
  if (!s.node_selector.empty()) spec.Set("nodeSelector", StringMap(s.node_selector));
  SetIf(spec, "nodeName", s.node_name);
  if (s.host_network) spec.Set("hostNetwork", Value::Bool(true));
  if (s.affinity) spec.Set("affinity", Affinity(*s.affinity));
  SetIf(spec, "schedulerName", s.scheduler_name);
  if (!s.tolerations.empty()) {
    Value tols = Value::MakeArray();
    for (const auto& t : s.tolerations) {
      Value tol = Value::MakeObject();
      SetIf(tol, "key", t.key);
      SetIf(tol, "operator", t.operator_);
      SetIf(tol, "value", t.value);
      SetIf(tol, "effect", t.effect);
      if (t.toleration_seconds) tol.Set("tolerationSeconds", Value::Int(*t.toleration_seconds));
      tols.Push(std::move(tol));
    }
    spec.Set("tolerations", std::move(tols));
  }
  SetIf(spec, "priorityClassName", s.priority_class_name);
  if (s.priority) spec.Set("priority", Value::Int(*s.priority));
  SetIf(spec, "preemptionPolicy", s.preemption_policy);
  if (!s.overhead.empty()) spec.Set("overhead", Resources(s.overhead));
  if (!s.resources.requests.empty() || !s.resources.limits.empty()) {
    Value res = Value::MakeObject();  // pod-level resources
    if (!s.resources.requests.empty()) res.Set("requests", Resources(s.resources.requests));
    if (!s.resources.limits.empty()) res.Set("limits", Resources(s.resources.limits));
    spec.Set("resources", std::move(res));
  }
  if (!s.topology_spread_constraints.empty()) {
    Value tscs = Value::MakeArray();
    for (const auto& c : s.topology_spread_constraints) {
      Value t = Value::MakeObject();
      t.Set("maxSkew", Value::Int(c.max_skew));
      t.Set("topologyKey", Str(c.topology_key));
      t.Set("whenUnsatisfiable", Str(c.when_unsatisfiable));
      if (c.label_selector) t.Set("labelSelector", LabelSelector(*c.label_selector));
      if (c.min_domains) t.Set("minDomains", Value::Int(*c.min_domains));
      SetIf(t, "nodeAffinityPolicy", c.node_affinity_policy);
      SetIf(t, "nodeTaintsPolicy", c.node_taints_policy);
      if (!c.match_label_keys.empty()) t.Set("matchLabelKeys", StringList(c.match_label_keys));
      tscs.Push(std::move(t));
    }
    spec.Set("topologySpreadConstraints", std::move(tscs));
  }
  if (!s.scheduling_gates.empty()) {
    Value gates = Value::MakeArray();
    for (const auto& g : s.scheduling_gates) {
      Value gate = Value::MakeObject();
      gate.Set("name", Str(g));
      gates.Push(std::move(gate));
    }
    spec.Set("schedulingGates", std::move(gates));
  }
  o.Set("spec", std::move(spec));
  Value status = Value::MakeObject();
  SetIf(status, "phase", pod.status.phase);
  SetIf(status, "nominatedNodeName", pod.status.nominated_node_name);
  if (!pod.status.conditions.empty()) {
    status.Set("conditions", PodConditions(pod.status.conditions));
  }
  o.Set("status", std::move(status));
  return o;
}

Value NodeToValue(const api::Node& node) {
  Value o = Value::MakeObject();
  o.Set("apiVersion", Str("v1"));
  o.Set("kind", Str("Node"));
  o.Set("metadata", Meta(node.metadata));
  Value spec = Value::MakeObject();
  if (node.spec.unschedulable) spec.Set("unschedulable", Value::Bool(true));
  if (!node.spec.taints.empty()) {
    Value taints = Value::MakeArray();
    for (const auto& t : node.spec.taints) {
      Value taint = Value::MakeObject();
      taint.Set("key", Str(t.key));
      SetIf(taint, "value", t.value);
      taint.Set("effect", Str(t.effect));
      taints.Push(std::move(taint));
    }
    spec.Set("taints", std::move(taints));
  }
  o.Set("spec", std::move(spec));
  Value status = Value::MakeObject();
  if (!node.status.capacity.empty()) status.Set("capacity", Resources(node.status.capacity));
  if (!node.status.allocatable.empty()) {
    status.Set("allocatable", Resources(node.status.allocatable));
  }
  if (!node.status.conditions.empty()) {
    Value conds = Value::MakeArray();
    for (const auto& c : node.status.conditions) {
      Value cond = Value::MakeObject();
      cond.Set("type", Str(c.type));
      cond.Set("status", Str(c.status));
      SetIf(cond, "reason", c.reason);
      SetIf(cond, "message", c.message);
      conds.Push(std::move(cond));
    }
    status.Set("conditions", std::move(conds));
  }
  if (!node.status.images.empty()) {
    Value images = Value::MakeArray();
    for (const auto& img : node.status.images) {
      Value i = Value::MakeObject();
      i.Set("names", StringList(img.names));
      i.Set("sizeBytes", Value::Int(img.size_bytes));
      images.Push(std::move(i));
    }
    status.Set("images", std::move(images));
  }
  o.Set("status", std::move(status));
  return o;
}

}  // namespace berth::extenders
