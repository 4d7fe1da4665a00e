#!/usr/bin/env python3
"""Issue 18: speed-ups must not change where pods go.

Runs berth-bench on fixed workloads (fixed sizes, the engine's fixed tie-break seed) with
--placements and compares every pod's node with the placements recorded in
test/bench/decisions/<workload>-<nodes>x<pods>.txt.gz, which were written by the engine before
the issue-18 speed-ups (commit 6cb4b0d). Any difference fails, naming the first pods that moved.

    check_decisions.py BERTH_BENCH            compare
    check_decisions.py BERTH_BENCH --record   rewrite the recorded placements (only when a
                                              placement change is intended: say why in the commit)
"""
import gzip
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "decisions")
# (workload, nodes, pods): big enough that adaptive node sampling (percentageOfNodesToScore),
# the rotating start index, ties and full nodes all come into play.
CASES = [
    ("SchedulingBasic", 1000, 3000),
    ("SchedulingNodeAffinity", 1000, 2000),
    ("TopologySpreading", 1000, 3000),
    ("SchedulingPodAntiAffinity", 600, 700),
    ("SchedulingWithResourceClaimTemplate", 200, 400),
    ("PreemptionBasic", 200, 100),
    ("Gang3", 500, 600),
]


def run(bench, workload, nodes, pods):
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as out:
        proc = subprocess.run([bench, "--workload", workload, "--nodes", str(nodes), "--pods",
                               str(pods), "--placements", out.name],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = out.read().splitlines()
    if not lines:
        sys.exit(f"{workload}: berth-bench wrote no placements (exit {proc.returncode}): "
                 f"{proc.stderr.strip()}")
    return lines


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bench, record = sys.argv[1], "--record" in sys.argv[2:]
    failed = []
    for workload, nodes, pods in CASES:
        path = os.path.join(DIR, f"{workload}-{nodes}x{pods}.txt.gz")
        got = run(bench, workload, nodes, pods)
        if record:
            with gzip.open(path, "wt") as f:
                f.write("\n".join(got) + "\n")
            print(f"recorded {path} ({len(got)} pods)")
            continue
        with gzip.open(path, "rt") as f:
            want = f.read().splitlines()
        moved = [(w, g) for w, g in zip(want, got) if w != g]
        if len(want) != len(got):
            failed.append(f"{workload}: {len(got)} pods, recorded {len(want)}")
        elif moved:
            first = "; ".join(f"{w!r} is now {g.split(' ', 1)[1]!r}" for w, g in moved[:3])
            failed.append(f"{workload} {nodes}x{pods}: {len(moved)} of {len(want)} pods placed "
                          f"differently, first: {first}")
        else:
            print(f"{workload} {nodes}x{pods}: {len(got)} placements as recorded")
    if failed:
        print("\n".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
