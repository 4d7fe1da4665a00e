"""`berth run` with kube-scheduler's command line and log formats, against a real API server.

Run: python3 -m unittest -v test_flags  (from this folder), or through ctest.
"""
import json
import os
import subprocess
import unittest

import kube
from kube import config, wait_for


def put(port, path, body, token=kube.TOKEN):
    """PUT as the admin (system:masters, always authorized), or anonymously when token is None."""
    return kube.scrape(port, path, token=token, method="PUT", body=body)


class BerthFlagsTest(kube.ClusterTestCase):
    def bound(self, name):
        return self.c.get(f"/api/v1/namespaces/default/pods/{name}")["spec"].get("nodeName")

    # A kubeadm kube-scheduler manifest's arguments (paths pointing at the test cluster), plus
    # --config for berth's profile: berth starts, leads and binds a pod.
    def test_kubeadm_manifest_arguments(self):
        self.c.node("n1", cpu="4")
        cfg = os.path.join(self.c.dir, "kubeadm.config.yaml")
        with open(cfg, "w") as f:
            # As kube-scheduler, --kubeconfig is ignored with --config: the config names it.
            f.write(kube.with_kubeconfig(config(lease="kubeadm-lease"), self.c.kubeconfig))
        k = self.c.kubeconfig
        log_path = os.path.join(self.c.dir, "kubeadm.log")
        with open(log_path, "w") as log:
            p = subprocess.Popen([
                kube.berth_binary(), "run",
                f"--authentication-kubeconfig={k}", f"--authorization-kubeconfig={k}",
                "--bind-address=127.0.0.1", f"--kubeconfig={k}", "--leader-elect=true",
                f"--config={cfg}", "--secure-port=0"], stdout=log, stderr=subprocess.STDOUT)
        p.log_path = log_path
        self.c.procs.append(p)
        self.c.pod("web")
        wait_for(lambda: self.bound("web") == "n1", 30, what="pod bound by berth")
        log = self.c.log_of(p)
        self.assertIn("became leader", log)
        self.assertRegex(log, r'Flag ignored because --config is given.* flag="--kubeconfig"')
        self.assertIn('"Successfully bound pod to node" pod="default/web" node="n1"', log)
        self.assertIsNone(p.poll(), "berth exited")

    # --logging-format=json: every line is one JSON object with upstream's keys; /debug/flags/v
    # raises the verbosity at run time.
    def test_json_logs_and_debug_flags_v(self):
        self.c.node("n1", cpu="4")
        berth = self.c.start_berth("json", config(leader_elect=False),
                                   ["--logging-format=json"])
        port = self.c.https_port(berth)
        self.c.pod("first")
        wait_for(lambda: self.bound("first") == "n1", 30, what="first pod bound")
        self.assertEqual(put(port, "/debug/flags/v", "3"),
                         (200, "successfully set klog.logging.verbosity to 3\n"))
        self.assertEqual(put(port, "/debug/flags/v", "x")[0], 400)
        # Changing the verbosity is authorized like any path: anonymous is refused.
        self.assertEqual(put(port, "/debug/flags/v", "9", token=None)[0], 403)
        self.assertEqual(kube.scrape(port, "/debug/flags/v")[0], 406)
        self.c.pod("second")
        wait_for(lambda: self.bound("second") == "n1", 30, what="second pod bound")
        wait_for(lambda: "Attempting to schedule pod" in self.c.log_of(berth), 10,
                 what="a V(3) line after PUT /debug/flags/v")
        records = []
        for line in self.c.log_of(berth).splitlines():
            rec = json.loads(line)  # every line parses
            self.assertIsInstance(rec["ts"], float)
            self.assertRegex(rec["caller"], r"^[\w.]+:\d+$")
            self.assertIsInstance(rec["msg"], str)
            # Info and warning lines carry "v"; error lines carry "err" instead.
            self.assertTrue("v" in rec or "err" in rec, rec)
            records.append(rec)
        bound = [r for r in records if r["msg"] == "Successfully bound pod to node"]
        self.assertEqual([r["pod"] for r in bound],
                         [{"name": "first", "namespace": "default"},
                          {"name": "second", "namespace": "default"}])
        self.assertTrue(all(r["node"] == "n1" and r["v"] == 0 for r in bound))
        attempts = [r for r in records if r["msg"] == "Attempting to schedule pod"]
        self.assertEqual([(r["pod"]["name"], r["v"]) for r in attempts], [("second", 3)])

    # --write-config-to writes the effective config and exits 0 without contacting the cluster.
    def test_write_config_to(self):
        out = os.path.join(self.c.dir, "effective.json")
        r = subprocess.run([kube.berth_binary(), "run", "--leader-elect=false",
                            "--kube-api-qps=33", f"--write-config-to={out}"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["kind"], "KubeSchedulerConfiguration")
        self.assertFalse(doc["leaderElection"]["leaderElect"])
        self.assertEqual(doc["clientConnection"]["qps"], 33)


if __name__ == "__main__":
    unittest.main()
