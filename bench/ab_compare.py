#!/usr/bin/env python3
"""Compares the mgpu rows of two builds in an A/B made by scripts/gpu_ab.sh.

Usage: python3 bench/ab_compare.py DIR BASE NEW [--worse 0.97]
DIR holds the unpacked ab.tgz. For each mode (full, small) and row, the time of each build is its
minimum over the rounds; the table gives NEW's speed over BASE's (above 1: NEW is faster) and the
rounds' spread, then lists the rows where NEW is slower than --worse in every round, and ends with
a control: the same ratio over the baselines' rows, whose code is the same in both builds.
"""
import argparse
import csv
import glob
import math
import os
from collections import defaultdict


def load(directory, build, baselines=False):
    """(mode, primitive, type, n) -> times (ms), one per round: mgpu's rows, or with baselines the
    other implementations' (impl appended to the primitive)."""
    rows = defaultdict(list)
    for path in glob.glob(os.path.join(directory, f"*_{build}_*_r*.csv")):
        mode = os.path.basename(path).split("_")[0]
        with open(path) as f:
            for r in csv.DictReader(f):
                if (r["impl"] != "mgpu") == baselines:
                    name = r["primitive"] + (f" [{r['impl']}]" if baselines else "")
                    rows[(mode, name, r["type"], int(r["n"]))].append(float(r["ms"]))
    return rows


def control(directory, base_name, new_name):
    """The baselines' rows (CUB, Thrust, cuSPARSE: the same code in both builds) as a control: the
    geometric mean of NEW's speed over BASE's per mode and row kind. Far from 1, the two builds'
    processes ran under different conditions (host work, memory layout), and mgpu's rows of that
    kind differ by as much for no fault of the change."""
    base, new = load(directory, base_name, True), load(directory, new_name, True)
    groups = defaultdict(list)
    for key in set(base) & set(new):
        kind = key[1].split(" [")[0].split("/")[1] if "/" in key[1] else ""
        groups[(key[0], kind)].append(math.log(min(base[key]) / min(new[key])))
    for (mode, kind), logs in sorted(groups.items()):
        print(f"control: baselines' {mode} {kind + ' ' if kind else ''}rows, {new_name} over {base_name}: geomean "
              f"{math.exp(sum(logs) / len(logs)):.3f}x over {len(logs)} rows")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--worse", type=float, default=0.97)
    args = parser.parse_args()
    base, new = load(args.directory, args.base), load(args.directory, args.new)
    slower = []
    for key in sorted(set(base) & set(new)):
        b, n = base[key], new[key]
        ratio = min(b) / min(n)
        spread = max(max(b) / min(b), max(n) / min(n)) - 1
        line = f"{key[0]:5s} {key[1]:36s} {key[2]:6s} {key[3]:>11d}  {ratio:6.3f}x  (spread {spread:5.1%})"
        print(line)
        if all(bt / nt < args.worse for bt, nt in zip(sorted(b), sorted(n))):
            slower.append(line)
    print(f"\nrows where {args.new} is slower than {args.worse}x in every round: {len(slower)}")
    print("\n".join(slower))
    print()
    control(args.directory, args.base, args.new)


if __name__ == "__main__":
    main()
