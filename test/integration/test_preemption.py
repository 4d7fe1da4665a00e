"""DefaultPreemption with `berth run` against a real kube-apiserver + etcd (test/cluster).

Every node is full of low-priority pods; a high-priority pod arrives. berth must nominate a node
(status.nominatedNodeName), delete the victims it chose there (sparing pods whose
PodDisruptionBudget allows no disruption when another node needs no violation), and bind the
pod to the nominated node once the victims are gone.

There is no kubelet: a bound pod that is deleted only gets a deletionTimestamp and would wait
for its kubelet forever, so the test plays the kubelet and force-deletes terminating pods.
Run: python3 -m unittest -v test_preemption  (from this folder), or through ctest.
"""
import unittest

import kube
from kube import config, wait_for


class PreemptionTest(kube.ClusterTestCase):
    log_tail = 8000

    def priority_class(self, name, value):
        self.c.create("/apis/scheduling.k8s.io/v1/priorityclasses",
                      {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                       "metadata": {"name": name}, "value": value})

    def pod(self, name, cpu, priority_class, node=None, labels=None):
        spec = {"priorityClassName": priority_class}
        if node:
            spec["nodeName"] = node
        obj = self.c.pod(name, cpu=cpu, memory="64Mi", extra_spec=spec)
        if labels:
            self.c.request("PATCH", f"/api/v1/namespaces/default/pods/{name}",
                           {"metadata": {"labels": labels}},
                           content_type="application/merge-patch+json")
        return obj

    def get_pod(self, name):
        try:
            return self.c.get(f"/api/v1/namespaces/default/pods/{name}")
        except kube.ApiError as e:
            if e.code == 404:
                return None
            raise

    def play_kubelet(self):
        """Force-deletes pods that are terminating (what a kubelet would confirm)."""
        gone = []
        for p in self.c.pods():
            if p["metadata"].get("deletionTimestamp"):
                self.c.delete(f"/api/v1/namespaces/default/pods/{p['metadata']['name']}")
                gone.append(p["metadata"]["name"])
        return gone

    def test_victims_deleted_pdb_honoured_pod_bound_to_nominated_node(self):
        self.priority_class("lowest", 5)
        self.priority_class("low", 10)
        self.priority_class("mid", 500)
        self.priority_class("high", 1000)
        for n in ("node-a", "node-b", "node-c"):
            self.c.node(n, cpu="2", memory="8Gi")
        # node-a: two lowest-priority pods protected by a PDB that allows no disruption. Without
        # the PDB node-a would be the better choice (lower victim priority); with it, node-b's
        # unprotected low pods must go instead (fewest PDB violations comes first).
        # node-c: one mid-priority pod using the whole node (evicting it would cost more).
        for name in ("guarded-1", "guarded-2"):
            self.pod(name, "1", "lowest", node="node-a", labels={"app": "guarded"})
        for name in ("free-1", "free-2"):
            self.pod(name, "1", "low", node="node-b", labels={"app": "free"})
        self.pod("mid-1", "2", "mid", node="node-c")
        self.c.create("/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                      {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                       "metadata": {"name": "guarded"},
                       "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "guarded"}}}})
        # No disruption controller runs here: write the status it would, through the status
        # subresource (a plain update ignores status).
        self.c.request("PATCH",
                       "/apis/policy/v1/namespaces/default/poddisruptionbudgets/guarded/status",
                       {"status": {"disruptionsAllowed": 0, "currentHealthy": 2,
                                   "desiredHealthy": 2, "expectedPods": 2,
                                   "observedGeneration": 1}},
                       content_type="application/merge-patch+json")
        pdb = self.c.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/guarded")
        self.assertEqual(pdb["status"]["disruptionsAllowed"], 0)
        self.assertEqual(pdb["status"]["expectedPods"], 2)

        self.c.start_berth("berth", config())
        self.pod("critical", "2", "high")

        nominated = wait_for(
            lambda: (self.get_pod("critical") or {}).get("status", {}).get("nominatedNodeName"),
            30, what="critical's status.nominatedNodeName")
        self.assertEqual(nominated, "node-b", "the PDB-protected node must not be chosen")
        # The attempt that preempted says so, as upstream v1.37's DefaultPreemption words it.
        def first_failed():
            notes = [e["note"] for e in self.c.events()
                     if e.get("reason") == "FailedScheduling"
                     and e["regarding"]["name"] == "critical"]
            return notes[0] if notes else None
        self.assertEqual(
            wait_for(first_failed, 30, what="FailedScheduling for critical"),
            "0/3 nodes are available: 3 Insufficient cpu. preemption: found a potential placement "
            "for pod on node node-b, preempting 2 victims")

        # The victims on node-b are deleted (terminating: no kubelet confirms the deletion).
        def victims_terminating():
            pods = [self.get_pod(n) for n in ("free-1", "free-2")]
            return all(p is None or p["metadata"].get("deletionTimestamp") for p in pods)
        wait_for(victims_terminating, 30, what="free-1 and free-2 deleted")
        # Until they are gone, the pod is not eligible to preempt again and keeps its nomination.
        self.assertIsNone(self.get_pod("critical")["spec"].get("nodeName"))
        self.play_kubelet()

        node = wait_for(lambda: (self.get_pod("critical") or {}).get("spec", {}).get("nodeName"),
                        30, what="critical bound")
        self.assertEqual(node, "node-b")
        # Survivors: the PDB-protected pods and the higher-priority pod are untouched.
        for name in ("guarded-1", "guarded-2", "mid-1"):
            p = self.get_pod(name)
            self.assertIsNotNone(p, f"{name} was deleted")
            self.assertIsNone(p["metadata"].get("deletionTimestamp"), f"{name} is terminating")
        self.assertIsNone(self.get_pod("free-1"))
        self.assertIsNone(self.get_pod("free-2"))
        # A Preempted event names the victim and the node.
        def preempted_events():
            return {e["regarding"]["name"]: e for e in self.c.events()
                    if e.get("reason") == "Preempted"}
        events = wait_for(lambda: (lambda ev: ev if len(ev) == 2 else None)(preempted_events()),
                          20, what="Preempted events for both victims")
        self.assertEqual(set(events), {"free-1", "free-2"})
        self.assertTrue(events["free-1"]["note"].endswith("on node node-b"),
                        events["free-1"]["note"])
        # Scheduled on its nominated node, so the nomination is done with.
        self.assertEqual(self.get_pod("critical")["spec"]["nodeName"], "node-b")

    def test_preemption_policy_never_and_equal_priority_do_not_preempt(self):
        self.priority_class("low", 10)
        self.c.create("/apis/scheduling.k8s.io/v1/priorityclasses",
                      {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                       "metadata": {"name": "high-never"}, "value": 1000,
                       "preemptionPolicy": "Never"})
        self.c.node("node-a", cpu="1", memory="8Gi")
        self.pod("low-1", "1", "low", node="node-a")
        self.c.start_berth("berth", config())
        self.pod("polite", "1", "high-never")
        self.pod("peer", "1", "low")

        def failed(name):
            notes = [e["note"] for e in self.c.events()
                     if e.get("reason") == "FailedScheduling" and e["regarding"]["name"] == name]
            return notes[-1] if notes else None
        self.assertEqual(
            wait_for(lambda: failed("polite"), 30, what="FailedScheduling for polite"),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to "
            "preemptionPolicy=Never.")
        self.assertEqual(
            wait_for(lambda: failed("peer"), 30, what="FailedScheduling for peer"),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
            "1 No preemption victims found for incoming pod.")
        low = self.get_pod("low-1")
        self.assertIsNotNone(low)
        self.assertIsNone(low["metadata"].get("deletionTimestamp"))


if __name__ == "__main__":
    unittest.main()
