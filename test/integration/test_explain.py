"""berth explain against a real kube-apiserver: the running scheduler's own diagnosis of a
Pending pod on /debug/explain (behind the secure port's TokenReview and SubjectAccessReview), the
same per-node reasons as `berth simulate --explain` on a dump of the same cluster, the nearest
node with its gap, berth_pending_pod_reasons, and 404 once the pod is bound.

Run: python3 -m unittest -v test_explain  (from this folder), or through ctest.
"""
import json
import os
import re
import subprocess
import unittest

import kube
from kube import berth_binary, config, kubectl_binary, metric, scrape, wait_for


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
        dump = os.path.join(self.c.dir, "dump.yaml")
        with open(dump, "w") as f:
            subprocess.run([kubectl_binary(), "--kubeconfig", self.c.kubeconfig, "get", "nodes,pods",
                            "-A", "-o", "yaml"], stdout=f, check=True)
        out = subprocess.run([berth_binary(), "simulate", "--cluster", dump, "--explain"],
                             capture_output=True, text=True, check=True)
        for p in json.loads(out.stdout)["pods"]:
            if p["pod"] == pod:
                return p
        self.fail(f"simulate did not list {pod}: {out.stdout}")

    def token_kubeconfig(self, token):
        """A kubeconfig for this API server that authenticates with `token`."""
        path = os.path.join(self.c.dir, "sa.kubeconfig")
        with open(self.c.kubeconfig) as f:
            admin = f.read()
        server = re.search(r"server:\s*(\S+)", admin).group(1)
        ca = re.search(r"certificate-authority:\s*(\S+)", admin)
        ca_line = f"    certificate-authority: {ca.group(1)}\n" if ca else ""
        with open(path, "w") as f:
            f.write("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                    f"    server: {server}\n{ca_line}"
                    "users:\n- name: u\n  user:\n"
                    f"    token: {token}\n"
                    "contexts:\n- name: x\n  context: {cluster: c, user: u, namespace: default}\n"
                    "current-context: x\n")
        return path

    def test_live_diagnosis_of_a_pending_pod(self):
        for name in ("n1", "n2"):
            self.c.node(name, cpu="4")
        self.c.node("n3", cpu="8", taints=[{"key": "dedicated", "value": "gpu",
                                            "effect": "NoSchedule"}])
        berth = self.c.start_berth("berth", config(leader_elect=False))
        port = self.c.https_port(berth)
        # 3 cpu on each of n1 and n2 (two do not fit on one node): 1 cpu left on each.
        for name in ("small-1", "small-2"):
            self.c.pod(name, cpu="3")
        wait_for(lambda: sum(1 for p in self.c.pods() if p["spec"].get("nodeName")) == 2, 30,
                 what="small-1 and small-2 bound")
        # 1.5 cpu: short by 500m on n1 and n2; n3 has room but a taint the pod does not tolerate.
        self.c.pod("big", cpu="1500m")
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
        self.assertEqual(d["filter"]["n1"], "Insufficient cpu")
        self.assertEqual(d["filter"]["n2"], "Insufficient cpu")
        self.assertEqual(d["filter"]["n3"], "node(s) had untolerated taint(s)")
        # The nearest nodes: short by 500m of cpu (n1 and n2 alike, by name), then the tainted one.
        nearest = d["nearest"]
        self.assertEqual([n["node"] for n in nearest], ["n1", "n2", "n3"], body)
        first = nearest[0]["failed"]
        self.assertEqual(len(first), 1, body)
        self.assertEqual(first[0]["plugin"], "NodeResourcesFit")
        self.assertEqual(first[0]["reason"], "Insufficient cpu")
        self.assertEqual(first[0]["need"], "requests 1.5, allocatable 4, in use 3: short by 500m")
        self.assertEqual(nearest[2]["failed"][0]["need"],
                         "add a toleration for dedicated=gpu:NoSchedule")
        # The same per-node reasons as berth simulate --explain on a dump of this cluster.
        self.assertEqual(d["filter"], self.simulate_explain("default/big")["filter"])

        # berth explain, straight to the scheduler's port as that ServiceAccount (the API server
        # refuses to proxy to loopback addresses, and berth listens on 127.0.0.1 here, so the
        # proxy path is not exercised by this test).
        sa_kubeconfig = self.token_kubeconfig(token)
        url = f"https://127.0.0.1:{port}"
        cli = [berth_binary(), "explain", "big", "-n", "default", "--kubeconfig", sa_kubeconfig,
               "--scheduler-url", url, "--insecure-skip-tls-verify"]
        out = subprocess.run(cli + ["-o", "json"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["filter"], d["filter"])
        out = subprocess.run(cli, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        text = out.stdout
        self.assertIn(f"Source: the scheduler {url}", text)
        self.assertRegex(text, r"n1\s+NodeResourcesFit\s+Insufficient cpu\s+requests 1.5, "
                               r"allocatable 4, in use 3: short by 500m")
        self.assertRegex(text, r"n3\s+TaintToleration\s+node\(s\) had untolerated taint\(s\)"
                               r"\s+add a toleration for dedicated=gpu:NoSchedule")
        # The same through kubectl's plugin mechanism (kubectl-berth on PATH).
        env = dict(os.environ, PATH=os.path.dirname(berth_binary()) + os.pathsep
                   + os.environ.get("PATH", ""))
        out = subprocess.run([kubectl_binary(), "berth", "explain", "big", "-n", "default",
                              "--kubeconfig", sa_kubeconfig, "--scheduler-url", url,
                              "--insecure-skip-tls-verify"],
                             capture_output=True, text=True, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, text)
        # --offline re-evaluates the same state: the same per-node reasons, and it says so.
        out = subprocess.run([berth_binary(), "explain", "big", "-n", "default", "--offline",
                              "--kubeconfig", self.c.kubeconfig, "-o", "json"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["filter"], d["filter"])
        self.assertEqual([n["node"] for n in json.loads(out.stdout)["nearest"]],
                         [n["node"] for n in nearest])

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
        self.c.node("n4", cpu="2")
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
