"""`berth run` against the same API server: replays a committed recording live.

BerthRunner(cluster, berth, workdir).run(recording) recreates the recording's objects and its
pending pods one by one, exactly as the recorder (record.py) does for upstream, but with
`berth run` in kube-scheduler's place, and returns a recording of what berth did (same outcome
format: node, message = first FailedScheduling event, condition_message / condition_reason =
first PodScheduled=False condition, nominated, victims, gated, timeout). There are no score logs.

After each pod the cluster is realigned to upstream's state (pods at upstream's nodes, upstream's
victims gone, berth's wrong victims recreated), so that one divergence, or a tie broken the other
way, does not change what the following pods see.

compare(rec, berth_rec) -> [replay.Divergence] with causes prefixed "run:".
"""
import json
import os
import subprocess
import time

from gen import NAMESPACES
from record import Recorder, path_of
from replay import Divergence

SERVER_META = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
               "deletionTimestamp", "deletionGracePeriodSeconds")
NO_STATUS = {"PriorityClass", "RuntimeClass", "StorageClass", "CSINode", "Namespace"}
JOB_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid", "job-name",
              "batch.kubernetes.io/job-name")


def _unmerge(selector, labels, keys, op):
    """Drops what the API server merged into selector from matchLabelKeys (op In) or
    mismatchLabelKeys (op NotIn) on creation: it would refuse it the second time."""
    if not selector or not keys:
        return
    exprs = [e for e in selector.get("matchExpressions") or []
             if not (e.get("key") in keys and e.get("operator") == op
                     and e.get("values") == [labels.get(e.get("key"))])]
    if exprs:
        selector["matchExpressions"] = exprs
    else:
        selector.pop("matchExpressions", None)


def _undefault(o):
    """Undoes what the API server added on creation that it refuses to be given back."""
    spec = o.get("spec") or {}
    if o["kind"] == "Job":
        if not spec.get("manualSelector"):
            spec.pop("selector", None)
        for m in (o["metadata"], (spec.get("template") or {}).get("metadata") or {}):
            for k in JOB_LABELS:
                (m.get("labels") or {}).pop(k, None)
    if o["kind"] == "Pod":
        labels = o["metadata"].get("labels") or {}
        for c in spec.get("topologySpreadConstraints") or []:
            _unmerge(c.get("labelSelector"), labels, c.get("matchLabelKeys"), "In")
        aff = spec.get("affinity") or {}
        for kind in ("podAffinity", "podAntiAffinity"):
            a = aff.get(kind) or {}
            terms = list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
            terms += [w.get("podAffinityTerm") or {}
                      for w in a.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
            for t in terms:
                _unmerge(t.get("labelSelector"), labels, t.get("matchLabelKeys"), "In")
                _unmerge(t.get("labelSelector"), labels, t.get("mismatchLabelKeys"), "NotIn")
    return o


def _key(o):
    m = o["metadata"]
    return f"{m.get('namespace', '')}/{m['name']}"


def scenario_from_recording(rec):
    """The recording's objects and pending pods, made creatable again: server fields dropped,
    status back as x-status, owner references by name (x-uid-of:), namespace labels."""
    uid_to_ref = {}
    for o in rec["objects"]:
        uid = o["metadata"].get("uid")
        if uid:
            m = o["metadata"]
            uid_to_ref[uid] = f"x-uid-of:{o['kind']}/{m.get('namespace')}/{m['name']}"

    def creatable(o, keep_status):
        o = json.loads(json.dumps(o))
        for k in SERVER_META:
            o["metadata"].pop(k, None)
        for ref in o["metadata"].get("ownerReferences", []):
            ref["uid"] = uid_to_ref.get(ref.get("uid"), ref.get("uid"))
        _undefault(o)
        status = o.pop("status", None)
        if keep_status and status and o["kind"] not in NO_STATUS:
            o["x-status"] = status
        return o

    namespaces = {}
    objects = []
    for o in rec["objects"]:
        if o["kind"] == "Namespace":
            labels = dict(o["metadata"].get("labels") or {})
            labels.pop("kubernetes.io/metadata.name", None)
            if labels:
                namespaces[o["metadata"]["name"]] = labels
            continue
        objects.append(creatable(o, True))
    pending = [creatable(e["pod"], False) for e in rec["pods"]]
    return {"name": rec["name"], "config": rec["config"], "features": rec.get("features", []),
            "namespaces": namespaces, "objects": objects, "pending": pending,
            "bound_pod": lambda o: creatable(o, True)}


class BerthRunner(Recorder):
    def __init__(self, cluster, berth, workdir, verbose=False):
        super().__init__(cluster, None, workdir, verbose)
        self.berth = berth
        self.rec = None
        self.realigned = 0

    # ---- berth run in kube-scheduler's place ----
    def start_scheduler(self, name, config):
        cfg = dict(config)
        cfg["clientConnection"] = {"kubeconfig": self.c.kubeconfig, "qps": 1000, "burst": 2000}
        cfg["leaderElection"] = {"leaderElect": False}
        cfg_path = os.path.join(self.dir, name + ".berth.config.yaml")
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)  # JSON is YAML
        self.log_path = os.path.join(self.dir, name + ".berth.log")
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                [self.berth, "run", "--config", cfg_path, "--bind-address", "127.0.0.1", "--secure-port", "0"],
                stdout=log, stderr=subprocess.STDOUT)
        # Unlike the recorder's kube-scheduler, wait for berth's caches: a gated pod gets only
        # 1.5 s and should find berth ready.
        deadline = time.time() + 30
        while time.time() < deadline:
            if "caches synced" in self.log():
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"berth run exited ({self.proc.returncode}): "
                                   + self.log()[-1500:])
            time.sleep(0.05)
        raise RuntimeError("berth run did not sync its caches in 30 s: " + self.log()[-1500:])

    def collect_scores(self, out, key, offset):
        return False  # berth run logs no scores; no OpportunisticBatching pause either

    # ---- keep the cluster where upstream was ----
    def expected_after(self, index):
        """{pod key: node or None (pending)} of upstream's cluster after pending pod index."""
        rec = self.rec
        exp, objs = {}, {}
        for o in rec["objects"]:
            if o["kind"] == "Pod":
                exp[_key(o)] = o["spec"].get("nodeName")
                objs[_key(o)] = o
        for e in rec["pods"][: index + 1]:
            out = e["outcome"]
            for v in out.get("victims") or []:
                exp.pop(v, None)
            if out.get("create_error") or out.get("timeout"):
                continue
            if out.get("node"):
                k = _key(e["pod"])
                # A WaitForFirstConsumer pod stays pending (its claim got the node).
                exp[k] = None if out.get("wffc") else out["node"]
                objs[k] = e["pod"]
        return exp, objs

    def after_pod(self, index, pod, out):
        exp, objs = self.expected_after(index)
        actual = {k: p["spec"].get("nodeName") for k, p in self.all_pods().items()}
        changed = False
        for k, node in actual.items():
            if k not in exp or exp[k] != node:
                ns, name = k.split("/", 1)
                self._delete_pod(ns, name)
                changed = True
        for k, node in exp.items():
            if k in actual and actual[k] == node:
                continue
            obj = self.scenario["bound_pod"](objs[k])
            obj.setdefault("spec", {})
            if node:
                obj["spec"]["nodeName"] = node
            else:
                obj["spec"].pop("nodeName", None)
            self.create(obj, self.uids)
            changed = True
        if changed:
            self.realigned += 1
            out["realigned"] = True
            time.sleep(0.3)  # let berth's informers see it before the next pod

    def _delete_pod(self, ns, name):
        try:
            self.c.request("DELETE", path_of("Pod", ns, name), {"gracePeriodSeconds": 0})
        except Exception:
            return
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                self.c.get(path_of("Pod", ns, name))
                time.sleep(0.03)
            except Exception:
                return

    def create(self, obj, uids):
        self.uids = uids  # the scenario's uid map, for pods recreated by after_pod
        return super().create(obj, uids)

    def run(self, rec):
        self.rec = rec
        self.scenario = scenario_from_recording(rec)
        self.uids = {}
        return self.record(self.scenario)


def _cond(out):
    return {"reason": out.get("condition_reason"), "message": out.get("condition_message")}


def compare(rec, mine):
    """Upstream's recording against berth's live outcomes, pod by pod."""
    divs = []
    for i, (ue, be) in enumerate(zip(rec["pods"], mine["pods"])):
        up, b = ue["outcome"], be["outcome"]
        pkey = _key(ue["pod"])

        def div(cause, u, bb, detail=""):
            divs.append(Divergence(rec["name"], i, pkey, "run:" + cause, u, bb, detail))

        if up.get("create_error"):
            if not b.get("create_error"):
                div("create-error", up.get("create_error"), "created")
            continue
        if up.get("timeout"):
            continue  # upstream decided nothing: nothing to compare
        if b.get("create_error"):
            div("create-error", None, b["create_error"])
            continue
        if up.get("gated"):
            if not b.get("gated") or b.get("message") != up.get("message") or \
                    b.get("node") or b.get("condition_reason", "SchedulingGated") != "SchedulingGated":
                div("gated", {"gated": True, "message": up.get("message")},
                    {"gated": b.get("gated"), "node": b.get("node"), "message": b.get("message"),
                     "condition_reason": b.get("condition_reason")})
            continue
        if b.get("timeout"):
            div("timeout", {"node": up.get("node"), "message": up.get("message")},
                {"timeout": True, "message": b.get("message")})
            continue
        # The first FailedScheduling event.
        if up.get("message") != b.get("message"):
            div("message", up.get("message"), b.get("message"))
        # The PodScheduled condition, where upstream's was seen.
        if up.get("condition_message") is not None:
            want = {"reason": up.get("condition_reason") or "Unschedulable",
                    "message": up["condition_message"]}
            if _cond(b) != want:
                div("condition", want, _cond(b))
        # Preemption.
        vu, vb = sorted(up.get("victims") or []), sorted(b.get("victims") or [])
        if vu != vb:
            div("preemption-victims", vu, vb)
        if (up.get("nominated") or b.get("nominated")) and up.get("nominated") != b.get("nominated"):
            # A nomination is seen only when it lives across a poll: compare it where both saw one,
            # else the bound node below says where the preemptor went.
            if up.get("nominated") and b.get("nominated"):
                div("preemption-node", up.get("nominated"), b.get("nominated"))
        # The node.
        un, bn = up.get("node"), b.get("node")
        if un is None and bn is None:
            continue
        if un is None:
            div("schedulable-in-berth", {"message": up.get("message")}, {"node": bn})
            continue
        if bn is None:
            div("unschedulable-in-berth", {"node": un}, {"message": b.get("message")})
            continue
        if un == bn or up.get("hinted"):
            continue  # a hinted pod's node came from OpportunisticBatching: not comparable
        totals = up.get("totals") or {}
        if totals and bn in totals and totals[bn] == max(totals.values()):
            continue  # equally best for upstream: a tie broken the other way
        if totals and bn not in totals:
            div("node-infeasible-upstream", {"node": un, "feasible": sorted(totals)}, bn,
                "berth bound the pod to a node upstream filtered out")
        else:
            div("node", {"node": un, "total": totals.get(un), "total of berth's node": totals.get(bn)}
                if totals else un, bn,
                "berth's node is not among upstream's best totals" if totals else
                "single feasible node upstream")
    return divs


def sample(names, k):
    """k names spread evenly over the sorted list (deterministic)."""
    names = sorted(names)
    if k >= len(names):
        return names
    step = len(names) / k
    return [names[int(i * step)] for i in range(k)]
