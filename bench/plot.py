#!/usr/bin/env python3
"""Throughput-versus-size charts from mgpu_bench CSV files.

usage: plot.py CSV [CSV ...] -o OUT_DIR [--families | --small] [--markdown FILE]

Writes OUT_DIR/<primitive>_<type>.png for every primitive and element type in the CSVs: GB/s
against n (log2 axis), one line per implementation, with the run's memcpy ceiling dashed. When
the CSVs hold several runs (device, date), each run gets its own lines, labelled with both.

--small plots a run of `mgpu_bench --small` instead (OUT_DIR/small_<family>.png): per family, a
panel per primitive with the per-call time in microseconds against n, solid for calls back to back
and dashed for CUDA graph replays; with --markdown, the per-call times and ratios as tables.

--families writes one chart per family instead (OUT_DIR/family_<name>.png, one run): a panel per
primitive and type measured at several sizes (GB/s against n), and one panel of bars for the
primitives measured at one size (their profiles side by side). --markdown FILE writes, per family,
the table of ratios (baseline time / mgpu time) and percent of memcpy for every row.
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


# The families of docs/: a primitive belongs to the family that names it, exactly or (names ending
# in "_") by prefix.
FAMILIES = [
    ("reduce and scan", ("reduce", "exclusive_scan", "inclusive_scan")),
    ("merge", ("merge_keys", "merge_pairs")),
    ("sorts", ("mergesort_", "radix_sort_", "locality_sort_")),
    ("segmented sort", ("segsort_",)),
    ("bulk remove and insert", ("bulk_",)),
    ("search, load balance, intervals, joins", ("sorted_search", "sorted_equal_range", "lbs_", "interval_expand_", "interval_move_", "join_")),
    ("set operations", ("set_",)),
    ("segmented reduce, reduce by key, SpMV", ("segreduce_", "reduce_by_key_", "spmv_")),
    ("compaction, histogram, segmented scan", ("compact_", "histogram_", "segscan_")),
]

# One colour per implementation in every family chart.
COLOURS = {"mgpu": "tab:blue", "cccl": "tab:orange", "thrust": "tab:green", "cub_composition": "tab:red",
           "cusparse": "tab:purple", "mgpu_no_plan": "tab:cyan", "mgpu_device_form": "tab:cyan",
           "mgpu_mergesort": "tab:brown"}


def family_of(primitive):
    for name, names in FAMILIES:
        if any(primitive == n or (n.endswith("_") and primitive.startswith(n)) for n in names):
            return name
    return "other"


def slug(name):
    return "".join(c if c.isalnum() else "_" for c in name.split(",")[0]).strip("_")


def baseline_of(rows, r):
    """The implementation the mgpu row's ratio is taken against (its speedup is 1 in the same case)."""
    for o in rows:
        if (o["primitive"], o["type"], o["n"]) == (r["primitive"], r["type"], r["n"]) and o["impl"] != "mgpu" \
                and abs(float(o["speedup_vs_cccl"]) - 1.0) < 1e-9:
            return o
    return None


def family_tables(rows):
    """Family name -> its markdown table of ratios (one row per mgpu measurement)."""
    tables = {}
    for name, _ in FAMILIES + [("other", ())]:
        mine = [r for r in rows if r["impl"] == "mgpu" and family_of(r["primitive"]) == name]
        if not mine:
            continue
        lines = ["| primitive | type | n | mgpu ms | baseline | baseline ms | ratio | % of memcpy (mgpu / baseline) |",
                 "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in mine:
            b = baseline_of(rows, r)
            k = int(round(math.log2(r["n"]))) if r["n"] > 0 else 0
            n = f"2^{k}" if 1 << k == r["n"] else str(r["n"])
            if b:
                lines.append(f"| {r['primitive']} | {r['type']} | {n} | {r['ms']:.4f} | {b['impl']} | {b['ms']:.4f} | "
                             f"{float(r['speedup_vs_cccl']):.2f}x | {r['pct_memcpy']:.0f}% / {b['pct_memcpy']:.0f}% |")
            else:
                lines.append(f"| {r['primitive']} | {r['type']} | {n} | {r['ms']:.4f} | none | | | {r['pct_memcpy']:.0f}% |")
        tables[name] = "\n".join(lines) + "\n"
    return tables


def write_markdown(rows, path):
    with open(path, "w") as out:
        for name, table in family_tables(rows).items():
            out.write(f"### {name}\n\n{table}\n")
    print(path)


def update_doc(rows, path):
    """Replaces, in the page at `path`, the first table of ratios under each family's heading."""
    text = open(path).read().split("\n")
    tables = family_tables(rows)
    out, i, heading = [], 0, None
    while i < len(text):
        line = text[i]
        if line.startswith("### "):
            heading = line[4:].strip()
        if heading in tables and line.startswith("| primitive | type | n |"):
            out.extend(tables.pop(heading).rstrip("\n").split("\n"))
            while i < len(text) and text[i].startswith("|"):
                i += 1
            continue
        out.append(line)
        i += 1
    open(path, "w").write("\n".join(out))
    if tables:
        print(f"{path}: no table to replace for " + ", ".join(tables))
    print(path)


def save_figure(plt, fig, title, path, dpi, top):
    """A family figure's title, layout (panels below `top`), file and close."""
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, top))
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    print(path)


def plot_families(rows, out_dir, plt, FuncFormatter):
    device = rows[0]["device"]
    ceiling = next((r["gb_per_s"] * 100.0 / r["pct_memcpy"] for r in rows if r["pct_memcpy"] > 0), None)
    for name, _ in FAMILIES:
        mine = [r for r in rows if family_of(r["primitive"]) == name]
        if not mine:
            continue
        cases = defaultdict(lambda: defaultdict(list))  # (primitive, type) -> impl -> rows
        for r in mine:
            cases[(r["primitive"], r["type"])][r["impl"]].append(r)
        swept = [c for c in cases if len({r["n"] for impl in cases[c].values() for r in impl}) > 1]
        single = [c for c in cases if c not in swept]
        cols = 3 if len(swept) >= 3 else max(1, len(swept))
        swept_rows = (len(swept) + cols - 1) // cols
        bar_width_in = max(5.2 * cols, 0.45 * len(single) + 2)
        fig = plt.figure(figsize=(max(5.2 * cols, bar_width_in if single else 0), 3.6 * swept_rows + (4.2 if single else 0)))
        grid = fig.add_gridspec(swept_rows + (1 if single else 0), cols)
        for i, case in enumerate(swept):
            ax = fig.add_subplot(grid[i // cols, i % cols])
            for impl, pts in sorted(cases[case].items()):
                pts.sort(key=lambda r: r["n"])
                ax.plot([r["n"] for r in pts], [r["gb_per_s"] for r in pts], marker="o", label=impl,
                        color=COLOURS.get(impl))
            if ceiling:
                ax.axhline(ceiling, linestyle="--", linewidth=1, color="gray", label="memcpy")
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"$2^{{{int(round(math.log2(x)))}}}$"))
            ax.set_ylim(bottom=0)
            ax.set_title(f"{case[0]}, {case[1]}", fontsize=9)
            ax.set_ylabel("GB/s", fontsize=8)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        if single:
            ax = fig.add_subplot(grid[swept_rows, :])
            impls = sorted({impl for c in single for impl in cases[c]})
            width = 0.8 / len(impls)
            for i, impl in enumerate(impls):
                xs = [j + i * width for j, c in enumerate(single) if impl in cases[c]]
                ys = [cases[c][impl][0]["gb_per_s"] for c in single if impl in cases[c]]
                ax.bar(xs, ys, width=width, label=impl, color=COLOURS.get(impl))
            if ceiling:
                ax.axhline(ceiling, linestyle="--", linewidth=1, color="gray", label="memcpy")
            ax.set_xticks([j + 0.4 - width / 2 for j in range(len(single))])
            ax.set_xticklabels([c[0] if c[1] == "int32" else f"{c[0]} ({c[1]})" for c in single], rotation=60,
                               ha="right", fontsize=7)
            ax.set_yscale("log")
            ax.set_ylabel("GB/s (log)", fontsize=8)
            sizes = sorted({r["n"] for c in single for impl in cases[c].values() for r in impl})
            ax.set_title("measured at one size: n = " + ", ".join(f"2^{int(round(math.log2(n)))}" for n in sizes),
                         fontsize=9)
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=7, ncol=len(impls) + 1)
        save_figure(plt, fig, f"{name} ({device})", os.path.join(out_dir, f"family_{slug(name)}.png"), 100, 0.97)


def small_cases(rows):
    """(primitive, type) -> mode ("calls" or "graph") -> impl -> rows, from the rows of --small."""
    cases = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        primitive, _, mode = r["primitive"].rpartition("/")
        if mode in ("calls", "graph"):
            cases[(primitive, r["type"])][mode][r["impl"]].append(r)
    return cases


def write_small_markdown(rows, path):
    cases = small_cases(rows)
    with open(path, "w") as out:
        for name, _ in FAMILIES + [("other", ())]:
            mine = sorted(c for c in cases if family_of(c[0]) == name)
            if not mine:
                continue
            out.write(f"### {name}\n\n| primitive | n | calls: mgpu us | baseline us | ratio | graph: mgpu us | "
                      f"baseline us | ratio |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
            for case in mine:
                sizes = sorted({r["n"] for impls in cases[case].values() for pts in impls.values() for r in pts})
                for n in sizes:
                    cells = []
                    for mode in ("calls", "graph"):
                        mgpu = [r for r in cases[case][mode].get("mgpu", []) if r["n"] == n]
                        base = [r for impl, pts in cases[case][mode].items() if impl != "mgpu" for r in pts
                                if r["n"] == n]
                        if mgpu and base:
                            cells += [f"{mgpu[0]['ms'] * 1e3:.1f}", f"{base[0]['ms'] * 1e3:.1f} ({base[0]['impl']})",
                                      f"{base[0]['ms'] / mgpu[0]['ms']:.2f}x"]
                        else:
                            cells += ["-", "-", "no row"]
                    out.write(f"| {case[0]} | {n:,} | " + " | ".join(cells) + " |\n")
            out.write("\n")
    print(path)


# The rows of the small-inputs issue (issue 20) and docs/performance.md's table of them.
ISSUE20_ROWS = [("segmented sort, segments of 32", "segsort_fixed_32"),
                ("segmented sort, segments of 16", "segsort_fixed_16"),
                ("segmented sort, segments of 96", "segsort_fixed_96"), ("mergesort", "mergesort_keys"),
                ("radix sort", "radix_sort_keys"), ("merge", "merge_keys"), ("reduce", "reduce"),
                ("exclusive scan", "exclusive_scan")]


def write_issue20_markdown(rows, path):
    """The issue-20 table from a --small run: per size, calls and graph replays, mgpu vs CCCL."""
    cases = small_cases(rows)
    sizes = sorted({r["n"] for r in rows})
    with open(path, "w") as out:
        out.write("| call | " + " | ".join(f"n = 10^{int(round(math.log10(n)))}" for n in sizes) + " |\n")
        out.write("| --- |" + " --- |" * len(sizes) + "\n")
        for label, primitive in ISSUE20_ROWS:
            cells = []
            for n in sizes:
                parts = []
                for mode in ("calls", "graph"):
                    impls = cases[(primitive, "int32")][mode]
                    mgpu = [r for r in impls.get("mgpu", []) if r["n"] == n]
                    base = [r for r in impls.get("cccl", []) if r["n"] == n]
                    if mgpu and base:
                        m, b = mgpu[0]["ms"] * 1e3, base[0]["ms"] * 1e3
                        parts.append(f"{mode} {m:.1f} vs {b:.1f} us ({b / m:.2f}x)")
                    elif mgpu and mode == "graph":  # CCCL's call could not be captured
                        parts.append(f"graph {mgpu[0]['ms'] * 1e3:.1f} us (CCCL's call not capturable)")
                cells.append("; ".join(parts) if parts else "no row")
            out.write(f"| {label} | " + " | ".join(cells) + " |\n")
    print(path)


def plot_small(rows, out_dir, plt):
    device = rows[0]["device"]
    cases = small_cases(rows)
    for name, _ in FAMILIES:
        mine = sorted(c for c in cases if family_of(c[0]) == name)
        if not mine:
            continue
        cols = min(4, len(mine))
        grid_rows = (len(mine) + cols - 1) // cols
        fig, axes = plt.subplots(grid_rows, cols, figsize=(4.2 * cols, 3.2 * grid_rows), squeeze=False)
        for i, case in enumerate(mine):
            ax = axes[i // cols][i % cols]
            for mode, style in (("calls", "-"), ("graph", "--")):
                for impl, pts in sorted(cases[case][mode].items()):
                    pts.sort(key=lambda r: r["n"])
                    ax.plot([r["n"] for r in pts], [r["ms"] * 1e3 for r in pts], style, marker="o", markersize=3,
                            label=f"{impl} {mode}", color=COLOURS.get(impl))
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(case[0], fontsize=9)
            ax.set_ylabel("us per call", fontsize=8)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6)
        for j in range(len(mine), grid_rows * cols):
            axes[j // cols][j % cols].axis("off")
        save_figure(plt, fig, f"{name}: per-call time of small calls ({device})",
                    os.path.join(out_dir, f"small_{slug(name)}.png"), 72, 0.96)


def main():
    parser = argparse.ArgumentParser(description="Plot mgpu_bench CSV files: GB/s against n.")
    parser.add_argument("csv", nargs="+", help="CSV files written by mgpu_bench --csv")
    parser.add_argument("-o", "--out-dir", required=True, help="directory for the PNG files (created if missing)")
    parser.add_argument("--families", action="store_true", help="one chart per family (one run's CSV)")
    parser.add_argument("--markdown", help="also write the families' tables of ratios to this file")
    parser.add_argument("--update-doc", help="replace the families' tables of ratios in this page (docs/performance.md)")
    parser.add_argument("--small", action="store_true", help="the CSV is a run of mgpu_bench --small")
    parser.add_argument("--issue20", help="with --small: also write the small-inputs issue's table to this file")
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
    os.makedirs(args.out_dir, exist_ok=True)
    if args.small:
        if args.markdown:
            write_small_markdown(rows, args.markdown)
        if args.issue20:
            write_issue20_markdown(rows, args.issue20)
        plot_small(rows, args.out_dir, plt)
        return
    if args.markdown:
        write_markdown(rows, args.markdown)
    if args.update_doc:
        update_doc(rows, args.update_doc)
    if args.families:
        plot_families(rows, args.out_dir, plt, FuncFormatter)
        return

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
