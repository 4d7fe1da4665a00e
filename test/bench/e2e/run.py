#!/usr/bin/env python3
"""berth vs upstream kube-scheduler vs a null binder, on one real kube-apiserver (issues 8, 18).

Python 3 standard library only (report.py and plot.py next to this file; plot.py uses matplotlib
when it is importable). Usage (from the repository root):

    test/bench/e2e/run.py [--nodes 1000,5000] [--pods 3000,1500] [--pods-for W=N,N ...]
                          [--repeats 3] [--backlog-repeats 3] [--mode both|paced|backlog|steady]
                          [--workloads SchedulingBasic,...] [--no-steady-state] [--out DIR]

Without flags it runs issue 18's matrix: 1000 and 5000 nodes; SchedulingBasic,
TopologySpreading, SchedulingPodAntiAffinity, SchedulingWithMixedChurn (paced only),
SchedulingWithResourceClaimTemplate; berth, upstream and the ceiling; 3 paced and 3 backlog
repeats; steady-state RSS; berth-bench. Pods per run: 3000 at 1000 nodes and 1500 at 5000 nodes,
except SchedulingPodAntiAffinity 1000 and the DRA workload 500 at both sizes (upstream binds DRA
pods at ~40/s here). That takes about 22 minutes on the 2-core benchmark machine (RESULTS.md,
"Two sizes in one invocation").

One test cluster (test/cluster/up: etcd + kube-apiserver at test/cluster/VERSION) is started. The
nodes are API objects (scheduler_perf's makeBaseNode: 4 cpu / 32Gi / 110 pods, Ready), created
size by size: the first --nodes value, every run at that size, then the nodes up to the next value,
and so on. At every size, for every workload and repeat, each scheduler runs in turn (the order
alternates between repeats):

  berth     `berth run` (BERTH_BINARY, else build/cmd/berth/berth; leaderElect false, qps/burst
            5000/5000)
  upstream  kube-scheduler (test/cluster/VERSION) from test/cluster (same qps/burst)
  ceiling   test/bench/nullbinder (Go, client-go; built by its build.sh): an informer on the
            unbound pods of its schedulerName and --binder-workers goroutines POSTing Bindings
            round-robin over the nodes, no filtering, HTTP/2 + protobuf, no client rate limit
            (--binder-qps): the API server's ceiling

Modes (--mode both runs paced, then backlog; each workload's pods in a fresh namespace):
  paced    the scheduler runs and has bound one warm-up pod (informers synced); the pods are then
           created with --create-threads clients and the clock runs from the first create until
           every pod has spec.nodeName (seen through a watch). CPU seconds are /proc/<pid>/stat
           utime+stime deltas over that window, peak RSS is VmHWM.
  backlog  every pod is created first (--backlog-create-threads clients), then the scheduler is
           started and the clock runs from its process start until every pod is bound (start-up and
           the initial LIST count; CPU from process start). SchedulingWithMixedChurn only with
           --backlog-churn (its churn pods are then created already bound, and deleted during the
           window, one per three pods bound).
After the runs of a size (unless --no-steady-state), berth's and upstream's idle VmRSS is measured
with no pods, and at the last size also with --steady-pods pods already bound (spec.nodeName set
at create): see steady_state.

SchedulingWithResourceClaimTemplate (DRA, as test/bench/workloads.cc and scheduler_perf): one
DeviceClass, one ResourceSlice of 10 devices per node (created for that workload only, deleted
after it), one ResourceClaimTemplate per namespace. The cluster runs no kube-controller-manager,
so run.py plays its resourceclaim controller as test/integration/test_dra.py does: for every pod
it creates the claim (owned by the pod) and records it in the pod's status.resourceClaimStatuses
(pods/status). In backlog mode that is done before the clock starts; in paced mode it is part of
each pod's creation (pod, claim, status: three requests per pod inside the measured window). The
null binder binds those pods without allocating their claims.

Between runs the run's namespace is removed directly in etcd (its pods, events, claims, PodGroups
and the namespace: one range delete each, through etcd's JSON gateway), which takes well under a
second where deleting 5000 pods through the API takes ~10 s; the next run starts once the API
server's cache shows the namespace empty. --cleanup api deletes through the API server instead.

Outputs <out>/e2e.md (per size and mode: median, min-max, ratios; steady-state RSS; berth-bench),
<out>/e2e-<nodes>-<mode>.png, <out>/e2e.json (every run, the machine, the settings: --report-only
rebuilds the reports from it), <out>/logs/ (scheduler logs; berth's /metrics after each run, see
metrics_summary.py). Results and their analysis: test/bench/e2e/RESULTS.md.
"""
import argparse
import base64
import http.client
import json
import os
import platform
import queue
import re
import signal
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "test/integration"))
sys.path.insert(0, HERE)

import report  # noqa: E402 - after the path set-up

with open(os.path.join(ROOT, "test", "cluster", "VERSION")) as _f:
    UPSTREAM = _f.read().strip()  # the kube-scheduler version berth targets, e.g. v1.37.2
TOKEN = "berth-test-admin-token"
CLK_TCK = os.sysconf("SC_CLK_TCK")
DRA = "SchedulingWithResourceClaimTemplate"
CHURN = "SchedulingWithMixedChurn"
ANTI = "SchedulingPodAntiAffinity"
ALL_WORKLOADS = report.ALL_WORKLOADS
# Issue 18's set. The DRA workload is last: in backlog mode the workloads run in reverse order, so
# its ResourceSlices are created once and deleted once per size.
DEFAULT_WORKLOADS = ["SchedulingBasic", "TopologySpreading", ANTI, CHURN, DRA]
SCHEDULERS = ["berth", "upstream", "ceiling"]
SCHED_NAME = {"berth": "berth-scheduler", "upstream": "upstream-scheduler",
              "ceiling": "null-binder"}
BENCH_NAME = {"SchedulingBasic": "SchedulingBasic", "SchedulingNodeAffinity":
              "SchedulingNodeAffinity", ANTI: ANTI, "TopologySpreading": "TopologySpreading",
              DRA: DRA, "Gang": "Gang3"}
GANG_SIZE = 3
# The null binder's workers: past the knee of the saturation sweep in RESULTS.md ("A real
# ceiling"), where more workers no longer raise its rate.
BINDER_WORKERS = 64
# Default sizes and pods per run (chosen so that the default invocation takes ~25 minutes on the
# 2-core benchmark machine; see RESULTS.md "Two sizes in one invocation").
# Without --pods: pods per run by node count (any other count: the last entry's). Without --pods
# and --pods-for W: DEFAULT_PODS_FOR, by node count likewise.
DEFAULT_NODES = "1000,5000"
DEFAULT_PODS = {1000: 3000, 5000: 1500}
DEFAULT_PODS_FOR = {ANTI: {1000: 1000, 5000: 1000}, DRA: {1000: 500, 5000: 500}}

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

RES = "/apis/resource.k8s.io/v1"
DRA_DRIVER = "test-driver.cdi.k8s.io"
DRA_CLAIM_SPEC = {"devices": {"requests": [
    {"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}}


# ---------------------------------------------------------------- HTTP (persistent connections)
class Conn:
    """One persistent HTTPS connection to the API server (http.client), reconnecting on error.
    request() retries 429/5xx and connection errors (5 attempts) and returns (status, body);
    status 0 means every attempt failed to connect."""

    def __init__(self, port, ctx):
        self.port, self.ctx, self.c = port, ctx, None

    def request(self, method, path, body=None, ctype="application/json"):
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
    """Runs fn(conn, item) for every item on `threads` threads, each with its own connection;
    returns the errors raised (repr), at most the first 20."""
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
            except Exception as e:  # noqa: BLE001 - collected and reported by the caller
                if len(errors) < 20:
                    errors.append(repr(e))

    ts = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return errors


def must(st, raw, what, ok=(200, 201)):
    if st not in ok:
        raise RuntimeError(f"{what}: HTTP {st} {raw[:300]!r}")
    return raw


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
        elif workload == ANTI:
            meta["labels"].update({"color": "green", "name": "test"})
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"color": "green"}},
                "topologyKey": "kubernetes.io/hostname"}]}}
        elif workload == DRA:
            del spec["containers"][0]["ports"]
            spec["resourceClaims"] = [{"name": "resource",
                                       "resourceClaimTemplateName": "test-claim-template"}]
        elif workload == "Gang":
            meta["labels"]["scheduling.x-k8s.io/pod-group"] = f"group-{i // GANG_SIZE}"
        pods.append(p)
    return pods


def node_zone(workload, i):
    """The zone label node i needs for the workload; None when the workload does not care (its
    pods have no zone term, and pods without owners get no default spreading), so the labels
    stay as they are and nodes are relabelled only for the workloads that need it."""
    if workload == "SchedulingNodeAffinity":
        return "zone1"
    if workload == "TopologySpreading":
        return f"moon-{i % 3 + 1}"
    return None


def device_class():
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "test-class"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRA_DRIVER}"'}}]}}


def resource_slice(i):
    """Node i's slice: 10 devices with test/bench/workloads.cc's attributes and capacities
    (scheduler_perf's resourceslice-basic-devices.yaml)."""
    name = f"resourceslice-{i}"
    devices = []
    for d in range(10):
        root = str(d % 2)
        devices.append({
            "name": f"basic-device-{d}",
            "attributes": {
                "driver": {"string": "xe"}, "driverVersion": {"version": "1.2.3"},
                "resource.k8s.io/pciRoot": {"string": root},
                "family": {"string": "Arc Pro B-Series"}, "health": {"string": "Healthy"},
                "model": {"string": "B60"}, "pciAddress": {"string": f"0000:0{d}:00.0"},
                "pciId": {"string": "0xe211"}, "pciRoot": {"string": "0" + root},
                "resource.kubernetes.io/pciBusID": {"string": f"0000:0{d}:00.0"},
                "resource.kubernetes.io/pciRoot": {"string": "pci0000:0" + root},
                "sriov": {"bool": True}, "type": {"string": "gpu"}},
            "capacity": {"memory": {"value": "24480Mi"}, "millicores": {"value": "1k"}}})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": {"driver": DRA_DRIVER, "nodeName": f"node-{i}",
                     "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": devices}}


def claim_template():
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "test-claim-template"}, "spec": {"spec": DRA_CLAIM_SPEC}}


def pod_claim(pod_name, uid):
    """The claim kube-controller-manager's resourceclaim controller would make from the template
    for the pod's claim "resource": owned by (controlled by) the pod, which the scheduler checks."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"{pod_name}-resource",
                         "annotations": {"resource.kubernetes.io/pod-claim-name": "resource"},
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                                              "uid": uid, "controller": True,
                                              "blockOwnerDeletion": True}]},
            "spec": DRA_CLAIM_SPEC}


def create_pod(conn, ns, pod, dra):
    """Creates the pod; for the DRA workload also its claim and the pod's resourceClaimStatuses
    (the resourceclaim controller's part). Raises on any failed request."""
    st, raw = conn.request("POST", f"/api/v1/namespaces/{ns}/pods", pod)
    name = pod["metadata"]["name"]
    must(st, raw, f"create pod {ns}/{name}")
    if not dra:
        return
    uid = json.loads(raw)["metadata"]["uid"]
    st, raw = conn.request("POST", f"{RES}/namespaces/{ns}/resourceclaims", pod_claim(name, uid))
    must(st, raw, f"create claim {ns}/{name}-resource")
    st, raw = conn.request("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}/status",
                           {"status": {"resourceClaimStatuses": [
                               {"name": "resource", "resourceClaimName": f"{name}-resource"}]}},
                           "application/merge-patch+json")
    must(st, raw, f"pod {ns}/{name} resourceClaimStatuses")


# ---------------------------------------------------------------- /proc and the machine
def proc_cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / CLK_TCK
    except OSError:
        return float("nan")


def proc_status_mb(pid, field):
    """VmHWM / VmRSS of the process in MB (NaN once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def proc_hwm_mb(pid):
    return proc_status_mb(pid, "VmHWM")


def git_commit(path):
    out = subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def machine_facts(berth_path, upstream_bin):
    """What the report's header says about the machine and the binaries (kept in e2e.json)."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    mem_gb = float("nan")
    try:
        with open("/proc/meminfo") as f:
            mem_gb = int(re.search(r"MemTotal:\s*(\d+)", f.read()).group(1)) / 1024 / 1024
    except (OSError, AttributeError):
        pass
    up = subprocess.run([os.path.join(upstream_bin, "kube-scheduler"), "--version"],
                        capture_output=True, text=True)
    try:
        mtime = time.strftime("%Y-%m-%d %H:%M", time.gmtime(os.path.getmtime(berth_path)))
    except OSError:
        mtime = "?"
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory_gb": round(mem_gb, 1),
            "kernel": platform.release(), "python": platform.python_version(),
            "berth_binary": berth_path, "berth_binary_mtime": mtime,
            # The commit of the tree the binary sits in (BERTH_BINARY may be another checkout's).
            "berth_commit": git_commit(os.path.dirname(os.path.abspath(berth_path))),
            "harness_commit": git_commit(ROOT) + (" (test/bench/e2e modified)" if subprocess.run(
                ["git", "-C", ROOT, "status", "--porcelain", "--", "test/bench/e2e/*.py"],
                capture_output=True, text=True).stdout.strip() else ""),
            "upstream": (up.stdout or up.stderr).strip() or UPSTREAM}


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
        self.etcd_port = int(env["ETCD_PORT"])
        self.apiserver_pid = int(open(os.path.join(self.dir, "apiserver.pid")).read())
        self.etcd_pid = int(open(os.path.join(self.dir, "etcd.pid")).read())
        self.procs = []
        self.run_id = 0
        self.nodes = 0       # nodes created: node-0 .. node-{nodes-1}
        self.zones = []      # each node's topology.kubernetes.io/zone label (None: no label)
        self.slices = 0      # ResourceSlices exist for node-0 .. node-{slices-1}
        self.dra_ready = False
        self.null_binder_path = None
        self.phases = []     # (what, seconds) of the set-up steps, for the report's timing line

    def phase(self, what, t0):
        self.phases.append((what, round(time.time() - t0, 2)))
        log(f"{what}: {time.time() - t0:.1f}s")

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
        must(st, raw, f"{method} {path}", (200, 201, 202))
        return json.loads(raw) if raw else None

    def pods_for(self, workload):
        return self.args.pods_for(workload, self.nodes)

    # -- etcd (cleanup)
    def etcd_delete(self, key, prefix=True):
        """Deletes key (with prefix: every key under it) in etcd through its JSON gateway
        (/v3/kv/deleterange); returns how many keys went. The API server's watch cache follows."""
        def b64(s):
            return base64.b64encode(s.encode()).decode()
        body = {"key": b64(key)}
        if prefix:
            body["range_end"] = b64(key[:-1] + chr(ord(key[-1]) + 1))
        r = urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{self.etcd_port}/v3/kv/deleterange",
            data=json.dumps(body).encode(), method="POST"), timeout=60)
        return int(json.loads(r.read()).get("deleted", 0))

    def count(self, path):
        st, raw = self.conn.request("GET", path)
        return len(json.loads(raw)["items"]) if st == 200 else -1

    # -- setup
    def create_nodes(self, n):
        """Creates node-{self.nodes} .. node-{n-1} (no zone label)."""
        if n <= self.nodes:
            return

        def mk(conn, i):
            name = f"node-{i}"
            obj = {"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                   "status": {"capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                              "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                              "phase": "Running",
                              "conditions": [{"type": "Ready", "status": "True"}]}}
            st, raw = conn.request("POST", "/api/v1/nodes", obj)
            must(st, raw, f"node {i}", (201, 409))

        t = time.time()
        errs = parallel(self.port, self.ctx, range(self.nodes, n), mk, 8)
        if errs:
            raise RuntimeError(errs[:3])
        self.phase(f"created nodes {self.nodes}..{n - 1}", t)
        self.zones.extend([None] * (n - self.nodes))
        self.nodes = n

    def label_nodes(self, workload):
        """Sets topology.kubernetes.io/zone where the workload needs it (zone1 / moon-1..3),
        patching only the nodes whose label differs."""
        want = [node_zone(workload, i) for i in range(self.nodes)]
        if all(w is None for w in want):
            return
        todo = [i for i in range(self.nodes) if want[i] != self.zones[i]]
        if not todo:
            return

        def patch(conn, i):
            body = {"metadata": {"labels": {"topology.kubernetes.io/zone": want[i]}}}
            st, raw = conn.request("PATCH", f"/api/v1/nodes/node-{i}", body,
                                   "application/merge-patch+json")
            must(st, raw, f"patch node-{i}")

        t = time.time()
        errs = parallel(self.port, self.ctx, todo, patch, 8)
        if errs:
            raise RuntimeError(errs[:3])
        for i in todo:
            self.zones[i] = want[i]
        self.phase(f"labelled {len(todo)} nodes for {workload}", t)

    def set_slices(self, want):
        """With want, one ResourceSlice per node (creating the missing ones) and the DeviceClass;
        without, no ResourceSlice at all (they are only there for the DRA workload, so the other
        workloads' schedulers do not hold 10 devices per node in their caches)."""
        if not want:
            if self.slices:
                t = time.time()
                self.etcd_delete("/registry/resourceslices/")
                self.wait_empty(f"{RES}/resourceslices", "ResourceSlices")
                self.slices = 0
                self.phase("deleted the ResourceSlices", t)
            return
        if not self.dra_ready:
            st, raw = self.conn.request("POST", f"{RES}/deviceclasses", device_class())
            must(st, raw, "DeviceClass test-class (is resource.k8s.io/v1 served?)", (201, 409))
            self.dra_ready = True
        if self.slices >= self.nodes:
            return

        def mk(conn, i):
            st, raw = conn.request("POST", f"{RES}/resourceslices", resource_slice(i))
            must(st, raw, f"ResourceSlice {i}", (201, 409))

        t = time.time()
        errs = parallel(self.port, self.ctx, range(self.slices, self.nodes), mk, 8)
        if errs:
            raise RuntimeError(errs[:3])
        self.phase(f"created ResourceSlices {self.slices}..{self.nodes - 1}", t)
        self.slices = self.nodes

    def prepare(self, workload):
        self.label_nodes(workload)
        self.set_slices(workload == DRA)

    def install_podgroup_crd(self):
        from test_gang import PODGROUP_CRD
        self.req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", PODGROUP_CRD)
        for _ in range(300):
            st, _ = self.conn.request("GET", "/apis/scheduling.x-k8s.io/v1alpha1/podgroups")
            if st == 200:
                return
            time.sleep(0.1)
        raise RuntimeError("PodGroup CRD not served")

    def new_namespace(self, ns, workload, n):
        """The run's namespace with what its pods refer to: PodGroups (Gang), the claim template
        (DRA)."""
        self.req("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        if workload == "Gang":
            def mkpg(conn, g):
                st, raw = conn.request(
                    "POST", f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups",
                    {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                     "metadata": {"name": f"group-{g}"}, "spec": {"minMember": GANG_SIZE}})
                must(st, raw, "podgroup")
            errs = parallel(self.port, self.ctx, range((n + GANG_SIZE - 1) // GANG_SIZE), mkpg, 4)
            if errs:
                raise RuntimeError(errs[:3])
        if workload == DRA:
            self.req("POST", f"{RES}/namespaces/{ns}/resourceclaimtemplates", claim_template())

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
            cmd = [self.kube.berth_binary(), "run", "--config", cfg, "--bind-address",
                   "127.0.0.1", "--secure-port", "0"]
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

    def save_metrics(self, sched, p, tag):
        mport = self.metrics_port(p) if sched == "berth" else None
        if mport:
            st, metrics = self.kube.scrape(mport, "/metrics")
            with open(os.path.join(self.args.out, "logs", f"{tag}.metrics"), "w") as f:
                f.write(metrics)

    def wait_warmup(self, sched, p, bound, what="warm-up pod"):
        t = time.time()
        while "warmup" not in bound:
            if p.poll() is not None:
                raise RuntimeError(f"{sched} exited: see {p.log_path}")
            if time.time() - t > 120:
                ready = "" if sched != "ceiling" or self.ceiling_ready(p) is not None else \
                    " (its informers never synced)"
                raise RuntimeError(f"{sched} did not bind the {what}{ready}: see {p.log_path}")
            time.sleep(0.02)

    def claims_allocated(self, ns):
        st, raw = self.conn.request("GET", f"{RES}/namespaces/{ns}/resourceclaims")
        if st != 200:
            return -1
        return sum(1 for c in json.loads(raw)["items"] if c.get("status", {}).get("allocation"))

    def result(self, mode, workload, sched, rep, n, nbound, finished, dur, cpu, rss, api_cpu,
               samples, skip_first, t_run):
        full = samples[: int(dur)]  # whole seconds only
        rates = [b - a for a, b in zip([0] + full, full)]
        steady = (rates[1:] or rates) if skip_first else rates
        return {"workload": workload, "scheduler": sched, "repeat": rep, "nodes": self.nodes,
                "pods": n, "bound": nbound, "complete": finished, "seconds": dur,
                "pods_per_second": nbound / dur if dur > 0 else 0.0,
                "p50_per_second": statistics.median(steady) if steady else nbound / dur,
                "min_per_second": min(steady) if steady else nbound / dur,
                "cpu_seconds": cpu, "cpu_per_1000": cpu / max(1, nbound) * 1000,
                "apiserver_etcd_cpu_seconds": api_cpu, "peak_rss_mb": rss, "mode": mode,
                "setup_seconds": t_run}

    def finish(self, res, ns, workload, sched, p, tag, t_start):
        """After the measured window: claims check (DRA), metrics, stop, cleanup, wall time."""
        if workload == DRA:
            res["claims_allocated"] = self.claims_allocated(ns)
        self.save_metrics(sched, p, tag)
        self.stop(p)
        t = time.time()
        self.cleanup(ns)
        res["cleanup_seconds"] = time.time() - t
        res["wall_seconds"] = time.time() - t_start
        self.ceiling_fields(sched, p, res)
        extra = f" claims allocated {res['claims_allocated']}" if "claims_allocated" in res else ""
        ready = f" (synced after {res['ready_seconds']:.2f}s)" if res.get("ready_seconds") else ""
        create = (f"; creates took {res['create_seconds']:.2f}s" if res["mode"] == "paced" else
                  f"; set-up {res['setup_seconds']:.1f}s")
        log(f"{tag}: {res['bound']}/{res['pods']} bound in {res['seconds']:.2f}s = "
            f"{res['pods_per_second']:.0f} pods/s (p50 {res['p50_per_second']:.0f}, min "
            f"{res['min_per_second']:.0f}{create}) cpu {res['cpu_seconds']:.2f}s rss "
            f"{res['peak_rss_mb']:.0f}MB apiserver+etcd cpu "
            f"{res['apiserver_etcd_cpu_seconds']:.1f}s{extra}{ready}; cleanup "
            f"{res['cleanup_seconds']:.1f}s, wall {res['wall_seconds']:.1f}s")
        return res

    # -- one run
    def run(self, workload, sched, rep):
        """Paced mode (see the module docstring)."""
        t_start = time.time()
        self.run_id += 1
        ns = f"{workload.lower()}-{sched}-{rep}-{self.run_id}"[:60]
        tag = f"{self.nodes}-{workload}-{sched}-{rep}"
        n = self.pods_for(workload)
        self.new_namespace(ns, workload, n)
        sname = SCHED_NAME[sched]
        pods = workload_pods(workload, n, ns, sname)
        churn = []
        if workload == CHURN:
            # Churn pods: n/3 pods bound before the measured phase (by the same scheduler); they
            # are deleted while the measured pods are being created.
            churn = [base_pod(f"churn-{i}", ns, sname) for i in range(n // 3)]

        p = self.start(sched, workload, tag)
        # Warm-up: one pod in the run's namespace, bound = scheduler synced and working.
        warm = base_pod("warmup", ns, sname)
        bound = {}
        bound_lock = threading.Lock()
        done = threading.Event()
        expected = set(x["metadata"]["name"] for x in pods)
        expected_all = frozenset(expected)
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
        self.wait_warmup(sched, p, bound)
        if churn:
            errs = parallel(self.port, self.ctx, churn, lambda c, o: create_pod(c, ns, o, False),
                            4)
            if errs:
                raise RuntimeError(f"churn pods: {errs[:3]}")
            t = time.time()
            while sum(1 for k in list(bound) if k.startswith("churn-")) < len(churn):
                if time.time() - t > 120:
                    raise RuntimeError("churn pods not bound")
                time.sleep(0.05)
        t_run = time.time() - t_start

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

        threading.Thread(target=sampler, daemon=True).start()
        t_created = [None]
        created = [0]
        dra = workload == DRA
        create_errors = []

        def create(c, o):
            create_pod(c, ns, o, dra)
            created[0] += 1

        def creator():
            create_errors.extend(parallel(self.port, self.ctx, pods, create,
                                          self.args.create_threads))
            t_created[0] = time.time()
            if create_errors:
                log(f"create errors: {create_errors[:3]}")

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
        watch.stop()
        nbound = len(expected_all) - len(expected)
        res = self.result("paced", workload, sched, rep, n, nbound, finished, t_end - t0,
                          cpu1 - cpu0, rss, api1 - api0, samples, False, t_run)
        res["create_seconds"] = (t_created[0] or time.time()) - t0
        if create_errors:
            res["create_errors"] = create_errors[:3]
        return self.finish(res, ns, workload, sched, p, tag, t_start)

    def run_backlog(self, workload, sched, rep):
        """Backlog mode: all pods exist before the scheduler starts; measured from the
        scheduler's process start (so start-up and informer sync count) until all are bound.
        Takes pod creation out of the measured window (on 2 cores, creates are the bottleneck
        of the paced mode)."""
        t_start = time.time()
        self.run_id += 1
        ns = f"bl-{workload.lower()}-{sched}-{rep}-{self.run_id}"[:60]
        tag = f"{self.nodes}-backlog-{workload}-{sched}-{rep}"
        n = self.pods_for(workload)
        self.new_namespace(ns, workload, n)
        pods = workload_pods(workload, n, ns, SCHED_NAME[sched])
        dra = workload == DRA
        churn = []
        if workload == CHURN:
            # --backlog-churn: n/3 churn pods already running (spec.nodeName set at create,
            # round-robin), deleted during the window, one per three measured pods bound.
            churn = [base_pod(f"churn-{i}", ns, "nobody") for i in range(n // 3)]
            for i, o in enumerate(churn):
                o["spec"]["nodeName"] = f"node-{i % self.nodes}"
        errs = parallel(self.port, self.ctx, churn + pods,
                        lambda c, o: create_pod(c, ns, o, dra),
                        self.args.backlog_create_threads)
        if errs:
            raise RuntimeError(f"creating the backlog: {errs[:3]}")
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
        t_run = time.time() - t_start
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

        def deleter():
            conn = Conn(self.port, self.ctx)
            for i, o in enumerate(churn):
                while total - len(expected) < 3 * (i + 1) and not stop_sampling.is_set():
                    time.sleep(0.002)
                if stop_sampling.is_set():
                    return
                conn.request("DELETE", f"/api/v1/namespaces/{ns}/pods/{o['metadata']['name']}",
                             {"gracePeriodSeconds": 0})

        if churn:
            threading.Thread(target=deleter, daemon=True).start()
        api0 = proc_cpu(self.apiserver_pid) + proc_cpu(self.etcd_pid)
        finished = done.wait(self.args.timeout)
        stop_sampling.set()
        t_end = t_done[0] if finished else time.time()
        cpu = proc_cpu(p.pid)
        rss = proc_hwm_mb(p.pid)
        api1 = proc_cpu(self.apiserver_pid) + proc_cpu(self.etcd_pid)
        watch.stop()
        nbound = total - len(expected)
        # The first second includes process start-up and the initial LIST: skip it for min/p50.
        res = self.result("backlog", workload, sched, rep, n, nbound, finished, t_end - t0, cpu,
                          rss, api1 - api0, samples, True, t_run)
        res["create_seconds"] = 0.0
        return self.finish(res, ns, workload, sched, p, tag, t_start)

    def cleanup(self, ns):
        """Removes the namespace and everything in it (pods, events, claims, claim templates,
        PodGroups) so that the next scheduler starts on the same cluster state; returns once the
        API server lists no pod and no claim there. --cleanup etcd (default): one range delete
        per resource in etcd, < 1 s; --cleanup api: DELETE every pod (gracePeriodSeconds 0) and
        claim (after removing the finalizer the scheduler put on an allocated claim)."""
        if self.args.cleanup == "etcd":
            for res in ("pods", "events", "resourceclaims", "resourceclaimtemplates",
                        "scheduling.x-k8s.io/podgroups"):
                self.etcd_delete(f"/registry/{res}/{ns}/")
            self.etcd_delete(f"/registry/namespaces/{ns}", prefix=False)
        else:
            self.api_delete(f"/api/v1/namespaces/{ns}/pods", ns)
            self.api_delete(f"{RES}/namespaces/{ns}/resourceclaims", ns, finalizers=True)
            self.conn.request("DELETE",
                              f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups")
        self.wait_empty(f"/api/v1/namespaces/{ns}/pods", f"pods of {ns}")
        self.wait_empty(f"{RES}/namespaces/{ns}/resourceclaims", f"claims of {ns}")

    def api_delete(self, collection, ns, finalizers=False):
        for _ in range(20):
            st, raw = self.conn.request("GET", collection)
            names = [x["metadata"]["name"] for x in json.loads(raw)["items"]] if st == 200 else []
            if not names:
                return

            def rm(c, nm):
                if finalizers:
                    c.request("PATCH", f"{collection}/{nm}", {"metadata": {"finalizers": None}},
                              "application/merge-patch+json")
                c.request("DELETE", f"{collection}/{nm}", {"gracePeriodSeconds": 0})
            parallel(self.port, self.ctx, names, rm, 8)

    def wait_empty(self, collection, what, timeout=60):
        t = time.time()
        while True:
            k = self.count(collection + ("&" if "?" in collection else "?") + "limit=1")
            if k == 0:
                return
            if time.time() - t > timeout:
                raise RuntimeError(f"{what} still listed {timeout}s after the cleanup")
            time.sleep(0.05)

    # -- steady state
    def create_bound_pods(self, k):
        """k pods in namespace steady-pods, already bound (spec.nodeName round-robin over the
        nodes; no scheduler touches them), as the running pods of a cluster."""
        self.req("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                "metadata": {"name": "steady-pods"}})
        pods = []
        for i in range(k):
            p = base_pod(f"bound-{i}", "steady-pods", "nobody")
            p["spec"]["nodeName"] = f"node-{i % self.nodes}"
            pods.append(p)
        t = time.time()
        errs = parallel(self.port, self.ctx, pods,
                        lambda c, o: create_pod(c, "steady-pods", o, False),
                        self.args.backlog_create_threads)
        if errs:
            raise RuntimeError(f"bound pods: {errs[:3]}")
        self.phase(f"created {k} bound pods", t)

    def steady_state(self, sched, bound_pods):
        """Idle memory: starts the scheduler on the cluster as it is, waits until it has bound a
        warm-up pod (synced), then samples VmRSS every second until --steady-wait seconds have
        passed and the last 5 samples lie within 2% (or 1 MB); gives up waiting for stability
        30 s later (stable false)."""
        t_start = time.time()
        self.run_id += 1
        ns = f"steady-{sched}-{self.run_id}"
        tag = f"{self.nodes}-steady-{bound_pods}-{sched}"
        self.req("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        bound = {}

        def on_event(typ, pod):
            if typ in ("ADDED", "MODIFIED") and pod["spec"].get("nodeName"):
                bound[pod["metadata"]["name"]] = True

        watch = PodWatch(self.port, self.ctx, f"/api/v1/namespaces/{ns}/pods", on_event)
        watch.ready.wait(30)
        p = self.start(sched, "steady", tag)
        self.req("POST", f"/api/v1/namespaces/{ns}/pods", base_pod("warmup", ns, SCHED_NAME[sched]))
        self.wait_warmup(sched, p, bound)
        t_sync = time.time()
        samples = []
        stable = False
        while True:
            time.sleep(1)
            samples.append(proc_status_mb(p.pid, "VmRSS"))
            last = samples[-5:]
            el = time.time() - t_sync
            if el >= self.args.steady_wait and len(last) == 5 and \
                    max(last) - min(last) <= max(1.0, 0.02 * last[-1]):
                stable = True
                break
            if el >= self.args.steady_wait + 30:
                break
        res = {"mode": "steady", "scheduler": sched, "nodes": self.nodes,
               "bound_pods": bound_pods, "rss_mb": samples[-1],
               "peak_rss_mb": proc_hwm_mb(p.pid), "cpu_seconds": proc_cpu(p.pid),
               "sync_seconds": t_sync - t_start, "settle_seconds": time.time() - t_sync,
               "stable": stable, "rss_samples": [round(x, 1) for x in samples]}
        watch.stop()
        self.stop(p)
        self.cleanup(ns)
        res["wall_seconds"] = time.time() - t_start
        log(f"{tag}: VmRSS {res['rss_mb']:.1f}MB (VmHWM {res['peak_rss_mb']:.1f}MB) "
            f"{res['settle_seconds']:.0f}s after sync ({res['sync_seconds']:.1f}s), "
            f"{'stable' if stable else 'NOT stable'}; wall {res['wall_seconds']:.1f}s")
        return res


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


# ---------------------------------------------------------------- berth-bench
def berth_bench_binary():
    """berth-bench next to the berth binary's build (BERTH_BINARY=<build>/cmd/berth/berth ->
    <build>/test/bench/berth-bench), else build/test/bench/berth-bench."""
    b = os.environ.get("BERTH_BINARY")
    if b:
        cand = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(b))),
                            "test/bench/berth-bench")
        if os.path.exists(cand):
            return cand
    return os.path.join(ROOT, "build/test/bench/berth-bench")


def berth_bench(args, sizes, workloads):
    exe = berth_bench_binary()
    if not os.path.exists(exe):
        log(f"berth-bench not found at {exe}: no in-process figures (build it, or --no-bench)")
        return {}
    out = {}
    for nodes in sizes:
        for w in workloads:
            if w not in BENCH_NAME:
                continue
            n = args.pods_for(w, nodes)
            runs = []
            for _ in range(3):
                r = subprocess.run([exe, "--workload", BENCH_NAME[w], "--nodes", str(nodes),
                                    "--pods", str(n)], capture_output=True, text=True)
                lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
                if r.returncode == 0 and lines:
                    runs.append(json.loads(lines[-1]))
                else:
                    log(f"berth-bench {w} {nodes}/{n} failed: {r.stderr.strip()[-300:]}")
            if runs:
                out[f"{nodes}/{w}"] = {
                    "workload": w, "nodes": nodes, "bench_workload": BENCH_NAME[w], "pods": n,
                    "scheduled": statistics.median(x["scheduled"] for x in runs),
                    "pods_per_second": statistics.median(x["pods_per_second"] for x in runs),
                    "peak_rss_mb": statistics.median(x["peak_rss_mb"] for x in runs)}
    return out


# ---------------------------------------------------------------- main
def int_list(s):
    return [int(x) for x in str(s).split(",") if x.strip()]


class PodCounts:
    """Pods per run for (workload, node count): --pods (one value per --nodes value, or one for
    all; without it DEFAULT_PODS, and DEFAULT_PODS_FOR for the workloads it names),
    --pods-for WORKLOAD=N[,N...] for one workload; never more SchedulingPodAntiAffinity pods
    than nodes (one fits per node)."""

    def __init__(self, sizes, pods, pods_for):
        self.sizes = sizes
        self.table = {}
        if pods:
            base = self.spread(int_list(pods), "--pods")
            over = {}
        else:
            base = [by_size(DEFAULT_PODS, n) for n in sizes]
            over = {w: [by_size(d, n) for n in sizes] for w, d in DEFAULT_PODS_FOR.items()}
        for item in pods_for or []:
            w, _, v = item.partition("=")
            if w not in ALL_WORKLOADS or not v:
                raise SystemExit(f"--pods-for {item}: want WORKLOAD=N[,N...], WORKLOAD one of "
                                 f"{', '.join(ALL_WORKLOADS)}")
            over[w] = self.spread(int_list(v), f"--pods-for {w}")
        for w in ALL_WORKLOADS:
            for nodes, n in zip(sizes, over.get(w, base)):
                self.table[(w, nodes)] = min(n, nodes) if w == ANTI else n

    def spread(self, values, flag):
        if len(values) == 1:
            return values * len(self.sizes)
        if len(values) != len(self.sizes):
            raise SystemExit(f"{flag}: give one value, or one per --nodes value "
                             f"({len(self.sizes)})")
        return values

    def __call__(self, workload, nodes):
        return self.table[(workload, nodes)]


def by_size(d, nodes):
    return d.get(nodes, d[max(d)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", default=DEFAULT_NODES,
                    help="node counts, comma-separated, increasing (nodes are only added)")
    ap.add_argument("--pods", help="pods per run: one value, or one per --nodes value "
                    f"(default by node count: {DEFAULT_PODS}, and --pods-for's defaults)")
    ap.add_argument("--pods-for", action="append", metavar="WORKLOAD=N[,N...]",
                    help="pods per run for one workload (defaults without --pods: " +
                    "; ".join(f"{k} {v}" for k, v in DEFAULT_PODS_FOR.items()) + ")")
    ap.add_argument("--repeats", type=int, default=3, help="paced runs per workload/scheduler")
    ap.add_argument("--backlog-repeats", type=int, default=3,
                    help="backlog runs per workload/scheduler")
    ap.add_argument("--workloads", default=",".join(DEFAULT_WORKLOADS),
                    help="comma-separated, of " + ", ".join(ALL_WORKLOADS))
    ap.add_argument("--schedulers", default=",".join(SCHEDULERS))
    ap.add_argument("--out", default="bench-results")
    ap.add_argument("--timeout", type=float, default=300, help="per run, seconds")
    ap.add_argument("--create-threads", type=int, default=4,
                    help="paced mode: pod creation clients (inside the measured window)")
    ap.add_argument("--backlog-create-threads", type=int, default=8,
                    help="backlog mode and bound pods: creation clients (outside the window)")
    ap.add_argument("--binder-workers", type=int, default=BINDER_WORKERS,
                    help="ceiling: null binder workers (concurrent Binding POSTs)")
    ap.add_argument("--binder-qps", type=float, default=-1,
                    help="ceiling: client-go QPS limit; <= 0 disables it (default)")
    ap.add_argument("--binder-burst", type=int, default=0,
                    help="ceiling: client-go burst, with --binder-qps > 0")
    ap.add_argument("--mode", choices=["paced", "backlog", "both", "steady"], default="both",
                    help="paced: measure from the first create (pods created while the scheduler "
                    "runs); backlog: pods created first, measured from scheduler start; steady: "
                    "only the steady-state RSS")
    ap.add_argument("--backlog-churn", action="store_true",
                    help="also run SchedulingWithMixedChurn in backlog mode (its churn pods "
                    "created already bound, deleted during the window)")
    ap.add_argument("--no-steady-state", action="store_true",
                    help="skip the idle-RSS measurement after each size")
    ap.add_argument("--steady-pods", type=int, default=10000,
                    help="bound pods for the last size's second steady-state point (0: none)")
    ap.add_argument("--steady-wait", type=float, default=10,
                    help="steady state: seconds after sync before RSS counts as settled")
    ap.add_argument("--cleanup", choices=["etcd", "api"], default="etcd",
                    help="how a run's namespace is emptied (see Bench.cleanup)")
    ap.add_argument("--no-bench", action="store_true", help="skip in-process berth-bench")
    ap.add_argument("--report-only", action="store_true", help="rebuild reports from e2e.json")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    jpath = os.path.join(args.out, "e2e.json")
    if args.report_only:
        data = json.load(open(jpath))
        written = report.write(args.out, data)
        log(f"wrote {', '.join(written)}")
        return 0
    sizes = int_list(args.nodes)
    if sizes != sorted(sizes) or len(set(sizes)) != len(sizes):
        raise SystemExit("--nodes: increasing values (nodes are only ever added)")
    args.pods_for = PodCounts(sizes, args.pods, args.pods_for)
    workloads = [w for w in args.workloads.split(",") if w]
    for w in workloads:
        if w not in ALL_WORKLOADS:
            raise SystemExit(f"unknown workload {w}: one of {', '.join(ALL_WORKLOADS)}")
    scheds = [s for s in args.schedulers.split(",") if s]
    cmdline = "test/bench/e2e/run.py " + " ".join(sys.argv[1:])
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    t_begin = time.time()
    data = {"command": cmdline, "date": started, "results": [], "steady": [], "bench": {},
            "config": {"sizes": sizes, "workloads": workloads, "schedulers": scheds,
                       "pods": {f"{n}/{w}": args.pods_for(w, n) for n in sizes for w in workloads},
                       "repeats": args.repeats, "backlog_repeats": args.backlog_repeats,
                       "mode": args.mode, "create_threads": args.create_threads,
                       "backlog_create_threads": args.backlog_create_threads,
                       "binder_workers": args.binder_workers, "binder_qps": args.binder_qps,
                       "binder_burst": args.binder_burst, "cleanup": args.cleanup,
                       "backlog_churn": args.backlog_churn,
                       "steady_pods": args.steady_pods, "steady_wait": args.steady_wait,
                       "upstream": UPSTREAM}}

    def save():
        data["wall_seconds"] = time.time() - t_begin
        with open(jpath, "w") as f:
            json.dump(data, f, indent=1)

    if not args.no_bench:
        t = time.time()
        data["bench"] = berth_bench(args, sizes, workloads)
        data["bench_seconds"] = time.time() - t
    b = Bench(args)
    data["machine"] = machine_facts(b.kube.berth_binary(), b.bin)
    data["phases"] = b.phases
    try:
        if "ceiling" in scheds and args.mode != "steady":
            log(f"ceiling: {b.null_binder()}")  # built now, outside every measured window
        if "Gang" in workloads:
            b.install_podgroup_crd()
        modes = {"both": ["paced", "backlog"], "steady": []}.get(args.mode, [args.mode])
        for si, nodes in enumerate(sizes):
            b.create_nodes(nodes)
            for mode in modes:
                reps = args.backlog_repeats if mode == "backlog" else args.repeats
                order = workloads if mode == "paced" else list(reversed(workloads))
                for w in order:
                    if mode == "backlog" and w == CHURN and not args.backlog_churn:
                        continue
                    b.prepare(w)
                    for rep in range(reps):
                        order_s = [s for s in scheds if not (w == "Gang" and s != "berth")]
                        if rep % 2 == 1:
                            order_s.reverse()
                        for s in order_s:
                            try:
                                fn = b.run_backlog if mode == "backlog" else b.run
                                data["results"].append(fn(w, s, rep))
                            except Exception as e:  # noqa: BLE001 - keep going, report
                                log(f"{nodes}/{mode}/{w}/{s}/{rep} failed: {e!r}")
                                data.setdefault("failures", []).append(
                                    {"nodes": nodes, "mode": mode, "workload": w,
                                     "scheduler": s, "repeat": rep, "error": repr(e)[:500]})
                            save()
            if args.mode == "steady" or not args.no_steady_state:
                b.set_slices(False)
                points = [0] + ([args.steady_pods] if si == len(sizes) - 1 and
                                args.steady_pods > 0 else [])
                for k in points:
                    if k:
                        b.create_bound_pods(k)
                    for s in [s for s in scheds if s != "ceiling"]:
                        try:
                            data["steady"].append(b.steady_state(s, k))
                        except Exception as e:  # noqa: BLE001 - keep going, report
                            log(f"steady state {nodes}/{k}/{s} failed: {e!r}")
                            data.setdefault("failures", []).append(
                                {"nodes": nodes, "mode": "steady", "scheduler": s,
                                 "bound_pods": k, "error": repr(e)[:500]})
                        save()
                    if k:
                        t = time.time()
                        b.cleanup("steady-pods")
                        b.phase(f"deleted the {k} bound pods", t)
    finally:
        save()
        b.close()
    save()
    written = report.write(args.out, data)
    log(f"wrote {', '.join(written)} (wall {time.time() - t_begin:.0f}s)")
    print(open(os.path.join(args.out, "e2e.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
