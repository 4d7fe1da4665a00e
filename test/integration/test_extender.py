"""Scheduler extenders both ways, against a real kube-apiserver + etcd (test/cluster).

(b) BerthRunWithExtenderTest: `berth run` with `extenders:` in its config calls a tiny Python
    extender (this file) and honours its filter and prioritize answers; an extender answering
    HTTP 500 makes FailedScheduling name it, unless it is `ignorable`.
(a) UpstreamWithBerthExtenderTest: upstream kube-scheduler (built by test/cluster/build.sh with
    BERTH_WITH_SCHEDULER=1) configured with `berth extender` as its extender places its pods only
    where berth's plugins allow: NodeLabel, and ReplicatedStorage (seed 000) with the
    storage.deckhouse.io CRDs of crds/replicated-storage.yaml.

Run: python3 -m unittest -v test_extender  (from this folder), or through ctest.
"""
import http.server
import json
import os
import re
import socket
import subprocess
import threading
import unittest

import deckhouse
import kube
from kube import config, wait_for


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PyExtender:
    """A tiny scheduler extender: under /good it fails nodes labelled `bad` (and every node for
    pods labelled reject-all=yes) and scores the node labelled `preferred` 10; under /broken it
    answers HTTP 500. Records every request body by path."""

    def __init__(self):
        self.requests = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                args = json.loads(body)
                outer.requests.append((self.path, args))
                if self.path.startswith("/broken/"):
                    return self.reply(500, b"extender storage backend down")
                pod = args["Pod"]
                nodes = args["Nodes"]["items"] if args.get("Nodes") else []
                labels = {n["metadata"]["name"]: n["metadata"].get("labels", {}) for n in nodes}
                if self.path == "/good/filter":
                    reject_all = pod["metadata"].get("labels", {}).get("reject-all") == "yes"
                    ok = [n for n in nodes if "bad" not in labels[n["metadata"]["name"]]
                          and not reject_all]
                    failed = {n["metadata"]["name"]: "extender says no" for n in nodes
                              if n not in ok}
                    out = {"Nodes": {"items": ok}, "NodeNames": None, "FailedNodes": failed,
                           "FailedAndUnresolvableNodes": {}, "Error": ""}
                elif self.path == "/good/prioritize":
                    out = [{"Host": name, "Score": 10 if "preferred" in lab else 0}
                           for name, lab in labels.items()]
                else:
                    return self.reply(404, b"not found")
                self.reply(200, json.dumps(out).encode())

            def reply(self, code, data):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, prefix):
        return f"http://127.0.0.1:{self.port}/{prefix}"

    def close(self):
        self.server.shutdown()


class Base(kube.ClusterTestCase):
    def bound(self):
        return {p["metadata"]["name"]: p["spec"].get("nodeName")
                for p in self.c.pods() if p["spec"].get("nodeName")}

    def failed_scheduling(self, pod):
        return [e.get("note", "") for e in self.c.events()
                if e.get("reason") == "FailedScheduling" and e["regarding"]["name"] == pod]


class BerthRunWithExtenderTest(Base):
    def setUp(self):
        super().setUp()
        self.ext = PyExtender()
        self.addCleanup(self.ext.close)
        self.c.node("bad-1", labels={"bad": ""})
        self.c.node("bad-2", labels={"bad": ""})
        self.c.node("ok-1")
        self.c.node("preferred-1", labels={"preferred": ""})

    def start(self, extenders_yaml):
        return self.c.start_berth("berth", config(leader_elect=False) + extenders_yaml)

    def test_filter_and_prioritize_answers_are_honoured(self):
        self.start(f"""extenders:
- urlPrefix: {self.ext.url("good")}
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 5
""")
        for i in range(4):
            self.c.pod(f"p{i}")
        wait_for(lambda: len(self.bound()) == 4, 30, what="4 pods bound")
        # Filter: never on a node the extender failed; prioritize: 10 x 5 x 10 = 500 points for
        # preferred-1 outweigh every plugin difference between these empty nodes.
        self.assertEqual(set(self.bound().values()), {"preferred-1"}, self.bound())
        paths = {path for path, _ in self.ext.requests}
        self.assertEqual(paths, {"/good/filter", "/good/prioritize"})
        _, args = self.ext.requests[0]
        self.assertEqual(set(args), {"Pod", "Nodes", "NodeNames"})  # PascalCase envelope
        self.assertIsNone(args["NodeNames"])  # not nodeCacheCapable: full nodes
        self.assertEqual(args["Pod"]["metadata"]["namespace"], "default")

        # Every node failed by the extender: the FailedScheduling message carries its reason.
        self.c.create("/api/v1/namespaces/default/pods", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "rejected", "labels": {"reject-all": "yes"}},
            "spec": {"schedulerName": "berth-scheduler",
                     "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}})
        notes = wait_for(lambda: self.failed_scheduling("rejected"), 30,
                         what="FailedScheduling for the rejected pod")
        self.assertTrue(notes[0].startswith("0/4 nodes are available: 4 extender says no."),
                        notes[0])

    def test_http_500_fails_the_pod_naming_the_extender(self):
        self.start(f"""extenders:
- urlPrefix: {self.ext.url("broken")}
  filterVerb: filter
""")
        self.c.pod("p0")
        notes = wait_for(lambda: self.failed_scheduling("p0"), 30, what="FailedScheduling")
        self.assertEqual(notes[0], f"failed filter with extender at URL {self.ext.url('broken')}"
                                   "/filter, code 500: extender storage backend down")
        self.assertNotIn("p0", self.bound())

    def test_ignorable_extender_failing_does_not_fail_pods(self):
        self.start(f"""extenders:
- urlPrefix: {self.ext.url("broken")}
  filterVerb: filter
  ignorable: true
- urlPrefix: {self.ext.url("good")}
  filterVerb: filter
""")
        for i in range(3):
            self.c.pod(f"p{i}")
        wait_for(lambda: len(self.bound()) == 3, 30, what="3 pods bound")
        self.assertTrue(all(not n.startswith("bad") for n in self.bound().values()), self.bound())
        self.assertIn("/broken/filter", {path for path, _ in self.ext.requests})


class UpstreamWithBerthExtenderTest(Base):
    def setUp(self):
        os.environ["BERTH_WITH_SCHEDULER"] = "1"  # test/cluster/up builds kube-scheduler too
        super().setUp()
        self.bin = self.c.env()["BIN"]
        if not os.path.exists(os.path.join(self.bin, "kube-scheduler")):
            self.fail(f"kube-scheduler not found in {self.bin}: run "
                      "BERTH_WITH_SCHEDULER=1 test/cluster/build.sh (needs Go)")

    def start_berth_extender(self, berth_config):
        cfg = os.path.join(self.c.dir, "extender.config.yaml")
        with open(cfg, "w") as f:
            f.write(berth_config)
        port = free_port()
        log_path = os.path.join(self.c.dir, "berth-extender.log")
        with open(log_path, "w") as log:
            p = subprocess.Popen([kube.berth_binary(), "extender", "--config", cfg, "--listen",
                                  f"127.0.0.1:{port}", "--kubeconfig", self.c.kubeconfig, "--v",
                                  "1"], stdout=log, stderr=subprocess.STDOUT)
        p.log_path = log_path
        self.c.procs.append(p)
        wait_for(lambda: "caches synced" in self.c.log_of(p), 30, what="berth extender synced")
        return port

    def start_kube_scheduler(self, extender_port):
        cfg = os.path.join(self.c.dir, "kube-scheduler.yaml")
        with open(cfg, "w") as f:
            f.write(f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: {self.c.kubeconfig}
leaderElection: {{leaderElect: false}}
profiles:
- schedulerName: default-scheduler
extenders:
- urlPrefix: http://127.0.0.1:{extender_port}/scheduler
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 5
  nodeCacheCapable: true
""")
        log_path = os.path.join(self.c.dir, "kube-scheduler.log")
        with open(log_path, "w") as log:
            p = subprocess.Popen([os.path.join(self.bin, "kube-scheduler"), f"--config={cfg}",
                                  "--bind-address=127.0.0.1", "--secure-port=0", "--v=2"],
                                 stdout=log, stderr=subprocess.STDOUT)
        p.log_path = log_path
        self.c.procs.append(p)
        return p

    def test_default_scheduler_places_pods_where_node_label_allows(self):
        self.c.node("plain-1")
        self.c.node("plain-2")
        self.c.node("storage-1", labels={"storage": ""})
        self.c.node("storage-2", labels={"storage": "", "fast": ""})
        port = self.start_berth_extender("""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: berth-extender
  plugins:
    multiPoint: {enabled: [{name: NodeLabel}]}
  pluginConfig:
  - name: NodeLabel
    args: {presentLabels: [storage], presentLabelsPreference: [fast]}
""")
        sched = self.start_kube_scheduler(port)
        for i in range(5):
            self.c.pod(f"p{i}", scheduler="default-scheduler")
        wait_for(lambda: len(self.bound()) == 5, 60, what="5 pods bound by kube-scheduler")
        placed = self.bound()
        self.assertTrue(all(n.startswith("storage-") for n in placed.values()), placed)
        # berth's NodeLabel preference (100 -> 10, x weight 5 x 10) steers them to storage-2.
        self.assertEqual(set(placed.values()), {"storage-2"}, placed)

        # A pod whose own constraints leave only a node berth rejects: kube-scheduler's
        # FailedScheduling names berth's reason.
        self.c.pod("pinned", scheduler="default-scheduler",
                   extra_spec={"nodeSelector": {"kubernetes.io/hostname": "plain-1"}})
        notes = wait_for(lambda: self.failed_scheduling("pinned"), 60,
                         what="FailedScheduling from kube-scheduler")
        self.assertIn("1 node(s) didn't have the requested labels", notes[0])
        self.assertIsNone(sched.poll(), "kube-scheduler exited")

    # ---- ReplicatedStorage (seed 000): the production extender's job, done by berth ----
    def test_default_scheduler_places_pods_where_replicated_storage_allows(self):
        deckhouse.install_crds(self.c)
        # n1, n2: storage nodes; n4: not a storage node; n5: a storage node that is NotReady
        # (no node controller taints it here, so only berth's offline check keeps pods off it).
        deckhouse.storage_node(self.c, "n1")
        deckhouse.storage_node(self.c, "n2")
        deckhouse.storage_node(self.c, "n4", storage=False)
        deckhouse.storage_node(self.c, "n5", ready=False)
        for vg, node in (("vg-1", "n1"), ("vg-2", "n2"), ("vg-5", "n5")):
            deckhouse.lvg(self.c, vg, node, "100Gi", "50Gi")
        deckhouse.local_class(self.c, "rsp", ["vg-1", "vg-2", "vg-5"])
        deckhouse.replicated_volume(self.c, "pv-r", "n2")
        deckhouse.claim(self.c, "data-r", "1Gi", volume="pv-r")
        deckhouse.replicated_volume(self.c, "pv-off", "n5")
        deckhouse.claim(self.c, "data-off", "1Gi", volume="pv-off")

        port = self.start_berth_extender("""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: berth-extender
  plugins:
    multiPoint: {enabled: [{name: ReplicatedStorage, weight: 5}]}
""")
        self.start_kube_scheduler(port)

        def volume_pod(name, claim):
            self.c.pod(name, scheduler="default-scheduler", extra_spec={
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]})
        volume_pod("r", "data-r")
        volume_pod("off", "data-off")
        for i in range(4):
            self.c.pod(f"plain-{i}", scheduler="default-scheduler")
        wait_for(lambda: self.bound().get("r"), 60, what="pod r bound by kube-scheduler")
        # Local volume access: only where the diskful replica is.
        self.assertEqual(self.bound()["r"], "n2")
        # Pods with no replicated volume: ReplicatedStorage has nothing to judge, every node
        # passes (kube-scheduler asks the extender about every pod).
        wait_for(lambda: all(f"plain-{i}" in self.bound() for i in range(4)), 60,
                 what="plain pods bound")
        # The replica's node is offline and no other node has one: kube-scheduler reports
        # berth's reasons.
        notes = wait_for(lambda: self.failed_scheduling("off"), 60,
                         what="FailedScheduling for pod off")
        self.assertIn("node(s) are offline: Ready condition is not True", notes[0])
        self.assertIn("PVC default/data-off: node has no diskful replica of volume pv-off",
                      notes[0])
        self.assertIn("node(s) are not replicated storage nodes", notes[0])
        self.assertNotIn("off", self.bound())


if __name__ == "__main__":
    unittest.main()
