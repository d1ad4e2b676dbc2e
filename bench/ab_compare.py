#!/usr/bin/env python3
"""Compares the mgpu rows of two builds in an A/B made by scripts/gpu_ab.sh.

Usage: python3 bench/ab_compare.py DIR BASE NEW [--worse 0.97]
DIR holds the unpacked ab.tgz. For each mode (full, small) and row, the time of each build is its
minimum over the rounds; the table gives NEW's speed over BASE's (above 1: NEW is faster) and the
rounds' spread, then lists the rows where NEW is slower than --worse in every round.
"""
import argparse
import csv
import glob
import os
from collections import defaultdict


def load(directory, build):
    rows = defaultdict(list)  # (mode, primitive, type, n) -> times (ms), one per round
    for path in glob.glob(os.path.join(directory, f"*_{build}_*_r*.csv")):
        mode = os.path.basename(path).split("_")[0]
        with open(path) as f:
            for r in csv.DictReader(f):
                if r["impl"] == "mgpu":
                    rows[(mode, r["primitive"], r["type"], int(r["n"]))].append(float(r["ms"]))
    return rows


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


if __name__ == "__main__":
    main()
