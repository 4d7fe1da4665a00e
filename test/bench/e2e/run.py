#!/usr/bin/env python3
"""berth vs upstream kube-scheduler vs a null binder, on one real kube-apiserver (issue 8).

Python 3 standard library only. Usage (from the repository root):

    test/bench/e2e/run.py [--nodes 1000] [--pods 3000] [--repeats 3]
                          [--workloads SchedulingBasic,...] [--out bench-results]

One test cluster (test/cluster/up: etcd + kube-apiserver at test/cluster/VERSION) is started; N nodes are
created as API objects (scheduler_perf's makeBaseNode: 4 cpu / 32Gi / 110 pods, Ready). For
every workload and repeat, every scheduler runs in turn (the order alternates between repeats):

  berth     build/cmd/berth/berth run (leaderElect false, qps/burst 5000/5000)
  upstream  kube-scheduler (test/cluster/VERSION) from test/cluster (same qps/burst, leaderElect false)
  ceiling   test/bench/nullbinder (Go, client-go; built by its build.sh): an informer on the
            unbound pods of its schedulerName and --binder-workers goroutines POSTing Bindings
            round-robin over the nodes, no filtering, over client-go's HTTP/2 transport with
            protobuf, no client rate limit (--binder-qps): the API server's ceiling

Each run: start the scheduler, wait until it has bound one warm-up pod (informers synced), then
create the workload's pods in a fresh namespace with a small client pool and measure from the
first create until every pod has spec.nodeName (seen through a watch). CPU seconds come from
/proc/<pid>/stat (utime+stime) deltas over the measured window, peak RSS from VmHWM. Then the
pods are deleted (gracePeriodSeconds 0) and the scheduler is stopped.

--mode both (default) then repeats the matrix in "backlog" mode (--backlog-repeats, default 1):
all pods are created first and the clock runs from the scheduler's process start; on 2 cores the
paced mode is bounded by pod creation. --report-only rebuilds the reports from e2e.json.

Outputs <out>/e2e.md, <out>/e2e.json, <out>/e2e.png (paced), <out>/e2e-backlog.png and
<out>/logs/ (scheduler logs; berth's /metrics after each run, see metrics_summary.py).
Results and their analysis: test/bench/e2e/RESULTS.md.
"""
import argparse
import http.client
import json
import os
import queue
import re
import signal
import ssl
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "test/integration"))

with open(os.path.join(ROOT, "test", "cluster", "VERSION")) as _f:
    UPSTREAM = _f.read().strip()  # the kube-scheduler version berth targets, e.g. v1.37.2
TOKEN = "berth-test-admin-token"
CLK_TCK = os.sysconf("SC_CLK_TCK")
ALL_WORKLOADS = ["SchedulingBasic", "SchedulingNodeAffinity", "SchedulingPodAntiAffinity",
                 "TopologySpreading", "SchedulingWithMixedChurn", "Gang"]
SCHEDULERS = ["berth", "upstream", "ceiling"]
SCHED_NAME = {"berth": "berth-scheduler", "upstream": "upstream-scheduler",
              "ceiling": "null-binder"}
BENCH_NAME = {"SchedulingBasic": "SchedulingBasic", "SchedulingNodeAffinity":
              "SchedulingNodeAffinity", "SchedulingPodAntiAffinity": "SchedulingPodAntiAffinity",
              "TopologySpreading": "TopologySpreading", "Gang": "Gang3"}
GANG_SIZE = 3
# The null binder's workers: past the knee of the saturation sweep in RESULTS.md ("A real
# ceiling"), where more workers no longer raise its rate.
BINDER_WORKERS = 64

GANG_PROFILE = """  plugins:
    multiPoint:
      enabled: [{name: Coscheduling}]
    queueSort:
      enabled: [{name: Coscheduling}]
      disabled: [{name: "*"}]
  pluginConfig:
  - name: Coscheduling
    args: {permitWaitingTimeSeconds: 30}
"""


# ---------------------------------------------------------------- HTTP (persistent connections)
class Conn:
    """One persistent HTTPS connection to the API server (http.client), reconnecting on error."""

    def __init__(self, port, ctx):
        self.port, self.ctx, self.c = port, ctx, None

    def request(self, method, path, body=None, ctype="application/json", ok=(200, 201, 202)):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": "Bearer " + TOKEN, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = ctype
        for attempt in range(5):
            try:
                if self.c is None:
                    self.c = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx,
                                                         timeout=60)
                self.c.request(method, path, body=data, headers=headers)
                r = self.c.getresponse()
                raw = r.read()
                if r.status == 429 or r.status >= 500:
                    time.sleep(0.05 * (attempt + 1))
                    continue
                if r.status not in ok:
                    return r.status, raw
                return r.status, raw
            except (OSError, http.client.HTTPException):
                if self.c is not None:
                    self.c.close()
                self.c = None
                time.sleep(0.05)
        return 0, b""


def api_ctx(cluster_dir):
    return ssl.create_default_context(cafile=os.path.join(cluster_dir, "certs/apiserver.crt"))


def parallel(port, ctx, items, fn, threads):
    """Runs fn(conn, item) for every item on `threads` threads, each with its own connection."""
    q = queue.Queue()
    for it in items:
        q.put(it)
    errors = []

    def worker():
        conn = Conn(port, ctx)
        while True:
            try:
                it = q.get_nowait()
            except queue.Empty:
                return
            try:
                fn(conn, it)
            except Exception as e:  # noqa: BLE001 - report and continue
                errors.append(repr(e))

    ts = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return errors


class PodWatch:
    """Watches a pod collection; calls on_event(type, pod) for each event on its own thread."""

    def __init__(self, port, ctx, path, on_event):
        self.port, self.ctx, self.path, self.on_event = port, ctx, path, on_event
        self.stopped = False
        self.conn = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.ready = threading.Event()
        self.thread.start()

    def _run(self):
        rv = None
        while not self.stopped:
            try:
                c = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx,
                                                timeout=3600)
                self.conn = c
                sep = "&" if "?" in self.path else "?"
                if rv is None:
                    c.request("GET", self.path, headers={"Authorization": "Bearer " + TOKEN})
                    r = c.getresponse()
                    lst = json.loads(r.read())
                    rv = lst["metadata"]["resourceVersion"]
                    for p in lst.get("items", []):
                        self.on_event("ADDED", p)
                c.request("GET", f"{self.path}{sep}watch=1&resourceVersion={rv}"
                          "&allowWatchBookmarks=false",
                          headers={"Authorization": "Bearer " + TOKEN})
                r = c.getresponse()
                if r.status != 200:
                    r.read()
                    rv = None
                    time.sleep(0.2)
                    continue
                self.ready.set()
                while not self.stopped:
                    line = r.readline()
                    if not line:
                        break
                    ev = json.loads(line)
                    if ev["type"] == "ERROR":
                        rv = None
                        break
                    obj = ev["object"]
                    rv = obj["metadata"].get("resourceVersion", rv)
                    self.on_event(ev["type"], obj)
            except (OSError, http.client.HTTPException, ValueError):
                if self.stopped:
                    return
                time.sleep(0.1)

    def stop(self):
        self.stopped = True
        try:
            if self.conn is not None:
                self.conn.sock and self.conn.sock.shutdown(2)
        except OSError:
            pass


# ---------------------------------------------------------------- objects
def base_pod(name, ns, sched):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns,
                                                            "labels": {}},
            "spec": {"schedulerName": sched,
                     "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                     "ports": [{"containerPort": 80, "protocol": "TCP"}],
                                     "resources": {
                                         "requests": {"cpu": "100m", "memory": "500Mi"},
                                         "limits": {"cpu": "100m", "memory": "500Mi"}}}]}}


def workload_pods(workload, n, ns, sched):
    """The pod templates of test/bench/workloads.cc (scheduler_perf's)."""
    pods = []
    for i in range(n):
        p = base_pod(f"pod-{i}", ns, sched)
        spec, meta = p["spec"], p["metadata"]
        if workload == "SchedulingNodeAffinity":
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{
                    "key": "topology.kubernetes.io/zone", "operator": "In",
                    "values": ["zone1", "zone2"]}]}]}}}
        elif workload == "TopologySpreading":
            meta["labels"]["color"] = "blue"
            spec["topologySpreadConstraints"] = [{
                "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchExpressions": [
                    {"key": "color", "operator": "In", "values": ["blue"]}]}}]
        elif workload == "SchedulingPodAntiAffinity":
            meta["labels"].update({"color": "green", "name": "test"})
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"color": "green"}},
                "topologyKey": "kubernetes.io/hostname"}]}}
        elif workload == "Gang":
            meta["labels"]["scheduling.x-k8s.io/pod-group"] = f"group-{i // GANG_SIZE}"
        pods.append(p)
    return pods


def node_zone(workload, i):
    if workload == "SchedulingNodeAffinity":
        return "zone1"
    if workload == "TopologySpreading":
        return f"moon-{i % 3 + 1}"
    return None


# ---------------------------------------------------------------- /proc
def proc_cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / CLK_TCK
    except OSError:
        return float("nan")


def proc_hwm_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


# ---------------------------------------------------------------- bench
class Bench:
    def __init__(self, args):
        import kube
        self.args = args
        self.kube = kube
        self.cluster = kube.Cluster()
        self.dir = self.cluster.dir
        self.port = self.cluster.port
        self.ctx = api_ctx(self.dir)
        self.conn = Conn(self.port, self.ctx)
        env = self.cluster.env()
        self.bin = env["BIN"]
        self.apiserver_pid = int(open(os.path.join(self.dir, "apiserver.pid")).read())
        self.etcd_pid = int(open(os.path.join(self.dir, "etcd.pid")).read())
        self.procs = []
        self.run_id = 0
        self.zones = None
        self.null_binder_path = None

    def null_binder(self):
        """The ceiling's binary, built (or found in its cache) by test/bench/nullbinder/build.sh
        once per invocation, before any scheduler's clock starts."""
        if self.null_binder_path is None:
            out = subprocess.run([os.path.join(ROOT, "test/bench/nullbinder/build.sh")],
                                 stdout=subprocess.PIPE, text=True)
            if out.returncode != 0:
                raise RuntimeError("test/bench/nullbinder/build.sh failed (its stderr is above)")
            self.null_binder_path = out.stdout.strip().splitlines()[-1]
        return self.null_binder_path

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.cluster.close()

    def req(self, method, path, body=None, ctype="application/json"):
        st, raw = self.conn.request(method, path, body, ctype)
        if st not in (200, 201, 202):
            raise RuntimeError(f"{method} {path}: HTTP {st} {raw[:300]!r}")
        return json.loads(raw) if raw else None

    # -- setup
    def create_nodes(self):
        n = self.args.nodes

        def mk(conn, i):
            name = f"node-{i}"
            obj = {"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                   "status": {"capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                              "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                              "phase": "Running",
                              "conditions": [{"type": "Ready", "status": "True"}]}}
            st, raw = conn.request("POST", "/api/v1/nodes", obj)
            if st not in (201, 409):
                raise RuntimeError(f"node {i}: {st} {raw[:200]!r}")

        t = time.time()
        errs = parallel(self.port, self.ctx, range(n), mk, 8)
        if errs:
            raise RuntimeError(errs[:3])
        log(f"created {n} nodes in {time.time() - t:.1f}s")

    def label_nodes(self, workload):
        """Sets topology.kubernetes.io/zone as the workload needs (zone1 / moon-1..3 / none)."""
        want = [node_zone(workload, i) for i in range(self.args.nodes)]
        if want == self.zones:
            return

        def patch(conn, i):
            body = {"metadata": {"labels": {"topology.kubernetes.io/zone": want[i]}}}
            st, raw = conn.request("PATCH", f"/api/v1/nodes/node-{i}", body,
                                   "application/merge-patch+json")
            if st != 200:
                raise RuntimeError(f"patch node-{i}: {st} {raw[:200]!r}")

        errs = parallel(self.port, self.ctx, range(self.args.nodes), patch, 8)
        if errs:
            raise RuntimeError(errs[:3])
        self.zones = want

    def install_podgroup_crd(self):
        from test_gang import PODGROUP_CRD
        self.req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", PODGROUP_CRD)
        for _ in range(300):
            st, _ = self.conn.request("GET", "/apis/scheduling.x-k8s.io/v1alpha1/podgroups")
            if st == 200:
                return
            time.sleep(0.1)
        raise RuntimeError("PodGroup CRD not served")

    # -- schedulers
    def start(self, sched, workload, tag):
        log_path = os.path.join(self.args.out, "logs", f"{tag}.log")
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        cfg = os.path.join(self.dir, f"{tag}.yaml")
        if sched == "berth":
            with open(cfg, "w") as f:
                f.write(f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {{kubeconfig: {self.cluster.kubeconfig}, qps: 5000, burst: 5000}}
leaderElection: {{leaderElect: false}}
profiles:
- schedulerName: {SCHED_NAME['berth']}
{GANG_PROFILE if workload == 'Gang' else ''}""")
            cmd = [self.kube.berth_binary(), "run", "--config", cfg, "--bind-address", "127.0.0.1", "--secure-port", "0"]
        elif sched == "upstream":
            with open(cfg, "w") as f:
                f.write(f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: {self.cluster.kubeconfig}
  qps: 5000
  burst: 5000
leaderElection: {{leaderElect: false}}
profiles:
- schedulerName: {SCHED_NAME['upstream']}
""")
            cmd = [os.path.join(self.bin, "kube-scheduler"), f"--config={cfg}",
                   "--bind-address=127.0.0.1", "--secure-port=0", "--v=1"]
        else:
            cmd = [self.null_binder(), "--kubeconfig", self.cluster.kubeconfig,
                   "--scheduler-name", SCHED_NAME["ceiling"],
                   "--workers", str(self.args.binder_workers), "--qps", str(self.args.binder_qps),
                   "--burst", str(self.args.binder_burst)]
        with open(log_path, "w") as lf:
            p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT)
        p.log_path = log_path
        self.procs.append(p)
        return p

    def stop(self, p):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.remove(p)

    def ceiling_ready(self, p):
        """Seconds from the null binder's start until its informers synced, from its ready line
        ("nullbinder ready: ... 0.412s after start"); None before that line."""
        try:
            m = re.search(r"^nullbinder ready: .* ([0-9.]+)s after start$", open(p.log_path).read(),
                          re.M)
            return float(m.group(1)) if m else None
        except OSError:
            return None

    def ceiling_fields(self, sched, p, res):
        """Adds the ceiling's settings and start-up time to its result (e2e.json)."""
        if sched == "ceiling":
            res.update({"binder_workers": self.args.binder_workers,
                        "binder_qps": self.args.binder_qps, "ready_seconds": self.ceiling_ready(p)})
        return res

    def metrics_port(self, p):
        try:
            m = re.search(r"on https port (\d+)", open(p.log_path).read())
            return int(m.group(1)) if m else None
        except OSError:
            return None

    # -- one run
    def run(self, workload, sched, rep):
        self.run_id += 1
        ns = f"{workload.lower()}-{sched}-{rep}-{self.run_id}"[:60]
        tag = f"{workload}-{sched}-{rep}"
        n = self.args.pods
        if workload == "SchedulingPodAntiAffinity":
            n = min(n, self.args.nodes)  # one pod per node at most: more would be unschedulable
        self.label_nodes(workload)
        self.req("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        sname = SCHED_NAME[sched]
        pods = workload_pods(workload, n, ns, sname)
        if workload == "Gang":
            def mkpg(conn, g):
                st, raw = conn.request(
                    "POST", f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups",
                    {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                     "metadata": {"name": f"group-{g}"}, "spec": {"minMember": GANG_SIZE}})
                if st != 201:
                    raise RuntimeError(f"podgroup: {st} {raw[:200]!r}")
            errs = parallel(self.port, self.ctx, range((n + GANG_SIZE - 1) // GANG_SIZE), mkpg, 4)
            if errs:
                raise RuntimeError(errs[:3])
        churn = []
        if workload == "SchedulingWithMixedChurn":
            # Churn pods: n/3 pods bound before the measured phase (by the same scheduler); they
            # are deleted while the measured pods are being created.
            churn = [base_pod(f"churn-{i}", ns, sname) for i in range(n // 3)]

        p = self.start(sched, workload, tag)
        # Warm-up: one pod in the run's namespace, bound = scheduler synced and working.
        warm = base_pod("warmup", ns, sname)
        if workload == "Gang":
            warm["metadata"]["labels"] = {}
        bound = {}
        bound_lock = threading.Lock()
        done = threading.Event()
        expected = set(x["metadata"]["name"] for x in pods)
        t_done = [None]

        def on_event(typ, pod):
            name = pod["metadata"]["name"]
            if typ in ("ADDED", "MODIFIED") and pod["spec"].get("nodeName"):
                with bound_lock:
                    if name not in bound:
                        bound[name] = time.time()
                        if name in expected:
                            expected.discard(name)
                            if not expected:
                                t_done[0] = time.time()
                                done.set()

        watch = PodWatch(self.port, self.ctx, f"/api/v1/namespaces/{ns}/pods", on_event)
        watch.ready.wait(30)
        self.req("POST", f"/api/v1/namespaces/{ns}/pods", warm)
        t = time.time()
        while "warmup" not in bound:
            if p.poll() is not None:
                raise RuntimeError(f"{sched} exited: see {p.log_path}")
            if time.time() - t > 120:
                ready = "" if sched != "ceiling" or self.ceiling_ready(p) is not None else \
                    " (its informers never synced)"
                raise RuntimeError(f"{sched} did not bind the warm-up pod{ready}: see {p.log_path}")
            time.sleep(0.05)
        if churn:
            errs = parallel(self.port, self.ctx, churn,
                            lambda c, o: c.request("POST", f"/api/v1/namespaces/{ns}/pods", o), 4)
            t = time.time()
            while sum(1 for k in bound if k.startswith("churn-")) < len(churn):
                if time.time() - t > 120:
                    raise RuntimeError("churn pods not bound")
                time.sleep(0.05)

        # Measured phase.
        cpu0 = proc_cpu(p.pid)
        api0 = proc_cpu(self.apiserver_pid) + proc_cpu(self.etcd_pid)
        samples = []
        t0 = time.time()
        stop_sampling = threading.Event()

        def sampler():
            k = 1
            while not stop_sampling.is_set():
                delay = t0 + k - time.time()
                if delay > 0 and stop_sampling.wait(delay):
                    return
                with bound_lock:
                    samples.append(len(expected_all) - len(expected))
                k += 1

        expected_all = set(x["metadata"]["name"] for x in pods)
        threading.Thread(target=sampler, daemon=True).start()
        t_created = [None]

        created = [0]

        def create(c, o):
            c.request("POST", f"/api/v1/namespaces/{ns}/pods", o)
            created[0] += 1

        def creator():
            errs = parallel(self.port, self.ctx, pods, create, self.args.create_threads)
            t_created[0] = time.time()
            if errs:
                log(f"create errors: {errs[:3]}")

        ct = threading.Thread(target=creator, daemon=True)
        ct.start()
        if churn:
            # One churn deletion per three creates, paced by the creation progress.
            for i, o in enumerate(churn):
                while created[0] < 3 * (i + 1) and ct.is_alive():
                    time.sleep(0.002)
                self.conn.request("DELETE",
                                  f"/api/v1/namespaces/{ns}/pods/{o['metadata']['name']}",
                                  {"gracePeriodSeconds": 0})
        finished = done.wait(self.args.timeout)
        stop_sampling.set()
        t_end = t_done[0] if finished else time.time()
        cpu1 = proc_cpu(p.pid)
        api1 = proc_cpu(self.apiserver_pid) + proc_cpu(self.etcd_pid)
        rss = proc_hwm_mb(p.pid)
        ct.join()
        nbound = len(expected_all) - len(expected)
        metrics = None
        mport = self.metrics_port(p) if sched == "berth" else None
        if mport:
            st, metrics = self.kube.scrape(mport, "/metrics")
            with open(os.path.join(self.args.out, "logs", f"{tag}.metrics"), "w") as f:
                f.write(metrics)
        dur = t_end - t0
        full = samples[: int(dur)]  # whole seconds only
        rates = [b - a for a, b in zip([0] + full, full)]
        res = {"workload": workload, "scheduler": sched, "repeat": rep, "pods": n,
               "bound": nbound, "complete": finished, "seconds": dur,
               "create_seconds": (t_created[0] or time.time()) - t0,
               "pods_per_second": nbound / dur if dur > 0 else 0.0,
               "p50_per_second": statistics.median(rates) if rates else nbound / dur,
               "min_per_second": min(rates) if rates else nbound / dur,
               "cpu_seconds": cpu1 - cpu0,
               "cpu_per_1000": (cpu1 - cpu0) / max(1, nbound) * 1000,
               "apiserver_etcd_cpu_seconds": api1 - api0,
               "peak_rss_mb": rss, "mode": "paced"}
        self.ceiling_fields(sched, p, res)
        log(f"{tag}: {nbound}/{n} bound in {dur:.2f}s = {res['pods_per_second']:.0f} pods/s "
            f"(p50 {res['p50_per_second']:.0f}, min {res['min_per_second']:.0f}; creates took "
            f"{res['create_seconds']:.2f}s) cpu {res['cpu_seconds']:.2f}s rss {rss:.0f}MB "
            f"apiserver+etcd cpu {res['apiserver_etcd_cpu_seconds']:.1f}s")
        watch.stop()
        self.stop(p)
        self.cleanup(ns, workload)
        return res


    def run_backlog(self, workload, sched, rep):
        """Backlog mode: all pods exist before the scheduler starts; measured from the
        scheduler's process start (so start-up and informer sync count) until all are bound.
        Takes pod creation out of the measured window (on 2 cores, creates are the bottleneck
        of the paced mode)."""
        self.run_id += 1
        ns = f"bl-{workload.lower()}-{sched}-{rep}-{self.run_id}"[:60]
        tag = f"backlog-{workload}-{sched}-{rep}"
        n = self.args.pods
        if workload == "SchedulingPodAntiAffinity":
            n = min(n, self.args.nodes)
        self.label_nodes(workload)
        self.req("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        pods = workload_pods(workload, n, ns, SCHED_NAME[sched])
        if workload == "Gang":
            def mkpg(conn, g):
                conn.request(
                    "POST", f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups",
                    {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                     "metadata": {"name": f"group-{g}"}, "spec": {"minMember": GANG_SIZE}})
            parallel(self.port, self.ctx, range((n + GANG_SIZE - 1) // GANG_SIZE), mkpg, 4)
        parallel(self.port, self.ctx, pods,
                 lambda c, o: c.request("POST", f"/api/v1/namespaces/{ns}/pods", o),
                 self.args.create_threads)
        expected = set(x["metadata"]["name"] for x in pods)
        total = len(expected)
        lock = threading.Lock()
        done = threading.Event()
        t_done = [None]

        def on_event(typ, pod):
            if typ in ("ADDED", "MODIFIED") and pod["spec"].get("nodeName"):
                with lock:
                    if pod["metadata"]["name"] in expected:
                        expected.discard(pod["metadata"]["name"])
                        if not expected:
                            t_done[0] = time.time()
                            done.set()

        watch = PodWatch(self.port, self.ctx, f"/api/v1/namespaces/{ns}/pods", on_event)
        watch.ready.wait(30)
        time.sleep(0.5)  # let the initial LIST drain
        samples = []
        t0 = time.time()
        p = self.start(sched, workload, tag)
        stop_sampling = threading.Event()

        def sampler():
            k = 1
            while not stop_sampling.is_set():
                delay = t0 + k - time.time()
                if delay > 0 and stop_sampling.wait(delay):
                    return
                with lock:
                    samples.append(total - len(expected))
                k += 1

        threading.Thread(target=sampler, daemon=True).start()
        api0 = proc_cpu(self.apiserver_pid) + proc_cpu(self.etcd_pid)
        finished = done.wait(self.args.timeout)
        stop_sampling.set()
        t_end = t_done[0] if finished else time.time()
        cpu = proc_cpu(p.pid)
        rss = proc_hwm_mb(p.pid)
        api1 = proc_cpu(self.apiserver_pid) + proc_cpu(self.etcd_pid)
        nbound = total - len(expected)
        mport = self.metrics_port(p) if sched == "berth" else None
        if mport:
            st, metrics = self.kube.scrape(mport, "/metrics")
            with open(os.path.join(self.args.out, "logs", f"{tag}.metrics"), "w") as f:
                f.write(metrics)
        dur = t_end - t0
        full = samples[: int(dur)]
        rates = [b - a for a, b in zip([0] + full, full)]
        # The first second includes process start-up and the initial LIST: skip it for min.
        steady = rates[1:] or rates
        res = {"workload": workload, "scheduler": sched, "repeat": rep, "pods": n,
               "bound": nbound, "complete": finished, "seconds": dur, "create_seconds": 0.0,
               "pods_per_second": nbound / dur if dur > 0 else 0.0,
               "p50_per_second": statistics.median(steady) if steady else nbound / dur,
               "min_per_second": min(steady) if steady else nbound / dur,
               "cpu_seconds": cpu, "cpu_per_1000": cpu / max(1, nbound) * 1000,
               "apiserver_etcd_cpu_seconds": api1 - api0, "peak_rss_mb": rss, "mode": "backlog"}
        self.ceiling_fields(sched, p, res)
        ready = f" (synced after {res['ready_seconds']:.2f}s)" if res.get("ready_seconds") else ""
        log(f"{tag}: {nbound}/{n} bound in {dur:.2f}s = {res['pods_per_second']:.0f} pods/s "
            f"(p50 {res['p50_per_second']:.0f}, min {res['min_per_second']:.0f}) cpu {cpu:.2f}s "
            f"rss {rss:.0f}MB apiserver+etcd cpu {res['apiserver_etcd_cpu_seconds']:.1f}s{ready}")
        watch.stop()
        self.stop(p)
        self.cleanup(ns, workload)
        return res

    def cleanup(self, ns, workload):
        """Deletes the namespace's pods (gracePeriodSeconds 0) with a client pool (the API
        server's deletecollection runs one delete at a time), then its PodGroups."""
        for _ in range(20):
            st, raw = self.conn.request("GET", f"/api/v1/namespaces/{ns}/pods")
            names = [x["metadata"]["name"] for x in json.loads(raw)["items"]] if st == 200 else []
            if not names:
                break
            parallel(self.port, self.ctx, names, lambda c, nm: c.request(
                "DELETE", f"/api/v1/namespaces/{ns}/pods/{nm}", {"gracePeriodSeconds": 0},
                ok=(200, 202, 404)), 8)
        if workload == "Gang":
            self.conn.request("DELETE",
                              f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups")


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


# ---------------------------------------------------------------- berth-bench
def berth_bench(args, workloads):
    exe = os.path.join(ROOT, "build/test/bench/berth-bench")
    out = {}
    for w in workloads:
        if w not in BENCH_NAME:
            continue
        n = min(args.pods, args.nodes) if w == "SchedulingPodAntiAffinity" else args.pods
        runs = []
        for _ in range(3):
            r = subprocess.run([exe, "--workload", BENCH_NAME[w], "--nodes", str(args.nodes),
                                "--pods", str(n)], capture_output=True, text=True)
            lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
            if r.returncode == 0 and lines:
                runs.append(json.loads(lines[-1]))
        if runs:
            out[w] = {"bench_workload": BENCH_NAME[w], "pods": n,
                      "scheduled": statistics.median(x["scheduled"] for x in runs),
                      "pods_per_second": statistics.median(x["pods_per_second"] for x in runs),
                      "peak_rss_mb": statistics.median(x["peak_rss_mb"] for x in runs)}
    return out


# ---------------------------------------------------------------- report
def med(rs, key):
    vals = [r[key] for r in rs if r[key] == r[key]]
    return statistics.median(vals) if vals else float("nan")


def ratio(a, b):
    return a / b if b and b == b and a == a else float("nan")


def summarize(results):
    table = {}
    for r in results:
        table.setdefault(r["workload"], {}).setdefault(r["scheduler"], []).append(r)
    summary = {}
    for w, by in table.items():
        summary[w] = {}
        for s, rs in by.items():
            summary[w][s] = {k: med(rs, k) for k in
                             ("seconds", "pods_per_second", "p50_per_second", "min_per_second",
                              "cpu_per_1000", "peak_rss_mb", "create_seconds",
                              "apiserver_etcd_cpu_seconds")}
            summary[w][s]["runs"] = len(rs)
            summary[w][s]["complete"] = sum(1 for r in rs if r["complete"])
            summary[w][s]["pods"] = rs[0]["pods"]
    return summary


MODE_TEXT = {
    "paced": "paced mode: pods are created while the scheduler runs; measured from the first "
             "create until all are bound (creates are part of the measured load)",
    "backlog": "backlog mode: all pods exist before the scheduler starts; measured from the "
               "scheduler's process start (start-up and initial LIST included) until all are "
               "bound; min/p50 skip the first second"}


def write_markdown(path, args, summary, bench, cmdline, started, mode="paced"):
    L = []
    L.append(f"# berth vs kube-scheduler {UPSTREAM} vs null binder (same kube-apiserver): {mode}\n")
    L.append(f"- {MODE_TEXT[mode]}")
    L.append(f"- Command: `{cmdline}`")
    L.append(f"- Date: {started} (UTC); machine: {os.cpu_count()} cores, "
             f"{open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}")
    L.append(f"- {args.nodes} nodes; {args.pods} pods per run (SchedulingPodAntiAffinity: "
             f"{min(args.pods, args.nodes)}); medians over the runs counted in the complete column, scheduler order "
             "alternating between repeats; berth and upstream: qps/burst 5000/5000, default "
             "percentageOfNodesToScore; ceiling: test/bench/nullbinder (client-go), "
             f"{args.binder_workers} workers, "
             + (f"qps/burst {args.binder_qps:g}/{args.binder_burst}." if args.binder_qps > 0
                else "no client rate limit."))
    L.append("- pods/s avg = pods / (last bind - first create); p50 / min = median / minimum of "
             "the per-second bound-count increments (whole seconds only). CPU = scheduler process "
             "utime+stime over the measured window per 1000 pods; RSS = VmHWM. 'create s' is when "
             "the last create returned (the client pool is the same for all schedulers).\n")
    L.append("| workload | scheduler | pods | complete | seconds | pods/s avg | p50 | min | "
             "CPU s/1000 pods | peak RSS MB | create s | apiserver+etcd CPU s |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in ALL_WORKLOADS:
        for s in SCHEDULERS:
            m = summary.get(w, {}).get(s)
            if not m:
                continue
            L.append(f"| {w} | {s} | {m['pods']} | {m['complete']}/{m['runs']} | "
                     f"{m['seconds']:.2f} | {m['pods_per_second']:.0f} | "
                     f"{m['p50_per_second']:.0f} | {m['min_per_second']:.0f} | "
                     f"{m['cpu_per_1000']:.3f} | {m['peak_rss_mb']:.0f} | "
                     f"{m['create_seconds']:.2f} | {m['apiserver_etcd_cpu_seconds']:.1f} |")
    L.append("\n## Ratios (medians)\n")
    L.append("| workload | throughput berth/upstream | throughput berth/ceiling | "
             "upstream/ceiling | CPU per pod berth/upstream | RSS berth/upstream |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for w in ALL_WORKLOADS:
        by = summary.get(w)
        if not by or "berth" not in by:
            continue
        b, u, c = by.get("berth"), by.get("upstream"), by.get("ceiling")

        def f(x):
            return "n/a" if x != x else f"{x:.2f}"
        L.append(f"| {w} | {f(ratio(b['pods_per_second'], u and u['pods_per_second']))} | "
                 f"{f(ratio(b['pods_per_second'], c and c['pods_per_second']))} | "
                 f"{f(ratio(u and u['pods_per_second'], c and c['pods_per_second'])) if u else 'n/a'} | "
                 f"{f(ratio(b['cpu_per_1000'], u and u['cpu_per_1000']))} | "
                 f"{f(ratio(b['peak_rss_mb'], u and u['peak_rss_mb']))} |")
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def write_bench(path, bench):
    L = []
    L.append("\n## In-process berth-bench (same sizes, median of 3)\n")
    L.append("| workload | berth-bench workload | pods | scheduled | pods/s | peak RSS MB |")
    L.append("|---|---|---:|---:|---:|---:|")
    for w, m in bench.items():
        L.append(f"| {w} | {m['bench_workload']} | {m['pods']} | {m['scheduled']:.0f} | "
                 f"{m['pods_per_second']:.0f} | {m['peak_rss_mb']:.0f} |")
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def write_png(path, summary, mode="paced"):
    """Grouped bar chart of median pods/s; matplotlib if present, else a tiny PNG writer."""
    ws = [w for w in ALL_WORKLOADS if w in summary]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(11, 5))
        width = 0.27
        for k, s in enumerate(SCHEDULERS):
            xs = [i + (k - 1) * width for i in range(len(ws))]
            ys = [summary[w].get(s, {}).get("pods_per_second", 0) for w in ws]
            ax.bar(xs, ys, width, label=s)
        ax.set_xticks(range(len(ws)))
        ax.set_xticklabels(ws, rotation=15, fontsize=8)
        ax.set_ylabel("pods/s (median)")
        ax.set_title(f"berth vs kube-scheduler {UPSTREAM} vs null binder (same kube-apiserver), "
                     + mode + " mode")
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        return
    except ImportError:
        pass
    # No matplotlib: a plain PNG (zlib+struct), one group of bars per workload in the order of
    # the table; bars berth (blue), upstream (orange), ceiling (grey). No text: see e2e.md.
    import struct
    import zlib
    vals = [[summary[w].get(s, {}).get("pods_per_second", 0) for s in SCHEDULERS] for w in ws]
    top = max([v for g in vals for v in g] + [1])
    W, H, bw, gap = 60 + len(ws) * 120, 320, 30, 30
    colors = [(31, 119, 180), (255, 127, 14), (127, 127, 127)]
    px = [[(255, 255, 255)] * W for _ in range(H)]
    for x in range(40, W - 10):
        px[H - 20][x] = (0, 0, 0)
    for gi, g in enumerate(vals):
        for k, v in enumerate(g):
            x0 = 50 + gi * 120 + k * bw
            h = int((H - 40) * v / top)
            for y in range(H - 20 - h, H - 20):
                for x in range(x0, x0 + bw - 4):
                    px[y][x] = colors[k]
    raw = b"".join(b"\0" + bytes(c for p_ in row for c in p_) for row in px)

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def report(args, results, bench, cmdline, started):
    """e2e.md: one section per mode (paced, backlog) + berth-bench; e2e.png: paced mode,
    e2e-backlog.png: backlog mode."""
    parts = []
    for mode in ("paced", "backlog"):
        rs = [r for r in results if r.get("mode", "paced") == mode]
        if not rs:
            continue
        summary = summarize(rs)
        tmp = os.path.join(args.out, f".e2e-{mode}.md")
        write_markdown(tmp, args, summary, {}, cmdline, started, mode)
        parts.append(open(tmp).read())
        os.remove(tmp)
        write_png(os.path.join(args.out, "e2e.png" if mode == "paced" else "e2e-backlog.png"),
                  summary, mode)
    tmp = os.path.join(args.out, ".bench.md")
    write_bench(tmp, bench)
    parts.append(open(tmp).read())
    os.remove(tmp)
    with open(os.path.join(args.out, "e2e.md"), "w") as f:
        f.write("\n".join(parts))


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workloads", default=",".join(ALL_WORKLOADS))
    ap.add_argument("--schedulers", default=",".join(SCHEDULERS))
    ap.add_argument("--out", default="bench-results")
    ap.add_argument("--timeout", type=float, default=300, help="per run, seconds")
    ap.add_argument("--create-threads", type=int, default=4)
    ap.add_argument("--binder-workers", type=int, default=BINDER_WORKERS,
                    help="ceiling: null binder workers (concurrent Binding POSTs)")
    ap.add_argument("--binder-qps", type=float, default=-1,
                    help="ceiling: client-go QPS limit; <= 0 disables it (default)")
    ap.add_argument("--binder-burst", type=int, default=0,
                    help="ceiling: client-go burst, with --binder-qps > 0")
    ap.add_argument("--backlog-repeats", type=int, default=1)
    ap.add_argument("--mode", choices=["paced", "backlog", "both"], default="both",
                    help="paced: measure from the first create (pods created while the scheduler "
                    "runs); backlog: pods created first, measured from scheduler start")
    ap.add_argument("--no-bench", action="store_true", help="skip in-process berth-bench")
    ap.add_argument("--report-only", action="store_true", help="rebuild reports from e2e.json")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    os.makedirs(args.out, exist_ok=True)
    cmdline = "test/bench/e2e/run.py " + " ".join(sys.argv[1:])
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    jpath = os.path.join(args.out, "e2e.json")
    if args.report_only:
        data = json.load(open(jpath))
        report(args, data["results"], data["bench"], data["command"], data["date"])
        return 0
    workloads = [w for w in args.workloads.split(",") if w]
    scheds = [s for s in args.schedulers.split(",") if s]
    bench = {} if args.no_bench else berth_bench(args, workloads)
    b = Bench(args)
    results = []
    try:
        if "ceiling" in scheds:
            log(f"ceiling: {b.null_binder()}")  # built now, outside every measured window
        b.create_nodes()
        if "Gang" in workloads:
            b.install_podgroup_crd()
        modes = ["paced", "backlog"] if args.mode == "both" else [args.mode]
        for mode in modes:
            reps = args.backlog_repeats if (mode == "backlog" and args.mode == "both") \
                else args.repeats
            for w in workloads:
                for rep in range(reps):
                    order = [s for s in scheds if not (w == "Gang" and s != "berth")]
                    if rep % 2 == 1:
                        order.reverse()
                    for s in order:
                        if mode == "backlog" and w == "SchedulingWithMixedChurn":
                            continue
                        try:
                            fn = b.run_backlog if mode == "backlog" else b.run
                            results.append(fn(w, s, rep))
                        except Exception as e:  # noqa: BLE001 - keep going, report
                            log(f"{mode}/{w}/{s}/{rep} failed: {e!r}")
                        with open(jpath, "w") as f:
                            json.dump({"command": cmdline, "date": started, "results": results,
                                       "bench": bench}, f, indent=1)
    finally:
        b.close()
    report(args, results, bench, cmdline, started)
    log(f"wrote {args.out}/e2e.md, e2e.png, e2e.json")
    print(open(os.path.join(args.out, "e2e.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
