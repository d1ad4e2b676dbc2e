#!/usr/bin/env python3
"""Throughput-versus-size charts from mgpu_bench CSV files.

usage: plot.py CSV [CSV ...] -o OUT_DIR

Writes OUT_DIR/<primitive>_<type>.png for every primitive and element type in the CSVs: GB/s
against n (log2 axis), one line per implementation, with the run's memcpy ceiling dashed. When
the CSVs hold several runs (device, date), each run gets its own lines, labelled with both.
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

COLUMNS = ["date", "device", "primitive", "type", "n", "impl", "ms", "gelems_per_s", "gb_per_s",
           "pct_memcpy", "speedup_vs_cccl"]


def read_rows(paths):
    rows = []
    for path in paths:
        if not os.path.isfile(path):
            sys.exit(f"plot.py: no such file: {path}")
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"plot.py: {path} is not an mgpu_bench CSV (missing columns: {', '.join(missing)})")
            for r in reader:
                r["n"] = int(r["n"])
                for c in ("ms", "gb_per_s", "pct_memcpy"):
                    r[c] = float(r[c])
                rows.append(r)
    return rows


def main():
    parser = argparse.ArgumentParser(description="Plot mgpu_bench CSV files: GB/s against n.")
    parser.add_argument("csv", nargs="+", help="CSV files written by mgpu_bench --csv")
    parser.add_argument("-o", "--out-dir", required=True, help="directory for the PNG files (created if missing)")
    args = parser.parse_args()

    # Imported here so that --help works without it, and a missing install says what to do.
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        sys.exit("plot.py needs matplotlib: pip install matplotlib")

    rows = read_rows(args.csv)
    if not rows:
        sys.exit("plot.py: the CSV files hold no rows")
    runs = sorted({(r["device"], r["date"]) for r in rows})
    several_runs = len(runs) > 1

    charts = defaultdict(lambda: defaultdict(list))  # (primitive, type) -> line label -> rows
    ceilings = defaultdict(dict)                     # (primitive, type) -> run -> memcpy GB/s
    for r in rows:
        run = (r["device"], r["date"])
        label = f"{r['impl']} ({r['device']}, {r['date']})" if several_runs else r["impl"]
        charts[(r["primitive"], r["type"])][label].append(r)
        if r["pct_memcpy"] > 0:  # gb_per_s is pct_memcpy percent of the run's memcpy rate
            ceilings[(r["primitive"], r["type"])][run] = r["gb_per_s"] * 100.0 / r["pct_memcpy"]

    os.makedirs(args.out_dir, exist_ok=True)
    for (primitive, type_), lines in sorted(charts.items()):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for label, points in sorted(lines.items()):
            points.sort(key=lambda r: r["n"])
            ax.plot([r["n"] for r in points], [r["gb_per_s"] for r in points], marker="o", label=label)
        for run, gbps in sorted(ceilings[(primitive, type_)].items()):
            name = f"memcpy ({run[0]}, {run[1]})" if several_runs else "memcpy"
            ax.axhline(gbps, linestyle="--", linewidth=1, color="gray")
            ax.annotate(name, (0.01, gbps), xycoords=("axes fraction", "data"), va="bottom", fontsize=8,
                        color="gray")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"$2^{{{int(round(math.log2(x)))}}}$"))
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s (fewest bytes moved)")
        top = max([r["gb_per_s"] for pts in lines.values() for r in pts] + list(ceilings[(primitive, type_)].values()))
        ax.set_ylim(0, top * 1.1)  # room for the memcpy label
        title = f"{primitive}, {type_}"
        if not several_runs:
            title += f" ({runs[0][0]})"
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(args.out_dir, f"{primitive}_{type_}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        print(path)


if __name__ == "__main__":
    main()
