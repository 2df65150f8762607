#!/usr/bin/env python3
"""The simulator rows of docs/benchmarks.md's "Targets, measured", from the committed results.

Reads benchmarks/results/simulation.csv (the fixed grid) and random-2026.csv (the held-out set
of seed 2026) and prints, per target, how many rows meet it and which miss; then the real-server
cells of the latest run, from the table under "## Real servers" in docs/benchmarks.md. Run from
the repository root: python3 benchmarks/targets.py
"""
import csv
import os
from collections import defaultdict

DEFAULT = "Headway burstThenSpread(0.2) (default)"
STORE = DEFAULT + " + shared store (1 ms)"
QUOTA_STYLES = ("STRUCTURED", "DRAFT02")
SILENT_STYLES = ("RETRY_AFTER", "NONE")


def meets(r):
    """The simulator's own per-style target (HeldOutReport.meetsTarget)."""
    g, t = float(r["goodput_pct"]), float(r["throttled_pct"])
    if r["style"] in SILENT_STYLES:
        return t <= 3.0 and g >= 90.0
    if r["style"] == "X_EPOCH":
        return g >= 95.0 and t <= 0.5
    return g >= 98.0 and t <= 0.1


def label(r):
    return "%s %s %sx%s (%.1f%% / %.2f%%)" % (r["model"].lower().replace("_", " "),
        r["style"], r["instances"], r["callers"], float(r["goodput_pct"]),
        float(r["throttled_pct"]))


def tally(name, rows, ok):
    met = [r for r in rows if ok(r)]
    missed = [r for r in rows if not ok(r)]
    print("%s: %d of %d" % (name, len(met), len(rows)))
    for r in missed:
        print("  missed: " + label(r))
    return met, missed


def best_count(rows, key):
    by = defaultdict(list)
    for r in rows:
        by[key(r)].append(r)
    n = 0
    for rs in by.values():
        top = max(float(r["score"]) for r in rs)
        n += any(r["client"] == DEFAULT and float(r["score"]) >= top - 1e-9 for r in rs)
    return n, len(by)


ADVERTISERS = ("express-legacy", "express-draft7", "express-draft8", "fastify", "koa")


def interop(page):
    """The cells of the first table under '## Real servers': (server, client, 429 %, goodput %)."""
    text = open(page).read()
    lines = text[text.index("## Real servers"):].splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("| server |"))
    clients = [c.strip() for c in lines[start].strip("|").split("|")][1:]
    cells = []
    for l in lines[start + 2:]:
        if not l.startswith("|"):
            break
        cols = [c.strip() for c in l.strip("|").split("|")]
        for client, cell in zip(clients, cols[1:]):
            pct429, good = cell.split("/")[:2]
            cells.append((cols[0], client, float(pct429.strip().rstrip("%")),
                float(good.split("%")[0].strip())))
    return cells


def main():
    d = "benchmarks/results"
    grid = list(csv.DictReader(open(os.path.join(d, "simulation.csv"))))
    held = list(csv.DictReader(open(os.path.join(d, "random-2026.csv"))))
    one = [r for r in grid if r["instances"] == "1" and r["client"] == DEFAULT]
    mine = [r for r in held if r["client"] == DEFAULT]

    print("== Retry-After only and no headers, one instance (<= 3% 429s, >= 90% goodput)")
    tally("grid", [r for r in one if r["style"] in SILENT_STYLES], meets)
    silent = [r for r in mine if r["style"] in SILENT_STYLES]
    met = sum(meets(r) for r in silent)
    print("seed 2026: %d of %d, mean 429 share %.2f%%, mean goodput %.1f%%" % (met, len(silent),
        sum(float(r["throttled_pct"]) for r in silent) / len(silent),
        sum(float(r["goodput_pct"]) for r in silent) / len(silent)))

    print("== X-RateLimit-* without a window, one instance (>= 95% goodput, <= 0.5% 429s)")
    tally("grid", [r for r in one if r["style"] == "X_EPOCH"], meets)
    xs = [r for r in mine if r["style"] == "X_EPOCH"]
    print("seed 2026: %d of %d" % (sum(meets(r) for r in xs), len(xs)))

    print("== full quota headers, one instance (>= 98% goodput, <= 0.1% 429s)")
    tally("grid", [r for r in one if r["style"] in QUOTA_STYLES], meets)
    qs = [r for r in mine if r["style"] in QUOTA_STYLES]
    print("seed 2026: %d of %d" % (sum(meets(r) for r in qs), len(qs)))

    print("== best score among all compared clients (ties count as best)")
    n, of = best_count(held, lambda r: r["seed"])
    print("seed 2026: %d of %d (%.0f%%)" % (n, of, 100.0 * n / of))
    n, of = best_count([r for r in grid if r["instances"] == "1"],
        lambda r: (r["model"], r["style"], r["callers"]))
    print("grid, one instance: %d of %d" % (n, of))

    shared = [r for r in grid if r["client"] == STORE and r["instances"] != "1"]
    print("== several instances through a store, quota headers (<= 0.1% 429s, >= 97% goodput)")
    tally("grid", [r for r in shared if r["style"] not in SILENT_STYLES],
        lambda r: float(r["throttled_pct"]) <= 0.1 and float(r["goodput_pct"]) >= 97.0)
    print("== several instances through a store, Retry-After only (<= 3% 429s)")
    tally("grid", [r for r in shared if r["style"] == "RETRY_AFTER"],
        lambda r: float(r["throttled_pct"]) <= 3.0)

    cells = interop("docs/benchmarks.md")
    adv = [c for c in cells if c[0] in ADVERTISERS]
    rest = [c for c in cells if c[0] not in ADVERTISERS]
    print("== real servers, advertisers (>= 90% of the allowance)")
    ok = [c for c in adv if c[3] >= 90]
    print("%d of %d cells; missed: %s" % (len(ok), len(adv), sorted({c[0] for c in adv
        if c[3] < 90})))
    print("== real servers, half-silent and silent (<= 3% 429s, >= 90% of the allowance)")
    ok = [c for c in rest if c[2] <= 3 and c[3] >= 90]
    print("%d of %d cells" % (len(ok), len(rest)))
    for server in sorted({c[0] for c in rest}):
        mine = [c for c in rest if c[0] == server]
        print("  %s: %d of %d, 429s %.1f-%.1f%%, allowance %.0f-%.0f%%" % (server,
            sum(c[2] <= 3 and c[3] >= 90 for c in mine), len(mine), min(c[2] for c in mine),
            max(c[2] for c in mine), min(c[3] for c in mine), max(c[3] for c in mine)))


if __name__ == "__main__":
    main()
