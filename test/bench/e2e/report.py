"""The reports of test/bench/e2e/run.py, from the data it keeps in e2e.json (so --report-only
rebuilds them): e2e.md and one e2e-<nodes>-<mode>.png per size and mode.

write(out, data) returns the names of the files written. data is e2e.json's object: command,
date, wall_seconds, machine, config, phases, results (one per run), steady, bench, failures.
"""
import os
import re
import statistics

import plot

ALL_WORKLOADS = ["SchedulingBasic", "SchedulingNodeAffinity", "TopologySpreading",
                 "SchedulingPodAntiAffinity", "SchedulingWithMixedChurn",
                 "SchedulingWithResourceClaimTemplate", "Gang"]
SHORT = {"SchedulingBasic": "Basic", "SchedulingNodeAffinity": "NodeAffinity",
         "TopologySpreading": "TopologySpread", "SchedulingPodAntiAffinity": "AntiAffinity",
         "SchedulingWithMixedChurn": "MixedChurn", "SchedulingWithResourceClaimTemplate": "DRA",
         "Gang": "Gang"}
SCHEDULERS = ["berth", "upstream", "ceiling"]
COLORS = [(31, 119, 180), (255, 127, 14), (127, 127, 127)]
DRA = "SchedulingWithResourceClaimTemplate"
NAN = float("nan")

MODE_TEXT = {
    "paced": "Paced: the scheduler runs and has bound a warm-up pod; the pods are then created "
             "({threads} client threads) and the clock runs from the first create until every "
             "pod is bound, so pod creation is part of the measured load (on 2 cores it caps "
             "every scheduler). CPU = the scheduler's utime+stime over that window.",
    "backlog": "Backlog: every pod exists before the scheduler starts; the clock runs from the "
               "scheduler's process start (start-up and the initial LIST included) until every "
               "pod is bound; CPU from process start. p50/s skips the first second. "
               "{churn}"}
CHURN_TEXT = {False: "No SchedulingWithMixedChurn (run.py --backlog-churn adds it).",
              True: "SchedulingWithMixedChurn: its churn pods (pods/3) are created already bound "
                    "and deleted during the window, one per three pods bound."}


def _finite(vals):
    return [v for v in vals if v is not None and v == v]


def med(vals):
    v = _finite(vals)
    return statistics.median(v) if v else NAN


def lo(vals):
    v = _finite(vals)
    return min(v) if v else NAN


def hi(vals):
    v = _finite(vals)
    return max(v) if v else NAN


def ratio(a, b):
    return a / b if b and b == b and a == a else NAN


def f0(x):
    return "–" if x != x else f"{x:.0f}"


def f2(x):
    return "–" if x != x else f"{x:.2f}"


def f3(x):
    return "–" if x != x else f"{x:.3f}"


def span(vals, fmt):
    return "–" if lo(vals) != lo(vals) else f"{fmt(lo(vals))}–{fmt(hi(vals))}"


def summarize(results):
    """{(nodes, mode): {workload: {scheduler: figures}}}; medians and min-max over the complete
    runs (every run when none completed)."""
    groups = {}
    for r in results:
        key = (r.get("nodes", 0), r.get("mode", "paced"))
        groups.setdefault(key, {}).setdefault(r["workload"], {}).setdefault(
            r["scheduler"], []).append(r)
    out = {}
    for key, by_w in groups.items():
        out[key] = {}
        for w, by_s in by_w.items():
            out[key][w] = {}
            for s, rs in by_s.items():
                use = [r for r in rs if r["complete"]] or rs

                def col(k, use=use):
                    return [r.get(k, NAN) for r in use]
                m = {"runs": len(rs), "complete": sum(1 for r in rs if r["complete"]),
                     "pods": rs[0]["pods"], "bound": med(col("bound"))}
                for k in ("pods_per_second", "cpu_per_1000", "peak_rss_mb"):
                    m[k] = (med(col(k)), lo(col(k)), hi(col(k)))
                for k in ("seconds", "p50_per_second", "min_per_second", "create_seconds",
                          "apiserver_etcd_cpu_seconds", "wall_seconds", "setup_seconds"):
                    m[k] = med(col(k))
                m["wall_total"] = sum(_finite(r.get("wall_seconds", NAN) for r in rs))
                if w == DRA:
                    m["claims"] = (med(col("claims_allocated")), lo(col("claims_allocated")),
                                   hi(col("claims_allocated")))
                out[key][w][s] = m
    return out


def mode_order(key):
    return key[0], ["paced", "backlog"].index(key[1])


def ordered(ws):
    return [w for w in ALL_WORKLOADS if w in ws]


def upstream_version(cfg):
    if cfg.get("upstream"):
        return cfg["upstream"]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "cluster", "VERSION")) as f:
        return f.read().strip()


def header(data):
    cfg = data.get("config", {})
    mc = data.get("machine", {})
    sizes = cfg.get("sizes") or sorted({r.get("nodes", 0) for r in data["results"]})
    workloads = cfg.get("workloads") or ordered({r["workload"] for r in data["results"]})
    L = [f"# berth vs kube-scheduler {upstream_version(cfg)} vs null binder "
         "(same kube-apiserver)\n"]
    L.append(f"- Command: `{data['command']}`")
    wall = data.get("wall_seconds")
    L.append(f"- Date: {data['date']} UTC" +
             (f"; the invocation took {wall / 60:.1f} min" if wall else "") + ".")
    if mc:
        L.append(f"- Machine: {mc['nproc']} cores ({mc['cpu']}), {mc['memory_gb']} GB, Linux "
                 f"{mc['kernel']}, Python {mc['python']}. Other work on the machine is not "
                 "controlled: compare the ratios and the min–max spread, not single figures.")
        L.append(f"- berth: `{mc['berth_binary']}` (built {mc['berth_binary_mtime']} UTC; "
                 f"its tree at {mc['berth_commit']}); harness at {mc['harness_commit']}.")
        L.append(f"- upstream: {mc['upstream']} (test/cluster), qps/burst 5000/5000 like berth, "
                 "leaderElect false, default percentageOfNodesToScore.")
    if cfg:
        L.append(f"- ceiling: test/bench/nullbinder (Go, client-go), {cfg['binder_workers']} "
                 "workers, " + (f"qps/burst {cfg['binder_qps']:g}/{cfg['binder_burst']}."
                                if cfg["binder_qps"] > 0 else "no client rate limit."))
        L.append(f"- Repeats: paced {cfg['repeats']}, backlog {cfg['backlog_repeats']} per "
                 "workload and scheduler, the scheduler order reversed on every other repeat; "
                 "the tables give the median and the min–max of the complete runs.")
        L.append("- Pods per run (fewer than --pods where a workload is slow or capped: "
                 "SchedulingPodAntiAffinity places at most one pod per node):\n")
        L.append("| workload | " + " | ".join(f"{n} nodes" for n in sizes) + " |")
        L.append("|---|" + "---:|" * len(sizes))
        for w in ordered(workloads):
            L.append(f"| {w} | " + " | ".join(str(cfg["pods"].get(f"{n}/{w}", "–"))
                                              for n in sizes) + " |")
        L.append("")
        L.append(f"- Nodes: scheduler_perf's makeBaseNode (4 cpu / 32Gi / 110 pods, Ready), "
                 f"created size by size ({', '.join(map(str, sizes))}); pods as "
                 "test/bench/workloads.cc (100m / 500Mi).")
    if DRA in workloads:
        L.append("- SchedulingWithResourceClaimTemplate (DRA): DeviceClass test-class "
                 "(device.driver == \"test-driver.cdi.k8s.io\"), one ResourceSlice of 10 devices "
                 "per node (present for this workload only), one ResourceClaimTemplate per "
                 "namespace. No kube-controller-manager runs, so run.py does the resourceclaim "
                 "controller's part for every pod: it creates the claim `pod-<i>-resource` "
                 "(controlled by the pod) and sets the pod's status.resourceClaimStatuses. "
                 "**Backlog: before the clock starts. Paced: inside the measured window**, as "
                 "part of each pod's creation (pod + claim + status = 3 requests per pod). The "
                 "null binder binds these pods without allocating their claims (its claims "
                 "column is 0), so its DRA rate is only the API server's binding ceiling.")
    if cfg:
        L.append(f"- Between runs the run's namespace is removed "
                 + ("directly in etcd (range deletes of its pods, events, claims; < 1 s)"
                    if cfg.get("cleanup") == "etcd" else "through the API server")
                 + "; the next scheduler starts once the API server lists it empty.")
    L.append("- pods/s = bound pods / (last bind − clock start); p50/s = median of the "
             "per-second bound counts (whole seconds); CPU s/1000 pods = scheduler utime+stime "
             "per 1000 bound pods; peak RSS = VmHWM of the scheduler process; apiserver+etcd CPU "
             "over the window; create s (paced) = until the last create returned; wall s = the "
             "run with its set-up and cleanup.")
    return L


def mode_section(key, by_w, cfg, out):
    nodes, mode = key
    L = [f"\n## {nodes} nodes, {mode}\n",
         MODE_TEXT[mode].format(threads=cfg.get("create_threads", 4),
                               churn=CHURN_TEXT[bool(cfg.get("backlog_churn"))]) + "\n"]
    paced = mode == "paced"
    L.append("| workload | scheduler | pods | complete | seconds | pods/s | min–max | p50/s | "
             "CPU s/1000 pods | min–max | peak RSS MB | min–max | apiserver+etcd CPU s | "
             + ("create s | " if paced else "") + "wall s |")
    L.append("|---|---|" + "---:|" * (13 if paced else 12))
    for w in ordered(by_w):
        for s in SCHEDULERS:
            m = by_w[w].get(s)
            if not m:
                continue
            p, c, r = m["pods_per_second"], m["cpu_per_1000"], m["peak_rss_mb"]
            L.append(f"| {w} | {s} | {m['pods']} | {m['complete']}/{m['runs']} | "
                     f"{f2(m['seconds'])} | **{f0(p[0])}** | {f0(p[1])}–{f0(p[2])} | "
                     f"{f0(m['p50_per_second'])} | {f3(c[0])} | {f3(c[1])}–{f3(c[2])} | "
                     f"{f0(r[0])} | {f0(r[1])}–{f0(r[2])} | "
                     f"{f2(m['apiserver_etcd_cpu_seconds'])} | "
                     + (f"{f2(m['create_seconds'])} | " if paced else "")
                     + f"{f0(m['wall_seconds'])} |")
    if DRA in by_w:
        parts = []
        for s in SCHEDULERS:
            m = by_w[DRA].get(s)
            if m and "claims" in m:
                parts.append(f"{s} {f0(m['claims'][1])}–{f0(m['claims'][2])} of {m['pods']}")
        L.append(f"\nDRA claims with status.allocation after the run (min–max): "
                 f"{'; '.join(parts)}.")
    L.append(f"\n### Ratios, {nodes} nodes, {mode} (medians)\n")
    L.append("| workload | pods/s berth/upstream | berth/ceiling | upstream/ceiling | "
             "CPU per pod berth/upstream | peak RSS berth/upstream |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for w in ordered(by_w):
        b, u, c = (by_w[w].get(s) for s in SCHEDULERS)
        if not b:
            continue

        def g(m, k):
            return m[k][0] if m else NAN
        L.append(f"| {w} | {f2(ratio(g(b, 'pods_per_second'), g(u, 'pods_per_second')))} | "
                 f"{f2(ratio(g(b, 'pods_per_second'), g(c, 'pods_per_second')))} | "
                 f"{f2(ratio(g(u, 'pods_per_second'), g(c, 'pods_per_second')))} | "
                 f"{f2(ratio(g(b, 'cpu_per_1000'), g(u, 'cpu_per_1000')))} | "
                 f"{f2(ratio(g(b, 'peak_rss_mb'), g(u, 'peak_rss_mb')))} |")
    png = f"e2e-{nodes}-{mode}.png"
    ws = ordered(by_w)
    panels = []
    for k, label in (("pods_per_second", "pods/s (median, min-max)"),
                     ("cpu_per_1000", "CPU s per 1000 pods"), ("peak_rss_mb", "peak RSS MB")):
        panels.append((label, {(SHORT[w], s): by_w[w][s][k] for w in ws for s in by_w[w]}))
    plot.bar_chart(os.path.join(out, png), f"{nodes} nodes, {mode}: berth vs kube-scheduler "
                   f"{upstream_version(cfg)} vs null binder", panels, [SHORT[w] for w in ws],
                   SCHEDULERS, COLORS)
    L.append(f"\n![{nodes} nodes, {mode}]({png})")
    return L, png


def f1(x):
    return "–" if x != x else f"{x:.1f}"


def steady_section(steady, cfg):
    """Idle VmRSS per (nodes, bound pods) and the increments per 1000 nodes / 10000 pods."""
    pts = {}
    for r in steady:
        pts.setdefault((r["nodes"], r["bound_pods"]), {}).setdefault(r["scheduler"], []).append(r)
    L = ["\n## Steady-state RSS (idle, after sync)\n",
         "Each scheduler is started on the cluster as it is (no pending pods, no ResourceSlices), "
         "binds one warm-up pod (synced), and its VmRSS is sampled every second until at least "
         f"{cfg.get('steady_wait', 10):g} s have passed and the last 5 samples are within 2% "
         "(or 1 MB); the last sample counts. Bound pods: created with spec.nodeName set "
         "(nobody schedules them), as a cluster's running pods.\n",
         "| cluster | berth VmRSS MB | upstream VmRSS MB | berth/upstream | berth VmHWM | "
         "upstream VmHWM | settled (s after sync) |",
         "|---|---:|---:|---:|---:|---:|---|"]
    rss = {}
    for (nodes, k) in sorted(pts):
        by = pts[(nodes, k)]
        b = med(r["rss_mb"] for r in by.get("berth", []))
        u = med(r["rss_mb"] for r in by.get("upstream", []))
        rss[(nodes, k)] = (b, u)
        settle = "; ".join(
            f"{s} {med(r['settle_seconds'] for r in by[s]):.0f}"
            + ("" if all(r["stable"] for r in by[s]) else " (not stable)")
            for s in ("berth", "upstream") if s in by)
        L.append(f"| {nodes} nodes, {k} bound pods | {f1(b)} | {f1(u)} | {f2(ratio(b, u))} | "
                 f"{f0(med(r['peak_rss_mb'] for r in by.get('berth', [])))} | "
                 f"{f0(med(r['peak_rss_mb'] for r in by.get('upstream', [])))} | {settle} |")
    empty = sorted(n for (n, k) in rss if k == 0)
    lines = []
    if len(empty) >= 2:
        n0, n1 = empty[0], empty[-1]
        d = [(rss[(n1, 0)][i] - rss[(n0, 0)][i]) / (n1 - n0) * 1000 for i in (0, 1)]
        lines.append(f"per 1000 nodes (from {n0} to {n1} nodes, no pods): berth "
                     f"{d[0]:+.1f} MB, upstream {d[1]:+.1f} MB")
    for (n, k) in sorted(rss):
        if k and (n, 0) in rss:
            d = [(rss[(n, k)][i] - rss[(n, 0)][i]) / k * 10000 for i in (0, 1)]
            lines.append(f"per 10000 bound pods (at {n} nodes, 0 → {k} pods): berth "
                         f"{d[0]:+.1f} MB, upstream {d[1]:+.1f} MB")
    if lines:
        L.append("\nIncrements: " + "; ".join(lines) + ".")
    return L


def bench_section(bench):
    L = ["\n## In-process berth-bench (same sizes, median of 3)\n",
         "| nodes | workload | berth-bench workload | pods | scheduled | pods/s | peak RSS MB |",
         "|---:|---|---|---:|---:|---:|---:|"]
    for m in bench.values():
        L.append(f"| {m.get('nodes', '')} | {m.get('workload', '')} | {m['bench_workload']} | "
                 f"{m['pods']} | {m['scheduled']:.0f} | {m['pods_per_second']:.0f} | "
                 f"{m['peak_rss_mb']:.0f} |")
    L.append("\n(in-process: no API server, the same node and pod templates; Gang = Gang3; "
             "SchedulingWithMixedChurn has no in-process equivalent.)")
    return L


def timing_section(data, summary):
    L = ["\n## Where the time went\n"]
    phases = data.get("phases") or []
    if phases:
        L.append("Set-up: " + "; ".join(f"{w} {s:.1f} s" for w, s in phases) + ".")
    if data.get("bench_seconds"):
        L.append(f"berth-bench: {data['bench_seconds']:.0f} s.")
    L.append("\n| nodes | mode | berth s | upstream s | ceiling s | runs |")
    L.append("|---:|---|---:|---:|---:|---:|")
    for key in sorted(summary, key=mode_order):
        tot = {s: sum(m[s]["wall_total"] for m in summary[key].values() if s in m)
               for s in SCHEDULERS}
        runs = sum(m[s]["runs"] for m in summary[key].values() for s in m)
        L.append(f"| {key[0]} | {key[1]} | {tot['berth']:.0f} | {tot['upstream']:.0f} | "
                 f"{tot['ceiling']:.0f} | {runs} |")
    steady = data.get("steady") or []
    if steady:
        L.append(f"\nSteady-state measurements: {sum(r['wall_seconds'] for r in steady):.0f} s "
                 f"({len(steady)} points).")
    return L


def upgrade(data):
    """e2e.json written before --nodes took a list has one size: its command line's (or the
    default then, 1000)."""
    m = re.search(r"--nodes[ =](\d+)", data.get("command", ""))
    for r in data["results"]:
        r.setdefault("nodes", int(m.group(1)) if m else 1000)


def write(out, data):
    upgrade(data)
    summary = summarize(data["results"])
    cfg = data.get("config", {})
    L = header(data)
    written = ["e2e.md"]
    for key in sorted(summary, key=mode_order):
        sec, png = mode_section(key, summary[key], cfg, out)
        L += sec
        written.append(png)
    if data.get("steady"):
        L += steady_section(data["steady"], cfg)
    if data.get("bench"):
        L += bench_section(data["bench"])
    fails = data.get("failures") or []
    if fails:
        L.append("\n## Failed runs\n")
        for f in fails:
            what = "/".join(str(f.get(k)) for k in ("nodes", "mode", "workload", "scheduler",
                                                     "repeat") if k in f)
            L.append(f"- {what}: `{f['error']}`")
    L += timing_section(data, summary)
    L.append("")
    with open(os.path.join(out, "e2e.md"), "w") as f:
        f.write("\n".join(L))
    return written
