"""`berth simulate --kubeconfig` and `berth explain --offline` against a real kube-apiserver + etcd.

 - The live snapshot (read-only, paginated: 503 nodes make the Node list two pages) gives the same
   simulation as the cluster file it saves with --save, and writes nothing.
 - `berth explain POD --offline` (also as `kubectl-berth`, with the kubeconfig context's namespace)
   prints the pod's per-node reasons; without --offline, a scheduler that cannot be reached (no
   Lease; a Lease whose holder is no pod) falls back to the same re-evaluation with a note.
The scheduler's own /debug/explain answer is tested with the endpoint (not here).
Run: python3 -m unittest -v test_explain_cli  (from this folder), or through ctest.
"""
import concurrent.futures
import json
import os
import subprocess

import kube
from kube import config, wait_for

FILLERS = 500  # small nodes, so that the Node list needs a continue token (limit=500)
OFFLINE_SOURCE = "re-evaluation of the current cluster state (offline), not the scheduler's own record"


class ExplainCliTest(kube.ClusterTestCase):
    def setUp(self):
        super().setUp()
        c = self.c
        c.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                        "metadata": {"name": "shop"}})
        c.node("n1", cpu="2")
        c.node("n2", cpu="4", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
        c.node("n3", cpu="4", labels={"zone": "b"})
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda i: c.node(f"f{i:03d}", cpu="1"), range(FILLERS)))
        c.pod("running", cpu="3", ns="shop", extra_spec={"nodeName": "n3"})
        c.pod("big", cpu="3", ns="shop")
        c.pod("fits", cpu="500m", ns="shop")
        c.pod("theirs", cpu="100m", ns="shop", scheduler="default-scheduler")
        # A few of the other kinds the snapshot carries.
        c.create("/apis/storage.k8s.io/v1/storageclasses", {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer"})
        c.create("/api/v1/namespaces/shop/services", {
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})
        c.create("/apis/policy/v1/namespaces/shop/poddisruptionbudgets", {
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})

    def berth(self, *args, binary=None):
        out = subprocess.run([binary or kube.berth_binary(), *args], capture_output=True,
                             text=True, timeout=120)
        return out.returncode, out.stdout, out.stderr

    def kubectl_berth(self, *args):
        return self.berth(*args, binary=os.path.join(os.path.dirname(kube.berth_binary()),
                                                     "kubectl-berth"))

    def test_live_snapshot_simulates_as_its_saved_file(self):
        saved = os.path.join(self.c.dir, "snapshot.json")
        code, live, err = self.berth("simulate", "--kubeconfig", self.c.kubeconfig, "--explain",
                                     "--save", saved)
        self.assertEqual(code, 0, err)
        self.assertEqual(err, "")
        code, from_file, err = self.berth("simulate", "--cluster", saved, "--explain")
        self.assertEqual(code, 0, err)
        self.assertEqual(live, from_file)

        pods = {p["pod"]: p for p in json.loads(live)["pods"]}
        self.assertEqual(set(pods), {"shop/big", "shop/fits"})  # pending and berth's
        self.assertEqual(pods["shop/fits"]["status"], "Scheduled")
        self.assertEqual(pods["shop/big"]["status"], "Unschedulable")
        self.assertEqual(pods["shop/big"]["filter"]["n1"], "Insufficient cpu")
        self.assertEqual(pods["shop/big"]["filter"]["n3"], "Insufficient cpu")  # running takes 3
        self.assertIn("untolerated taint", pods["shop/big"]["filter"]["n2"])
        self.assertEqual(len(pods["shop/big"]["filter"]), 3 + FILLERS)

        with open(saved) as f:
            snapshot = json.load(f)
        self.assertEqual(snapshot["kind"], "List")
        kinds = {}
        for item in snapshot["items"]:
            self.assertIn("apiVersion", item)
            kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
        self.assertEqual(kinds["Node"], 3 + FILLERS)  # both pages of the Node list
        self.assertEqual(kinds["Pod"], 4)
        for k in ("Namespace", "StorageClass", "Service", "PodDisruptionBudget"):
            self.assertIn(k, kinds)

        # Read-only: nothing was bound, no event about a pod written (the API server's own
        # controllers may write events about the Service).
        self.assertNotIn("nodeName", self.c.get("/api/v1/namespaces/shop/pods/fits")["spec"])
        self.assertEqual([e for e in self.c.events("shop") if e["regarding"]["kind"] == "Pod"], [])

    def test_explain_offline_prints_the_pods_reasons(self):
        code, out, err = self.berth("explain", "big", "-n", "shop", "--offline",
                                    "--kubeconfig", self.c.kubeconfig)
        self.assertEqual(code, 0, err)
        self.assertEqual(err, "")
        lines = out.splitlines()
        self.assertEqual(lines[0], "Pod shop/big (scheduler berth-scheduler): Unschedulable")
        self.assertEqual(lines[1], "Source: " + OFFLINE_SOURCE)
        self.assertIn(f"0/{3 + FILLERS} nodes are available", out)
        self.assertIn(f"Rejected nodes ({3 + FILLERS}):", out)
        # Nodes grouped by reason, in name order.
        self.assertIn(f"f000, f001, f002 and {FILLERS - 1} more  Insufficient cpu", out)
        self.assertRegex(out, r"\n  n2 +node\(s\) had untolerated taint")

        code, out, err = self.berth("explain", "big", "-n", "shop", "--offline", "-o", "json",
                                    "--kubeconfig", self.c.kubeconfig)
        self.assertEqual(code, 0, err)
        record = json.loads(out)
        self.assertEqual(record["pod"], "shop/big")
        self.assertEqual(record["status"], "Unschedulable")
        self.assertEqual(record["filter"]["n1"], "Insufficient cpu")
        self.assertIn("untolerated taint", record["filter"]["n2"])
        self.assertEqual(err, "berth explain: " + OFFLINE_SOURCE + "\n")

    def test_kubectl_plugin_uses_the_contexts_namespace_and_refuses_other_pods(self):
        shop_config = os.path.join(self.c.dir, "shop.kubeconfig")
        with open(self.c.kubeconfig) as f:
            text = f.read()
        with open(shop_config, "w") as f:
            f.write(text.replace("contexts:\n", "contexts:\n- name: shop\n  context: "
                                 "{cluster: berth-test, user: admin, namespace: shop}\n"))
        # kubectl passes the flags typed after the plugin's name, wherever they stand.
        code, out, err = self.kubectl_berth("--kubeconfig", shop_config, "explain", "big",
                                            "--context", "shop", "--offline")
        self.assertEqual(code, 0, err)
        self.assertTrue(out.startswith("Pod shop/big (scheduler berth-scheduler): Unschedulable"),
                        out)
        for pod, message in [
                ("running", "pod shop/running is not pending: it is bound to node n3"),
                ("theirs", 'pod shop/theirs is not berth\'s: its schedulerName "default-scheduler" '
                           "is no profile of berth's configuration (berth-scheduler)"),
                ("nope", "pod shop/nope not found")]:
            code, out, err = self.kubectl_berth("explain", pod, "--kubeconfig", shop_config,
                                                "--context", "shop", "--offline")
            self.assertEqual(code, 1, err)
            self.assertEqual(out, "")
            self.assertEqual(err, "berth explain: " + message + "\n")

    def test_unreachable_scheduler_falls_back_to_offline_with_a_note(self):
        code, offline, _ = self.berth("explain", "big", "-n", "shop", "--offline",
                                      "--kubeconfig", self.c.kubeconfig)
        self.assertEqual(code, 0)
        # No Lease in berth-system (the chart's namespace, the default).
        code, out, err = self.berth("explain", "big", "-n", "shop",
                                    "--kubeconfig", self.c.kubeconfig)
        self.assertEqual(code, 0, err)
        self.assertEqual(out, offline)
        self.assertEqual(
            err, "berth explain: cannot reach the scheduler (lease berth-system/berth-scheduler "
                 "not found; set --lease-namespace, --lease-name); re-evaluating the current "
                 "cluster state offline\n")
        # A Lease whose holder is no pod (berth run outside the cluster): the pod proxy's 404.
        berth = self.c.start_berth("berth", config())
        lease = wait_for(lambda: self.lease_holder(), 30, what="berth to take the lease")
        pod = lease.rsplit("_", 1)[0]
        code, out, err = self.berth("explain", "big", "-n", "shop", "--lease-namespace",
                                    "default", "--kubeconfig", self.c.kubeconfig)
        self.assertEqual(code, 0, err)
        self.assertTrue(out.startswith("Pod shop/big (scheduler berth-scheduler): Unschedulable"),
                        out)
        self.assertIn(f"/api/v1/namespaces/default/pods/https:{pod}:10259/proxy/debug/explain/"
                      f"shop/big: HTTP 404: pods \"{pod}\" not found", err)
        self.assertTrue(err.endswith("re-evaluating the current cluster state offline\n"), err)
        self.assertIsNone(berth.poll(), "berth exited")

    def lease_holder(self):
        try:
            lease = self.c.get("/apis/coordination.k8s.io/v1/namespaces/default/leases/"
                               "berth-scheduler")
        except kube.ApiError:
            return None
        return lease.get("spec", {}).get("holderIdentity")


if __name__ == "__main__":
    import unittest
    unittest.main()
