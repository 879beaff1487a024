#!/usr/bin/env python3
"""Turns the CSV of subdiv_peers (--csv) into markdown tables (stdout) and one PNG: per case,
the time to reach each level from the cage for mmx_cuda, mmx_host, OpenSubdiv and OpenMesh.
Usage: subdiv_table.py SUBDIV.csv OUT.png [TITLE]

Tables: one per case, a row per level. "mmx total" is the sum of the per-level trace (CUDA
events on the GPU), "last" the last level alone, "wall" the host clock around the call;
OpenSubdiv's total is split into refine + stencil + eval; the ratios are a peer's total over
mmx_cuda's wall time (the conservative figure for ours)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

IMPLS = ["mmx_cuda", "mmx_host", "opensubdiv", "openmesh"]
STYLE = {"mmx_cuda": ("C0", "o"), "mmx_host": ("C1", "s"),
         "opensubdiv": ("C2", "^"), "openmesh": ("C3", "v")}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(s):
    return float(s) if s not in (None, "") else None


def ms(v):
    if v is None:
        return ""
    if v >= 1000:
        return f"{v:,.0f}"
    return f"{v:.1f}" if v >= 100 else f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def ratio(a, b):
    return f"{a / b:,.0f}x" if a is not None and b else ""


def cases_of(rows):
    order = []
    for r in rows:
        if r["case"] not in order:
            order.append(r["case"])
    return order


def table(rows, case):
    rs = [r for r in rows if r["case"] == case]
    levels = sorted({int(r["level"]) for r in rs})
    by = {(int(r["level"]), r["impl"]): r for r in rs}
    print(f"### {case}: {rs[0]['scheme']}, {rs[0]['mesh']}\n")
    print("| level | faces | mmx_cuda total (last) | mmx_cuda wall | mmx_host total | "
          "mmx_host wall | OpenSubdiv total (refine + stencil + eval) | OpenMesh total | "
          "OSD / cuda wall | OM / cuda wall | notes |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for lv in levels:
        get = lambda impl, col: num(by[(lv, impl)][col]) if (lv, impl) in by else None  # noqa
        faces = next(int(by[(lv, i)]["faces"]) for i in IMPLS if (lv, i) in by)
        cuda_t, cuda_l, cuda_w = (get("mmx_cuda", c) for c in
                                  ("total_ms", "last_level_ms", "wall_ms"))
        osd = get("opensubdiv", "total_ms")
        osd_s = ""
        if osd is not None:
            osd_s = (f"{ms(osd)} ({ms(get('opensubdiv', 'refine_ms'))} + "
                     f"{ms(get('opensubdiv', 'stencil_ms'))} + "
                     f"{ms(get('opensubdiv', 'eval_ms'))})")
        om = get("openmesh", "total_ms")
        notes = "; ".join(f"{i}: {by[(lv, i)]['note']}" for i in IMPLS
                          if (lv, i) in by and by[(lv, i)]["note"]
                          and by[(lv, i)]["note"] != "median of 3")
        cuda_s = f"{ms(cuda_t)} ({ms(cuda_l)})" if cuda_t is not None else ""
        print(f"| {lv} | {faces:,} | {cuda_s} | {ms(cuda_w)} | "
              f"{ms(get('mmx_host', 'total_ms'))} | {ms(get('mmx_host', 'wall_ms'))} | "
              f"{osd_s} | {ms(om)} | {ratio(osd, cuda_w)} | {ratio(om, cuda_w)} | {notes} |")
    print()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows, out = read(sys.argv[1]), sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else ""
    cases = cases_of(rows)
    print("Times in ms to reach each level from the cage; mmx_cuda: median of 3 below 2M faces."
          "\n")
    for c in cases:
        table(rows, c)

    n = len(cases)
    cols = min(n, 3)
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(6 * cols, 4.8 * nrows), squeeze=False)
    for ax, case in zip(axes.flat, cases):
        rs = [r for r in rows if r["case"] == case]
        for impl in IMPLS:
            pts = [(int(r["faces"]), float(r["total_ms"])) for r in rs
                   if r["impl"] == impl and r["total_ms"]]
            if not pts:
                continue
            color, marker = STYLE[impl]
            ax.plot(*zip(*pts), color=color, marker=marker, label=f"{impl} total")
            if impl == "mmx_cuda":
                wall = [(int(r["faces"]), float(r["wall_ms"])) for r in rs
                        if r["impl"] == impl and r["wall_ms"]]
                ax.plot(*zip(*wall), color=color, marker=marker, linestyle="dashed",
                        label="mmx_cuda wall")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("faces at the level reached (log)")
        ax.set_ylabel("ms to reach it from the cage (log)")
        ax.set_title(f"{case} ({rs[0]['scheme']}, {rs[0]['mesh']})", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
