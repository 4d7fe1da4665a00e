"""Writes the hand-written scenarios in cases/ (one JSON file per known cause). Run it after
editing; the JSON files are what the recorder reads (`run --record --cases`).

Each case has the generator's scenario format (see gen.py) plus "about": what it pins down.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(os.path.dirname(HERE), "cases")
S = "conf-scheduler"


def config(**profile):
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [dict({"schedulerName": S}, **profile)]}


def node(name, cpu="4", mem="8Gi", zone=None, taints=None, labels=None, status=None, pods="110"):
    lab = {"kubernetes.io/hostname": name}
    if zone:
        lab["topology.kubernetes.io/zone"] = zone
    lab.update(labels or {})
    alloc = {"cpu": cpu, "memory": mem, "pods": pods}
    st = {"capacity": dict(alloc), "allocatable": dict(alloc),
          "conditions": [{"type": "Ready", "status": "True"}]}
    st.update(status or {})
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": lab},
            "spec": {"taints": taints} if taints else {}, "status": st}


def pod(name, cpu=None, mem=None, node=None, ns="default", labels=None, owner=None, **spec):
    req = {}
    if cpu:
        req["cpu"] = cpu
    if mem:
        req["memory"] = mem
    c = {"name": "c", "image": "registry.example/web:1"}
    if req:
        c["resources"] = {"requests": req}
    sp = {"schedulerName": S, "terminationGracePeriodSeconds": 0, "containers": [c]}
    if node:
        sp["nodeName"] = node
    sp.update(spec)
    meta = {"name": name, "namespace": ns, "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [owner]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": sp}


def owner_ref(kind, name, ns="default", api="apps/v1", missing=False):
    uid = "00000000-dead-4000-8000-000000000001" if missing else f"x-uid-of:{kind}/{ns}/{name}"
    return {"apiVersion": api, "kind": kind, "name": name, "uid": uid, "controller": True}


PRIORITIES = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"},
     "value": 100},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
     "value": 1000},
]


# ---- Dynamic Resource Allocation (resource.k8s.io/v1) ----
DRIVER = "gpu.example.com"
RES = "resource.k8s.io/v1"


def device_class(name=DRIVER, extra=None):
    sel = [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]
    if extra:
        sel.append({"cel": {"expression": extra}})
    return {"apiVersion": RES, "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": sel}}


def gpu(name, model="a100", mem="80Gi", taints=None):
    d = {"name": name, "attributes": {"model": {"string": model}},
         "capacity": {"memory": {"value": mem}}}
    if taints:
        d["taints"] = taints
    return d


def rslice(node, devices, pool=None, count=1, name=None, all_nodes=False, node_selector=None):
    """A ResourceSlice of the driver: node-local (nodeName) unless all_nodes / node_selector."""
    pool = pool or node
    spec = {"driver": DRIVER, "pool": {"name": pool, "generation": 1, "resourceSliceCount": count},
            "devices": devices}
    if all_nodes:
        spec["allNodes"] = True
    elif node_selector:
        spec["nodeSelector"] = node_selector
    else:
        spec["nodeName"] = node
    return {"apiVersion": RES, "kind": "ResourceSlice",
            "metadata": {"name": name or f"{pool}-{DRIVER}"}, "spec": spec}


def req(name, cls=DRIVER, count=None, mode=None, selectors=None, tolerations=None):
    ex = {"deviceClassName": cls}
    if count:
        ex["count"] = count
    if mode:
        ex["allocationMode"] = mode
    if selectors:
        ex["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if tolerations:
        ex["tolerations"] = tolerations
    return {"name": name, "exactly": ex}


def first_available(name, subs):
    """subs: [(subrequest name, count)] in order of preference."""
    return {"name": name, "firstAvailable": [{"name": n, "deviceClassName": DRIVER, "count": c}
                                             for n, c in subs]}


def claim_spec(requests, match_attribute=None):
    devices = {"requests": requests}
    if match_attribute:
        devices["constraints"] = [{"matchAttribute": match_attribute}]
    return {"devices": devices}


def template(name, requests, match_attribute=None, ns="default"):
    return {"apiVersion": RES, "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"spec": claim_spec(requests, match_attribute)}}


def rclaim(name, requests, match_attribute=None, ns="default"):
    return {"apiVersion": RES, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": ns},
            "spec": claim_spec(requests, match_attribute)}


def dra_pod(name, templates=(), claims=(), cpu="100m", **kw):
    """A pending pod with one resourceClaims entry per template (the recorder makes the claim, as
    the resource claim controller would) and per named claim."""
    rc = [{"name": f"t{k}", "resourceClaimTemplateName": t} for k, t in enumerate(templates)]
    rc += [{"name": f"c{k}", "resourceClaimName": c} for k, c in enumerate(claims)]
    return pod(name, cpu, resourceClaims=rc, **kw)


MEM40 = f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0'


def dra_cases():
    out = {}
    out["dra-one-gpu"] = {
        "about": "one GPU per pod from a template until the devices run out (cannot allocate)",
        "config": config(),
        "objects": [node("n1"), node("n2"), node("n3"), device_class(),
                    rslice("n1", [gpu("gpu-0"), gpu("gpu-1")]), rslice("n2", [gpu("gpu-0")]),
                    template("one", [req("gpu")])],
        "pending": [dra_pod(f"p{k}", ["one"]) for k in range(1, 6)]}
    out["dra-match-attribute"] = {
        "about": "two GPUs with matchAttribute model: only nodes with two of one model",
        "config": config(),
        "objects": [node("n1"), node("n2"), node("n3"), device_class(),
                    rslice("n1", [gpu("gpu-0", "a100"), gpu("gpu-1", "h100")]),
                    rslice("n2", [gpu("gpu-0", "l4"), gpu("gpu-1", "a100"), gpu("gpu-2", "l4")]),
                    rslice("n3", [gpu("gpu-0", "h100"), gpu("gpu-1", "h100"),
                                  gpu("gpu-2", "a100"), gpu("gpu-3", "a100")]),
                    template("pair", [req("gpus", count=2)], f"{DRIVER}/model")],
        "pending": [dra_pod(f"p{k}", ["pair"]) for k in range(1, 5)]}
    out["dra-selectors"] = {
        "about": "DeviceClass CEL selector (model) and a request selector (memory >= 40Gi)",
        "config": config(),
        "objects": [node("n1"), node("n2"), node("n3"),
                    device_class("big-gpu", f'device.attributes["{DRIVER}"].model != "l4"'),
                    rslice("n1", [gpu("gpu-0", "l4", "24Gi"), gpu("gpu-1", "a100", "40Gi")]),
                    rslice("n2", [gpu("gpu-0", "l4", "48Gi"), gpu("gpu-1", "a100", "20Gi")]),
                    rslice("n3", [gpu("gpu-0", "h100", "80Gi"), gpu("gpu-1", "a100", "80Gi")]),
                    template("big", [req("gpu", cls="big-gpu", selectors=[MEM40])])],
        "pending": [dra_pod(f"p{k}", ["big"]) for k in range(1, 5)]}
    out["dra-first-available"] = {
        "about": "firstAvailable: two GPUs, else one; nodes with one GPU get the second "
                 "subrequest and a lower DynamicResources score",
        "config": config(),
        "objects": [node("n1"), node("n2"), node("n3"), node("n4"), device_class(),
                    rslice("n1", [gpu("gpu-0"), gpu("gpu-1")]), rslice("n2", [gpu("gpu-0")]),
                    rslice("n3", [gpu("gpu-0"), gpu("gpu-1"), gpu("gpu-2")]),
                    rslice("n4", [gpu("gpu-0")]),
                    template("pref", [first_available("gpu", [("two", 2), ("one", 1)])])],
        "pending": [dra_pod(f"p{k}", ["pref"]) for k in range(1, 6)]}
    out["dra-shared-claim"] = {
        "about": "one named claim shared by pods: the second goes where it is allocated; a third "
                 "does not fit there (resourceclaim not available on the other nodes)",
        "config": config(),
        "objects": [node("n1"), node("n2"), node("n3"), device_class(),
                    rslice("n2", [gpu("gpu-0")]), rslice("n3", [gpu("gpu-0"), gpu("gpu-1")]),
                    rclaim("shared", [req("gpu")])],
        "pending": [dra_pod("a", claims=["shared"]), dra_pod("b", claims=["shared"]),
                    dra_pod("c", claims=["shared"], cpu="3900m")]}
    out["dra-missing"] = {
        "about": "a claim that does not exist yet (PreEnqueue), a missing DeviceClass (named "
                 "claim and template)",
        "config": config(),
        "objects": [node("n1"), node("n2"), device_class(), rslice("n1", [gpu("gpu-0")]),
                    rclaim("no-class", [req("gpu", cls="absent.example.com")]),
                    template("no-class-t", [req("gpu", cls="absent.example.com")])],
        "pending": [dra_pod("missing-claim", claims=["not-yet"]),
                    dra_pod("missing-class", claims=["no-class"]),
                    dra_pod("missing-class-t", ["no-class-t"]),
                    dra_pod("ok", claims=[])]}
    taint = [{"key": "maintenance", "value": "true", "effect": "NoSchedule"}]
    tol = [{"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}]
    out["dra-device-taints"] = {
        "about": "NoSchedule device taints: skipped without a toleration, used with one",
        "config": config(),
        "objects": [node("n1"), node("n2"), device_class(),
                    rslice("n1", [gpu("gpu-0", taints=taint), gpu("gpu-1", taints=taint)]),
                    rslice("n2", [gpu("gpu-0", taints=taint), gpu("gpu-1")]),
                    template("plain", [req("gpu")]),
                    template("tolerant", [req("gpu", tolerations=tol)])],
        "pending": [dra_pod("plain-1", ["plain"]), dra_pod("plain-2", ["plain"]),
                    dra_pod("tolerant-1", ["tolerant"]), dra_pod("tolerant-2", ["tolerant"]),
                    dra_pod("tolerant-3", ["tolerant"])]}
    out["dra-allocation-all"] = {
        "about": "allocationMode All: every matching device of a node, none on a node without",
        "config": config(),
        "objects": [node("n1"), node("n2"), node("n3"), device_class(),
                    rslice("n1", [gpu("gpu-0"), gpu("gpu-1"), gpu("gpu-2", "l4", "24Gi")]),
                    rslice("n2", [gpu("gpu-0", "l4", "24Gi")]),
                    template("all", [req("gpus", mode="All")]),
                    template("all-big", [req("gpus", mode="All", selectors=[MEM40])])],
        "pending": [dra_pod("all-big-1", ["all-big"]), dra_pod("all-1", ["all"]),
                    dra_pod("all-2", ["all"])]}
    out["dra-network-attached"] = {
        "about": "network-attached pools: allNodes, and a nodeSelector (zone)",
        "config": config(),
        "objects": [node("n1", zone="a"), node("n2", zone="a"), node("n3", zone="b"),
                    device_class(),
                    rslice("", [gpu("gpu-0"), gpu("gpu-1")], pool="fabric", all_nodes=True),
                    rslice("", [gpu("gpu-0", "h100")], pool="zone-a",
                           node_selector={"nodeSelectorTerms": [{"matchExpressions": [
                               {"key": "topology.kubernetes.io/zone", "operator": "In",
                                "values": ["a"]}]}]}),
                    template("any", [req("gpu")]),
                    template("h100", [req("gpu", selectors=[
                        f'device.attributes["{DRIVER}"].model == "h100"'])])],
        "pending": [dra_pod("h100-1", ["h100"]), dra_pod("any-1", ["any"]),
                    dra_pod("any-2", ["any"]), dra_pod("any-3", ["any"]),
                    dra_pod("h100-2", ["h100"])]}
    out["dra-incomplete-pool"] = {
        "about": "a pool whose resourceSliceCount is larger than the slices published",
        "config": config(),
        "objects": [node("n1"), node("n2"), device_class(),
                    rslice("n1", [gpu("gpu-0"), gpu("gpu-1")], count=2, name="n1-part-0"),
                    rslice("n2", [gpu("gpu-0")]),
                    template("one", [req("gpu")]), template("all", [req("gpus", mode="All")])],
        "pending": [dra_pod("all-1", ["all"]), dra_pod("one-1", ["one"]),
                    dra_pod("one-2", ["one"]), dra_pod("one-3", ["one"])]}
    def vgpu(name, model, mem, version):
        d = gpu(name, model, mem)
        d["attributes"]["driverVersion"] = {"version": version}
        return d
    out["dra-multi"] = {
        "about": "a claim with two requests, a pod with a template claim and a named claim, a "
                 "semver selector, and a selector with a CEL runtime error (missing attribute)",
        "config": config(),
        "objects": [node("n1"), node("n2"), node("n3"), device_class(),
                    rslice("n1", [vgpu("gpu-0", "a100", "80Gi", "1.2.0"),
                                  vgpu("gpu-1", "l4", "24Gi", "1.2.0")]),
                    rslice("n2", [vgpu("gpu-0", "l4", "24Gi", "0.9.1"),
                                  vgpu("gpu-1", "a100", "40Gi", "2.0.0"),
                                  vgpu("gpu-2", "l4", "24Gi", "2.0.0")]),
                    rslice("n3", [gpu("gpu-0", "h100", "80Gi")]),
                    template("two-kinds", [
                        req("big", selectors=[MEM40]),
                        req("small", selectors=[f'device.attributes["{DRIVER}"].model == "l4"'])]),
                    template("new-driver", [req("gpu", selectors=[
                        f'device.attributes["{DRIVER}"].driverVersion.isGreaterThan('
                        f'semver("1.0.0"))'])]),
                    # Errs on n3's h100 only (&& short-circuits elsewhere): with one erring
                    # node the message is deterministic (with several, upstream reports the
                    # error of whichever parallel Filter call failed first).
                    template("typo", [req("gpu", selectors=[
                        f'device.attributes["{DRIVER}"].model == "h100" && '
                        f'device.attributes["{DRIVER}"].modle == "a100"'])]),
                    rclaim("extra", [req("gpu", selectors=[
                        f'device.attributes["{DRIVER}"].model == "l4"'])])],
        "pending": [dra_pod("typo-1", ["typo"]), dra_pod("two-kinds-1", ["two-kinds"]),
                    dra_pod("both-1", ["new-driver"], claims=["extra"]),
                    dra_pod("new-driver-1", ["new-driver"]),
                    dra_pod("two-kinds-2", ["two-kinds"])]}
    gen2 = rslice("n1", [gpu("gpu-9")], name="n1-gen-2")
    gen2["spec"]["pool"]["generation"] = 2
    out["dra-pool-generations"] = {
        "about": "a pool republished at generation 2: the generation-1 slice's devices are stale",
        "config": config(),
        "objects": [node("n1"), node("n2"), device_class(),
                    rslice("n1", [gpu("gpu-0"), gpu("gpu-1")], name="n1-gen-1"), gen2,
                    rslice("n2", [gpu("gpu-0")]), template("one", [req("gpu")])],
        "pending": [dra_pod(f"p{k}", ["one"]) for k in range(1, 5)]}

    def part(name, mem):
        return {"name": name, "attributes": {"model": {"string": "a100"}},
                "capacity": {"memory": {"value": mem}},
                "consumesCounters": [{"counterSet": "gpu-0-counters",
                                      "counters": {"memory": {"value": mem}}}]}
    counters = rslice("n1", [], count=2, name="n1-counters")
    del counters["spec"]["devices"]
    counters["spec"]["sharedCounters"] = [{"name": "gpu-0-counters",
                                           "counters": {"memory": {"value": "80Gi"}}}]
    out["dra-partitionable"] = {
        "about": "partitionable devices: a whole GPU and two halves share one counter set",
        "config": config(),
        "objects": [node("n1"), node("n2"), device_class(), counters,
                    rslice("n1", [part("gpu-0-full", "80Gi"), part("gpu-0-half-0", "40Gi"),
                                  part("gpu-0-half-1", "40Gi")], count=2, name="n1-devices"),
                    rslice("n2", [gpu("gpu-0", "a100", "40Gi")]),
                    template("half", [req("gpu", selectors=[
                        f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) == 0'])]),
                    template("full", [req("gpu", selectors=[
                        f'device.capacity["{DRIVER}"].memory.compareTo(quantity("80Gi")) == 0'])])],
        "pending": [dra_pod("half-1", ["half"]), dra_pod("full-1", ["full"]),
                    dra_pod("half-2", ["half"]), dra_pod("half-3", ["half"]),
                    dra_pod("half-4", ["half"])]}
    nic = {"name": "nic-0", "allowMultipleAllocations": True,
           "attributes": {"model": {"string": "nic"}},
           "capacity": {"bandwidth": {"value": "10Gi", "requestPolicy": {
               "default": "1Gi", "validRange": {"min": "1Gi"}}}}}
    bw = template("bw", [req("nic")])
    bw["spec"]["spec"]["devices"]["requests"][0]["exactly"]["capacity"] = {
        "requests": {"bandwidth": "4Gi"}}
    out["dra-consumable-capacity"] = {
        "about": "consumable capacity: a NIC with allowMultipleAllocations shared by claims "
                 "until its bandwidth is used up; then a request without capacity (the "
                 "requestPolicy default, 1Gi)",
        "config": config(),
        "objects": [node("n1"), node("n2"), device_class(), rslice("n1", [nic]), bw,
                    template("nic-default", [req("nic")])],
        "pending": [dra_pod(f"p{k}", ["bw"]) for k in range(1, 5)]
        + [dra_pod("default-share", ["nic-default"])]}
    def rule(name, taint, pool=None, device=None):
        sel = {"driver": DRIVER}
        if pool:
            sel["pool"] = pool
        if device:
            sel["device"] = device
        return {"apiVersion": RES, "kind": "DeviceTaintRule", "metadata": {"name": name},
                "spec": {"deviceSelector": sel, "taint": taint}}
    broken = [{"key": "broken", "operator": "Exists"}]
    out["dra-device-taint-rule"] = {
        "about": "DeviceTaintRules: one device tainted NoSchedule, a whole pool NoExecute; "
                 "a toleration of one taint only",
        "config": config(),
        "objects": [node("n1"), node("n2"), device_class(),
                    rslice("n1", [gpu("gpu-0"), gpu("gpu-1")]), rslice("n2", [gpu("gpu-0")]),
                    rule("n1-gpu-0", {"key": "broken", "effect": "NoSchedule"}, "n1", "gpu-0"),
                    rule("n2-all", {"key": "drain", "value": "now", "effect": "NoExecute"}, "n2"),
                    template("plain", [req("gpu")]),
                    template("tolerant", [req("gpu", tolerations=broken)])],
        "pending": [dra_pod("plain-1", ["plain"]), dra_pod("plain-2", ["plain"]),
                    dra_pod("tolerant-1", ["tolerant"]), dra_pod("tolerant-2", ["tolerant"])]}
    def sub(name, count=1, model=None):
        r = {"name": name, "deviceClassName": DRIVER, "count": count}
        if model:
            r["selectors"] = [{"cel": {"expression":
                                       f'device.attributes["{DRIVER}"].model == "{model}"'}}]
        return r
    pref3 = template("pref3", [
        {"name": "main", "firstAvailable": [sub("two", 2, "a100"), sub("one", 1)]},
        {"name": "side", "firstAvailable": [sub("h", 1, "h100"), sub("l", 1, "l4"),
                                            sub("f", 1, "fabric")]}])
    shared = rclaim("pref-shared", [{"name": "link", "firstAvailable": [
        sub("big", 4, "fabric"), sub("small", 1, "fabric")]}])
    out["dra-scores"] = {
        "about": "DynamicResources scores: two firstAvailable requests in one claim, and a "
                 "shared claim already allocated (network-attached) counted on every node",
        "config": config(),
        "objects": [node("n1"), node("n2"), node("n3"), node("n4"), device_class(),
                    rslice("n1", [gpu("gpu-0"), gpu("gpu-1"), gpu("gpu-2", "h100")]),
                    rslice("n2", [gpu("gpu-0"), gpu("gpu-1"), gpu("gpu-2", "l4", "24Gi")]),
                    rslice("n3", [gpu("gpu-0", "h100"), gpu("gpu-1", "l4", "24Gi")]),
                    rslice("n4", [gpu("gpu-0", "l4", "24Gi")]),
                    rslice("", [gpu("link-0", "fabric"), gpu("link-1", "fabric"),
                                gpu("link-2", "fabric")], pool="fabric", all_nodes=True),
                    pref3, shared],
        "pending": [dra_pod("s1", claims=["pref-shared"]),
                    dra_pod("s2", ["pref3"], claims=["pref-shared"]),
                    dra_pod("s3", ["pref3"]), dra_pod("s4", ["pref3"]),
                    dra_pod("s5", ["pref3"], claims=["pref-shared"])]}
    def ext_pod(name, n="1"):
        p = pod(name)
        p["spec"]["containers"][0]["resources"] = {"requests": {"example.com/gpu": n},
                                                  "limits": {"example.com/gpu": n}}
        return p
    ext_class = device_class()
    ext_class["spec"]["extendedResourceName"] = "example.com/gpu"
    out["dra-extended-resource"] = {
        "about": "DRAExtendedResource (GA in v1.37): a DeviceClass with extendedResourceName; "
                 "pods asking for example.com/gpu get devices on nodes that do not advertise it, "
                 "n3 advertises it (device plugin)",
        "config": config(),
        "objects": [node("n1"), node("n2"),
                    node("n3", status={"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110",
                                                    "example.com/gpu": "1"},
                                       "allocatable": {"cpu": "4", "memory": "8Gi",
                                                       "pods": "110", "example.com/gpu": "1"}}),
                    ext_class, rslice("n1", [gpu("gpu-0"), gpu("gpu-1")])],
        "pending": [ext_pod("e1"), ext_pod("e2", "2"), ext_pod("e3"), ext_pod("e4"),
                    ext_pod("e5")]}
    rack = rslice("", [dict(gpu("rack-0", "rack"), nodeName="n2"),
                       dict(gpu("rack-1", "rack"), allNodes=True)], pool="rack")
    del rack["spec"]["nodeName"]
    rack["spec"]["perDeviceNodeSelection"] = True

    def model(m):
        return [f'device.attributes["{DRIVER}"].model == "{m}"']
    out["dra-admin-and-node-selection"] = {
        "about": "adminAccess (namespace labelled) on a device in use; per-device node selection "
                 "(nodeName, allNodes) (a slice nodeSelector with two terms is refused by the API "
                 "server)",
        "config": config(),
        "namespaces": {"default": {"resource.kubernetes.io/admin-access": "true"}},
        "objects": [node("n1", zone="a"), node("n2", zone="b"), node("n3", zone="c"),
                    device_class(), rslice("n1", [gpu("gpu-0")]), rack,
                    template("one", [req("gpu", selectors=model("a100"))]),
                    template("admin", [dict(req("gpu", selectors=model("a100")),
                                            exactly=dict(req("gpu", selectors=model("a100"))
                                                         ["exactly"], adminAccess=True))]),
                    template("rack", [req("gpu", selectors=model("rack"))])],
        "pending": [dra_pod("one-1", ["one"]), dra_pod("admin-1", ["admin"]),
                    dra_pod("one-2", ["one"]), dra_pod("rack-1", ["rack"]),
                    dra_pod("rack-2", ["rack"]), dra_pod("rack-3", ["rack"])]}
    return out


def cases():
    out = dra_cases()
    # BalancedAllocation: the score of the pod's improvement of the balance (v1.37 semantics).
    out["balanced-allocation"] = {
        "about": "NodeResourcesBalancedAllocation scores with uneven cpu/memory use",
        "config": config(),
        "objects": [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), node("n3", "8", "4Gi"),
                    pod("r1", "3", "1Gi", node="n1"), pod("r2", "500m", "6Gi", node="n2"),
                    pod("r3", "1", "1Gi", node="n3")],
        "pending": [pod("p1", "1", "512Mi"), pod("p2", "200m", "3Gi"), pod("p3", "2", "2Gi"),
                    pod("p4")],
    }
    out["taints-two-kinds"] = {
        "about": "TaintToleration reason with two different untolerated taints",
        "config": config(),
        "objects": [node("n1", taints=[{"key": "a", "value": "x", "effect": "NoSchedule"}]),
                    node("n2", taints=[{"key": "b", "effect": "NoExecute"}]),
                    node("n3", taints=[{"key": "c", "effect": "PreferNoSchedule"}],
                         labels={"only": "me"})],
        "pending": [pod("p1", "100m", nodeSelector={"missing": "label"}),
                    pod("p2", "100m", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "only", "operator": "DoesNotExist"}]}]}}}),
                    pod("p3", "100m")],
    }
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-rwop"},
          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOncePod"],
                   "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "sc",
                   "csi": {"driver": "csi.example.com", "volumeHandle": "pv-rwop"},
                   "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                "namespace": "default", "name": "rwop"}},
          "x-status": {"phase": "Bound"}}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": "rwop", "namespace": "default",
                        "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
           "spec": {"accessModes": ["ReadWriteOncePod"], "storageClassName": "sc",
                    "volumeName": "pv-rwop", "resources": {"requests": {"storage": "1Gi"}}},
           "x-status": {"phase": "Bound", "accessModes": ["ReadWriteOncePod"],
                        "capacity": {"storage": "1Gi"}}}
    vol = [{"name": "v", "persistentVolumeClaim": {"claimName": "rwop"}}]
    out["volume-restrictions-rwop"] = {
        "about": "VolumeRestrictions: a ReadWriteOncePod claim already in use",
        "config": config(),
        "objects": [{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                     "metadata": {"name": "sc"}, "provisioner": "csi.example.com"},
                    node("n1"), node("n2"), pv, pvc,
                    pod("user", "100m", node="n1", volumes=vol)],
        "pending": [pod("p1", "100m", volumes=vol)],
    }
    # Default spreading by owner kind: existing pods of app=web sit in zone-a; the spreading
    # selector exists only for owners the informers know (Service/RC/RS/StatefulSet).
    web = {"app": "web"}
    tmpl = {"metadata": {"labels": web},
            "spec": {"containers": [{"name": "c", "image": "registry.example/web:1"}]}}
    owners = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
         "spec": {"replicas": 0, "selector": {"matchLabels": web}, "template": tmpl}},
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "sts", "namespace": "default"},
         "spec": {"replicas": 0, "serviceName": "sts", "selector": {"matchLabels": web}, "template": tmpl}},
        {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc", "namespace": "default"},
         "spec": {"replicas": 0, "selector": web, "template": tmpl}},
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds", "namespace": "default"},
         "spec": {"selector": {"matchLabels": web}, "template": tmpl}},
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
         "spec": {"suspend": True, "template": {"metadata": {"labels": web},
                                                 "spec": {"restartPolicy": "Never",
                                                          "containers": tmpl["spec"]["containers"]}}}},
    ]
    nodes = [node(f"n{i}", zone=z) for i, z in enumerate(["zone-a", "zone-a", "zone-b", "zone-c"])]
    running = [pod("web-0", "100m", node="n0", labels=web), pod("web-1", "100m", node="n1", labels=web),
               pod("web-2", "100m", node="n0", labels=web)]
    pend = [
        pod("by-rs", "100m", labels=web, owner=owner_ref("ReplicaSet", "rs")),
        pod("by-sts", "100m", labels=web, owner=owner_ref("StatefulSet", "sts")),
        pod("by-rc", "100m", labels=web, owner=owner_ref("ReplicationController", "rc", api="v1")),
        pod("by-ds", "100m", labels=web, owner=owner_ref("DaemonSet", "ds")),
        pod("by-job", "100m", labels=web, owner=owner_ref("Job", "job", api="batch/v1")),
        pod("by-missing-rs", "100m", labels=web, owner=owner_ref("ReplicaSet", "gone", missing=True)),
        pod("no-owner", "100m", labels=web),
    ]
    out["default-spreading-owners"] = {
        "about": "System default spreading for pods owned by RS/StatefulSet/RC/DaemonSet/Job/missing RS/none",
        "config": config(), "objects": nodes + owners + running, "pending": pend}
    out["default-spreading-service"] = {
        "about": "System default spreading through a Service selecting the pods",
        "config": config(),
        "objects": nodes + running + [{"apiVersion": "v1", "kind": "Service",
                                       "metadata": {"name": "web", "namespace": "default"},
                                       "spec": {"selector": web, "ports": [{"port": 80}]}}],
        "pending": [pod("svc-1", "100m", labels=web), pod("svc-2", "100m", labels=web),
                    pod("svc-3", "100m", labels=web)]}
    plr = pod("plr", resources={"requests": {"cpu": "3", "memory": "2Gi"}})
    plr2 = pod("plr-small", "100m", "64Mi", resources={"requests": {"cpu": "1", "memory": "1Gi"}})
    out["pod-level-resources"] = {
        "about": "Pod-level spec.resources count instead of the containers' sum",
        "config": config(),
        "objects": [node("n1", "4", "8Gi"), node("n2", "2", "8Gi"),
                    pod("run-plr", "100m", node="n1", resources={"requests": {"cpu": "2", "memory": "1Gi"}})],
        "pending": [plr, plr2, pod("after", "1500m", "1Gi")]}
    resized = pod("resized", "500m", "1Gi", node="n1")
    resized["x-status"] = {"phase": "Running", "containerStatuses": [{
        "name": "c", "image": "registry.example/web:1", "imageID": "", "ready": True,
        "restartCount": 0, "started": True, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
        "allocatedResources": {"cpu": "3", "memory": "1Gi"},
        "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}}],
        "conditions": [{"type": "PodResizeInProgress", "status": "True"}]}
    out["resized-running-pod"] = {
        "about": "An in-place resized running pod counts max(spec, status) resources",
        "config": config(),
        "objects": [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), resized],
        "pending": [pod("p1", "1", "1Gi"), pod("p2", "1", "1Gi"), pod("p3", "2", "1Gi")]}
    out["scheduling-gates"] = {
        "about": "A gated pod: no FailedScheduling event upstream; berth reports Gated",
        "config": config(),
        "objects": [node("n1")],
        "pending": [pod("gated", "100m", schedulingGates=[{"name": "example.com/wait"}]),
                    pod("free", "100m")]}
    out["preemption"] = {
        "about": "A high-priority pod preempts lower-priority pods; the first message names the node",
        "config": config(),
        "objects": PRIORITIES + [node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
                                 pod("v1", "1500m", node="n1", priorityClassName="low"),
                                 pod("v2", "1200m", node="n2", priorityClassName="low"),
                                 pod("v3", "500m", node="n2", priorityClassName="low")],
        "pending": [pod("preemptor", "1800m", priorityClassName="high")]}
    out["default-profile"] = {
        "about": "The v1.37 default profile (NodeDeclaredFeatures and every default plugin), no pluginConfig",
        "config": {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                   "profiles": [{"schedulerName": S}]},
        "objects": [node("n1", status={"declaredFeatures": ["InPlacePodVerticalScaling"]}),
                    node("n2", zone="zone-a"), node("n3", "2", "2Gi", zone="zone-b")],
        "pending": [pod("p1", "100m"), pod("p2", "1", "1Gi"), pod("p3", "3", "1Gi"),
                    pod("p4", "100m", hostNetwork=True,
                        containers=[{"name": "c", "image": "registry.example/web:1",
                                     "ports": [{"containerPort": 80, "hostPort": 80}]}]),
                    pod("p5", "100m", hostNetwork=True,
                        containers=[{"name": "c", "image": "registry.example/web:1",
                                     "ports": [{"containerPort": 80, "hostPort": 80}]}])]}
    return out


def main():
    os.makedirs(CASES, exist_ok=True)
    for name, sc in cases().items():
        sc["name"] = "case-" + name
        sc.setdefault("namespaces", {})
        with open(os.path.join(CASES, name + ".json"), "w") as f:
            json.dump(sc, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
