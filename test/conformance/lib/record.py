"""Recorder: runs a scenario against the real kube-apiserver and kube-scheduler and writes what
upstream did.

Recorder(cluster, scheduler_bin, workdir).record(scenario) -> recording dict:
  {"name", "seed", "config", "features",
   "objects": [object as the API server returned it after creation and status writes],
   "pods": [{"pod": pending pod as returned on creation, "outcome": {...}}]}
An outcome holds what upstream did with that pod, with the state it saw being the initial objects
plus the outcomes of the pods before it:
  node        the node it was bound to (or, for a WaitForFirstConsumer pod, the node PreBind
              selected on its claim), else null
  message     the first FailedScheduling event's note (null when bound at the first attempt)
  condition_message, condition_reason   the first PodScheduled=False condition seen (recordings
              made before the reason was kept have only condition_message); a gated pod has
              condition_reason SchedulingGated and its message in message
  feasible    feasibleNodes of "Successfully bound pod to node" (null if not logged)
  scores      {node: {plugin: weighted score}} and totals {node: final score}, from the
              last scheduling attempt's v=10 lines (absent with a single feasible node)
  hinted      true when OpportunisticBatching gave a node hint (then only the node is compared)
  nominated   status.nominatedNodeName seen while preempting; victims: pods deleted meanwhile
  gated       the pod had scheduling gates and upstream wrote nothing for it
  timeout / create_error   upstream gave no outcome in time / the API server refused the pod
  claims      for a bound pod with ResourceClaims: {claim name: [{request, driver, pool,
              device}]}, its claims' status.allocation.devices.results read after binding
  pre_enqueue a claim of the pod did not exist: DynamicResources' PreEnqueue held it (no event)
A pod entry of a scenario with resource.k8s.io objects also has claims_made (the claims the
recorder, as the resource claim controller, made from the pod's templates, with the pod's
status.resourceClaimStatuses written) and claims_after (every ResourceClaim once the outcome is
in: what the next pod sees). The recorder also plays the DRA driver: the scenario's
ResourceSlices are created like any object. An unschedulable pod's template claims are deleted
with it (the garbage collector's part).
An unschedulable (or gated, or timed-out) pod is deleted before the next pod is created.

One API server serves every scenario (everything is deleted between scenarios; the four
namespaces stay and get the scenario's labels); kube-scheduler is restarted per scenario.
"""
import json
import os
import re
import signal
import subprocess
import time

from gen import NAMESPACES

STRIP_META = ("managedFields",)
KINDS = {  # kind -> (api prefix, plural, namespaced)
    "Namespace": ("/api/v1", "namespaces", False),
    "Node": ("/api/v1", "nodes", False),
    "Pod": ("/api/v1", "pods", True),
    "Service": ("/api/v1", "services", True),
    "ReplicationController": ("/api/v1", "replicationcontrollers", True),
    "PersistentVolumeClaim": ("/api/v1", "persistentvolumeclaims", True),
    "PersistentVolume": ("/api/v1", "persistentvolumes", False),
    "ReplicaSet": ("/apis/apps/v1", "replicasets", True),
    "StatefulSet": ("/apis/apps/v1", "statefulsets", True),
    "DaemonSet": ("/apis/apps/v1", "daemonsets", True),
    "Job": ("/apis/batch/v1", "jobs", True),
    "StorageClass": ("/apis/storage.k8s.io/v1", "storageclasses", False),
    "CSINode": ("/apis/storage.k8s.io/v1", "csinodes", False),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses", False),
    "RuntimeClass": ("/apis/node.k8s.io/v1", "runtimeclasses", False),
    "DeviceClass": ("/apis/resource.k8s.io/v1", "deviceclasses", False),
    "ResourceSlice": ("/apis/resource.k8s.io/v1", "resourceslices", False),
    "ResourceClaim": ("/apis/resource.k8s.io/v1", "resourceclaims", True),
    "ResourceClaimTemplate": ("/apis/resource.k8s.io/v1", "resourceclaimtemplates", True),
    "DeviceTaintRule": ("/apis/resource.k8s.io/v1", "devicetaintrules", False),
}
# Deleted between scenarios, in this order (pods first, so nothing references what goes next).
RESET_KINDS = ["Pod", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceClass",
               "DeviceTaintRule", "PodDisruptionBudget", "Service", "ReplicationController", "ReplicaSet",
               "StatefulSet", "DaemonSet", "Job", "PersistentVolumeClaim", "PersistentVolume",
               "CSINode", "StorageClass", "Node"]
# Created once and kept (the same in every scenario).
KEEP_KINDS = {"PriorityClass", "RuntimeClass"}

LOG_LINE = re.compile(r'^[IWE]\d{4} [\d:.]+\s+\d+ [^\]]+\] "([^"]*)"(.*)$')
# The resource claim controller's annotation on a claim made from a template.
POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
KV = re.compile(r'(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))')


def _kept_by_apiserver(obj):
    """default/kubernetes (a Service without selector) is recreated by the API server."""
    m = obj["metadata"]
    return m["name"] == "kubernetes" and m.get("namespace") == "default"


def path_of(kind, ns=None, name=None, sub=None):
    prefix, plural, namespaced = KINDS[kind]
    p = prefix + (f"/namespaces/{ns}" if namespaced and ns else "") + "/" + plural
    if name:
        p += "/" + name
    if sub:
        p += "/" + sub
    return p


def clean(obj):
    obj = json.loads(json.dumps(obj))
    for k in STRIP_META:
        obj.get("metadata", {}).pop(k, None)
    return obj


def parse_log(text):
    """Yields (message, {key: value}) for each structured klog line."""
    for line in text.splitlines():
        m = LOG_LINE.match(line)
        if not m:
            continue
        kv = {}
        for k, quoted, bare in KV.findall(m.group(2)):
            kv[k] = bytes(quoted, "utf-8").decode("unicode_escape") if quoted else bare
        yield m.group(1), kv


def scores_from_log(text, pod_key):
    """The last scheduling attempt's scores for pod_key, its feasible count and hint flag."""
    scores, totals, feasible, hinted, batch_state = {}, {}, None, False, False
    for msg, kv in parse_log(text):
        if msg == "OpportunisticBatch set batch information":
            batch_state = True
        if kv.get("pod") != pod_key:
            continue
        if msg == "Attempting to schedule pod":
            scores, totals, hinted = {}, {}, False
        elif msg == "Plugin scored node for pod":
            scores.setdefault(kv["node"], {})[kv["plugin"]] = int(kv["score"])
        elif msg == "Calculated node's final score for pod":
            totals[kv["node"]] = int(kv["score"])
        elif msg == "Successfully bound pod to node":
            feasible = int(kv["feasibleNodes"])
        elif msg == "OpportunisticBatch provided node hint":
            hinted = True
    return scores, totals, feasible, hinted, batch_state


def started_at(index):
    """Start time given to the index-th pending pod once bound (see Recorder.mark_started)."""
    return f"2026-01-02T{index // 3600:02d}:{index // 60 % 60:02d}:{index % 60:02d}Z"


class Recorder:
    def __init__(self, cluster, scheduler_bin, workdir, verbose=False):
        self.c = cluster
        self.bin = scheduler_bin
        self.dir = workdir
        self.verbose = verbose
        self.proc = None
        self.log_path = None
        self.kept = {}
        for ns in NAMESPACES:
            if ns != "default":
                try:
                    self.c.create("/api/v1/namespaces",
                                  {"apiVersion": "v1", "kind": "Namespace",
                                   "metadata": {"name": ns}})
                except Exception as e:  # already there (a reused API server)
                    if getattr(e, "code", None) != 409:
                        raise

    # ---- cluster state ----
    def reset(self, ns_labels):
        for kind in RESET_KINDS:
            namespaced = KINDS[kind][2]
            for ns in (NAMESPACES if namespaced else [None]):
                items = self.c.items(path_of(kind, ns))
                if not items:
                    continue
                for item in items:
                    meta = item["metadata"]
                    if meta.get("finalizers"):
                        self.c.request("PATCH", path_of(kind, meta.get("namespace"), meta["name"]),
                                       {"metadata": {"finalizers": None}},
                                       "application/merge-patch+json")
                try:
                    self.c.request("DELETE", path_of(kind, ns), {"gracePeriodSeconds": 0,
                                                                 "propagationPolicy": "Background"})
                    continue
                except Exception as e:
                    if getattr(e, "code", None) not in (404, 405):
                        raise
                for item in items:  # no deletecollection for this kind
                    meta = item["metadata"]
                    try:
                        self.c.request("DELETE", path_of(kind, meta.get("namespace"), meta["name"]),
                                       {"gracePeriodSeconds": 0, "propagationPolicy": "Background"})
                    except Exception as e:
                        if getattr(e, "code", None) != 404:
                            raise
        for ns in NAMESPACES:
            # Events of earlier scenarios would only be noise (they are matched by uid anyway).
            self.c.request("DELETE", f"/apis/events.k8s.io/v1/namespaces/{ns}/events")
            obj = self.c.get(f"/api/v1/namespaces/{ns}")
            obj["metadata"]["labels"] = dict({"kubernetes.io/metadata.name": ns},
                                             **ns_labels.get(ns, {}))
            self.c.request("PUT", f"/api/v1/namespaces/{ns}", obj)
        # Wait until everything is really gone.
        deadline = time.time() + 30
        while time.time() < deadline:
            left = [k for k in RESET_KINDS for ns in (NAMESPACES if KINDS[k][2] else [None])
                    if [i for i in self.c.items(path_of(k, ns)) if not _kept_by_apiserver(i)]]
            if not left:
                break
            time.sleep(0.1)

    def mark_started(self, pod, index, out):
        """The kubelet's part for a pod the scheduler bound: phase Running and a start time
        (2026-01-02T00:00:00Z + its index in seconds, which the replay gives it too), so later
        preemptions order it deterministically. Skipped if the pod is not bound yet (a
        WaitForFirstConsumer pod still in PreBind)."""
        ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        try:
            cur = self.c.get(path_of("Pod", ns, name))
            if not cur["spec"].get("nodeName"):
                return
            t = started_at(index)
            cur["status"] = dict(cur.get("status") or {}, phase="Running", startTime=t)
            self.c.request("PUT", path_of("Pod", ns, name, "status"), cur)
            out["startTime"] = t
        except Exception:
            pass

    def create(self, obj, uids):
        obj = json.loads(json.dumps(obj))
        status = obj.pop("x-status", None)
        kind = obj["kind"]
        meta = obj["metadata"]
        for ref in meta.get("ownerReferences", []):
            if ref["uid"].startswith("x-uid-of:"):
                ref["uid"] = uids.get(ref["uid"][len("x-uid-of:"):], "00000000-dead-4000-8000-000000000000")
        ns = meta.get("namespace")
        if kind in KEEP_KINDS:
            if meta["name"] not in self.kept:
                try:
                    self.kept[meta["name"]] = self.c.create(path_of(kind), obj)
                except Exception as e:
                    if getattr(e, "code", None) != 409:
                        raise
                    self.kept[meta["name"]] = self.c.get(path_of(kind, name=meta["name"]))
            return self.kept[meta["name"]]
        if kind == "Pod" and obj.get("spec", {}).get("nodeName"):
            # A running pod has a start time (the kubelet's), distinct per pod in creation
            # order. Without one, upstream's MoreImportantPod compares time.Now() with
            # time.Now(), so preemption's reprieve order among equal priorities is arbitrary.
            self.started = getattr(self, "started", 0) + 1
            n = self.started % 86400
            t = f"2026-01-01T{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z"
            status = dict({"phase": "Running", "startTime": t}, **(status or {}))
        got = self.c.create(path_of(kind, ns), obj)
        uids[f"{kind}/{ns}/{meta['name']}"] = got["metadata"]["uid"]
        if status:
            got["status"] = dict(got.get("status") or {}, **status)
            got = self.c.request("PUT", path_of(kind, ns, meta["name"], "status"), got)
        return got

    # ---- kube-scheduler ----
    def start_scheduler(self, name, config):
        cfg = dict(config)
        cfg["clientConnection"] = {"kubeconfig": self.c.kubeconfig, "qps": 1000, "burst": 2000}
        cfg["leaderElection"] = {"leaderElect": False}
        cfg_path = os.path.join(self.dir, name + ".config.json")
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        self.log_path = os.path.join(self.dir, name + ".kube-scheduler.log")
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                [os.path.join(self.bin, "kube-scheduler"), f"--config={cfg_path}",
                 "--bind-address=127.0.0.1", "--secure-port=0", "--v=10",
                 "--logging-format=text"], stdout=log, stderr=subprocess.STDOUT)

    def stop_scheduler(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def log(self, offset=0):
        with open(self.log_path, "rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")

    def log_size(self):
        return os.path.getsize(self.log_path)

    # ---- one pod ----
    def all_pods(self):
        out = {}
        for ns in NAMESPACES:
            for p in self.c.items(path_of("Pod", ns)):
                out[f"{ns}/{p['metadata']['name']}"] = p
        return out

    def first_event(self, pod):
        ns, uid = pod["metadata"]["namespace"], pod["metadata"]["uid"]
        evs = [e for e in self.c.items(f"/apis/events.k8s.io/v1/namespaces/{ns}/events")
               if e.get("regarding", {}).get("uid") == uid and e.get("reason") == "FailedScheduling"]
        evs.sort(key=lambda e: e["metadata"].get("creationTimestamp", ""))
        return evs[0].get("note") if evs else None

    def wait_outcome(self, pod, claims, before, waits_for_claims=False):
        """Polls until upstream decided on pod; before: pod keys that existed before it.
        waits_for_claims: some ResourceClaim of the pod does not exist, so DynamicResources'
        PreEnqueue holds it (like a gate: upstream writes nothing; outcome pre_enqueue)."""
        ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        gated = bool(pod["spec"].get("schedulingGates")) or waits_for_claims
        out = {"node": None, "message": None}
        t0 = time.time()
        deadline = t0 + (1.5 if gated else 20)
        preempting = False
        while time.time() < deadline:
            cur = self.c.get(path_of("Pod", ns, name))
            if cur["spec"].get("nodeName"):
                out["node"] = cur["spec"]["nodeName"]
                break
            for pvc in claims:
                try:
                    got = self.c.get(path_of("PersistentVolumeClaim", ns, pvc))
                except Exception:
                    continue
                sel = got["metadata"].get("annotations", {}).get("volume.kubernetes.io/selected-node")
                if sel:
                    out["node"], out["wffc"] = sel, True
            if out.get("wffc"):
                break
            cond = next((c for c in cur.get("status", {}).get("conditions", [])
                         if c["type"] == "PodScheduled"), None)
            if cond and cond.get("reason") == "SchedulingGated":
                out["gated"] = True
                out["message"] = cond.get("message")
                out["condition_reason"] = cond.get("reason")
                break
            if cond and cond["status"] == "False" and not out.get("condition_message"):
                out["condition_message"] = cond.get("message")
                out["condition_reason"] = cond.get("reason")
            nominated = cur.get("status", {}).get("nominatedNodeName")
            if nominated:
                out["nominated"] = nominated
                preempting = True
            if cond and cond["status"] == "False" and not preempting:
                # Give a nomination a moment to show up before calling it unschedulable.
                if "preempting" in (cond.get("message") or ""):
                    preempting = True
                elif time.time() - t0 > 0.05:
                    time.sleep(0.1)
                    cur = self.c.get(path_of("Pod", ns, name))
                    if not cur.get("status", {}).get("nominatedNodeName") and not cur["spec"].get("nodeName"):
                        break
                    continue
            time.sleep(0.03)
        else:
            if waits_for_claims and not pod["spec"].get("schedulingGates"):
                out["pre_enqueue"] = True
            elif gated:
                out["gated"] = True
            else:
                out["timeout"] = True
        if out.get("condition_message") or preempting:
            for _ in range(40):
                out["message"] = self.first_event(pod)
                if out["message"]:
                    break
                time.sleep(0.05)
        # Preemption can run its course (fail, nominate, evict, bind) between two polls: the
        # victims and the first message are looked for whatever was seen.
        if not (out.get("gated") or out.get("timeout") or out.get("pre_enqueue")):
            after = set(self.all_pods())
            gone = sorted(before - after - {f"{ns}/{name}"})
            if gone:
                preempting = True
                out["victims"] = gone
            if out["node"] and not out["message"]:
                for _ in range(20 if gone else 1):
                    out["message"] = self.first_event(pod)
                    if out["message"]:
                        break
                    time.sleep(0.05)
        if not out["message"] and out.get("condition_message"):
            out["message"] = out["condition_message"]
            out["message_from"] = "condition"
        if preempting or out.get("nominated"):
            after = set(self.all_pods())
            out["victims"] = sorted(before - after - {f"{ns}/{name}"})
        return out

    def collect_scores(self, out, key, offset):
        """Adds upstream's scores (from kube-scheduler's v=10 log since offset) to out; returns
        True when OpportunisticBatching kept them (the next pod then waits 500 ms)."""
        for _ in range(20):  # let the binding's log lines land
            scores, totals, feasible, hinted, batch = scores_from_log(self.log(offset), key)
            if feasible is not None or out.get("wffc"):
                break
            time.sleep(0.05)
        if scores:
            out["scores"], out["totals"] = scores, totals
        out["feasible"] = feasible
        if hinted:
            out["hinted"] = True
        return batch

    # ---- DRA: the resource claim controller's part, and what the scheduler allocated ----
    def make_template_claims(self, pod):
        """kube-controller-manager's resource claim controller for a new pod: one ResourceClaim
        per spec.resourceClaims entry with a template (generateName "<pod>-<claim>-", owned by the
        pod, annotated with the entry's name), then the pod's status.resourceClaimStatuses.
        Returns (claims as created, the pod as it is now). A missing template makes nothing (the
        controller would wait for it)."""
        ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        made, statuses = [], []
        for pc in pod["spec"].get("resourceClaims") or []:
            tmpl_name = pc.get("resourceClaimTemplateName")
            if not tmpl_name:
                continue
            try:
                tmpl = self.c.get(path_of("ResourceClaimTemplate", ns, tmpl_name))
            except Exception:
                continue
            tmeta = tmpl["spec"].get("metadata") or {}
            claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"generateName": f"{name}-{pc['name']}-", "namespace": ns,
                                  "labels": dict(tmeta.get("labels") or {}),
                                  "annotations": dict(tmeta.get("annotations") or {},
                                                      **{POD_CLAIM_ANNOTATION: pc["name"]}),
                                  "ownerReferences": [{"apiVersion": "v1", "kind": "Pod",
                                                       "name": name,
                                                       "uid": pod["metadata"]["uid"],
                                                       "controller": True,
                                                       "blockOwnerDeletion": True}]},
                     "spec": tmpl["spec"]["spec"]}
            got = self.c.create(path_of("ResourceClaim", ns), claim)
            got.setdefault("kind", "ResourceClaim")
            got.setdefault("apiVersion", "resource.k8s.io/v1")
            made.append(clean(got))
            statuses.append({"name": pc["name"], "resourceClaimName": got["metadata"]["name"]})
        if not statuses:
            return made, pod
        cur = self.c.request("PATCH", path_of("Pod", ns, name, "status"),
                             {"status": {"resourceClaimStatuses": statuses}},
                             "application/merge-patch+json")
        return made, cur

    def missing_claims(self, pod):
        """True when some claim of pod does not exist (DynamicResources' PreEnqueue then keeps
        the pod out of the queue and upstream writes nothing for it)."""
        ns = pod["metadata"]["namespace"]
        made = {s["name"]: s.get("resourceClaimName")
                for s in pod.get("status", {}).get("resourceClaimStatuses") or []}
        for pc in pod["spec"].get("resourceClaims") or []:
            claim = pc.get("resourceClaimName") or made.get(pc["name"])
            if not claim:
                return True
            try:
                self.c.get(path_of("ResourceClaim", ns, claim))
            except Exception:
                return True
        return False

    def all_claims(self):
        """Every ResourceClaim as the API server has it now (allocations, reservedFor)."""
        out = []
        for ns in NAMESPACES:
            for c in self.c.items(path_of("ResourceClaim", ns)) or []:
                c = clean(dict(c, kind="ResourceClaim", apiVersion="resource.k8s.io/v1"))
                out.append(c)
        out.sort(key=lambda c: (c["metadata"]["namespace"], c["metadata"]["name"]))
        return out

    def allocated_devices(self, pod):
        """{claim name: status.allocation.devices.results (request, driver, pool, device)} of
        the pod's claims, read after it was bound (PreBind wrote them before binding)."""
        ns = pod["metadata"]["namespace"]
        made = {s["name"]: s.get("resourceClaimName")
                for s in pod.get("status", {}).get("resourceClaimStatuses") or []}
        out = {}
        for pc in pod["spec"].get("resourceClaims") or []:
            claim = pc.get("resourceClaimName") or made.get(pc["name"])
            if not claim:
                continue
            try:
                got = self.c.get(path_of("ResourceClaim", ns, claim))
            except Exception:
                continue
            alloc = (got.get("status") or {}).get("allocation")
            if not alloc:
                continue
            out[claim] = [{k: r.get(k) for k in ("request", "driver", "pool", "device")}
                          for r in (alloc.get("devices") or {}).get("results") or []]
        return out

    def extended_claim(self, pod):
        """The devices of the claim upstream's DynamicResources made in PreBind for a pod's
        DRA-backed extended resources (status.extendedResourceClaimStatus), or None. The replay
        compares its devices, not its name (generateName's suffix is random)."""
        ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        try:
            cur = self.c.get(path_of("Pod", ns, name))
            st = (cur.get("status") or {}).get("extendedResourceClaimStatus")
            if not st:
                return None
            got = self.c.get(path_of("ResourceClaim", ns, st["resourceClaimName"]))
        except Exception:
            return None
        alloc = (got.get("status") or {}).get("allocation") or {}
        return {"status": st, "results": [
            {k: r.get(k) for k in ("request", "driver", "pool", "device")}
            for r in (alloc.get("devices") or {}).get("results") or []]}

    def delete_claims(self, claims):
        """The garbage collector's part for an unschedulable pod's template claims."""
        for c in claims:
            ns, name = c["metadata"]["namespace"], c["metadata"]["name"]
            try:
                self.c.request("PATCH", path_of("ResourceClaim", ns, name),
                               {"metadata": {"finalizers": None}}, "application/merge-patch+json")
                self.c.request("DELETE", path_of("ResourceClaim", ns, name),
                               {"gracePeriodSeconds": 0})
            except Exception:
                pass

    def after_pod(self, index, pod, out):
        """Called after each pending pod's outcome (and its deletion when unschedulable)."""

    def record(self, scenario):
        name = scenario["name"]
        self.reset(scenario.get("namespaces", {}))
        uids = {}
        created = []
        for obj in scenario["objects"]:
            created.append(self.create(obj, uids))
        objects = []
        for o in created:
            kind, meta = o["kind"], o["metadata"]
            fresh = self.c.get(path_of(kind, meta.get("namespace"), meta["name"]))
            fresh.setdefault("kind", kind)
            fresh.setdefault("apiVersion", o.get("apiVersion"))
            objects.append(clean(fresh))
        for ns in NAMESPACES:
            objects.append(clean(dict(self.c.get(f"/api/v1/namespaces/{ns}"),
                                      kind="Namespace", apiVersion="v1")))
        self.start_scheduler(name, scenario["config"])
        pods = []
        last_bound_at = 0.0
        dra = any(o["kind"].startswith(("Resource", "Device")) for o in scenario["objects"])
        try:
            for p in scenario["pending"]:
                # OpportunisticBatching reuses a cycle's scores for 500 ms: stay clear of it.
                wait = last_bound_at + 0.55 - time.time()
                if wait > 0:
                    time.sleep(wait)
                last_bound_at = 0.0
                offset = self.log_size()
                before = set(self.all_pods())
                try:
                    got = self.create(p, uids)
                except Exception as e:
                    pods.append({"pod": clean(p), "outcome": {"create_error": str(e)[:300]}})
                    continue
                made = []
                if got["spec"].get("resourceClaims"):
                    made, got = self.make_template_claims(got)
                    dra = True
                claims = [v["persistentVolumeClaim"]["claimName"]
                          for v in got["spec"].get("volumes", []) if "persistentVolumeClaim" in v]
                out = self.wait_outcome(got, claims, before,
                                        waits_for_claims=bool(got["spec"].get("resourceClaims"))
                                        and self.missing_claims(got))
                if out["node"] and got["spec"].get("resourceClaims"):
                    out["claims"] = self.allocated_devices(got)
                if out["node"] and dra:
                    ext = self.extended_claim(got)
                    if ext:
                        out["extended_claim"] = ext
                key = f"{got['metadata']['namespace']}/{got['metadata']['name']}"
                if out["node"] or out.get("nominated"):
                    if self.collect_scores(out, key, offset):
                        last_bound_at = time.time()
                if out["node"]:
                    self.mark_started(got, len(pods), out)
                if not out["node"]:
                    try:
                        self.c.request("DELETE", path_of("Pod", got["metadata"]["namespace"],
                                                         got["metadata"]["name"]),
                                       {"gracePeriodSeconds": 0})
                    except Exception:
                        pass
                    while True:
                        try:
                            self.c.get(path_of("Pod", got["metadata"]["namespace"],
                                               got["metadata"]["name"]))
                            time.sleep(0.03)
                        except Exception:
                            break
                entry = {"pod": clean(got), "outcome": out}
                if dra:
                    if not out["node"]:
                        self.delete_claims(made)
                    # What the next pod sees: the claims made for this one (they exist before
                    # it is scheduled) and, after its outcome, every claim with its status.
                    entry["claims_made"] = made
                    entry["claims_after"] = self.all_claims()
                pods.append(entry)
                if self.verbose:
                    print(f"  {name} {key}: {summary(out)}", flush=True)
                self.after_pod(len(pods) - 1, got, out)
        finally:
            self.stop_scheduler()
        return {"name": name, "seed": scenario.get("seed"), "config": scenario["config"],
                "features": scenario.get("features", []), "objects": objects, "pods": pods}


def summary(out):
    if out.get("create_error"):
        return "create error"
    if out.get("gated"):
        return "gated"
    if out.get("timeout"):
        return "timeout"
    s = f"-> {out['node']}" if out["node"] else "unschedulable"
    if out.get("victims"):
        s += f" (preempted {len(out['victims'])})"
    return s
