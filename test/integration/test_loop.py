"""Scheduling-loop semantics of upstream v1.37 that a user sees, against a real kube-apiserver:
gated pods get no FailedScheduling from berth (the API server's PodScheduled=False
SchedulingGated condition is all), and system default spreading follows the selector of the pod's
ReplicaSet, read through berth's apps/v1 informer.

Run: python3 -m unittest -v test_loop  (from this folder), or through ctest.
"""
import unittest

import kube
from kube import config, wait_for

# Score with PodTopologySpread alone, so that only default spreading decides between nodes.
SPREAD_ONLY = """  plugins:
    score:
      disabled: [{name: "*"}]
      enabled: [{name: PodTopologySpread, weight: 1}]
"""


class LoopTest(kube.ClusterTestCase):
    def create_pod(self, name, labels=None, owner=None, node=None, gates=None):
        spec = {"schedulerName": "berth-scheduler",
                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}
        if node:
            spec["nodeName"] = node
        if gates:
            spec["schedulingGates"] = [{"name": g} for g in gates]
        meta = {"name": name, "namespace": "default", "labels": labels or {}}
        if owner:
            meta["ownerReferences"] = [owner]
        return self.c.create("/api/v1/namespaces/default/pods",
                             {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})

    def pod(self, name):
        return self.c.get(f"/api/v1/namespaces/default/pods/{name}")

    def failed_notes(self, name):
        return [e["note"] for e in self.c.events()
                if e.get("reason") == "FailedScheduling" and e["regarding"]["name"] == name]

    def test_gated_pod_gets_no_failed_scheduling(self):
        self.c.node("node-a")
        self.c.start_berth("berth", config())
        self.create_pod("gated", gates=["example.com/wait"])
        self.create_pod("free")
        wait_for(lambda: self.pod("free")["spec"].get("nodeName"), 30, what="free bound")
        cond = [c for c in self.pod("gated")["status"].get("conditions", [])
                if c["type"] == "PodScheduled"]
        self.assertEqual(len(cond), 1, cond)
        self.assertEqual(cond[0]["reason"], "SchedulingGated")
        self.assertEqual(cond[0]["message"],
                         "Scheduling is blocked due to non-empty scheduling gates")
        self.assertEqual(self.failed_notes("gated"), [])
        # Lifting the gate lets it schedule.
        self.c.request("PATCH", "/api/v1/namespaces/default/pods/gated",
                       {"spec": {"schedulingGates": None}},
                       content_type="application/merge-patch+json")
        wait_for(lambda: self.pod("gated")["spec"].get("nodeName"), 30, what="gated bound")

    def test_default_spreading_uses_the_replicaset_selector(self):
        self.c.node("node-a")
        self.c.node("node-b")
        rs = self.c.create("/apis/apps/v1/namespaces/default/replicasets", {
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                 "uid": rs["metadata"]["uid"], "controller": True}
        for i in range(3):
            self.create_pod(f"web-{i}", labels={"app": "web"}, owner=owner, node="node-a")
        self.c.start_berth("berth", config(extra=SPREAD_ONLY))
        # No Service selects these pods: only the ReplicaSet's selector can spread them.
        for i in range(3, 5):
            self.create_pod(f"web-{i}", labels={"app": "web"}, owner=owner)
            node = wait_for(lambda: self.pod(f"web-{i}")["spec"].get("nodeName"), 30,
                            what=f"web-{i} bound")
            self.assertEqual(node, "node-b", f"web-{i} should spread away from node-a")


if __name__ == "__main__":
    unittest.main()
