#include "api/decode.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api/json/parse.h"
#include "api/selector.h"

namespace berth::api {
namespace {

Value Yaml(const std::string& text) {
  auto docs = json::ParseYamlDocuments(text);
  EXPECT_TRUE(docs.ok()) << docs.error();
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << "want exactly one document";
    return Value();
  }
  return (*docs)[0];
}

int64_t Milli(const ResourceList& list, const std::string& name) {
  auto it = list.find(name);
  return it == list.end() ? -1 : it->second.milli;
}

// Trimmed `kubectl get pod -o yaml` output.
constexpr const char* kPodYaml = R"(
apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "2024-05-01T10:20:30Z"
  generateName: web-7d4b9c-
  labels:
    app: web
    pod-template-hash: 7d4b9c
    scheduling.x-k8s.io/pod-group: gang-a
  annotations:
    kubectl.kubernetes.io/restartedAt: "2024-05-01T10:00:00+02:00"
  name: web-7d4b9c-x2x9z
  namespace: default
  ownerReferences:
  - apiVersion: apps/v1
    blockOwnerDeletion: true
    controller: true
    kind: ReplicaSet
    name: web-7d4b9c
    uid: 1f0e6c43-9d6f-4a8a-bb0a-3d1f2f6c9e10
  resourceVersion: "123456"
  uid: 6a9d1f8e-1b2c-4d3e-8f9a-0b1c2d3e4f5a
spec:
  schedulerName: berth
  priority: 1000
  priorityClassName: high
  preemptionPolicy: Never
  nodeSelector:
    kubernetes.io/os: linux
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: topology.kubernetes.io/zone
            operator: In
            values: [eu-1a, eu-1b]
          - key: cores
            operator: Gt
            values: ["4"]
          matchFields:
          - key: metadata.name
            operator: NotIn
            values: [bad-node]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 20
        preference:
          matchExpressions:
          - key: disk
            operator: Exists
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels:
            app: web
        topologyKey: kubernetes.io/hostname
        matchLabelKeys: [pod-template-hash]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 50
        podAffinityTerm:
          labelSelector:
            matchExpressions:
            - key: app
              operator: In
              values: [db]
          namespaceSelector: {}
          namespaces: [data]
          topologyKey: topology.kubernetes.io/zone
          mismatchLabelKeys: [tenant]
  containers:
  - image: nginx:1.27
    imagePullPolicy: IfNotPresent
    name: nginx
    ports:
    - containerPort: 80
      hostPort: 8080
      name: http
      protocol: TCP
    resources:
      limits:
        cpu: "2"
        memory: 1Gi
      requests:
        cpu: 500m
        memory: 512Mi
        nvidia.com/gpu: 1
  - name: sidecar
    image: busybox
    resources:
      requests:
        cpu: 0.25
        ephemeral-storage: 1e3
  initContainers:
  - name: proxy
    image: envoy
    restartPolicy: Always
    resources:
      requests: {cpu: 100m}
  overhead:
    cpu: 10m
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  - key: dedicated
    value: web
    effect: NoSchedule
  - operator: Exists
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    minDomains: 2
    nodeAffinityPolicy: Honor
    nodeTaintsPolicy: Ignore
    matchLabelKeys: [pod-template-hash]
    labelSelector:
      matchLabels: {app: web}
  schedulingGates:
  - name: example.com/wait
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: web-data
      readOnly: true
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
  - name: pd
    gcePersistentDisk: {pdName: disk-1, readOnly: true}
  - name: ebs
    awsElasticBlockStore: {volumeID: vol-123}
  - name: iscsi
    iscsi: {targetPortal: "10.0.0.1:3260", iqn: "iqn.2001-04.com.example:storage", lun: 3}
  - name: rbd
    rbd: {monitors: ["10.0.0.2:6789"], image: img}
  - name: inline
    csi: {driver: csi.example.com}
  - name: kube-api-access
    projected:
      sources: []
  hostNetwork: false
  dnsPolicy: ClusterFirst
status:
  phase: Pending
  nominatedNodeName: n3
  conditions:
  - type: PodScheduled
    status: "False"
    reason: Unschedulable
    message: "0/3 nodes are available"
  qosClass: Burstable
)";

TEST(DecodePodTest, RealisticPod) {
  auto obj = DecodeObject(Yaml(kPodYaml));
  ASSERT_TRUE(obj.ok()) << obj.error();
  ASSERT_TRUE(std::holds_alternative<Pod>(*obj));
  const Pod& pod = std::get<Pod>(*obj);
  EXPECT_EQ(pod.Key(), "default/web-7d4b9c-x2x9z");
  EXPECT_EQ(pod.metadata.uid, "6a9d1f8e-1b2c-4d3e-8f9a-0b1c2d3e4f5a");
  EXPECT_EQ(pod.metadata.resource_version, "123456");
  EXPECT_EQ(pod.metadata.labels.at(kPodGroupLabel), "gang-a");
  EXPECT_EQ(pod.metadata.annotations.size(), 1u);
  ASSERT_TRUE(pod.metadata.creation_timestamp.has_value());
  EXPECT_EQ(pod.metadata.creation_timestamp->unix_micros, 1714558830LL * 1000000);
  ASSERT_EQ(pod.metadata.owner_references.size(), 1u);
  EXPECT_TRUE(pod.metadata.owner_references[0].controller);
  EXPECT_EQ(pod.metadata.owner_references[0].kind, "ReplicaSet");

  const PodSpec& spec = pod.spec;
  EXPECT_EQ(spec.scheduler_name, "berth");
  EXPECT_EQ(pod.Priority(), 1000);
  EXPECT_EQ(spec.priority_class_name, "high");
  EXPECT_EQ(spec.preemption_policy, "Never");
  EXPECT_EQ(spec.node_selector.at("kubernetes.io/os"), "linux");

  ASSERT_EQ(spec.containers.size(), 2u);
  const Container& nginx = spec.containers[0];
  EXPECT_EQ(nginx.name, "nginx");
  EXPECT_EQ(nginx.image, "nginx:1.27");
  EXPECT_EQ(Milli(nginx.resources.requests, "cpu"), 500);
  EXPECT_EQ(Milli(nginx.resources.requests, "memory"), 512LL * 1024 * 1024 * 1000);
  EXPECT_EQ(Milli(nginx.resources.requests, "nvidia.com/gpu"), 1000);
  EXPECT_EQ(Milli(nginx.resources.limits, "cpu"), 2000);
  EXPECT_EQ(Milli(nginx.resources.limits, "memory"), 1024LL * 1024 * 1024 * 1000);
  ASSERT_EQ(nginx.ports.size(), 1u);
  EXPECT_EQ(nginx.ports[0].container_port, 80);
  EXPECT_EQ(nginx.ports[0].host_port, 8080);
  EXPECT_EQ(nginx.ports[0].protocol, "TCP");
  EXPECT_EQ(Milli(spec.containers[1].resources.requests, "cpu"), 250);
  EXPECT_EQ(Milli(spec.containers[1].resources.requests, "ephemeral-storage"), 1000 * 1000);
  ASSERT_EQ(spec.init_containers.size(), 1u);
  EXPECT_EQ(spec.init_containers[0].restart_policy, "Always");
  EXPECT_EQ(Milli(spec.overhead, "cpu"), 10);

  ASSERT_TRUE(spec.affinity.has_value());
  ASSERT_TRUE(spec.affinity->node_affinity.has_value());
  const NodeAffinity& na = *spec.affinity->node_affinity;
  ASSERT_TRUE(na.required.has_value());
  ASSERT_EQ(na.required->terms.size(), 1u);
  const NodeSelectorTerm& term = na.required->terms[0];
  ASSERT_EQ(term.match_expressions.size(), 2u);
  EXPECT_EQ(term.match_expressions[0].op, SelectorOperator::kIn);
  EXPECT_EQ(term.match_expressions[0].values.size(), 2u);
  EXPECT_EQ(term.match_expressions[1].op, SelectorOperator::kGt);
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].op, SelectorOperator::kNotIn);
  EXPECT_TRUE(Matches(*na.required, {{"topology.kubernetes.io/zone", "eu-1b"}, {"cores", "8"}},
                      "good-node"));
  EXPECT_FALSE(Matches(*na.required, {{"topology.kubernetes.io/zone", "eu-1b"}, {"cores", "8"}},
                       "bad-node"));
  ASSERT_EQ(na.preferred.size(), 1u);
  EXPECT_EQ(na.preferred[0].weight, 20);
  EXPECT_EQ(na.preferred[0].preference.match_expressions[0].op, SelectorOperator::kExists);

  EXPECT_FALSE(spec.affinity->pod_affinity.has_value());
  ASSERT_TRUE(spec.affinity->pod_anti_affinity.has_value());
  const PodAffinity& anti = *spec.affinity->pod_anti_affinity;
  ASSERT_EQ(anti.required.size(), 1u);
  EXPECT_EQ(anti.required[0].topology_key, "kubernetes.io/hostname");
  ASSERT_TRUE(anti.required[0].label_selector.has_value());
  EXPECT_EQ(anti.required[0].label_selector->match_labels.at("app"), "web");
  EXPECT_FALSE(anti.required[0].namespace_selector.has_value());
  EXPECT_EQ(anti.required[0].match_label_keys, std::vector<std::string>{"pod-template-hash"});
  ASSERT_EQ(anti.preferred.size(), 1u);
  EXPECT_EQ(anti.preferred[0].weight, 50);
  EXPECT_EQ(anti.preferred[0].term.namespaces, std::vector<std::string>{"data"});
  ASSERT_TRUE(anti.preferred[0].term.namespace_selector.has_value());
  EXPECT_TRUE(anti.preferred[0].term.namespace_selector->match_labels.empty());
  EXPECT_EQ(anti.preferred[0].term.mismatch_label_keys, std::vector<std::string>{"tenant"});

  ASSERT_EQ(spec.tolerations.size(), 3u);
  EXPECT_EQ(spec.tolerations[0].operator_, "Exists");
  EXPECT_EQ(spec.tolerations[0].toleration_seconds, 300);
  EXPECT_EQ(spec.tolerations[1].operator_, "Equal") << "an omitted operator means Equal";
  EXPECT_TRUE(Tolerates(spec.tolerations[1], Taint{"dedicated", "web", "NoSchedule"}));
  EXPECT_TRUE(Tolerates(spec.tolerations[2], Taint{"anything", "x", "NoExecute"}));

  ASSERT_EQ(spec.topology_spread_constraints.size(), 1u);
  const TopologySpreadConstraint& tsc = spec.topology_spread_constraints[0];
  EXPECT_EQ(tsc.max_skew, 1);
  EXPECT_EQ(tsc.when_unsatisfiable, "DoNotSchedule");
  EXPECT_EQ(tsc.min_domains, 2);
  EXPECT_EQ(tsc.node_affinity_policy, "Honor");
  EXPECT_EQ(tsc.node_taints_policy, "Ignore");
  ASSERT_TRUE(tsc.label_selector.has_value());

  EXPECT_EQ(spec.scheduling_gates, std::vector<std::string>{"example.com/wait"});
  ASSERT_EQ(spec.volumes.size(), 8u);
  EXPECT_EQ(spec.volumes[0].pvc_claim_name, "web-data");
  EXPECT_TRUE(spec.volumes[0].pvc_read_only);
  EXPECT_TRUE(spec.volumes[1].ephemeral);
  EXPECT_EQ(spec.volumes[1].pvc_claim_name, "web-7d4b9c-x2x9z-scratch");
  EXPECT_EQ(spec.volumes[2].gce_pd_name, "disk-1");
  EXPECT_TRUE(spec.volumes[2].gce_pd_read_only);
  EXPECT_EQ(spec.volumes[3].aws_ebs_volume_id, "vol-123");
  EXPECT_EQ(spec.volumes[4].iscsi_iqn, "iqn.2001-04.com.example:storage");
  EXPECT_EQ(spec.volumes[4].iscsi_lun, 3);
  EXPECT_EQ(spec.volumes[5].rbd_pool, "rbd");
  EXPECT_EQ(spec.volumes[5].rbd_image, "img");
  EXPECT_EQ(spec.volumes[6].csi_driver, "csi.example.com");
  EXPECT_FALSE(spec.volumes[7].ephemeral);
  EXPECT_TRUE(spec.volumes[7].pvc_claim_name.empty());

  EXPECT_EQ(pod.status.phase, "Pending");
  EXPECT_EQ(pod.status.nominated_node_name, "n3");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].reason, "Unschedulable");
}

// Pod-level resources and the status of an in-place resize (what PodRequests reads).
TEST(DecodePodTest, PodLevelResourcesAndResizeStatus) {
  auto pod = DecodePod(Yaml(R"(
kind: Pod
metadata: {name: p}
spec:
  resources:
    requests: {cpu: "2", memory: 1Gi}
    limits: {cpu: "4"}
  containers:
  - name: app
    resources: {requests: {cpu: "1"}}
  initContainers:
  - name: proxy
    restartPolicy: Always
status:
  conditions:
  - {type: PodResizePending, status: "True", reason: Infeasible}
  allocatedResources: {cpu: "3"}
  resources:
    requests: {cpu: 3500m}
  containerStatuses:
  - name: app
    allocatedResources: {cpu: 1500m}
    resources:
      requests: {cpu: 1200m}
      limits: {cpu: "2"}
  initContainerStatuses:
  - name: proxy
    resources: {}
)"));
  ASSERT_TRUE(pod.ok()) << pod.error();
  EXPECT_EQ(Milli(pod->spec.resources.requests, "cpu"), 2000);
  EXPECT_EQ(Milli(pod->spec.resources.limits, "cpu"), 4000);
  ASSERT_TRUE(pod->status.allocated_resources.has_value());
  EXPECT_EQ(Milli(*pod->status.allocated_resources, "cpu"), 3000);
  ASSERT_TRUE(pod->status.resources.has_value());
  ASSERT_TRUE(pod->status.resources->requests.has_value());
  EXPECT_EQ(Milli(*pod->status.resources->requests, "cpu"), 3500);
  EXPECT_FALSE(pod->status.resources->limits.has_value());
  ASSERT_EQ(pod->status.container_statuses.size(), 1u);
  const ContainerStatus& app = pod->status.container_statuses[0];
  EXPECT_EQ(app.name, "app");
  EXPECT_EQ(Milli(*app.allocated_resources, "cpu"), 1500);
  EXPECT_EQ(Milli(*app.resources_requests, "cpu"), 1200);
  ASSERT_EQ(pod->status.init_container_statuses.size(), 1u);
  // Absent maps stay absent (Go's nil), which PodRequests tells apart from empty ones.
  EXPECT_FALSE(pod->status.init_container_statuses[0].allocated_resources.has_value());
  EXPECT_FALSE(pod->status.init_container_statuses[0].resources_requests.has_value());
}

TEST(DecodePodTest, Defaults) {
  auto pod = DecodePod(Yaml("kind: Pod\nmetadata: {name: p}\nspec:\n  schedulerName: null\n"));
  ASSERT_TRUE(pod.ok()) << pod.error();
  EXPECT_EQ(pod->spec.scheduler_name, "default-scheduler");
  EXPECT_FALSE(pod->spec.priority.has_value());
  EXPECT_EQ(pod->Priority(), 0);
  EXPECT_FALSE(pod->spec.affinity.has_value());
  EXPECT_EQ(pod->metadata.namespace_, "");
}

// The spec fields NodeDeclaredFeatures and ImageLocality read (v1.37).
TEST(DecodePodTest, NodeFeatureFieldsAndImageVolumes) {
  auto pod = DecodePod(Yaml(R"(
kind: Pod
metadata: {name: p}
spec:
  hostNetwork: true
  hostUsers: false
  containers:
  - name: c
    restartPolicyRules:
    - action: RestartAllContainers
      exitCodes: {operator: In, values: [42]}
    volumeMounts:
    - {name: data, mountPath: /data}
    - {name: img, mountPath: /img, bindMountOptions: [ro]}
  ephemeralContainers:
  - name: debug
    targetContainerName: c
  volumes:
  - name: img
    image: {reference: quay.io/tools:v1, pullPolicy: IfNotPresent}
  - name: data
    emptyDir: {}
)"));
  ASSERT_TRUE(pod.ok()) << pod.error();
  ASSERT_EQ(pod->spec.containers.size(), 1u);
  EXPECT_EQ(pod->spec.containers[0].restart_policy_rule_actions,
            std::vector<std::string>{"RestartAllContainers"});
  EXPECT_TRUE(pod->spec.containers[0].has_bind_mount_options);
  ASSERT_EQ(pod->spec.ephemeral_containers.size(), 1u);
  EXPECT_FALSE(pod->spec.ephemeral_containers[0].has_bind_mount_options);
  EXPECT_EQ(pod->spec.host_users, std::optional<bool>(false));
  ASSERT_EQ(pod->spec.volumes.size(), 2u);
  EXPECT_EQ(pod->spec.volumes[0].image_reference, std::optional<std::string>("quay.io/tools:v1"));
  EXPECT_FALSE(pod->spec.volumes[1].image_reference.has_value());
}

TEST(DecodeNodeTest, DeclaredFeatures) {
  auto node =
      DecodeNode(Yaml("kind: Node\nmetadata: {name: n}\nstatus:\n  declaredFeatures: [A, "
                      "RestartAllContainersOnContainerExits]\n"));
  ASSERT_TRUE(node.ok()) << node.error();
  EXPECT_EQ(node->status.declared_features,
            (std::vector<std::string>{"A", "RestartAllContainersOnContainerExits"}));
}

TEST(DecodeStorageTest, CSIDriver) {
  auto obj = DecodeObject(
      Yaml("apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: ebs.csi.aws.com}\n"
           "spec: {attachRequired: true, preventPodSchedulingIfMissing: true}\n"));
  ASSERT_TRUE(obj.ok()) << obj.error();
  const CSIDriver& d = std::get<CSIDriver>(*obj);
  EXPECT_EQ(d.metadata.name, "ebs.csi.aws.com");
  EXPECT_TRUE(d.prevent_pod_scheduling_if_missing);
}

constexpr const char* kNodeYaml = R"(
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels:
    kubernetes.io/hostname: n1
    topology.kubernetes.io/zone: eu-1a
spec:
  podCIDR: 10.244.1.0/24
  unschedulable: true
  taints:
  - effect: NoSchedule
    key: node.kubernetes.io/unschedulable
    timeAdded: "2024-05-01T10:20:30Z"
  - key: dedicated
    value: gpu
    effect: PreferNoSchedule
status:
  allocatable:
    cpu: 3800m
    ephemeral-storage: "95551679124"
    hugepages-2Mi: "0"
    memory: 15928628Ki
    pods: "110"
  capacity:
    cpu: "4"
    memory: 16030004Ki
    pods: 110
  conditions:
  - lastHeartbeatTime: "2024-05-01T10:20:30Z"
    message: kubelet is posting ready status
    reason: KubeletReady
    status: "True"
    type: Ready
  images:
  - names:
    - registry.k8s.io/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097
    - registry.k8s.io/pause:3.9
    sizeBytes: 321520
  nodeInfo:
    kubeletVersion: v1.31.2
)";

TEST(DecodeNodeTest, RealisticNode) {
  auto obj = DecodeObject(Yaml(kNodeYaml));
  ASSERT_TRUE(obj.ok()) << obj.error();
  const Node& node = std::get<Node>(*obj);
  EXPECT_EQ(node.metadata.name, "n1");
  EXPECT_TRUE(node.spec.unschedulable);
  ASSERT_EQ(node.spec.taints.size(), 2u);
  EXPECT_EQ(node.spec.taints[0].effect, "NoSchedule");
  EXPECT_EQ(node.spec.taints[1].value, "gpu");
  EXPECT_EQ(Milli(node.status.allocatable, "cpu"), 3800);
  EXPECT_EQ(Milli(node.status.allocatable, "memory"), 15928628LL * 1024 * 1000);
  EXPECT_EQ(Milli(node.status.allocatable, "pods"), 110000);
  EXPECT_EQ(Milli(node.status.capacity, "pods"), 110000);
  EXPECT_EQ(Milli(node.status.capacity, "cpu"), 4000);
  ASSERT_EQ(node.status.conditions.size(), 1u);
  EXPECT_EQ(node.status.conditions[0].type, "Ready");
  EXPECT_EQ(node.status.conditions[0].status, "True");
  ASSERT_EQ(node.status.images.size(), 1u);
  EXPECT_EQ(node.status.images[0].names.size(), 2u);
  EXPECT_EQ(node.status.images[0].size_bytes, 321520);
}

TEST(DecodeStorageTest, PvcPvStorageClassCsiNode) {
  auto docs = json::ParseYamlDocuments(R"(
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: db}
spec:
  accessModes: [ReadWriteOncePod]
  storageClassName: ""
  resources: {requests: {storage: 10Gi}}
  volumeMode: Filesystem
  selector: {matchLabels: {tier: gold}}
status: {phase: Bound, capacity: {storage: 10Gi}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 20Gi}
  accessModes: [ReadWriteOnce]
  claimRef: {kind: PersistentVolumeClaim, namespace: db, name: data, uid: u-1}
  storageClassName: fast
  persistentVolumeReclaimPolicy: Delete
  csi: {driver: pd.csi.storage.gke.io, volumeHandle: h-1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: topology.kubernetes.io/zone, operator: In, values: [eu-1a]}
status: {phase: Bound}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: pd.csi.storage.gke.io
parameters: {type: pd-ssd}
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Delete
allowedTopologies:
- matchLabelExpressions:
  - key: topology.kubernetes.io/zone
    values: [eu-1a, eu-1b]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers:
  - name: pd.csi.storage.gke.io
    nodeID: projects/p/zones/eu-1a/instances/n1
    allocatable: {count: 15}
    topologyKeys: [topology.gke.io/zone]
  - name: other
    nodeID: x
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {selector: {app: web}, type: ClusterIP, clusterIP: 10.0.0.10}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a}}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: gang-a, namespace: default}
spec:
  minMember: 3
  minResources: {cpu: "3", memory: 3Gi}
  scheduleTimeoutSeconds: 60
status:
  phase: Scheduling
  occupiedBy: default/job-a
  running: 1
  succeeded: 0
  failed: 0
  scheduleStartTime: "2024-05-01T10:20:30.5+01:00"
)");
  ASSERT_TRUE(docs.ok()) << docs.error();
  ASSERT_EQ(docs->size(), 7u);
  std::vector<Object> objects;
  for (const Value& d : *docs) {
    auto obj = DecodeObject(d);
    ASSERT_TRUE(obj.ok()) << obj.error();
    objects.push_back(std::move(*obj));
  }
  const auto& pvc = std::get<PersistentVolumeClaim>(objects[0]);
  ASSERT_TRUE(pvc.spec.storage_class_name.has_value());
  EXPECT_EQ(*pvc.spec.storage_class_name, "");
  EXPECT_EQ(Milli(pvc.spec.resources.requests, "storage"), 10LL * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(pvc.spec.access_modes, std::vector<std::string>{"ReadWriteOncePod"});
  ASSERT_TRUE(pvc.spec.selector.has_value());
  EXPECT_EQ(pvc.status.phase, "Bound");

  const auto& pv = std::get<PersistentVolume>(objects[1]);
  ASSERT_TRUE(pv.spec.claim_ref.has_value());
  EXPECT_EQ(pv.spec.claim_ref->name, "data");
  EXPECT_EQ(pv.spec.claim_ref->namespace_, "db");
  EXPECT_EQ(pv.spec.csi_driver, "pd.csi.storage.gke.io");
  EXPECT_EQ(pv.spec.csi_volume_handle, "h-1");
  EXPECT_EQ(pv.spec.reclaim_policy, "Delete");
  ASSERT_TRUE(pv.spec.node_affinity.has_value());
  EXPECT_TRUE(Matches(*pv.spec.node_affinity, {{"topology.kubernetes.io/zone", "eu-1a"}}, "n"));
  EXPECT_EQ(pv.phase, "Bound");

  const auto& sc = std::get<StorageClass>(objects[2]);
  EXPECT_EQ(sc.provisioner, "pd.csi.storage.gke.io");
  EXPECT_EQ(sc.parameters.at("type"), "pd-ssd");
  EXPECT_EQ(sc.volume_binding_mode, "WaitForFirstConsumer");
  ASSERT_EQ(sc.allowed_topologies.size(), 1u);
  ASSERT_EQ(sc.allowed_topologies[0].match_expressions.size(), 1u);
  EXPECT_EQ(sc.allowed_topologies[0].match_expressions[0].op, SelectorOperator::kIn);
  EXPECT_EQ(sc.allowed_topologies[0].match_expressions[0].values.size(), 2u);

  const auto& csi = std::get<CSINode>(objects[3]);
  ASSERT_EQ(csi.drivers.size(), 2u);
  EXPECT_EQ(csi.drivers[0].allocatable_count, 15);
  EXPECT_EQ(csi.drivers[0].topology_keys, std::vector<std::string>{"topology.gke.io/zone"});
  EXPECT_FALSE(csi.drivers[1].allocatable_count.has_value());

  const auto& svc = std::get<Service>(objects[4]);
  EXPECT_EQ(svc.selector.at("app"), "web");
  EXPECT_EQ(svc.cluster_ip, "10.0.0.10");

  EXPECT_EQ(std::get<Namespace>(objects[5]).metadata.labels.at("team"), "a");

  const auto& pg = std::get<PodGroup>(objects[6]);
  EXPECT_EQ(pg.spec.min_member, 3);
  EXPECT_EQ(Milli(pg.spec.min_resources, "cpu"), 3000);
  EXPECT_EQ(pg.spec.schedule_timeout_seconds, 60);
  EXPECT_EQ(pg.status.phase, "Scheduling");
  EXPECT_EQ(pg.status.occupied_by, "default/job-a");
  EXPECT_EQ(pg.status.running, 1);
  ASSERT_TRUE(pg.status.schedule_start_time.has_value());
  EXPECT_EQ(FormatTime(*pg.status.schedule_start_time), "2024-05-01T09:20:30.500000Z");
}

TEST(DecodeStorageTest, StorageClassDefaults) {
  auto sc = DecodeStorageClass(Yaml("kind: StorageClass\nmetadata: {name: s}\nprovisioner: x\n"));
  ASSERT_TRUE(sc.ok()) << sc.error();
  EXPECT_EQ(sc->volume_binding_mode, "Immediate");
  auto pvc =
      DecodePersistentVolumeClaim(Yaml("kind: PersistentVolumeClaim\nmetadata: {name: c}\n"));
  ASSERT_TRUE(pvc.ok()) << pvc.error();
  EXPECT_FALSE(pvc->spec.storage_class_name.has_value());
}

struct ErrorCase {
  std::string name;
  std::string yaml;
  std::string want;
};

class DecodeErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(DecodeErrorTest, NamesObjectAndPath) {
  const ErrorCase& c = GetParam();
  auto obj = DecodeObject(Yaml(c.yaml));
  ASSERT_FALSE(obj.ok()) << c.name;
  EXPECT_EQ(obj.error(), c.want) << c.name;
}

constexpr const char* kPodHead = "kind: Pod\nmetadata: {name: web-1, namespace: default}\n";

std::string PodWith(const std::string& spec) { return std::string(kPodHead) + "spec:\n" + spec; }

INSTANTIATE_TEST_SUITE_P(
    BadFields, DecodeErrorTest,
    testing::Values(
        ErrorCase{"bad quantity",
                  PodWith("  containers:\n  - name: c\n    resources: {requests: {cpu: 1.5.3}}\n"),
                  "Pod default/web-1: spec.containers[0].resources.requests.cpu: invalid quantity "
                  "\"1.5.3\""},
        ErrorCase{"absurd quantity",
                  PodWith("  containers:\n  - name: c\n    resources: {limits: {memory: 1e30}}\n"),
                  "Pod default/web-1: spec.containers[0].resources.limits.memory: quantity "
                  "\"1e+30\" is too large"},
        ErrorCase{"bad pod-level quantity", PodWith("  resources: {requests: {memory: 1Qi}}\n"),
                  "Pod default/web-1: spec.resources.requests.memory: invalid quantity \"1Qi\""},
        ErrorCase{"bad container status quantity",
                  std::string(kPodHead) +
                      "status:\n  containerStatuses:\n  - name: c\n    allocatedResources: "
                      "{cpu: x}\n",
                  "Pod default/web-1: status.containerStatuses[0].allocatedResources.cpu: invalid "
                  "quantity \"x\""},
        ErrorCase{"bad pod status resources",
                  std::string(kPodHead) + "status:\n  resources: {requests: [1]}\n",
                  "Pod default/web-1: status.resources.requests: expected object, got array"},
        ErrorCase{"quantity of wrong type", PodWith("  overhead: {cpu: [1]}\n"),
                  "Pod default/web-1: spec.overhead.cpu: expected quantity (string or number), got "
                  "array"},
        ErrorCase{"priority as string", PodWith("  priority: \"10\"\n"),
                  "Pod default/web-1: spec.priority: expected integer, got string"},
        ErrorCase{"priority not integral", PodWith("  priority: 1.5\n"),
                  "Pod default/web-1: spec.priority: expected integer, got number"},
        ErrorCase{"int32 overflow", PodWith("  priority: 99999999999\n"),
                  "Pod default/web-1: spec.priority: value 99999999999 out of range for int32"},
        ErrorCase{"containers not a list", PodWith("  containers: {name: c}\n"),
                  "Pod default/web-1: spec.containers: expected array, got object"},
        ErrorCase{"container not an object", PodWith("  containers: [c]\n"),
                  "Pod default/web-1: spec.containers[0]: expected object, got string"},
        ErrorCase{"label value not a string", "kind: Pod\nmetadata: {name: p, labels: {tier: 1}}\n",
                  "Pod p: metadata.labels.tier: expected string, got integer"},
        ErrorCase{"bad creation timestamp",
                  "kind: Pod\nmetadata: {name: p, creationTimestamp: yesterday}\n",
                  "Pod p: metadata.creationTimestamp: invalid time \"yesterday\" (want RFC 3339, "
                  "e.g. 2024-01-02T03:04:05Z)"},
        ErrorCase{"unsupported node selector operator",
                  PodWith("  affinity:\n    nodeAffinity:\n      "
                          "requiredDuringSchedulingIgnoredDuringExecution:\n        "
                          "nodeSelectorTerms:\n        - matchExpressions:\n          - {key: a, "
                          "operator: Foo, values: [x]}\n"),
                  "Pod default/web-1: "
                  "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                  "nodeSelectorTerms[0].matchExpressions[0].operator: unsupported operator "
                  "\"Foo\""},
        ErrorCase{"Gt needs one integer value",
                  PodWith("  affinity:\n    nodeAffinity:\n      "
                          "requiredDuringSchedulingIgnoredDuringExecution:\n        "
                          "nodeSelectorTerms:\n        - matchExpressions:\n          - {key: a, "
                          "operator: Gt, values: [x]}\n"),
                  "Pod default/web-1: "
                  "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                  "nodeSelectorTerms[0].matchExpressions[0].values[0]: must be an integer when "
                  "`operator` is 'Lt' or 'Gt', got \"x\""},
        ErrorCase{"matchFields only metadata.name",
                  PodWith("  affinity:\n    nodeAffinity:\n      "
                          "requiredDuringSchedulingIgnoredDuringExecution:\n        "
                          "nodeSelectorTerms:\n        - matchFields:\n          - {key: "
                          "metadata.uid, operator: In, values: [x]}\n"),
                  "Pod default/web-1: "
                  "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                  "nodeSelectorTerms[0].matchFields[0].key: unsupported field key "
                  "\"metadata.uid\": only \"metadata.name\" is supported"},
        ErrorCase{"label selector Gt not allowed",
                  PodWith("  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: z\n    "
                          "whenUnsatisfiable: DoNotSchedule\n    labelSelector:\n      "
                          "matchExpressions: [{key: a, operator: Gt, values: [\"1\"]}]\n"),
                  "Pod default/web-1: "
                  "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].operator: "
                  "unsupported operator \"Gt\""},
        ErrorCase{
            "In without values",
            PodWith("  affinity:\n    podAffinity:\n      "
                    "requiredDuringSchedulingIgnoredDuringExecution:\n      - topologyKey: "
                    "z\n        labelSelector: {matchExpressions: [{key: a, operator: In}]}\n"),
            "Pod default/web-1: "
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "labelSelector.matchExpressions[0].values: must be specified when `operator` is "
            "'In' or 'NotIn'"},
        ErrorCase{
            "Exists with values",
            PodWith("  nodeSelector: {}\n  affinity:\n    podAntiAffinity:\n      "
                    "preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 1\n     "
                    "   podAffinityTerm:\n          topologyKey: z\n          labelSelector: "
                    "{matchExpressions: [{key: a, operator: Exists, values: [b]}]}\n"),
            "Pod default/web-1: "
            "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution["
            "0].podAffinityTerm.labelSelector.matchExpressions[0].values: may not be "
            "specified when `operator` is 'Exists' or 'DoesNotExist'"},
        ErrorCase{
            "pod affinity weight out of range",
            PodWith("  affinity:\n    podAffinity:\n      "
                    "preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 101\n  "
                    "      podAffinityTerm: {topologyKey: z}\n"),
            "Pod default/web-1: "
            "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
            "weight: must be in the range 1-100"},
        ErrorCase{"empty topologyKey",
                  PodWith("  affinity:\n    podAffinity:\n      "
                          "requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: "
                          "{}\n"),
                  "Pod default/web-1: "
                  "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
                  "topologyKey: can not be empty"},
        ErrorCase{"toleration operator", PodWith("  tolerations: [{key: a, operator: Matches}]\n"),
                  "Pod default/web-1: spec.tolerations[0].operator: unsupported value \"Matches\": "
                  "supported values: \"Equal\", \"Exists\""},
        ErrorCase{"toleration effect",
                  PodWith("  tolerations: [{key: a, operator: Exists, effect: NoWay}]\n"),
                  "Pod default/web-1: spec.tolerations[0].effect: unsupported value \"NoWay\": "
                  "supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""},
        ErrorCase{"toleration Exists with value",
                  PodWith("  tolerations: [{key: a, operator: Exists, value: b}]\n"),
                  "Pod default/web-1: spec.tolerations[0].value: value must be empty when "
                  "`operator` is 'Exists'"},
        ErrorCase{"toleration empty key with Equal", PodWith("  tolerations: [{value: b}]\n"),
                  "Pod default/web-1: spec.tolerations[0].operator: operator must be Exists when "
                  "`key` is empty, which means \"match all values and all keys\""},
        ErrorCase{"tolerationSeconds needs NoExecute",
                  PodWith("  tolerations: [{key: a, operator: Exists, tolerationSeconds: 5}]\n"),
                  "Pod default/web-1: spec.tolerations[0].effect: effect must be 'NoExecute' when "
                  "`tolerationSeconds` is set"},
        ErrorCase{"container port range",
                  PodWith("  containers:\n  - name: c\n    ports: [{containerPort: 70000}]\n"),
                  "Pod default/web-1: spec.containers[0].ports[0].containerPort: must be between 1 "
                  "and 65535, inclusive"},
        ErrorCase{"port protocol",
                  PodWith("  containers:\n  - name: c\n    ports: [{containerPort: 80, protocol: "
                          "ICMP}]\n"),
                  "Pod default/web-1: spec.containers[0].ports[0].protocol: unsupported value "
                  "\"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\""},
        ErrorCase{"init container restartPolicy",
                  PodWith("  initContainers:\n  - name: c\n    restartPolicy: Never\n"),
                  "Pod default/web-1: spec.initContainers[0].restartPolicy: unsupported value "
                  "\"Never\": supported values: \"Always\""},
        ErrorCase{"spread whenUnsatisfiable",
                  PodWith("  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: z, "
                          "whenUnsatisfiable: Maybe}\n"),
                  "Pod default/web-1: spec.topologySpreadConstraints[0].whenUnsatisfiable: "
                  "unsupported value \"Maybe\": supported values: \"DoNotSchedule\", "
                  "\"ScheduleAnyway\""},
        ErrorCase{"spread maxSkew",
                  PodWith("  topologySpreadConstraints:\n  - {maxSkew: 0, topologyKey: z, "
                          "whenUnsatisfiable: DoNotSchedule}\n"),
                  "Pod default/web-1: spec.topologySpreadConstraints[0].maxSkew: must be greater "
                  "than zero"},
        ErrorCase{"hostNetwork type", PodWith("  hostNetwork: \"true\"\n"),
                  "Pod default/web-1: spec.hostNetwork: expected boolean, got string"},
        ErrorCase{"spec not an object", std::string(kPodHead) + "spec: [1]\n",
                  "Pod default/web-1: spec: expected object, got array"},
        ErrorCase{"unnamed pod", "kind: Pod\nspec: {priority: x}\n",
                  "Pod <unnamed>: spec.priority: expected integer, got string"},
        ErrorCase{"taint effect",
                  "kind: Node\nmetadata: {name: n1}\nspec:\n  taints: [{key: a, effect: Never}]\n",
                  "Node n1: spec.taints[0].effect: unsupported value \"Never\": supported values: "
                  "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""},
        ErrorCase{"taint without effect",
                  "kind: Node\nmetadata: {name: n1}\nspec:\n  taints: [{key: a}]\n",
                  "Node n1: spec.taints[0].effect: effect is required"},
        ErrorCase{"node allocatable",
                  "kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: 4 cores}}\n",
                  "Node n1: status.allocatable.cpu: invalid quantity \"4 cores\""},
        ErrorCase{"image size",
                  "kind: Node\nmetadata: {name: n1}\nstatus: {images: [{sizeBytes: "
                  "big}]}\n",
                  "Node n1: status.images[0].sizeBytes: expected integer, got string"},
        ErrorCase{"binding mode",
                  "kind: StorageClass\nmetadata: {name: s}\nvolumeBindingMode: Later\n",
                  "StorageClass s: volumeBindingMode: unsupported value \"Later\": supported "
                  "values: \"Immediate\", \"WaitForFirstConsumer\""},
        ErrorCase{"csi count",
                  "kind: CSINode\nmetadata: {name: n}\nspec: {drivers: [{name: d, allocatable: "
                  "{count: 3000000000}}]}\n",
                  "CSINode n: spec.drivers[0].allocatable.count: value 3000000000 out of range for "
                  "int32"},
        ErrorCase{"pod group min member",
                  "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g, "
                  "namespace: ns}\nspec: {minMember: many}\n",
                  "PodGroup ns/g: spec.minMember: expected integer, got string"},
        ErrorCase{"pod group from another group",
                  "apiVersion: example.com/v1\nkind: PodGroup\nmetadata: {name: g}\n",
                  "unsupported kind \"PodGroup\" in apiVersion \"example.com/v1\" (want group "
                  "scheduling.x-k8s.io)"},
        ErrorCase{"unknown kind", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
                  "unsupported kind \"Deployment\""},
        ErrorCase{"missing kind", "metadata: {name: d}\n", "object d: kind: kind is required"},
        ErrorCase{"kind not a string", "kind: 5\n",
                  "object <unnamed>: kind: expected string, got integer"},
        ErrorCase{"not an object", "- a\n- b\n", "expected a Kubernetes object, got array"}),
    [](const testing::TestParamInfo<ErrorCase>& info) {
      std::string name;
      for (char c : info.param.name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(DecodeTest, TypedDecodersReportPathsFromTheRoot) {
  auto pod = DecodePod(Yaml(PodWith("  priority: x\n")));
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error(), "spec.priority: expected integer, got string");
  auto node = DecodeNode(Value::MakeArray());
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.error(), "expected object, got array");
}

TEST(DecodeTest, Pieces) {
  auto affinity = DecodeNodeAffinity(
      Yaml("requiredDuringSchedulingIgnoredDuringExecution:\n  nodeSelectorTerms:\n  - "
           "matchExpressions: [{key: zone, operator: NotIn, values: [a]}]\n"),
      "args.addedAffinity");
  ASSERT_TRUE(affinity.ok()) << affinity.error();
  EXPECT_TRUE(Matches(*affinity->required, {{"zone", "b"}}, "n"));

  auto bad = DecodeNodeSelector(
      Yaml("nodeSelectorTerms:\n- matchExpressions: [{key: zone, operator: Lt, values: [1, 2]}]\n"),
      "args.sel");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(),
            "args.sel.nodeSelectorTerms[0].matchExpressions[0].values[0]: expected string, got "
            "integer");

  auto selector = DecodeLabelSelector(Yaml("matchLabels: {a: b}\n"), "args.selector");
  ASSERT_TRUE(selector.ok()) << selector.error();
  EXPECT_TRUE(Matches(*selector, {{"a", "b"}}));
  auto not_object = DecodeLabelSelector(Value::String("x"), "args.selector");
  ASSERT_FALSE(not_object.ok());
  EXPECT_EQ(not_object.error(), "args.selector: expected object, got string");

  auto tsc = DecodeTopologySpreadConstraint(
      Yaml("{maxSkew: 2, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 1}"),
      "args.defaultConstraints[0]");
  ASSERT_FALSE(tsc.ok());
  EXPECT_EQ(tsc.error(),
            "args.defaultConstraints[0].minDomains: can only be used when whenUnsatisfiable is "
            "DoNotSchedule");

  auto list = DecodeResourceList(Yaml("{cpu: 2, memory: 0.5Gi, example.com/foo: 0.5}"), "r");
  ASSERT_TRUE(list.ok()) << list.error();
  EXPECT_EQ(Milli(*list, "cpu"), 2000);
  EXPECT_EQ(Milli(*list, "memory"), 512LL * 1024 * 1024 * 1000);
  EXPECT_EQ(Milli(*list, "example.com/foo"), 500);
  auto q = DecodeQuantity(Value::Bool(true), "q");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error(), "q: expected quantity (string or number), got boolean");
}

TEST(TimeTest, ParseAndFormat) {
  struct Case {
    std::string text;
    int64_t micros;
  };
  for (const Case& c :
       {Case{"1970-01-01T00:00:00Z", 0}, Case{"2024-01-02T03:04:05Z", 1704164645LL * 1000000},
        Case{"2024-01-02T03:04:05.123456789Z", 1704164645LL * 1000000 + 123456},
        Case{"2024-01-02T03:04:05.5Z", 1704164645LL * 1000000 + 500000},
        Case{"2024-01-02T05:04:05+02:00", 1704164645LL * 1000000},
        Case{"2024-01-01T22:04:05-05:00", 1704164645LL * 1000000},
        Case{"2024-02-29T00:00:00Z", 1709164800LL * 1000000},
        Case{"1969-12-31T23:59:59.5Z", -500000}}) {
    auto t = ParseTime(c.text);
    ASSERT_TRUE(t.ok()) << c.text << ": " << t.error();
    EXPECT_EQ(t->unix_micros, c.micros) << c.text;
    auto again = ParseTime(FormatTime(*t));
    ASSERT_TRUE(again.ok()) << FormatTime(*t);
    EXPECT_EQ(*again, *t);
  }
  EXPECT_EQ(FormatTime(Time{1704164645LL * 1000000 + 7}), "2024-01-02T03:04:05.000007Z");
  EXPECT_EQ(FormatTime(Time{-500000}), "1969-12-31T23:59:59.500000Z");
  for (const char* bad :
       {"", "2024-01-02", "2024-01-02T03:04:05", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
        "2024-01-02T24:00:00Z", "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05+0200",
        "2024-01-02 03:04:05Z", "2024-01-02T03:04:05Zjunk", "2024-01-02T03:04:60Z"}) {
    auto t = ParseTime(bad);
    EXPECT_FALSE(t.ok()) << bad;
  }
}

TEST(DecodeTest, NeverCrashesOnOddDocuments) {
  // Every well-formed document decodes or errors; none may crash.
  for (const char* text :
       {"kind: Pod\nspec: {containers: [{resources: {requests: null}}]}\n",
        "kind: Pod\nmetadata: null\nspec: null\nstatus: null\n",
        "kind: Pod\nspec: {affinity: {nodeAffinity: "
        "{requiredDuringSchedulingIgnoredDuringExecution: "
        "{nodeSelectorTerms: [{}]}}}}\n",
        "kind: Node\nstatus: {capacity: []}\n", "kind: Pod\nspec: {volumes: [{rbd: 7}]}\n",
        "kind: PersistentVolume\nspec: {nodeAffinity: {required: {nodeSelectorTerms: 1}}}\n",
        "kind: Service\nspec: {selector: {a: {b: c}}}\n", "kind: CSINode\nspec: {drivers: [{}]}\n",
        "kind: PodGroup\napiVersion: scheduling.x-k8s.io/v1\nstatus: {scheduleStartTime: 5}\n"}) {
    auto docs = json::ParseYamlDocuments(text);
    ASSERT_TRUE(docs.ok()) << docs.error();
    for (const Value& d : *docs) {
      auto obj = DecodeObject(d);
      if (!obj.ok()) {
        EXPECT_FALSE(obj.error().empty()) << text;
      }
    }
  }
  auto nested = json::ParseJson(std::string(R"({"kind":"Pod","spec":{"containers":)") +
                                std::string(500, '[') + std::string(500, ']') + "}}");
  ASSERT_TRUE(nested.ok()) << nested.error();
  auto obj = DecodeObject(*nested);
  ASSERT_FALSE(obj.ok());
  EXPECT_EQ(obj.error(), "Pod <unnamed>: spec.containers[0]: expected object, got array");
}

}  // namespace
}  // namespace berth::api
