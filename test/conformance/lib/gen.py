"""Seeded generator of small conformance scenarios.

generate(seed) -> scenario dict (JSON-serialisable), the same for the same seed:
  {"name": "seed-N", "seed": N,
   "config": KubeSchedulerConfiguration (profiles only; the recorder adds the connection),
   "namespaces": {name: labels},       labels of the fixed namespaces for this scenario
   "objects": [object, ...],           created in order; an object may carry "x-status" (written
                                       through the status subresource after creation)
   "pending": [pod, ...]}              created one by one, each after the previous outcome

Every feature generated is one the recorder can observe and the replayer can compare: ≤ 30 nodes
(every node scored), or ~120 nodes of which fewer than 100 are feasible (percentageOfNodesToScore
never cuts the search). Pods whose volumes wait for a first consumer come last (upstream then waits
in PreBind for a provisioner that does not run, so nothing may follow them).

Dynamic Resource Allocation (generate(seed, dra=...)): a driver's ResourceSlices with a few GPUs
on some nodes, a DeviceClass (and one with a CEL memory selector), per-namespace
ResourceClaimTemplates (one GPU, two with matchAttribute, a selector, firstAvailable) and named
claims, used by some pending pods. dra=None (the default) turns it on for half the seeds above 60,
decided by a separate random stream: the committed seeds 1..60 are generated exactly as before.
"""
import random

NAMESPACES = ["default", "team-a", "team-b", "team-c"]
SCHEDULER = "conf-scheduler"
SCHEDULER_B = "conf-scheduler-b"
ZONES = ["zone-1", "zone-2", "zone-3"]
APPS = ["web", "db", "cache", "batch"]
IMAGES = [("registry.example/web:1", 300), ("registry.example/db:2", 900),
          ("registry.example/cache:3", 120), ("registry.example/tools:4", 40),
          ("registry.example/big:5", 2000)]
CSI_DRIVER = "csi.example.com"
OWNER_KINDS = ["ReplicaSet", "ReplicationController", "StatefulSet", "Job", "DaemonSet",
               "MissingReplicaSet", None]


def _q_cpu(m):
    return f"{m}m" if m % 1000 else str(m // 1000)


def _q_mem(mi):
    return f"{mi}Mi" if mi % 1024 else f"{mi // 1024}Gi"


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        self.objects = []
        self.pending = []
        self.nodes = []
        self.uid_n = 0
        self.owners = []  # (kind, name, namespace, labels, uid) for owner references
        self.features = set()
        self.two_profiles = False
        self.big = False

    # ---- helpers ----
    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def fake_uid(self):
        self.uid_n += 1
        return f"00000000-0000-4000-8000-{self.seed:06d}{self.uid_n:06d}"

    # ---- config ----
    def config(self):
        profile = {"schedulerName": SCHEDULER}
        plugin_config = []
        strategy = self.pick(["default", "default", "LeastAllocated", "MostAllocated",
                              "RequestedToCapacityRatio"])
        fit_args = {}
        if strategy != "default":
            self.features.add("fit-strategy-" + strategy)
            st = {"type": strategy,
                  "resources": [{"name": "cpu", "weight": self.r.randint(1, 3)},
                                {"name": "memory", "weight": self.r.randint(1, 3)}]}
            if strategy == "RequestedToCapacityRatio":
                st["requestedToCapacityRatio"] = {"shape": [
                    {"utilization": 0, "score": self.r.choice([0, 10])},
                    {"utilization": 100, "score": self.r.choice([0, 10])}]}
                if self.chance(0.5):
                    st["requestedToCapacityRatio"]["shape"].insert(
                        1, {"utilization": 50, "score": self.r.randint(0, 10)})
            fit_args["scoringStrategy"] = st
        if self.chance(0.3):
            self.features.add("ignored-resources")
            fit_args["ignoredResources"] = ["example.com/ignored"]
            if self.chance(0.5):
                fit_args["ignoredResourceGroups"] = ["ignored.example.org"]
        if fit_args:
            plugin_config.append({"name": "NodeResourcesFit", "args": fit_args})
        if self.chance(0.2):
            self.features.add("pts-list-defaults")
            plugin_config.append({"name": "PodTopologySpread", "args": {
                "defaultingType": "List",
                "defaultConstraints": [{"maxSkew": self.r.randint(1, 2),
                                        "topologyKey": "topology.kubernetes.io/zone",
                                        "whenUnsatisfiable": "ScheduleAnyway"}]}})
        if self.chance(0.15):
            self.features.add("hard-affinity-weight")
            plugin_config.append({"name": "InterPodAffinity",
                                  "args": {"hardPodAffinityWeight": self.r.randint(0, 100)}})
        if self.chance(0.15):
            self.features.add("ba-resources")
            plugin_config.append({"name": "NodeResourcesBalancedAllocation", "args": {
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                              {"name": "example.com/gpu", "weight": 1}]}})
        if plugin_config:
            profile["pluginConfig"] = plugin_config
        if self.chance(0.2):
            self.features.add("weights")
            profile["plugins"] = {"score": {"enabled": [
                {"name": self.pick(["ImageLocality", "TaintToleration", "NodeAffinity",
                                    "NodeResourcesBalancedAllocation"]),
                 "weight": self.r.randint(1, 5)}]}}
        if self.chance(0.1):
            self.features.add("disabled-score")
            profile.setdefault("plugins", {})["score"] = {"disabled": [
                {"name": self.pick(["ImageLocality", "NodeResourcesBalancedAllocation",
                                    "PodTopologySpread"])}]}
        profiles = [profile]
        if self.chance(0.2):
            self.features.add("two-profiles")
            self.two_profiles = True
            profiles.append({"schedulerName": SCHEDULER_B, "plugins": {
                "multiPoint": {"disabled": [{"name": "TaintToleration"}]}}})
        return {"apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration", "profiles": profiles}

    # ---- cluster ----
    def node(self, i, n_nodes, big):
        name = f"node-{i:03d}"
        zone = ZONES[i % len(ZONES)] if not self.chance(0.05) else None
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
        if zone:
            labels["topology.kubernetes.io/zone"] = zone
            labels["topology.kubernetes.io/region"] = "region-1"
        if self.chance(0.4):
            labels["disk"] = self.pick(["ssd", "hdd"])
        if self.chance(0.3):
            labels["tier"] = self.pick(["gold", "silver", "bronze"])
        cpu = self.pick([2000, 4000, 8000, 16000, 3500])
        mem = self.pick([4096, 8192, 16384, 32768, 6144])
        alloc = {"cpu": _q_cpu(cpu), "memory": _q_mem(mem),
                 "pods": str(self.pick([110, 110, 110, 8, 4])), "ephemeral-storage": "100Gi"}
        if self.chance(0.25):
            alloc["example.com/gpu"] = str(self.r.randint(1, 4))
        if self.chance(0.1):
            alloc["example.com/ignored"] = "1"
        taints = []
        if big and i >= 20:
            taints.append({"key": "reserved", "value": "infra", "effect": "NoSchedule"})
        elif self.chance(0.2):
            taints.append({"key": self.pick(["dedicated", "gpu", "maintenance"]),
                           "value": self.pick(["true", "ml", ""]),
                           "effect": self.pick(["NoSchedule", "PreferNoSchedule",
                                                "PreferNoSchedule", "NoExecute"])})
            if self.chance(0.2):
                taints.append({"key": "spot", "effect": "PreferNoSchedule"})
        spec = {}
        if taints:
            spec["taints"] = taints
        if self.chance(0.04):
            spec["unschedulable"] = True
        status = {"capacity": dict(alloc), "allocatable": dict(alloc),
                  "conditions": [{"type": "Ready", "status": "True"}]}
        if self.chance(0.5):
            imgs = self.r.sample(IMAGES, self.r.randint(1, 3))
            status["images"] = [{"names": [n], "sizeBytes": mb * 1024 * 1024} for n, mb in imgs]
        if self.chance(0.3):
            status["declaredFeatures"] = sorted(self.r.sample(
                ["InPlacePodVerticalScaling", "UserNamespacesHostNetworkSupport",
                 "RestartAllContainersOnContainerExits"], self.r.randint(1, 2)))
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                "spec": spec, "status": status}
        self.nodes.append(node)
        self.objects.append(node)
        return node

    def owner(self, ns, labels):
        kind = self.pick(OWNER_KINDS)
        if kind is None:
            return None
        self.features.add("owner-" + kind)
        name = f"{labels['app']}-{kind.lower()}-{len(self.owners)}"
        self.owners.append(name)
        uid = self.fake_uid()
        if kind == "MissingReplicaSet":
            return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name, "uid": uid,
                    "controller": True}
        sel = {"matchLabels": {"app": labels["app"]}}
        tmpl = {"metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "c", "image": "registry.example/web:1"}]}}
        obj = None
        if kind == "ReplicaSet":
            obj = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                   "metadata": {"name": name, "namespace": ns},
                   "spec": {"replicas": 0, "selector": sel, "template": tmpl}}
        elif kind == "ReplicationController":
            obj = {"apiVersion": "v1", "kind": "ReplicationController",
                   "metadata": {"name": name, "namespace": ns},
                   "spec": {"replicas": 0, "selector": {"app": labels["app"]}, "template": tmpl}}
        elif kind == "StatefulSet":
            obj = {"apiVersion": "apps/v1", "kind": "StatefulSet",
                   "metadata": {"name": name, "namespace": ns},
                   "spec": {"replicas": 0, "serviceName": name, "selector": sel,
                            "template": tmpl}}
        elif kind == "DaemonSet":
            obj = {"apiVersion": "apps/v1", "kind": "DaemonSet",
                   "metadata": {"name": name, "namespace": ns},
                   "spec": {"selector": sel, "template": tmpl}}
        elif kind == "Job":
            t = {"metadata": {"labels": dict(labels)},
                 "spec": {"restartPolicy": "Never", "containers": tmpl["spec"]["containers"]}}
            obj = {"apiVersion": "batch/v1", "kind": "Job",
                   "metadata": {"name": name, "namespace": ns},
                   "spec": {"suspend": True, "template": t}}
        self.objects.append(obj)
        # The owner reference is filled with the created object's uid by the recorder.
        ref = {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": name,
               "uid": "x-uid-of:" + f"{obj['kind']}/{ns}/{name}", "controller": True}
        return ref

    def containers(self, n, big_frac=0.0, images=True):
        out = []
        for k in range(n):
            c = {"name": f"c{k}", "image": self.pick(IMAGES)[0] if images else "pause"}
            req = {}
            if self.chance(0.85):
                req["cpu"] = _q_cpu(self.pick([50, 100, 250, 500, 1000, 1500]))
            if self.chance(0.8):
                req["memory"] = _q_mem(self.pick([64, 128, 256, 512, 1024, 2048]))
            if self.chance(big_frac):
                req["cpu"] = _q_cpu(self.pick([3000, 6000, 12000]))
            res = {}
            if req:
                res["requests"] = req
            if self.chance(0.1) and req.get("cpu"):
                res["limits"] = {"cpu": req["cpu"]}
            if res:
                c["resources"] = res
            out.append(c)
        return out

    def labels(self):
        labels = {"app": self.pick(APPS)}
        if self.chance(0.5):
            labels["version"] = self.pick(["v1", "v2"])
        if self.chance(0.3):
            labels["tier"] = self.pick(["front", "back"])
        return labels

    def term(self, ns, anti):
        t = {"labelSelector": {"matchLabels": {"app": self.pick(APPS)}},
             "topologyKey": self.pick(["kubernetes.io/hostname", "topology.kubernetes.io/zone"])}
        x = self.r.random()
        if x < 0.15:
            t["namespaces"] = self.r.sample(NAMESPACES, 2)
            self.features.add("affinity-namespaces")
        elif x < 0.3:
            t["namespaceSelector"] = self.pick([{}, {"matchLabels": {"env": "prod"}}])
            self.features.add("affinity-namespaceSelector")
        if self.chance(0.15):
            t["matchLabelKeys"] = ["version"]
            self.features.add("affinity-matchLabelKeys")
        elif self.chance(0.1):
            t["mismatchLabelKeys"] = ["tier"]
            self.features.add("affinity-mismatchLabelKeys")
        return t

    def pod(self, name, ns, bound_to=None):
        labels = self.labels()
        spec = {"schedulerName": SCHEDULER, "terminationGracePeriodSeconds": 0,
                "containers": self.containers(self.pick([1, 1, 1, 2, 3]),
                                              big_frac=0.05 if bound_to else 0.08)}
        meta = {"name": name, "namespace": ns, "labels": labels}
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        if self.chance(0.5):
            ref = self.owner(ns, labels)
            if ref:
                meta["ownerReferences"] = [ref]
        if self.chance(0.15):
            self.features.add("init-containers")
            inits = self.containers(self.r.randint(1, 2))
            for k, c in enumerate(inits):
                c["name"] = f"init{k}"
            for c in inits:
                if self.chance(0.5):
                    c["restartPolicy"] = "Always"
                    self.features.add("sidecar")
            spec["initContainers"] = inits
        if self.chance(0.08):
            self.features.add("overhead")
            spec["runtimeClassName"] = "with-overhead"
        if self.chance(0.08):
            self.features.add("pod-level-resources")
            # The API server wants pod-level requests >= the containers' aggregate.
            for c in spec["containers"] + spec.get("initContainers", []):
                c["resources"] = {"requests": {"cpu": "100m", "memory": "64Mi"}}
            spec["resources"] = {"requests": {"cpu": _q_cpu(self.pick([500, 1000, 2000])),
                                              "memory": _q_mem(self.pick([512, 1024, 4096]))}}
        if self.chance(0.12):
            self.features.add("extended-resource")
            n = str(self.r.randint(1, 2))
            c = spec["containers"][0].setdefault("resources", {})
            c.setdefault("requests", {})["example.com/gpu"] = n
            c.setdefault("limits", {})["example.com/gpu"] = n
        if self.chance(0.06):
            self.features.add("ignored-resource-request")
            c = spec["containers"][-1].setdefault("resources", {})
            for rn in ["example.com/ignored", "ignored.example.org/thing"]:
                c.setdefault("requests", {})[rn] = "1"
                c.setdefault("limits", {})[rn] = "1"
        if self.chance(0.1):
            self.features.add("host-ports")
            spec["containers"][0]["ports"] = [{"containerPort": 8080,
                                               "hostPort": self.pick([8080, 8081, 9000]),
                                               "protocol": self.pick(["TCP", "TCP", "UDP"])}]
        if bound_to:
            spec["nodeName"] = bound_to
            if self.chance(0.1):
                spec["priorityClassName"] = self.pick(["low", "high"])
            return pod
        # pending-only features
        if self.chance(0.25):
            self.features.add("node-selector")
            spec["nodeSelector"] = self.pick([{"disk": "ssd"}, {"tier": "gold"},
                                              {"topology.kubernetes.io/zone": self.pick(ZONES)}])
        if self.chance(0.3):
            self.features.add("node-affinity")
            aff = {}
            if self.chance(0.5):
                aff["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": self.pick(["disk", "tier", "topology.kubernetes.io/zone"]),
                                           "operator": self.pick(["In", "NotIn", "Exists", "DoesNotExist"]),
                                           "values": ["ssd", "gold", "zone-1"]}]}]}
                for e in aff["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"]:
                    if e["operator"] in ("Exists", "DoesNotExist"):
                        del e["values"]
            if self.chance(0.6) or not aff:
                aff["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": self.r.randint(1, 100), "preference": {"matchExpressions": [
                        {"key": k, "operator": "In", "values": [v]}]}}
                    for k, v in self.r.sample([("disk", "ssd"), ("tier", "gold"), ("tier", "silver"),
                                               ("topology.kubernetes.io/zone", "zone-2")],
                                              self.r.randint(1, 3))]
            spec.setdefault("affinity", {})["nodeAffinity"] = aff
        if self.chance(0.4):
            self.features.add("tolerations")
            tols = []
            for _ in range(self.r.randint(1, 2)):
                keys = ["dedicated", "gpu", "maintenance", "spot"] + ([] if self.big else ["reserved"])
                t = {"key": self.pick(keys),
                     "operator": self.pick(["Exists", "Equal"]),
                     "effect": self.pick(["NoSchedule", "PreferNoSchedule", "NoExecute", ""])}
                if t["operator"] == "Equal":
                    t["value"] = self.pick(["true", "ml", "infra", ""])
                if not t["effect"]:
                    del t["effect"]
                tols.append(t)
            spec["tolerations"] = tols
        if self.chance(0.3):
            self.features.add("pod-affinity")
            aff = {}
            for kind, anti in (("podAffinity", False), ("podAntiAffinity", True)):
                if not self.chance(0.5):
                    continue
                a = {}
                if self.chance(0.5):
                    a["requiredDuringSchedulingIgnoredDuringExecution"] = [self.term(ns, anti)]
                if self.chance(0.7):
                    a["preferredDuringSchedulingIgnoredDuringExecution"] = [
                        {"weight": self.r.randint(1, 100), "podAffinityTerm": self.term(ns, anti)}
                        for _ in range(self.r.randint(1, 2))]
                if a:
                    aff[kind] = a
            if aff:
                spec.setdefault("affinity", {}).update(aff)
        if self.chance(0.3):
            self.features.add("topology-spread")
            tscs = []
            for key in self.r.sample(["kubernetes.io/hostname", "topology.kubernetes.io/zone"],
                                     self.r.randint(1, 2)):
                c = {"maxSkew": self.r.randint(1, 3), "topologyKey": key,
                     "whenUnsatisfiable": self.pick(["DoNotSchedule", "ScheduleAnyway"]),
                     "labelSelector": {"matchLabels": {"app": labels["app"]}}}
                if c["whenUnsatisfiable"] == "DoNotSchedule" and self.chance(0.2):
                    c["minDomains"] = self.r.randint(2, 4)
                if self.chance(0.2):
                    c["nodeAffinityPolicy"] = self.pick(["Honor", "Ignore"])
                if self.chance(0.2):
                    c["nodeTaintsPolicy"] = self.pick(["Honor", "Ignore"])
                if self.chance(0.2) and "version" in labels:
                    c["matchLabelKeys"] = ["version"]
                tscs.append(c)
            spec["topologySpreadConstraints"] = tscs
        if self.chance(0.15):
            self.features.add("priority")
            spec["priorityClassName"] = self.pick(["low", "high", "high-never"])
        if self.chance(0.04):
            self.features.add("scheduling-gates")
            spec["schedulingGates"] = [{"name": "example.com/wait"}]
        if self.two_profiles and self.chance(0.3):
            spec["schedulerName"] = SCHEDULER_B
        return pod

    def volumes(self, ns):
        """Volume objects and the pending pods that use them (returned, to be placed)."""
        pods = []
        objs = self.objects
        sc_imm = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                  "metadata": {"name": "immediate"}, "provisioner": CSI_DRIVER,
                  "volumeBindingMode": "Immediate"}
        sc_wffc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                   "metadata": {"name": "wffc"}, "provisioner": CSI_DRIVER,
                   "volumeBindingMode": "WaitForFirstConsumer"}
        objs += [sc_imm, sc_wffc]
        limit = self.r.randint(1, 2)
        for n in self.nodes:
            if self.chance(0.7):
                objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                             "metadata": {"name": n["metadata"]["name"]},
                             "spec": {"drivers": [{"name": CSI_DRIVER,
                                                   "nodeID": n["metadata"]["name"],
                                                   "allocatable": {"count": limit}}]}})
        self.features.add("csinode")

        def pv(name, zone=None, node_zone_affinity=None, claim=None, access="ReadWriteOnce"):
            o = {"apiVersion": "v1", "kind": "PersistentVolume",
                 "metadata": {"name": name, "labels": {}},
                 "spec": {"capacity": {"storage": "1Gi"}, "accessModes": [access],
                          "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "immediate",
                          "csi": {"driver": CSI_DRIVER, "volumeHandle": name}}}
            if zone:
                o["metadata"]["labels"]["topology.kubernetes.io/zone"] = zone
            if node_zone_affinity:
                o["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In",
                     "values": [node_zone_affinity]}]}]}}
            if claim:
                o["spec"]["claimRef"] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                         "namespace": ns, "name": claim}
                o["x-status"] = {"phase": "Bound"}
            return o

        def pvc(name, volume=None, sc="immediate", access="ReadWriteOnce"):
            o = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": name, "namespace": ns},
                 "spec": {"accessModes": [access], "storageClassName": sc,
                          "resources": {"requests": {"storage": "1Gi"}}}}
            if volume:
                o["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes",
                                                "pv.kubernetes.io/bound-by-controller": "yes"}
                o["spec"]["volumeName"] = volume
                o["x-status"] = {"phase": "Bound", "accessModes": [access],
                                 "capacity": {"storage": "1Gi"}}
            return o

        def vol_pod(name, claims):
            p = {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": name, "namespace": ns, "labels": self.labels()},
                 "spec": {"schedulerName": SCHEDULER, "terminationGracePeriodSeconds": 0,
                          "containers": self.containers(1),
                          "volumes": [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                                      for i, c in enumerate(claims)]}}
            return p

        k = 0
        # zonal bound volumes (VolumeZone and VolumeBinding node affinity)
        for z in self.r.sample(ZONES, 2):
            k += 1
            objs.append(pv(f"pv-{k}", zone=z if self.chance(0.5) else None,
                           node_zone_affinity=z, claim=f"claim-{k}"))
            objs.append(pvc(f"claim-{k}", volume=f"pv-{k}"))
            pods.append(("normal", vol_pod(f"vol-zonal-{k}", [f"claim-{k}"])))
            self.features.add("volume-zone")
        # CSI volume counts: running pods already use volumes on some nodes
        used = self.r.sample(self.nodes, min(len(self.nodes), self.r.randint(1, 4)))
        for n in used:
            k += 1
            objs.append(pv(f"pv-{k}", claim=f"claim-{k}"))
            objs.append(pvc(f"claim-{k}", volume=f"pv-{k}"))
            p = vol_pod(f"vol-running-{k}", [f"claim-{k}"])
            p["spec"]["nodeName"] = n["metadata"]["name"]
            objs.append(p)
        k += 1
        objs.append(pv(f"pv-{k}", claim=f"claim-{k}"))
        objs.append(pvc(f"claim-{k}", volume=f"pv-{k}"))
        pods.append(("normal", vol_pod(f"vol-csi-{k}", [f"claim-{k}"])))
        self.features.add("csi-limits")
        # ReadWriteOncePod in use
        k += 1
        objs.append(pv(f"pv-{k}", claim=f"claim-{k}", access="ReadWriteOncePod"))
        objs.append(pvc(f"claim-{k}", volume=f"pv-{k}", access="ReadWriteOncePod"))
        runner = vol_pod(f"vol-rwop-owner-{k}", [f"claim-{k}"])
        runner["spec"]["nodeName"] = self.pick(self.nodes)["metadata"]["name"]
        objs.append(runner)
        pods.append(("normal", vol_pod(f"vol-rwop-{k}", [f"claim-{k}"])))
        self.features.add("rwop")
        # a missing claim
        pods.append(("normal", vol_pod("vol-missing", ["no-such-claim"])))
        self.features.add("missing-pvc")
        # WaitForFirstConsumer (last: upstream then waits in PreBind)
        if self.chance(0.5):
            objs.append(pvc("claim-wffc", sc="wffc"))
            pods.append(("last", vol_pod("vol-wffc", ["claim-wffc"])))
            self.features.add("wffc")
        return pods

    def generate(self, dra=None):
        config = self.config()
        big = self.big = self.chance(0.12)
        n_nodes = 120 if big else self.r.randint(2, 30)
        if big:
            self.features.add("big")
        ns_labels = {ns: ({"env": self.pick(["prod", "dev"])} if self.chance(0.7) else {})
                     for ns in NAMESPACES}
        self.objects += [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "low"}, "value": 100},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "high"}, "value": 1000},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "high-never"}, "value": 1000, "preemptionPolicy": "Never"},
            {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
             "metadata": {"name": "with-overhead"}, "handler": "runc",
             "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}}},
        ]
        for i in range(n_nodes):
            self.node(i, n_nodes, big)
        # Services select some apps (default spreading).
        for app in self.r.sample(APPS, self.r.randint(0, 3)):
            ns = self.pick(NAMESPACES)
            self.objects.append({"apiVersion": "v1", "kind": "Service",
                                 "metadata": {"name": f"svc-{app}", "namespace": ns},
                                 "spec": {"selector": {"app": app},
                                          "ports": [{"port": 80, "protocol": "TCP"}]}})
            self.features.add("service")
        # Running pods.
        schedulable = [n for n in self.nodes if not n["spec"].get("unschedulable")]
        n_running = self.r.randint(0, min(3 * len(schedulable), 40))
        running = []
        for i in range(n_running):
            node = self.pick(self.nodes[:30])
            p = self.pod(f"run-{i:03d}", self.pick(NAMESPACES), bound_to=node["metadata"]["name"])
            if self.chance(0.12):
                self.resize(p)
            running.append(p)
            self.objects.append(p)
        # PDBs over some apps.
        if running and self.chance(0.4):
            app = self.pick(APPS)
            ns = self.pick(NAMESPACES)
            self.objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                                 "metadata": {"name": f"pdb-{app}", "namespace": ns},
                                 "spec": {"minAvailable": 1,
                                          "selector": {"matchLabels": {"app": app}}},
                                 "x-status": {"disruptionsAllowed": self.r.randint(0, 1),
                                              "currentHealthy": 1, "desiredHealthy": 1,
                                              "expectedPods": 1, "observedGeneration": 1}})
            self.features.add("pdb")
        # Pending pods.
        normal, last = [], []
        n_pending = self.r.randint(10, 24)
        for i in range(n_pending):
            normal.append(self.pod(f"pod-{i:03d}", self.pick(NAMESPACES)))
        # Preemption: a high-priority pod that does not fit anywhere without evicting.
        if running and self.chance(0.35):
            self.features.add("preemption")
            p = self.pod("preemptor", "default")
            p["spec"]["priorityClassName"] = "high"
            p["spec"].pop("schedulingGates", None)
            p["spec"].pop("resources", None)
            p["spec"].pop("initContainers", None)
            p["spec"]["schedulerName"] = SCHEDULER
            for k in ("nodeSelector", "affinity", "topologySpreadConstraints"):
                p["spec"].pop(k, None)
            big_cpu = max(int(_cpu_m(n["status"]["allocatable"]["cpu"])) for n in self.nodes)
            # Every node big enough runs a low-priority pod, so the preemptor must evict.
            for k, n in enumerate(n for n in self.nodes
                                  if _cpu_m(n["status"]["allocatable"]["cpu"]) == big_cpu):
                v = {"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"low-{k}", "namespace": self.pick(NAMESPACES),
                                  "labels": self.labels()},
                     "spec": {"schedulerName": SCHEDULER, "terminationGracePeriodSeconds": 0,
                              "nodeName": n["metadata"]["name"],
                              "priorityClassName": self.pick(["low", "low", None]),
                              "containers": self.containers(1)}}
                if not v["spec"]["priorityClassName"]:
                    del v["spec"]["priorityClassName"]
                self.objects.append(v)
                running.append(v)
            p["spec"]["containers"] = [{"name": "c", "image": "registry.example/web:1",
                                        "resources": {"requests": {"cpu": _q_cpu(big_cpu - 100)}}}]
            for r in running:
                if self.chance(0.7):
                    r["spec"]["priorityClassName"] = "low"
            normal.insert(self.r.randint(0, len(normal)), p)
        if self.chance(0.3):
            for where, p in self.volumes(self.pick(NAMESPACES)):
                if where == "last":
                    last.append(p)
                else:
                    normal.insert(self.r.randint(0, len(normal)), p)
        if dra is None:
            dra = self.seed > 60 and random.Random(f"dra-{self.seed}").random() < 0.5
        if dra and not big:
            self.dra(normal)
        self.pending = normal + last
        return {"name": f"seed-{self.seed}", "seed": self.seed, "config": config,
                "namespaces": ns_labels, "objects": self.objects, "pending": self.pending,
                "features": sorted(self.features)}

    def dra(self, pending):
        """Devices on some nodes and claims for some pending pods (own random stream)."""
        rd = random.Random(f"dra-objects-{self.seed}")
        driver, res = "gpu.example.com", "resource.k8s.io/v1"
        mem40 = f'device.capacity["{driver}"].memory.compareTo(quantity("40Gi")) >= 0'
        self.features.add("dra")
        self.objects.append({"apiVersion": res, "kind": "DeviceClass",
                             "metadata": {"name": driver},
                             "spec": {"selectors": [{"cel": {
                                 "expression": f'device.driver == "{driver}"'}}]}})
        self.objects.append({"apiVersion": res, "kind": "DeviceClass",
                             "metadata": {"name": "big-gpu"},
                             "spec": {"selectors": [
                                 {"cel": {"expression": f'device.driver == "{driver}"'}},
                                 {"cel": {"expression": mem40}}]}})
        for n in self.nodes:
            if n["spec"].get("unschedulable") or rd.random() < 0.5:
                continue
            name = n["metadata"]["name"]
            devices = []
            for k in range(rd.randint(1, 4)):
                model, mem = rd.choice([("a100", "80Gi"), ("a100", "40Gi"), ("l4", "24Gi"),
                                        ("h100", "80Gi")])
                devices.append({"name": f"gpu-{k}", "attributes": {"model": {"string": model}},
                                "capacity": {"memory": {"value": mem}}})
            self.objects.append({"apiVersion": res, "kind": "ResourceSlice",
                                 "metadata": {"name": f"{name}-{driver}"},
                                 "spec": {"driver": driver, "nodeName": name,
                                          "pool": {"name": name, "generation": 1,
                                                   "resourceSliceCount": 1},
                                          "devices": devices}})

        def exactly(name, cls=driver, **kw):
            return {"name": name, "exactly": dict({"deviceClassName": cls}, **kw)}
        specs = {
            "one": {"requests": [exactly("gpu")]},
            "pair": {"requests": [exactly("gpus", count=2)],
                     "constraints": [{"matchAttribute": f"{driver}/model"}]},
            "big": {"requests": [exactly("gpu", cls="big-gpu")]},
            "pref": {"requests": [{"name": "gpu", "firstAvailable": [
                {"name": "two", "deviceClassName": driver, "count": 2},
                {"name": "one", "deviceClassName": driver}]}]},
        }
        for ns in NAMESPACES:
            for t, spec in specs.items():
                self.objects.append({"apiVersion": res, "kind": "ResourceClaimTemplate",
                                     "metadata": {"name": t, "namespace": ns},
                                     "spec": {"spec": {"devices": spec}}})
        named = []
        for k in range(rd.randint(0, 2)):
            ns = rd.choice(NAMESPACES)
            self.objects.append({"apiVersion": res, "kind": "ResourceClaim",
                                 "metadata": {"name": f"shared-{k}", "namespace": ns},
                                 "spec": {"devices": specs["one"]}})
            named.append((ns, f"shared-{k}"))
        for p in pending:
            if p["metadata"]["name"] == "preemptor" or rd.random() < 0.6:
                continue
            ns = p["metadata"]["namespace"]
            mine = [c for cns, c in named if cns == ns]
            if mine and rd.random() < 0.4:
                p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": rd.choice(mine)}]
            else:
                p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName":
                                                rd.choice(list(specs))}]

    def resize(self, p):
        """A running pod resized in place: status resources differ from spec."""
        self.features.add("resized")
        sts = []
        for c in p["spec"]["containers"]:
            req = dict(c.get("resources", {}).get("requests", {}))
            alloc = dict(req)
            alloc["cpu"] = _q_cpu(self.pick([200, 750, 1200]))
            cs = {"name": c["name"], "image": c["image"], "imageID": "", "ready": True,
                  "restartCount": 0, "started": True,
                  "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
                  "allocatedResources": alloc, "resources": {"requests": alloc}}
            sts.append(cs)
        status = {"phase": "Running", "containerStatuses": sts}
        if self.chance(0.5):
            status["conditions"] = [{"type": "PodResizeInProgress", "status": "True"}]
        p["x-status"] = status


def _cpu_m(q):
    return int(q[:-1]) if q.endswith("m") else int(q) * 1000


def generate(seed, dra=None):
    return Gen(seed).generate(dra)
