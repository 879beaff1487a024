#!/usr/bin/env python3
"""Plots the algebra benchmarks from their CSV files (written by spmv_peers and mmt_peers with
--csv) into one PNG: SpMV time per implementation against the floor, and M·Mᵀ time and peak
memory against cuSPARSE SpGEMM. Usage: plot.py SPMV.csv MMT.csv OUT.png [TITLE]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    spmv, mmt, out = read(sys.argv[1]), read(sys.argv[2]), sys.argv[3]
    title = sys.argv[4] if len(sys.argv) > 4 else ""
    fig, axes = plt.subplots(1, 3, figsize=(18, 6.5))

    # Panel 1 and 2: SpMV, one panel per product, grouped by mesh/order.
    for ax, prod in zip(axes[:2], ["Mᵀp", "M f"]):
        rows = [r for r in spmv if r["product"] == prod and r["ms"]]
        groups = []
        for r in rows:
            g = (r["mesh"], r["order"])
            if g not in groups:
                groups.append(g)
        impls = []
        for r in rows:
            if r["impl"] not in impls:
                impls.append(r["impl"])
        width = 0.8 / (len(impls) + 1)
        for k, impl in enumerate(impls):
            xs, ys = [], []
            for gi, g in enumerate(groups):
                for r in rows:
                    if (r["mesh"], r["order"]) == g and r["impl"] == impl:
                        xs.append(gi + k * width)
                        ys.append(float(r["ms"]))
            ax.bar(xs, ys, width, label=impl)
        floors = []
        for gi, g in enumerate(groups):
            f = [float(r["floor_ms"]) for r in rows if (r["mesh"], r["order"]) == g]
            if f:
                floors.append(f[0])
                ax.hlines(f[0], gi - width / 2, gi + len(impls) * width, colors="k",
                          linestyles="dashed")
        ax.set_xticks([gi + (len(impls) - 1) * width / 2 for gi in range(len(groups))])
        ax.set_xticklabels([f"{m}\n{o}" for m, o in groups], fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("ms (median), log scale; dashed: floor")
        ax.set_title(f"{prod}, 3 components")
        ax.legend(fontsize=7)

    # Panel 3: M·Mᵀ time and memory.
    ax = axes[2]
    groups = []
    for r in mmt:
        g = (r["mesh"], r["order"])
        if g not in groups:
            groups.append(g)
    impls = []
    for r in mmt:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    width = 0.8 / len(impls)
    for k, impl in enumerate(impls):
        xs, ys, labels = [], [], []
        for gi, g in enumerate(groups):
            for r in mmt:
                if (r["mesh"], r["order"]) == g and r["impl"] == impl and r["ms"]:
                    xs.append(gi + k * width)
                    ys.append(float(r["ms"]))
                    labels.append(f"{int(r['total_bytes']) / 1e6:.0f} MB")
        bars = ax.bar(xs, ys, width, label=impl)
        for b, lab in zip(bars, labels):
            ax.annotate(lab, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                        va="bottom", fontsize=6, rotation=90)
    ax.set_xticks([gi + (len(impls) - 1) * width / 2 for gi in range(len(groups))])
    ax.set_xticklabels([f"{m}\n{o}" for m, o in groups], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ms (median), log scale; labels: peak memory with inputs")
    ax.set_title("M·Mᵀ: adjacency vs cuSPARSE SpGEMM")
    ax.legend(fontsize=7)

    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
