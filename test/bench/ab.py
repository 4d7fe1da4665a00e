#!/usr/bin/env python3
"""Alternates two berth-bench binaries (e.g. before and after a change) on issue 18's in-process
targets and prints a markdown table of medians with min-max (RESULTS.md, "In process").

    test/bench/ab.py BEFORE_BENCH AFTER_BENCH [--reps 5]

Runs alternate (before, after, then after, before, ...) so that a noisy minute hits both.
"""
import argparse
import json
import statistics
import subprocess

CASES = [("SchedulingBasic", 5000, 10000), ("TopologySpreading", 5000, 10000),
         ("SchedulingPodAntiAffinity", 5000, 5000)]


def run(exe, workload, nodes, pods):
    out = subprocess.run([exe, "--workload", workload, "--nodes", str(nodes), "--pods", str(pods)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads([ln for ln in out.splitlines() if ln.startswith("{")][-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    builds = [("before", args.before), ("after", args.after)]
    print("| workload | nodes | pods | build | pods/s median | min–max | peak RSS MB |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for workload, nodes, pods in CASES:
        got = {name: [] for name, _ in builds}
        for rep in range(args.reps):
            for name, exe in (builds if rep % 2 == 0 else list(reversed(builds))):
                got[name].append(run(exe, workload, nodes, pods))
        for name, _ in builds:
            rate = [r["pods_per_second"] for r in got[name]]
            rss = statistics.median(r["peak_rss_mb"] for r in got[name])
            print(f"| {workload} | {nodes} | {pods} | {name} | {statistics.median(rate):,.0f} | "
                  f"{min(rate):,.0f}–{max(rate):,.0f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
