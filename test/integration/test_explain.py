"""berth explain against a real kube-apiserver: the running scheduler's own diagnosis of a
Pending pod on /debug/explain (behind the secure port's TokenReview and SubjectAccessReview), the
same per-node reasons as `berth simulate --explain` on a dump of the same cluster, the nearest
node with its gap, berth_pending_pod_reasons, and 404 once the pod is bound.

Run: python3 -m unittest -v test_explain  (from this folder), or through ctest.
"""
import json
import os
import shutil
import subprocess
import unittest

import kube
from kube import berth_binary, config, metric, scrape, wait_for


def explain_reader(c, sa):
    """A ServiceAccount that may read /debug/explain/* and nothing else."""
    token = c.service_account_token(sa)
    c.create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
             {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
              "metadata": {"name": "berth-explain-reader"},
              "rules": [{"nonResourceURLs": ["/debug/explain/*"], "verbs": ["get"]}]})
    c.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
             {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
              "metadata": {"name": "berth-explain-reader"},
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                          "name": "berth-explain-reader"},
              "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": "default"}]})
    return token


class ExplainTest(kube.ClusterTestCase):
    def simulate_explain(self, pod):
        """`berth simulate --explain` on a dump of the cluster (kubectl get ... -o yaml)."""
        if shutil.which("kubectl") is None:
            self.fail("kubectl is missing: install it (the README's test setup does)")
        dump = os.path.join(self.c.dir, "dump.yaml")
        with open(dump, "w") as f:
            subprocess.run(["kubectl", "--kubeconfig", self.c.kubeconfig, "get", "nodes,pods",
                            "-A", "-o", "yaml"], stdout=f, check=True)
        out = subprocess.run([berth_binary(), "simulate", "--cluster", dump, "--explain"],
                             capture_output=True, text=True, check=True)
        for p in json.loads(out.stdout)["pods"]:
            if p["pod"] == pod:
                return p
        self.fail(f"simulate did not list {pod}: {out.stdout}")

    def test_live_diagnosis_of_a_pending_pod(self):
        for name in ("n1", "n2"):
            self.c.node(name, cpu="2")
        self.c.node("n3", cpu="8", taints=[{"key": "dedicated", "value": "gpu",
                                            "effect": "NoSchedule"}])
        berth = self.c.start_berth("berth", config(leader_elect=False))
        port = self.c.https_port(berth)
        self.c.pod("small", cpu="1500m")
        wait_for(lambda: any(p["metadata"]["name"] == "small" and p["spec"].get("nodeName")
                             for p in self.c.pods()), 30, what="small bound")
        small_node = [p["spec"]["nodeName"] for p in self.c.pods()
                      if p["metadata"]["name"] == "small"][0]
        empty_node = "n2" if small_node == "n1" else "n1"
        # 2.5 cpu: short by 500m on the empty 2-cpu node, by 2 on the other; n3 is tainted.
        self.c.pod("big", cpu="2500m")
        path = "/debug/explain/default/big"
        # Allowed: the ServiceAccount that may only read the explain path.
        token = explain_reader(self.c, "explainer")
        code, body = wait_for(lambda: (lambda r: r if r[0] == 200 else None)(
            scrape(port, path, token=token)), 30, what="a diagnosis of default/big")
        d = json.loads(body)
        self.assertEqual(d["pod"], "default/big")
        self.assertEqual(d["status"], "Unschedulable")
        self.assertEqual(d["profile"], "berth-scheduler")
        # The message is the FailedScheduling event's.
        events = [e for e in self.c.events() if e["regarding"]["name"] == "big"
                  and e["reason"] == "FailedScheduling"]
        self.assertTrue(events)
        self.assertEqual(d["message"], events[-1]["note"])
        self.assertIn("Insufficient cpu", d["filter"]["n1"] + d["filter"]["n2"])
        self.assertEqual(d["filter"]["n3"], "node(s) had untolerated taint(s)")
        # The nearest node is the one short by the least, with its gap.
        nearest = d["nearest"]
        self.assertTrue(nearest, body)
        first = nearest[0]
        self.assertEqual(first["node"], empty_node, body)
        self.assertEqual(first["failed"][0]["plugin"], "NodeResourcesFit")
        self.assertEqual(first["failed"][0]["reason"], "Insufficient cpu")
        self.assertRegex(first["failed"][0].get("need", ""), r"short by 500m")
        # The same per-node reasons as berth simulate --explain on a dump of this cluster.
        self.assertEqual(d["filter"], self.simulate_explain("default/big")["filter"])

        # The same ServiceAccount may not read /metrics; anonymous may not read explanations.
        self.assertEqual(scrape(port, "/metrics", token=token)[0], 403)
        code, body = scrape(port, path, token=None)
        self.assertEqual(code, 403, body)
        self.assertIn('cannot get path \\"/debug/explain/default/big\\"', body)
        # Why pods wait, on /metrics.
        code, text = scrape(port, "/metrics")
        self.assertEqual(metric(text, "berth_pending_pod_reasons",
                                {"plugin": "NodeResourcesFit", "reason": "Insufficient cpu"}), 1)

        # A node that fits: the pod binds and its diagnosis is gone.
        self.c.node("n4", cpu="4")
        wait_for(lambda: any(p["metadata"]["name"] == "big" and p["spec"].get("nodeName")
                             for p in self.c.pods()), 60, what="big bound")
        code, body = wait_for(lambda: (lambda r: r if r[0] == 404 else None)(
            scrape(port, path, token=token)), 10, what="404 once bound")
        self.assertEqual(json.loads(body)["reason"], "NotFound")
        code, text = scrape(port, "/metrics")
        self.assertIsNone(metric(text, "berth_pending_pod_reasons",
                                 {"plugin": "NodeResourcesFit"}))


if __name__ == "__main__":
    unittest.main()
