#!/usr/bin/env python3
"""Summarizes the berth /metrics snapshots that run.py saves (bench-results/logs/*.metrics):
mean per-pod time of each framework extension point, scheduling algorithm and attempt, mean API
request latency per resource, and the client rate-limiter wait.

    test/bench/e2e/metrics_summary.py bench-results/logs/*.metrics
"""
import sys


def hist(text, name, match=""):
    total = count = 0.0
    for line in text.splitlines():
        if match not in line:
            continue
        if line.startswith(name + "_sum"):
            total += float(line.split()[-1])
        elif line.startswith(name + "_count"):
            count += float(line.split()[-1])
    return total, count


def main(paths):
    print("| run | algorithm µs | Filter µs | Score µs | attempt ms | bind POST ms | "
          "event POST ms | binds | rate-limiter wait s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in paths:
        t = open(p).read()

        def avg(name, match="", scale=1e6):
            s, c = hist(t, name, match)
            return f"{s / c * scale:.1f}" if c else "-"
        bind_s, binds = hist(t, "berth_api_request_duration_seconds", 'resource="pods/binding"')
        wait = next((l.split()[-1] for l in t.splitlines()
                     if l.startswith("berth_api_rate_limiter_wait_seconds_total")), "-")
        name = p.rsplit("/", 1)[-1].removesuffix(".metrics")
        ep = "scheduler_framework_extension_point_duration_seconds"
        cols = [name, avg("scheduler_scheduling_algorithm_duration_seconds"),
                avg(ep, 'extension_point="Filter"'), avg(ep, 'extension_point="Score"'),
                avg("scheduler_scheduling_attempt_duration_seconds", "", 1e3),
                f"{bind_s / binds * 1e3 if binds else 0:.1f}",
                avg("berth_api_request_duration_seconds", 'resource="events"', 1e3),
                f"{binds:.0f}", wait]
        print("| " + " | ".join(cols) + " |")

if __name__ == "__main__":
    main(sys.argv[1:])
