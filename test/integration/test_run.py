"""`berth run` against a real kube-apiserver + etcd (test/cluster), as a user would run it.

Each test starts its own cluster (about 5 s) so that nodes and pods of one test cannot affect
another. Run: python3 -m unittest -v test_run  (from this folder), or through ctest.
"""
import collections
import json
import os
import shutil
import subprocess
import time
import unittest

import kube
from kube import config, quantity, wait_for


class BerthRunTest(kube.ClusterTestCase):
    def bound(self, ns="default"):
        return {p["metadata"]["name"]: p["spec"].get("nodeName")
                for p in self.c.pods(ns) if p["spec"].get("nodeName")}

    def scheduled_events(self):
        count = collections.Counter()
        for e in self.c.events():
            if e.get("reason") == "Scheduled":
                count[e["regarding"]["name"]] += 1
        return count

    # 1. Many pods on a few nodes: all bound, capacity respected, events written, other
    #    schedulers' pods untouched.
    def test_binds_200_pods_within_capacity(self):
        for i in range(10):
            self.c.node(f"n{i}", cpu="4", memory="32Gi")
        for i in range(5):
            self.c.pod(f"other-{i}", scheduler="default-scheduler")
        berth = self.c.start_berth("berth", config())
        for i in range(200):
            self.c.pod(f"p{i}", cpu="180m", memory="256Mi")
        wait_for(lambda: len([n for n in self.bound() if n.startswith("p")]) == 200, 60,
                 what="200 pods bound")
        per_node = collections.defaultdict(float)
        for p in self.c.pods():
            node = p["spec"].get("nodeName")
            if node:
                per_node[node] += quantity(p["spec"]["containers"][0]["resources"]["requests"]["cpu"])
        for node, cpu in per_node.items():
            self.assertLessEqual(cpu, 4.0 + 1e-9, f"{node} is over-committed: {cpu} CPU")
        self.assertEqual(len(per_node), 10, "pods should spread over all nodes")
        events = wait_for(lambda: (lambda ev: ev if sum(ev.values()) >= 200 else None)(
            self.scheduled_events()), 30, what="200 Scheduled events")
        self.assertTrue(all(v == 1 for v in events.values()), "a pod was reported bound twice")
        for i in range(5):
            pod = self.c.get(f"/api/v1/namespaces/default/pods/other-{i}")
            self.assertNotIn("nodeName", pod["spec"], "berth bound a default-scheduler pod")
        self.assertIsNone(berth.poll(), "berth exited")

    # 2. Unschedulable: FailedScheduling event and PodScheduled=False with upstream's message;
    #    a new node that fits gets the pod scheduled within seconds (Node add requeues it).
    def test_unschedulable_then_node_added(self):
        self.c.node("small-1", cpu="2")
        self.c.node("small-2", cpu="2")
        self.c.start_berth("berth", config())
        self.c.pod("big", cpu="8")
        # 8 CPUs exceed every node's allocatable: preemption cannot help (upstream's message).
        msg = ("0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
               "2 Preemption is not helpful for scheduling.")

        def failed_event():
            return [e for e in self.c.events()
                    if e.get("reason") == "FailedScheduling" and e["regarding"]["name"] == "big"]

        ev = wait_for(failed_event, 20, what="FailedScheduling event")[0]
        self.assertEqual(ev["note"], msg)
        self.assertEqual(ev["type"], "Warning")
        self.assertEqual(ev["reportingController"], "berth-scheduler")

        def condition():
            pod = self.c.get("/api/v1/namespaces/default/pods/big")
            for c in pod.get("status", {}).get("conditions", []):
                if c["type"] == "PodScheduled":
                    return c
            return None

        cond = wait_for(condition, 20, what="PodScheduled condition")
        self.assertEqual((cond["status"], cond["reason"], cond["message"]),
                         ("False", "Unschedulable", msg))
        start = time.time()
        self.c.node("large", cpu="16")
        wait_for(lambda: self.bound().get("big") == "large", 15, what="big bound to large")
        self.assertLess(time.time() - start, 15)

    # 3. The API server goes away for 10 s (etcd kept): berth reconnects, relists and schedules
    #    every pod created before and after; none is bound twice or lost.
    def test_survives_apiserver_restart(self):
        for i in range(4):
            self.c.node(f"n{i}", cpu="8")
        berth = self.c.start_berth("berth", config())
        for i in range(20):
            self.c.pod(f"before-{i}")
        wait_for(lambda: len(self.bound()) >= 5, 30, what="some pods bound")
        self.c.stop_apiserver()
        time.sleep(10)
        self.c.up()
        for i in range(20):
            self.c.pod(f"after-{i}")
        wait_for(lambda: len(self.bound()) == 40, 90, what="all 40 pods bound")
        events = wait_for(lambda: (lambda ev: ev if sum(ev.values()) >= 40 else None)(
            self.scheduled_events()), 30, what="40 Scheduled events")
        self.assertEqual(set(events), set(self.bound()))
        self.assertTrue(all(v == 1 for v in events.values()), f"double binding: {events}")
        self.assertIsNone(berth.poll(), "berth exited")

    # 4. Two instances: one leads; SIGKILL it and the other takes over within the lease.
    def test_leader_election_failover(self):
        for i in range(3):
            self.c.node(f"n{i}", cpu="8")
        cfg = config(lease="berth-ha", lease_seconds=4)
        a = self.c.start_berth("a", cfg)
        b = self.c.start_berth("b", cfg)

        def leaders():
            return [p for p in (a, b) if "became leader" in self.c.log_of(p)]

        first = wait_for(lambda: leaders() or None, 20, what="a leader")
        time.sleep(3)
        self.assertEqual(len(leaders()), 1, "both instances lead")
        leader = first[0]
        standby = b if leader is a else a
        for i in range(10):
            self.c.pod(f"first-{i}")
        wait_for(lambda: len(self.bound()) == 10, 30, what="first pods bound")
        kube.sigkill(leader)
        killed_at = time.time()
        for i in range(10):
            self.c.pod(f"second-{i}")
        wait_for(lambda: len(self.bound()) == 20, 4 + 15, what="standby binds new pods")
        self.assertLess(time.time() - killed_at, 4 + 15)
        self.assertIn("became leader", self.c.log_of(standby))
        events = wait_for(lambda: (lambda ev: ev if sum(ev.values()) >= 20 else None)(
            self.scheduled_events()), 30, what="20 Scheduled events")
        self.assertTrue(all(v == 1 for v in events.values()), f"double binding: {events}")

    # 5. Objects berth cannot use are logged with the object and field; the rest schedules.
    def test_bad_objects_do_not_stop_scheduling(self):
        self.c.node("good", cpu="4")
        # Valid for the API server, but its memory does not fit berth's exact int64 milli-units.
        self.c.node("absurd", cpu="4", memory="100Ei")
        berth = self.c.start_berth("berth", config())
        self.c.pod("overflow", cpu="100E")
        for i in range(5):
            self.c.pod(f"ok-{i}")
        wait_for(lambda: len([n for n in self.bound() if n.startswith("ok-")]) == 5, 30,
                 what="good pods bound")
        self.assertTrue(all(n == "good" for k, n in self.bound().items() if k.startswith("ok-")))
        log = wait_for(lambda: (lambda l: l if "Pod default/overflow" in l and
                                "Node absurd" in l else None)(self.c.log_of(berth)), 10,
                       what="log lines naming the bad objects")
        self.assertRegex(log, r"Pod default/overflow: spec\.containers\[0\]\.resources\.requests\.cpu")
        self.assertRegex(log, r"Node absurd: status\.(capacity|allocatable)\.memory")
        self.assertIsNone(berth.poll(), "berth crashed")
        self.assertNotIn("overflow", self.bound())

    # 6. What `kubectl get events` / `kubectl describe pod` show (the core/v1 view of events).
    def test_events_as_kubectl_shows_them(self):
        self.c.node("n0", cpu="1")
        self.c.start_berth("berth", config())
        self.c.pod("fits", cpu="500m")
        self.c.pod("toobig", cpu="2")
        wait_for(lambda: self.bound().get("fits"), 20, what="fits bound")

        def core_events(name):
            return self.c.items("/api/v1/namespaces/default/events"
                                f"?fieldSelector=involvedObject.name%3D{name}")

        ok = wait_for(lambda: core_events("fits"), 20, what="core/v1 event for fits")
        self.assertEqual(ok[0]["reason"], "Scheduled")
        self.assertEqual(ok[0]["message"], "Successfully assigned default/fits to n0")
        self.assertEqual(ok[0]["reportingComponent"], "berth-scheduler")
        bad = wait_for(lambda: core_events("toobig"), 20, what="core/v1 event for toobig")
        self.assertEqual(bad[0]["reason"], "FailedScheduling")
        self.assertEqual(bad[0]["type"], "Warning")
        self.assertEqual(bad[0]["message"],
                         "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
                         "available: 1 Preemption is not helpful for scheduling.")
        kubectl = shutil.which("kubectl")
        if kubectl:
            out = subprocess.run([kubectl, "--kubeconfig", self.c.kubeconfig, "describe", "pod",
                                  "toobig"], capture_output=True, text=True, check=True).stdout
            self.assertRegex(out, r"PodScheduled\s+False")
            self.assertRegex(out, r"Warning\s+FailedScheduling\s+.*berth-scheduler\s+0/1 nodes are "
                                  r"available: 1 Insufficient cpu\.")

    # 7. /metrics counts what happened, with upstream's names; /configz shows the profile.
    def test_metrics_after_scheduling(self):
        self.c.node("n0", cpu="2")
        berth = self.c.start_berth("berth", config())
        port = self.c.https_port(berth)
        for i in range(5):
            self.c.pod(f"p{i}", cpu="300m")
        self.c.pod("nofit", cpu="4")
        wait_for(lambda: len(self.bound()) == 5, 30, what="5 pods bound")

        def scraped():
            code, text = kube.scrape(port, "/metrics")
            ok = kube.metric(text, "scheduler_schedule_attempts_total",
                             {"result": "scheduled", "profile": "berth-scheduler"})
            return text if code == 200 and ok == 5 else None

        text = wait_for(scraped, 20, what="5 scheduled attempts in /metrics")
        self.assertGreaterEqual(kube.metric(text, "scheduler_schedule_attempts_total",
                                            {"result": "unschedulable"}), 1)
        self.assertEqual(kube.metric(text, "scheduler_pending_pods", {"queue": "unschedulable"}), 1)
        self.assertEqual(kube.metric(text, "scheduler_cache_size", {"type": "nodes"}), 1)
        self.assertEqual(kube.metric(text, "scheduler_pod_scheduling_attempts_count"), 5)
        self.assertGreaterEqual(kube.metric(text, "scheduler_framework_extension_point_duration_seconds_count",
                                            {"extension_point": "Bind", "status": "Success"}), 5)
        self.assertGreaterEqual(kube.metric(text, "berth_api_requests_total",
                                            {"verb": "POST", "resource": "pods/binding",
                                             "code": "201"}), 5)
        # Upstream's buckets: Exponential(0.001, 2, 15) -> 0.001 ... 16.384.
        buckets = [l for l in text.splitlines()
                   if l.startswith("scheduler_scheduling_attempt_duration_seconds_bucket")]
        self.assertTrue(any('le="0.001"' in l for l in buckets))
        self.assertTrue(any('le="16.384"' in l for l in buckets))
        self.assertGreaterEqual(kube.metric(text, "scheduler_plugin_evaluation_total",
                                            {"plugin": "NodeResourcesFit", "extension_point": "Filter",
                                             "profile": "berth-scheduler"}), 6)
        self.assertIsNotNone(kube.metric(text, "scheduler_event_handling_duration_seconds_count",
                                         {"event": "PodAdd"}))
        # Process and leader-election metrics, as kube-scheduler's /metrics has them.
        self.assertEqual(kube.metric(text, "leader_election_master_status",
                                     {"name": "berth-scheduler"}), 1)
        self.assertGreater(kube.metric(text, "process_open_fds"), 0)
        self.assertGreater(kube.metric(text, "process_resident_memory_bytes"), 1e6)
        self.assertEqual(kube.metric(text, "berth_build_info"), 1)
        # /configz: kube-scheduler's shape, the whole defaulted configuration.
        code, cfgz = kube.scrape(port, "/configz")
        self.assertEqual(code, 200)
        cc = json.loads(cfgz)["componentconfig"]
        self.assertEqual(cc["kind"], "KubeSchedulerConfiguration")
        self.assertEqual(cc["profiles"][0]["schedulerName"], "berth-scheduler")
        self.assertEqual(cc["leaderElection"]["resourceNamespace"], "default")
        self.assertIn({"name": "NodeResourcesFit", "weight": 1},
                      cc["profiles"][0]["plugins"]["multiPoint"]["enabled"])
        # /metrics/resources: each pod's requests, from the leader.
        code, res = kube.scrape(port, "/metrics/resources")
        self.assertEqual(code, 200)
        self.assertEqual(kube.metric(res, "kube_pod_resource_request",
                                     {"pod": "p0", "resource": "cpu", "unit": "cores"}), 0.3)
        self.assertEqual(kube.metric(res, "kube_pod_resource_request",
                                     {"pod": "nofit", "node": "", "resource": "cpu"}), 4)
        self.assertEqual(kube.scrape(port, "/livez"), (200, "ok"))

    # 8. /readyz is ready only once the informers have synced. Anonymous, as the kubelet's probes
    #    (a token could not be reviewed while the API server is down: 401).
    def test_readyz_waits_for_sync(self):
        self.c.stop_apiserver()
        berth = self.c.start_berth("berth", config(leader_elect=False))
        port = self.c.https_port(berth)
        code, body = kube.scrape(port, "/readyz", token=None)
        self.assertEqual(code, 500)
        self.assertIn("informers not synced", body)
        self.c.up()
        wait_for(lambda: kube.scrape(port, "/readyz", token=None) == (200, "ok"), 60,
                 what="readyz ok")


if __name__ == "__main__":
    unittest.main(verbosity=2)
