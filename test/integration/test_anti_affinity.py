"""Required pod anti-affinity with `berth run` against a real kube-apiserver + etcd.

50 replicas that must not share a node (topologyKey kubernetes.io/hostname) land one per node
on 50 nodes; a 51st has nowhere to go and gets FailedScheduling with upstream's reason.
Run: python3 -m unittest -v test_anti_affinity  (from this folder), or through ctest.
"""
import collections
import unittest

import kube
from kube import config, wait_for

NODES = 50


class AntiAffinityTest(kube.ClusterTestCase):
    def replica(self, name):
        anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}},
             "topologyKey": "kubernetes.io/hostname"}]}}
        obj = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
               "spec": {"schedulerName": "berth-scheduler", "affinity": anti,
                        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                        "resources": {"requests": {"cpu": "100m"}}}]}}
        return self.c.create("/api/v1/namespaces/default/pods", obj)

    def bound(self):
        return {p["metadata"]["name"]: p["spec"]["nodeName"]
                for p in self.c.pods() if p["spec"].get("nodeName")}

    def test_fifty_replicas_spread_one_per_node_and_the_51st_fails(self):
        for i in range(NODES):
            self.c.node(f"n{i:02d}", cpu="8", memory="32Gi")
        self.c.start_berth("berth", config())
        for i in range(NODES):
            self.replica(f"web-{i:02d}")
        bound = wait_for(lambda: (lambda b: b if len(b) == NODES else None)(self.bound()), 90,
                         what=f"{NODES} replicas bound")
        per_node = collections.Counter(bound.values())
        self.assertEqual(len(per_node), NODES, f"replicas share nodes: {per_node}")
        self.assertTrue(all(v == 1 for v in per_node.values()), per_node)

        self.replica("web-extra")

        def failed():
            notes = [e["note"] for e in self.c.events()
                     if e.get("reason") == "FailedScheduling"
                     and e["regarding"]["name"] == "web-extra"]
            return notes[-1] if notes else None
        note = wait_for(failed, 30, what="FailedScheduling for web-extra")
        # Every node already runs a replica; equal priority, so preemption cannot help either.
        self.assertEqual(
            note,
            f"0/{NODES} nodes are available: {NODES} node(s) didn't match pod anti-affinity "
            f"rules. preemption: 0/{NODES} nodes are available: {NODES} No preemption victims "
            "found for incoming pod.")
        self.assertNotIn("web-extra", self.bound())


if __name__ == "__main__":
    unittest.main()
