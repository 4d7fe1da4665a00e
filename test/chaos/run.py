#!/usr/bin/env python3
"""A chaos soak of `berth run` against a real kube-apiserver + etcd (test/cluster).

    test/chaos/run.py --minutes N --nodes N --pods N [--seed S] [--report FILE]

Two berth replicas with leader election schedule a stream of pods onto the nodes while this
script, at random moments, injects one fault at a time:

  apiserver-restart  kube-apiserver is stopped and started again after 1-8 s (etcd kept)
  etcd-restart       etcd is SIGKILLed and started again on the same data after 1-5 s
  leader-kill        the replica holding the lease is SIGKILLed; a new one starts 1-3 s later
  relist             etcd is compacted to its current revision and kube-apiserver restarted, so
                     every watch berth resumes gets 410 Gone and its informers relist
  proxy-drop         every TCP connection between berth and the API server is closed
  proxy-stall        the same connections stop carrying bytes for 5-20 s

berth reaches the API server only through a TCP proxy in this script (that is how the stream is
dropped or stalled); the script's own client talks to the API server directly and retries
through the outages. About one pod in 25 asks for more CPU than any node has.

After each fault the script creates a small probe pod and times how long berth takes to bind it
("time to recover", measured from the moment the fault ends). At the end it waits for the pods
to settle and checks, through the API server's view:
  - every pod is bound, or is PodScheduled=False/Unschedulable with a FailedScheduling event;
  - no pod has more than one Scheduled event, and that event names the node it is bound to;
  - no node holds more CPU, memory or pods than it has allocatable;
  - no berth process exited unless this script killed it;
  - the lease has one holder, and it is a running replica.
Prints the figures (and writes them as JSON with --report); exit status 1 when a check fails.
Stdlib only; reuses test/integration/kube.py. BERTH_BINARY names the binary (default
build/cmd/berth/berth); BERTH_KEEP_TEST_DIRS=1 keeps the logs.
"""
import argparse
import base64
import collections
import json
import os
import re
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
import kube  # noqa: E402

NS = "chaos"
LEASE = "berth-chaos"
FAULTS = ("apiserver-restart", "etcd-restart", "leader-kill", "relist", "proxy-drop",
          "proxy-stall")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Proxy:
    """A TCP relay on a free loopback port to the API server's port. drop() closes every
    relayed connection; stall(s) stops forwarding bytes (both ways) for s seconds."""

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(512)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.pairs = set()
        self.flowing = threading.Event()
        self.flowing.set()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()  # the API server is down: berth sees a reset and retries
                continue
            pair = (client, upstream)
            with self.lock:
                self.pairs.add(pair)
            threading.Thread(target=self._pump, args=(client, upstream, pair), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, pair), daemon=True).start()

    def _pump(self, src, dst, pair):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                self.flowing.wait()
                dst.sendall(data)
        except OSError:
            pass
        self._close(pair)

    def _close(self, pair):
        with self.lock:
            self.pairs.discard(pair)
        for s in pair:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def drop(self):
        with self.lock:
            pairs = list(self.pairs)
        for pair in pairs:
            self._close(pair)
        return len(pairs)

    def stall(self, seconds):
        self.flowing.clear()
        time.sleep(seconds)
        self.flowing.set()

    def close(self):
        self.closed = True
        self.flowing.set()
        self.listener.close()
        self.drop()


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.c = kube.Cluster()
        self.proxy = Proxy(self.c.port)
        self.kubeconfig = os.path.join(self.c.dir, "berth.kubeconfig")
        with open(self.c.kubeconfig) as f:
            text = f.read()
        with open(self.kubeconfig, "w") as f:
            f.write(text.replace(f"127.0.0.1:{self.c.port}", f"127.0.0.1:{self.proxy.port}"))
        self.replicas = {}     # slot -> Popen
        self.killed = set()    # pids this script SIGKILLed
        self.crashes = []      # (log path, exit status)
        self.generation = 0
        self.created = {}      # pod name -> creation time (script's clock)
        self.faults = collections.Counter()
        self.recovery = collections.defaultdict(list)  # fault -> seconds
        self.unrecovered = []  # faults whose probe pod was not bound in time
        self.relists_seen = 0
        self.stop = threading.Event()
        self.mu = threading.Lock()
        self.probes = 0
        self.nodes = {}        # name -> allocatable (cpu millis, memory bytes, pods)

    # ---- API access that rides through outages ----
    def call(self, method, path, body=None, ok_codes=(), timeout=120):
        deadline = time.time() + timeout
        while True:
            try:
                return self.c.request(method, path, body)
            except kube.ApiError as e:
                if e.code in ok_codes:
                    return None
                if e.code < 500 and e.code != 429:
                    raise
                err = e
            except OSError as e:
                err = e
            if time.time() > deadline:
                raise RuntimeError(f"{method} {path}: API server unavailable for {timeout}s: {err}")
            time.sleep(0.5)

    # ---- the cluster ----
    def setup(self):
        self.call("POST", "/api/v1/namespaces",
                  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        names = [f"node-{i:04d}" for i in range(self.args.nodes)]

        def make(name):
            zone = f"zone-{int(name[5:]) % 3}"
            obj = {"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": name,
                                "labels": {"kubernetes.io/hostname": name,
                                           "topology.kubernetes.io/zone": zone}},
                   "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                              "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                              "conditions": [{"type": "Ready", "status": "True"}]}}
            self.call("POST", "/api/v1/nodes", obj, ok_codes=(409,))
            self.nodes[name] = (8000, 32 * 1024 ** 3, 110)

        threads = [threading.Thread(target=lambda chunk=names[k::8]: [make(n) for n in chunk])
                   for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        log(f"{len(self.nodes)} nodes created")

    def pid_of(self, component):
        with open(os.path.join(self.c.dir, component + ".pid")) as f:
            return int(f.read().strip())

    def restart_apiserver(self, down_seconds):
        self.c.stop_apiserver()
        time.sleep(down_seconds)
        self.c.up()

    def restart_etcd(self, down_seconds):
        pid = self.pid_of("etcd")
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode() for a in f.read().split(b"\0") if a]
        os.kill(pid, signal.SIGKILL)
        while os.path.exists(f"/proc/{pid}") and not self._zombie(pid):
            time.sleep(0.05)
        time.sleep(down_seconds)
        with open(os.path.join(self.c.dir, "etcd.log"), "a") as out:
            p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        with open(os.path.join(self.c.dir, "etcd.pid"), "w") as f:
            f.write(str(p.pid))
        port = self.c.env()["ETCD_PORT"]
        kube.wait_for(lambda: self._etcd_post(port, "/health", None) is not None, 30,
                      what="etcd healthy")

    @staticmethod
    def _zombie(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split(") ", 1)[1].startswith("Z")
        except OSError:
            return True

    @staticmethod
    def _etcd_post(port, path, body):
        data = None if body is None else json.dumps(body).encode()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", data=data, timeout=10) as r:
                return json.loads(r.read() or b"{}")
        except OSError:
            return None

    def compact_etcd(self):
        port = self.c.env()["ETCD_PORT"]
        head = self._etcd_post(port, "/v3/kv/range", {"key": base64.b64encode(b"/").decode()})
        rev = int(head["header"]["revision"])
        self._etcd_post(port, "/v3/kv/compaction", {"revision": rev, "physical": True})
        return rev

    # ---- berth replicas ----
    def start_replica(self, slot):
        self.generation += 1
        name = f"berth-{slot}-{self.generation}"
        cfg = os.path.join(self.c.dir, name + ".config.yaml")
        with open(cfg, "w") as f:
            f.write(kube.with_kubeconfig(kube.config(lease=LEASE, lease_seconds=6), self.kubeconfig))
        path = os.path.join(self.c.dir, name + ".log")
        with open(path, "w") as out:
            p = subprocess.Popen([kube.berth_binary(), "run", "--config", cfg,
                                  "--bind-address", "127.0.0.1",
                                  "--secure-port", "0"], stdout=out, stderr=subprocess.STDOUT)
        p.log_path = path
        self.c.procs.append(p)
        self.replicas[slot] = p
        return p

    def identity(self, p):
        # I... "Attempting to acquire leader lease; campaigning" lease="default/x" identity="id"
        for line in self.c.log_of(p).splitlines():
            if "campaigning" in line and f'lease="default/{LEASE}"' in line:
                m = re.search(r'identity="([^"]*)"', line)
                if m:
                    return m.group(1)
        return None

    def lease_holder(self):
        lease = self.call("GET", f"/apis/coordination.k8s.io/v1/namespaces/default/leases/{LEASE}",
                          ok_codes=(404,))
        return (lease or {}).get("spec", {}).get("holderIdentity")

    def check_replicas(self):
        """Restarts a replica that exited on its own, and records it as a crash."""
        for slot, p in list(self.replicas.items()):
            if p.poll() is not None and p.pid not in self.killed:
                self.crashes.append((p.log_path, p.returncode))
                log(f"CRASH: {p.log_path} exited with status {p.returncode}")
                self.start_replica(slot)

    # ---- the pod stream ----
    def pod_body(self, name, cpu, memory):
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS},
                "spec": {"schedulerName": "berth-scheduler",
                         "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                         "resources": {"requests": {"cpu": cpu,
                                                                    "memory": memory}}}]}}

    def create_pod(self, name, cpu, memory):
        self.call("POST", f"/api/v1/namespaces/{NS}/pods", self.pod_body(name, cpu, memory),
                  ok_codes=(409,), timeout=300)
        with self.mu:
            self.created[name] = time.time()

    def stream(self, pods, seconds):
        rng = random.Random(self.args.seed + 1)
        interval = seconds / max(1, pods)
        start = time.time()
        for i in range(pods):
            if self.stop.is_set():
                return
            delay = start + i * interval - time.time()
            if delay > 0:
                time.sleep(delay)
            if i % 25 == 24:
                cpu, memory = "64", "1Gi"  # no node has 64 CPUs
            else:
                cpu, memory = f"{rng.randrange(100, 1000, 50)}m", f"{rng.randrange(64, 1024, 64)}Mi"
            self.create_pod(f"pod-{i:05d}", cpu, memory)

    # ---- faults ----
    def inject(self, kind):
        if kind == "apiserver-restart":
            self.restart_apiserver(self.rng.uniform(1, 8))
        elif kind == "etcd-restart":
            self.restart_etcd(self.rng.uniform(1, 5))
        elif kind == "leader-kill":
            holder = self.lease_holder()
            victim = next((s for s, p in self.replicas.items()
                           if p.poll() is None and self.identity(p) == holder), None)
            if victim is None:
                log(f"leader-kill: the lease holder {holder!r} is not a running replica")
                return False
            p = self.replicas[victim]
            self.killed.add(p.pid)
            kube.sigkill(p)
            time.sleep(self.rng.uniform(1, 3))
            self.start_replica(victim)
        elif kind == "relist":
            rev = self.compact_etcd()
            log(f"relist: etcd compacted at revision {rev}")
            self.restart_apiserver(1)
        elif kind == "proxy-drop":
            log(f"proxy-drop: {self.proxy.drop()} connections closed")
        elif kind == "proxy-stall":
            self.proxy.stall(self.rng.uniform(5, 20))
        return True

    def probe(self, kind, fault_end):
        self.probes += 1
        name = f"probe-{self.probes:04d}"
        self.create_pod(name, "10m", "16Mi")
        path = f"/api/v1/namespaces/{NS}/pods/{name}"
        deadline = fault_end + self.args.recover_timeout
        while time.time() < deadline:
            self.check_replicas()
            pod = self.call("GET", path)
            if pod["spec"].get("nodeName"):
                took = time.time() - fault_end
                self.recovery[kind].append(took)
                return took
            time.sleep(0.2)
        self.unrecovered.append(kind)
        return None

    def run(self):
        self.setup()
        for slot in range(self.args.replicas):
            self.start_replica(slot)
        kube.wait_for(lambda: self.lease_holder(), 60, what="a lease holder")
        seconds = self.args.minutes * 60
        stream_seconds = seconds * 0.9
        streamer = threading.Thread(target=self.stream, args=(self.args.pods, stream_seconds))
        streamer.start()
        begin = time.time()
        order = []
        while time.time() - begin < seconds - 15:
            time.sleep(self.rng.uniform(self.args.min_gap, self.args.max_gap))
            self.check_replicas()
            if time.time() - begin >= seconds - 15:
                break
            if not order:
                order = list(self.args.faults)
                self.rng.shuffle(order)
            kind = order.pop()
            t0 = time.time()
            if not self.inject(kind):
                continue
            end = time.time()
            self.faults[kind] += 1
            took = self.probe(kind, end)
            log(f"{kind} ({end - t0:.1f}s): recovered in "
                + (f"{took:.1f}s" if took is not None else "NOT within the timeout"))
        streamer.join()
        log(f"{len(self.created)} pods created; waiting for them to settle")
        return self.settle_and_check()

    # ---- the end ----
    def events(self):
        out = []
        cont = ""
        while True:
            page = self.call("GET", f"/apis/events.k8s.io/v1/namespaces/{NS}/events?limit=2000"
                             + (f"&continue={cont}" if cont else ""))
            out.extend(page["items"])
            cont = page["metadata"].get("continue")
            if not cont:
                return out

    def state(self):
        pods = {p["metadata"]["name"]: p for p in self.call("GET", f"/api/v1/namespaces/{NS}/pods")["items"]}
        scheduled = collections.defaultdict(list)
        failed = set()
        for e in self.events():
            name = e.get("regarding", {}).get("name")
            if e.get("reason") == "Scheduled":
                scheduled[name].append(e.get("note", ""))
            elif e.get("reason") == "FailedScheduling":
                failed.add(name)
        return pods, scheduled, failed

    @staticmethod
    def unschedulable(pod):
        return any(c.get("type") == "PodScheduled" and c.get("status") == "False"
                   and c.get("reason") == "Unschedulable"
                   for c in pod.get("status", {}).get("conditions", []))

    def settled(self):
        pods, scheduled, failed = self.state()
        pending = [n for n in self.created
                   if n not in pods or not (pods[n]["spec"].get("nodeName")
                                            or (self.unschedulable(pods[n]) and n in failed))]
        return pending, pods, scheduled, failed

    def settle_and_check(self):
        deadline = time.time() + self.args.settle_timeout
        while True:
            self.check_replicas()
            pending, pods, scheduled, failed = self.settled()
            if not pending or time.time() > deadline:
                break
            time.sleep(2)
        problems = []
        lost = [n for n in pending]
        if lost:
            problems.append(f"{len(lost)} pods neither bound nor Unschedulable with a "
                            f"FailedScheduling event: {sorted(lost)[:10]}")
        bound = {n: p["spec"]["nodeName"] for n, p in pods.items() if p["spec"].get("nodeName")}
        double = {n: notes for n, notes in scheduled.items() if len(notes) > 1}
        if double:
            problems.append(f"{len(double)} pods with more than one Scheduled event: "
                            f"{dict(list(double.items())[:5])}")
        wrong = {n: notes[0] for n, notes in scheduled.items()
                 if len(notes) == 1 and (n not in bound or not notes[0].endswith(" to " + bound[n]))}
        if wrong:
            problems.append(f"{len(wrong)} Scheduled events that do not name the pod's node: "
                            f"{dict(list(wrong.items())[:5])}")
        missing_events = sorted(n for n in bound if n not in scheduled)
        if missing_events:
            problems.append(f"{len(missing_events)} bound pods without a Scheduled event: "
                            f"{missing_events[:10]}")
        use = collections.defaultdict(lambda: [0, 0, 0])
        for n, node in bound.items():
            req = pods[n]["spec"]["containers"][0]["resources"]["requests"]
            u = use[node]
            u[0] += kube.quantity(req["cpu"]) * 1000
            u[1] += kube.quantity(req["memory"])
            u[2] += 1
        over = {node: u for node, u in use.items()
                if any(u[k] > self.nodes[node][k] + 1e-6 for k in range(3))}
        if over:
            problems.append(f"{len(over)} nodes over their allocatable: {dict(list(over.items())[:5])}")
        if self.crashes:
            problems.append(f"{len(self.crashes)} berth processes exited on their own: "
                            f"{self.crashes}")
        holder = self.lease_holder()
        live = {self.identity(p): p for p in self.replicas.values() if p.poll() is None}
        if not holder or holder not in live:
            problems.append(f"lease holder {holder!r} is not one of the running replicas "
                            f"{sorted(k for k in live if k)}")
        if self.unrecovered:
            problems.append(f"no recovery within {self.args.recover_timeout}s after: "
                            f"{self.unrecovered}")
        # Watches that the API server answered with 410 Gone ("too old resource version").
        self.relists_seen = sum(self.c.log_of(p).count("too old resource version")
                                for p in self.c.procs)
        all_recovery = [t for ts in self.recovery.values() for t in ts]
        report = {
            "minutes": self.args.minutes, "nodes": len(self.nodes), "replicas": self.args.replicas,
            "pods_created": len(self.created), "pods_bound": len(bound),
            "pods_unschedulable": len([n for n in self.created if n not in bound]) - len(lost),
            "pods_lost": len(lost), "double_binds": len(double),
            "bound_without_scheduled_event": len(missing_events),
            "overcommitted_nodes": len(over), "crashes": len(self.crashes),
            "faults": dict(self.faults), "faults_total": sum(self.faults.values()),
            "watch_410_relists": self.relists_seen,
            "recovery_seconds": {k: {"median": round(statistics.median(v), 2),
                                     "max": round(max(v), 2), "n": len(v)}
                                 for k, v in sorted(self.recovery.items())},
            "max_recovery_seconds": round(max(all_recovery), 2) if all_recovery else None,
            "lease_holder": holder, "problems": problems,
        }
        return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=3)
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=500)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--seed", type=int, default=None, help="default: time-based, printed")
    ap.add_argument("--min-gap", type=float, default=5, help="seconds between faults (min)")
    ap.add_argument("--max-gap", type=float, default=20, help="seconds between faults (max)")
    ap.add_argument("--recover-timeout", type=float, default=90,
                    help="seconds a probe pod may take to be bound after a fault")
    ap.add_argument("--settle-timeout", type=float, default=180,
                    help="seconds the pods may take to settle after the stream ends")
    ap.add_argument("--faults", default=",".join(FAULTS),
                    help="comma-separated kinds to inject (default: all)")
    ap.add_argument("--report", help="also write the figures here as JSON")
    args = ap.parse_args()
    if args.nodes < 1 or args.pods < 1 or args.replicas < 1 or args.minutes <= 0:
        ap.error("--minutes, --nodes, --pods and --replicas must be positive")
    args.faults = [f for f in args.faults.split(",") if f]
    unknown = [f for f in args.faults if f not in FAULTS]
    if unknown or not args.faults:
        ap.error(f"--faults: unknown kind {unknown!r}; the kinds are {', '.join(FAULTS)}")
    if args.seed is None:
        args.seed = int(time.time())
    log(f"chaos soak: {args.minutes} min, {args.nodes} nodes, {args.pods} pods, "
        f"{args.replicas} replicas, seed {args.seed}")
    soak = Soak(args)
    log(f"cluster in {soak.c.dir}; berth goes through the proxy on port {soak.proxy.port}")
    report = None
    try:
        report = soak.run()
    finally:
        soak.stop.set()
        keep = os.environ.get("BERTH_KEEP_TEST_DIRS") == "1" or (report and report["problems"])
        if keep:
            os.environ["BERTH_KEEP_TEST_DIRS"] = "1"
            log(f"logs kept in {soak.c.dir}")
        soak.proxy.close()
        soak.c.close()
    text = json.dumps(report, indent=2)
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")
    if report["problems"]:
        for p in report["problems"]:
            log("FAIL: " + p)
        return 1
    log("PASS: 0 pods lost, 0 double binds, 0 crashes, one lease holder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
