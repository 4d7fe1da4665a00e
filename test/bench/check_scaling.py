#!/usr/bin/env python3
"""Regression check for issue 15's defect 2 (quadratic object parsing) and issue 26's item 8
(quadratic splitting of a watch stream into lines), from benchmark figures rather than a timed
test: runs parse-bench at 16,384 and 200,000 keys (or 64-byte units of one watch event) and fails
when the time grows much faster than the size. Linear parsing gives a ratio near 12 (200000/16384), a
quadratic one 150 or more (12.2 squared). Machine speed cancels out of the ratio; the limit (6x
the linear ratio) leaves room for cache effects and noise: today the ratios are 14-27.

    check_scaling.py PARSE_BENCH
"""
import json
import statistics
import subprocess
import sys

SMALL, LARGE = 16384, 200000
LIMIT = 6 * LARGE / SMALL


def main():
    out = subprocess.run(
        [sys.argv[1], f"--benchmark_filter=/({SMALL}|{LARGE})$", "--benchmark_format=json",
         "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=false"],
        check=True, capture_output=True, text=True).stdout
    runs = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        family, n = b["run_name"].rsplit("/", 1)
        runs.setdefault(family, {}).setdefault(int(n), []).append(b["real_time"])
    failed = False
    for family, by_n in sorted(runs.items()):
        small, large = statistics.median(by_n[SMALL]), statistics.median(by_n[LARGE])
        ratio = large / small
        verdict = "ok" if ratio <= LIMIT else "FAIL (faster than linear growth allows)"
        print(f"{family}: {SMALL} keys {small:.2f} ms, {LARGE} keys {large:.2f} ms, "
              f"ratio {ratio:.1f} (linear {LARGE / SMALL:.1f}, limit {LIMIT:.1f}) {verdict}")
        failed |= ratio > LIMIT
    if len(runs) < 4:
        print(f"expected 4 benchmark families, got {sorted(runs)}")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
