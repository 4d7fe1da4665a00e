"""Gang scheduling (Coscheduling + PodGroups) with `berth run` against a real kube-apiserver.

The PodGroup CRD (scheduling.x-k8s.io/v1alpha1, as kubernetes-sigs/scheduler-plugins ships it)
is installed into the test cluster; nothing else of scheduler-plugins is needed: berth keeps the
PodGroup status itself.
"""
import time
import unittest

import kube
from kube import config, wait_for

GANG_PROFILE = """  plugins:
    multiPoint:
      enabled: [{name: Coscheduling}]
    queueSort:
      enabled: [{name: Coscheduling}]
      disabled: [{name: "*"}]
  pluginConfig:
  - name: Coscheduling
    args: {permitWaitingTimeSeconds: 10}
"""

PODGROUP_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "podgroups.scheduling.x-k8s.io"},
    "spec": {
        "group": "scheduling.x-k8s.io",
        "names": {"kind": "PodGroup", "listKind": "PodGroupList", "plural": "podgroups",
                  "singular": "podgroup", "shortNames": ["pg", "pgs"]},
        "scope": "Namespaced",
        "versions": [{
            "name": "v1alpha1", "served": True, "storage": True,
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {"type": "object", "properties": {
                        "minMember": {"type": "integer", "format": "int32", "minimum": 1},
                        "minResources": {"type": "object", "additionalProperties": {
                            "anyOf": [{"type": "integer"}, {"type": "string"}],
                            "x-kubernetes-int-or-string": True}},
                        "scheduleTimeoutSeconds": {"type": "integer", "format": "int32"}}},
                    "status": {"type": "object", "properties": {
                        "phase": {"type": "string"},
                        "occupiedBy": {"type": "string"},
                        "running": {"type": "integer", "format": "int32"},
                        "succeeded": {"type": "integer", "format": "int32"},
                        "failed": {"type": "integer", "format": "int32"},
                        "scheduleStartTime": {"type": "string", "format": "date-time"}}}}}},
        }],
    },
}


class GangTest(kube.ClusterTestCase):
    def setUp(self):
        super().setUp()
        self.c.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", PODGROUP_CRD)
        wait_for(lambda: self._crd_served(), 30, what="PodGroup CRD served")

    def _crd_served(self):
        try:
            self.c.get("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups")
            return True
        except kube.ApiError:
            return False

    def group(self, name, min_member, timeout=None):
        spec = {"minMember": min_member}
        if timeout:
            spec["scheduleTimeoutSeconds"] = timeout
        self.c.create("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups",
                      {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                       "metadata": {"name": name}, "spec": spec})

    def member(self, name, group, cpu="1"):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default",
                            "labels": {"scheduling.x-k8s.io/pod-group": group},
                            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job",
                                                 "name": group + "-job", "uid": "u-" + group}]},
               "spec": {"schedulerName": "berth-scheduler",
                        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                        "resources": {"requests": {"cpu": cpu}}}]}}
        return self.c.create("/api/v1/namespaces/default/pods", pod)

    def bound(self):
        return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in self.c.pods()
                if p["spec"].get("nodeName")}

    def pg_status(self, name):
        return self.c.get(f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups/{name}"
                          ).get("status", {})

    def set_phase(self, pod, phase):
        self.c.request("PATCH", f"/api/v1/namespaces/default/pods/{pod}/status",
                       {"status": {"phase": phase}}, "application/merge-patch+json")

    def test_group_of_three_binds_and_status_follows(self):
        for i in range(2):
            self.c.node(f"n{i}", cpu="4")
        self.c.start_berth("berth", config(extra=GANG_PROFILE))
        self.group("trio", 3)
        wait_for(lambda: self.pg_status("trio").get("phase") == "Pending", 20,
                 what="PodGroup phase Pending")
        for i in range(3):
            self.member(f"trio-{i}", "trio")
        wait_for(lambda: len(self.bound()) == 3, 30, what="all three bound")
        st = wait_for(lambda: (lambda s: s if s.get("phase") == "Scheduling" else None)(
            self.pg_status("trio")), 20, what="phase Scheduling")
        self.assertEqual(st.get("occupiedBy"), "default/trio-job")
        self.assertIn("scheduleStartTime", st)
        # No kubelet here: play its part and watch the phases follow.
        for i in range(3):
            self.set_phase(f"trio-{i}", "Running")
        st = wait_for(lambda: (lambda s: s if s.get("phase") == "Running" else None)(
            self.pg_status("trio")), 20, what="phase Running")
        self.assertEqual(st.get("running"), 3)
        for i in range(3):
            self.set_phase(f"trio-{i}", "Succeeded")
        st = wait_for(lambda: (lambda s: s if s.get("phase") == "Finished" else None)(
            self.pg_status("trio")), 20, what="phase Finished")
        self.assertEqual(st.get("succeeded"), 3)

    def test_two_of_three_wait_until_the_third_arrives(self):
        self.c.node("n0", cpu="8")
        self.c.start_berth("berth", config(extra=GANG_PROFILE))
        self.group("nginx", 3)
        self.member("nginx-0", "nginx")
        self.member("nginx-1", "nginx")
        want = ("pre-filter pod nginx-{} cannot find enough sibling pods, current pods number: 2, "
                "minMember of group: 3")

        def too_few_events():
            # A pod tried before its sibling existed also has a "number: 1" event; both must
            # end up with the message for the two pods that exist.
            notes = {(e["regarding"]["name"], e["note"]) for e in self.c.events()
                     if e.get("reason") == "FailedScheduling"}
            expected = {(f"nginx-{i}", "0/1 nodes are available: " + want.format(i) + "."
                         " preemption: 0/1 nodes are available: 1 Preemption is not helpful for"
                         " scheduling.")
                        for i in range(2)}
            return expected <= notes

        wait_for(too_few_events, 20, what="FailedScheduling with the seed's message for both pods")
        self.assertEqual(self.bound(), {})
        start = time.time()
        self.member("nginx-2", "nginx")
        wait_for(lambda: len(self.bound()) == 3, 30, what="the whole group bound")
        self.assertLess(time.time() - start, 30)

    def test_competing_groups_one_completes_promptly(self):
        # Two groups of three 1-cpu pods on 4 cpus: each fits alone, not both.
        self.c.node("n0", cpu="2")
        self.c.node("n1", cpu="2")
        self.c.start_berth("berth", config(extra=GANG_PROFILE))
        self.group("alpha", 3)
        time.sleep(1.1)  # alpha is the older group
        self.group("beta", 3)
        start = time.time()
        for i in range(3):  # interleaved creation, the deadlock-prone order
            self.member(f"beta-{i}", "beta")
            self.member(f"alpha-{i}", "alpha")
        def complete():
            b = self.bound()
            done = [g for g in ("alpha", "beta") if sum(1 for n in b if n.startswith(g)) == 3]
            return done or None

        # Whichever group has all its members first completes, before any Permit timeout (10 s)
        # could have broken a deadlock ...
        winner = wait_for(complete, 9, what="one group complete")[0]
        self.assertLess(time.time() - start, 9)
        loser = "beta" if winner == "alpha" else "alpha"
        # ... and the other binds nothing (it holds no capacity the winner needs).
        time.sleep(3)
        self.assertEqual([n for n in self.bound() if n.startswith(loser)], [],
                         f"{loser} must not bind part of its group")


if __name__ == "__main__":
    unittest.main(verbosity=2)
