"""Replayer: feeds each recorded pod's snapshot to `berth simulate` and compares with upstream.

replay(recording, berth, workdir) -> [Divergence]; each divergence names the scenario, the pod
(its index too), a cause (a short stable key used to group: "message", "score:ImageLocality",
"node", ...) and both sides.

The snapshot upstream saw for pod i = the recording's initial objects, plus every earlier pod that
was bound (with spec.nodeName set to upstream's node), minus the victims upstream preempted, plus
pod i itself. Pods that upstream never decided on (timeout, create error) are skipped.
"""
import json
import os
import re
import subprocess

IGNORED = re.compile(r'ignoring \d+ object\(s\) of kind "(\w+)"')
DRA_KINDS = {"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate",
             "DeviceTaintRule"}

DEFAULT_WEIGHTS = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1,
                   "PodTopologySpread": 2, "InterPodAffinity": 2,
                   "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1,
                   "DynamicResources": 2}


class Divergence:
    def __init__(self, scenario, index, pod, cause, upstream, berth, detail=""):
        self.scenario, self.index, self.pod = scenario, index, pod
        self.cause, self.upstream, self.berth, self.detail = cause, upstream, berth, detail

    def __str__(self):
        s = (f"DIVERGENCE {self.scenario} pod #{self.index} {self.pod} [{self.cause}]\n"
             f"  upstream: {json.dumps(self.upstream, sort_keys=True)}\n"
             f"  berth:    {json.dumps(self.berth, sort_keys=True)}")
        if self.detail:
            s += "\n  " + self.detail
        return s


def weights(config, scheduler_name):
    """Score plugin weights of the profile (upstream's defaults, then the profile's overrides)."""
    w = dict(DEFAULT_WEIGHTS)
    for prof in config.get("profiles", []):
        if prof.get("schedulerName", "default-scheduler") != scheduler_name:
            continue
        plugins = prof.get("plugins", {})
        for point in ("multiPoint", "score"):
            for p in plugins.get(point, {}).get("enabled", []) or []:
                if p.get("weight"):
                    w[p["name"]] = p["weight"]
    return w


def snapshots(rec):
    """Yields (index, pod, outcome, objects) for each pod that upstream decided on."""
    state = {}  # key -> pod object of earlier bound pods

    def key(o):
        m = o["metadata"]
        return f"{m.get('namespace', '')}/{m['name']}"

    removed = set()
    # ResourceClaims as upstream left them after the previous pod (allocations, reservedFor),
    # then the claims the recorder's claim controller made for this pod.
    claims = {key(o): o for o in rec["objects"] if o["kind"] == "ResourceClaim"}
    for i, entry in enumerate(rec["pods"]):
        pod, out = entry["pod"], entry["outcome"]
        if not (out.get("create_error") or out.get("timeout")):
            objs = [o for o in rec["objects"]
                    if not (o["kind"] == "Pod" and key(o) in removed)
                    and o["kind"] != "ResourceClaim"]
            now = dict(claims)
            now.update({key(c): c for c in entry.get("claims_made") or []})
            objs += list(now.values())
            objs += list(state.values()) + [pod]
            yield i, pod, out, objs
        if "claims_after" in entry:
            claims = {key(c): c for c in entry["claims_after"]}
        for v in out.get("victims", []) or []:
            removed.add(v)
            state.pop(v, None)
        if out.get("node") and not out.get("create_error"):
            bound = json.loads(json.dumps(pod))
            bound["spec"]["nodeName"] = out["node"]
            bound.setdefault("status", {}).pop("nominatedNodeName", None)
            if out.get("startTime"):  # the recorder's kubelet stand-in (record.mark_started)
                bound["status"].update(phase="Running", startTime=out["startTime"])
            state[key(pod)] = bound


def run_berth(berth, objects, config, workdir, tag):
    cluster = os.path.join(workdir, tag + ".cluster.json")
    cfg = os.path.join(workdir, tag + ".config.json")
    with open(cluster, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": objects}, f)
    with open(cfg, "w") as f:
        json.dump(config, f)
    p = subprocess.run([berth, "simulate", "--cluster", cluster, "--config", cfg, "--explain"],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None, (p.stderr or p.stdout).strip()[-400:]
    try:
        out = json.loads(p.stdout)
        # resource.k8s.io kinds berth simulate left out (it warns and goes on): what upstream
        # saw is then not what berth saw.
        out["x-ignored"] = sorted(set(IGNORED.findall(p.stderr)) & DRA_KINDS)
        return out, None
    except ValueError:
        return None, "unparsable output: " + p.stdout[:200]


def compare_pod(rec, i, pod, out, berth_out, divs, pin=None):
    """pin: a list that gets upstream's node when the devices must be compared on it (a tie
    berth broke the other way; see compare_claims)."""
    name = rec["name"]
    pkey = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"

    def div(cause, up, be, detail=""):
        divs.append(Divergence(name, i, pkey, cause, up, be, detail))

    mine = next((e for e in berth_out.get("pods", []) if e.get("pod") == pkey), None)
    if mine is None:
        div("berth-no-entry", out, berth_out)
        return
    b_status, b_node, b_msg = mine.get("status"), mine.get("node"), mine.get("message")
    if out.get("pre_enqueue"):
        # A claim of the pod did not exist: DynamicResources' PreEnqueue kept it out of the
        # queue, and upstream writes no event or condition for that, so there is no message to
        # compare; berth must not schedule it.
        if b_status == "Scheduled":
            div("schedulable-in-berth", {"pre_enqueue": True}, {"node": b_node})
        return
    if out.get("gated"):
        if b_status != "Gated" or b_msg != "Scheduling is blocked due to non-empty scheduling gates":
            div("gated", {"status": "Gated (no event)"}, {"status": b_status, "message": b_msg})
        return
    victims_up = sorted(out.get("victims") or [])
    victims_be = sorted(v["pod"] for v in berth_out.get("preempted", []) or [])
    if victims_up or victims_be:
        if victims_up != victims_be:
            div("preemption-victims", victims_up, victims_be)
        if out.get("nominated") and out["nominated"] != b_node:
            div("preemption-node", out["nominated"], b_node)
        # A preemptor that berth simulate then schedules keeps its first FailedScheduling text
        # in "failedScheduling" ("message" is for pods left unschedulable).
        first_msg = mine.get("failedScheduling", b_msg)
        if out.get("message") != first_msg:
            div("message", out.get("message"), first_msg)
        return
    if out.get("node") is None:
        if b_status == "Scheduled":
            div("schedulable-in-berth", {"message": out.get("message")},
                {"node": b_node, "scores": mine.get("scores")})
        elif out.get("message") != b_msg:
            div("message", out.get("message"), b_msg)
        return
    # Upstream bound it.
    if b_status != "Scheduled":
        div("unschedulable-in-berth", {"node": out["node"]}, {"status": b_status, "message": b_msg,
                                                              "filter_on_node": mine.get("filter", {}).get(out["node"])})
        return
    if out.get("hinted"):
        # OpportunisticBatching's hint: only the node's feasibility is comparable.
        if out["node"] in (mine.get("filter") or {}):
            div("node", out["node"], b_node, "hinted node rejected by berth")
        return
    n_nodes = sum(1 for o in rec["objects"] if o["kind"] == "Node")
    if out.get("feasible") is not None and out["feasible"] < n_nodes and \
            out["feasible"] == num_feasible_nodes_to_find(n_nodes):
        # Upstream's search stopped after numFeasibleNodesToFind nodes, walking from the start
        # index its earlier cycles left behind; a one-pod snapshot cannot reproduce that index.
        # Compared: every node upstream found feasible (its pick included) passes berth's filters.
        PARTIAL.append((rec["name"], i))
        rejected = {n: r for n, r in (mine.get("filter") or {}).items()
                    if n in (out.get("scores") or {}) or n == out["node"]}
        if rejected:
            div("feasible-set", {"feasible_upstream_rejected_by_berth": sorted(rejected)},
                {"reasons": rejected}, "cut search (percentageOfNodesToScore)")
        return
    b_feasible = len(mine.get("scores") or {}) or (1 if b_status == "Scheduled" else 0)
    if out.get("feasible") is not None and out["feasible"] != b_feasible:
        rejected = sorted(mine.get("filter") or {})
        div("feasible-count", out["feasible"], b_feasible,
            f"berth rejected {len(rejected)}: {rejected[:8]}")
    up_scores = out.get("scores")
    b_scores = mine.get("scores") or {}
    if not up_scores:
        if out["node"] != b_node:
            div("node", out["node"], b_node, "single feasible node upstream")
        compare_claims(out, mine, b_node, div, pin)
        return
    w = weights(rec["config"], pod["spec"].get("schedulerName", "default-scheduler"))
    if set(up_scores) != set(b_scores):
        only_b = sorted(set(b_scores) - set(up_scores))
        only_u = sorted(set(up_scores) - set(b_scores))
        div("feasible-set", {"only_upstream": only_u}, {"only_berth": only_b},
            "berth's reasons for upstream-only nodes: "
            + json.dumps({n: (mine.get("filter") or {}).get(n) for n in only_u}))
    seen_causes = set()
    for node, per in sorted(up_scores.items()):
        be = b_scores.get(node)
        if be is None:
            continue
        for plugin in sorted(set(per) | (set(be) - {"total"})):
            up_v = per.get(plugin)
            b_raw = be.get(plugin)
            b_v = None if b_raw is None else b_raw * w.get(plugin, 1)
            if up_v != b_v and plugin not in seen_causes:
                seen_causes.add(plugin)
                cause = ("score-plugin-missing:" + plugin) if b_v is None else (
                    "score-plugin-extra:" + plugin if up_v is None else "score:" + plugin)
                div(cause, {"node": node, "weighted": up_v},
                    {"node": node, "normalized": b_raw, "weighted": b_v},
                    f"weight {w.get(plugin, 1)}")
        up_total = (out.get("totals") or {}).get(node)
        if up_total is not None and up_total != be.get("total") and "total" not in seen_causes:
            seen_causes.add("total")
            div("total", {"node": node, "total": up_total}, {"node": node, "total": be.get("total")})
    if b_scores:
        best = max(v.get("total", 0) for v in b_scores.values())
        tops = sorted(n for n, v in b_scores.items() if v.get("total", 0) == best)
        if out["node"] not in tops:
            div("node", out["node"], tops, f"berth's best total {best}")
    elif out["node"] != b_node:
        div("node", out["node"], b_node)
    compare_claims(out, mine, b_node, div, pin)


def split_claims(mine):
    """berth simulate's "claims" of a pod entry: (the claims the pod names, the devices of the
    claim DynamicResources generated for its DRA-backed extended resources or None). The
    generated claim is told by its name, "<pod>-extended-resources-<suffix>"."""
    prefix = (mine.get("pod") or "").split("/")[-1] + "-extended-resources-"
    named, ext = {}, None
    for k, v in (mine.get("claims") or {}).items():
        if k.startswith(prefix):
            ext = v
        else:
            named[k] = v
    return named, ext


def compare_devices(out, mine, div, detail=""):
    """The claims' devices, then (DRAExtendedResource) the generated claim's devices, which the
    recording keeps as extended_claim (its name is random, the devices are not)."""
    named, ext = split_claims(mine)
    if "claims" in out and named != out["claims"]:
        div("claims", out["claims"], named, detail)
    up_ext = (out.get("extended_claim") or {}).get("results")
    if up_ext != ext:
        div("extended-claim", up_ext, ext, detail)


def compare_claims(out, mine, b_node, div, pin=None):
    """The devices upstream allocated (each claim's status.allocation.devices.results) against
    berth simulate's "claims". Compared when berth picked upstream's node: on a given node the
    allocator is deterministic (pools, slices and devices in a fixed order, first fit with
    backtracking), so the devices must match exactly. When the totals tie and berth broke the
    tie the other way, replay() asks berth again with the pod pinned to upstream's node.
    Compared per result: request, driver, pool, device. Not compared: shareID (a consumable-
    capacity share gets a random UUID from upstream's GenerateShareID, not deterministic) and
    consumedCapacity / bindingConditions (berth simulate does not print them)."""
    if "claims" not in out and "extended_claim" not in out:
        return
    if b_node != out["node"]:
        if pin is not None:
            pin.append(out["node"])  # replay() runs it again pinned to upstream's node
        else:
            CLAIMS_SKIPPED.append(1)
        return
    CLAIMS_COMPARED.append(1)
    compare_devices(out, mine, div)


def pinned(pod, node):
    """pod, required to land on node (matchFields metadata.name ANDed into every required node
    affinity term): the devices the allocator picks on a node do not depend on how the node was
    chosen, so a tie berth broke the other way can still be compared on upstream's node."""
    p = json.loads(json.dumps(pod))
    field = {"key": "metadata.name", "operator": "In", "values": [node]}
    na = p["spec"].setdefault("affinity", {}).setdefault("nodeAffinity", {})
    req = na.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = req.setdefault("nodeSelectorTerms", []) or [{}]
    for t in terms:
        t["matchFields"] = (t.get("matchFields") or []) + [field]
    req["nodeSelectorTerms"] = terms
    return p


# (scenario, pod index) of pods compared partially because upstream's search was cut.
PARTIAL = []
# Bound pods with claims whose devices were compared / not (berth broke a tie the other way).
CLAIMS_COMPARED, CLAIMS_SKIPPED, CLAIMS_PINNED = [], [], []


def num_feasible_nodes_to_find(n_nodes, percentage=0):
    """Upstream's numFeasibleNodesToFind (adaptive percentage, minimum 100 nodes, 5%)."""
    if n_nodes < 100:
        return n_nodes
    if percentage == 0:
        percentage = max(50 - n_nodes // 125, 5)
    return max(n_nodes * percentage // 100, 100)


def replay(rec, berth, workdir):
    divs = []
    count = 0
    for i, pod, out, objs in snapshots(rec):
        count += 1
        tag = f"{rec['name']}-{i:03d}"
        berth_out, err = run_berth(berth, objs, rec["config"], workdir, tag)
        if berth_out is None:
            first = (err or "").splitlines()[0] if err else ""
            cause = "berth-error"
            if "unknown kind" in first or "strict decoding" in first or "unknown field" in first:
                cause = "berth-input"
            divs.append(Divergence(rec["name"], i, f"{pod['metadata']['namespace']}/{pod['metadata']['name']}",
                                   cause, out, {"error": err}))
            continue
        for kind in berth_out.get("x-ignored") or []:
            divs.append(Divergence(rec["name"], i,
                                   f"{pod['metadata']['namespace']}/{pod['metadata']['name']}",
                                   "berth-ignored-kind:" + kind, kind, "ignored by berth simulate"))
        pin = []
        compare_pod(rec, i, pod, out, berth_out, divs, pin)
        if pin:
            # berth's totals tied and it chose another node: compare the devices on upstream's.
            pkey = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
            objs2 = [pinned(o, pin[0]) if o is pod else o for o in objs]
            again, err = run_berth(berth, objs2, rec["config"], workdir, tag + "-pinned")
            mine = next((e for e in (again or {}).get("pods", []) if e.get("pod") == pkey), None)
            if not mine or mine.get("node") != pin[0]:
                CLAIMS_SKIPPED.append(1)
                divs.append(Divergence(rec["name"], i, pkey, "claims-pinned", out.get("claims"),
                                       {"error": err, "entry": mine}))
                continue
            CLAIMS_COMPARED.append(1)
            CLAIMS_PINNED.append(1)

            def div(cause, up, be, detail, name=rec["name"], index=i, key=pkey):
                divs.append(Divergence(name, index, key, cause, up, be, detail))
            compare_devices(out, mine, div, "pinned to upstream's node")
    return count, divs
