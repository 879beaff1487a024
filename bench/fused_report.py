#!/usr/bin/env python3
"""Turns the CSV of bench/subdiv_fused into a markdown results file, one PNG, and the results
table of docs/subdivision.md (between the lines <!-- fused-results:start --> and <!-- fused-results:end -->).

Times are in ms. Ratios against the peers divide their total by our end-to-end (wall) time,
the conservative figure for ours; "chain / floor" divides the fused GPU time of all levels by
the bandwidth floor of the same levels. Empty CSV fields mean "not measured" and print as "—"."""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Defaults are relative to the repository root, not to the working directory, so the script
# gives the same result wherever it is started from.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START, END = "<!-- fused-results:start -->", "<!-- fused-results:end -->"
DASH = "—"
# (column, legend label) of the bars, in the order they are drawn within a group.
BARS = [("floor_chain_ms", "floor"), ("fused_chain_ms", "fused chain"),
        ("fused_wall_ms", "fused end to end"), ("alg_chain_ms", "algebraic chain"),
        ("osd_ms", "OpenSubdiv"), ("om_ms", "OpenMesh")]


def read(path):
    """Returns (metadata dict, rows). Only the leading '#' lines are metadata."""
    meta = {}
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines) and (lines[i].startswith("#") or not lines[i].strip()):
        key, sep, value = lines[i].lstrip("#").partition(":")
        if sep:
            meta[key.strip()] = value.strip()
        i += 1
    rows = list(csv.DictReader([ln for ln in lines[i:] if ln.strip()]))
    for r in rows:
        # subdiv_fused strips commas from notes; should one slip through, the note's tail
        # lands in the extra fields (key None): put it back rather than lose it.
        extra = r.pop(None, None)
        if extra:
            r["note"] = ",".join([r.get("note") or ""] + extra)
    return meta, rows


def num(row, col):
    """A field as a float, or None when empty, absent or not a number (a failed run)."""
    try:
        return float(row.get(col) or "")
    except ValueError:
        return None


def ms(v):
    if v is None:
        return DASH
    if v >= 1000:
        return f"{v:,.0f}"
    return f"{v:.1f}" if v >= 100 else f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def ratio(a, b, decimals=None):
    """a / b as "12x" / "7,950x"; one decimal below 10 (or always, when asked), where a whole
    number would hide the difference between 1.2x and 1.8x."""
    if a is None or not b:
        return DASH
    r = a / b
    d = decimals if decimals is not None else (0 if r >= 10 else 1)
    return f"{r:,.{d}f}x"


def faces(row):
    v = num(row, "faces")
    return f"{v:,.0f}" if v is not None else DASH


def txt(v):
    """A text field for a table cell: a dash when empty, pipes escaped."""
    return (v or DASH).replace("|", "\\|")


def table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if h in ("scheme", "input (mesh, order)", "case", "note")
                          else "---:" for h in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def main_cells(r):
    """Every column of the main table, by name, so the md and the README pick their own."""
    chain, wall, alg = num(r, "fused_chain_ms"), num(r, "fused_wall_ms"), num(r, "alg_chain_ms")
    osd, om = num(r, "osd_ms"), num(r, "om_ms")
    return {
        "scheme": txt(r.get("scheme")),
        "input (mesh, order)": f"{txt(r.get('mesh'))}, {txt(r.get('order'))}",
        "level": txt(r.get("level")), "output faces": faces(r),
        "fused chain (ms)": ms(chain), "fused end to end (ms)": ms(wall),
        "floor (ms)": ms(num(r, "floor_chain_ms")),
        "chain / floor": ratio(chain, num(r, "floor_chain_ms"), decimals=1),
        "algebraic chain (ms)": ms(alg), "fused vs algebraic": ratio(alg, chain),
        "OpenSubdiv (ms)": ms(osd), "speed-up over OpenSubdiv": ratio(osd, wall),
        "OpenMesh (ms)": ms(om), "speed-up over OpenMesh": ratio(om, wall),
        # A note is text, not a measurement: blank rather than a dash when there is none.
        "note": (r.get("note") or "").replace("|", "\\|"),
    }


MD_COLS = ["scheme", "input (mesh, order)", "level", "output faces", "fused chain (ms)",
           "fused end to end (ms)", "floor (ms)", "chain / floor", "algebraic chain (ms)",
           "fused vs algebraic", "OpenSubdiv (ms)", "speed-up over OpenSubdiv", "OpenMesh (ms)",
           "speed-up over OpenMesh"]
README_COLS = ["scheme", "input (mesh, order)", "output faces", "fused chain (ms)",
               "fused end to end (ms)", "chain / floor", "speed-up over OpenSubdiv",
               "speed-up over OpenMesh"]


def main_table(rows, cols):
    # The note column only appears when some row has one, e.g. a FAILED run.
    if any(r.get("note") for r in rows):
        cols = cols + ["note"]
    cells = [main_cells(r) for r in rows]
    return table(cols, [[c[k] for k in cols] for c in cells])


def bandwidth(meta):
    bw = meta.get("copy_tbps")
    if not bw:
        return None
    try:
        return f"{float(bw):.2f} TB/s"
    except ValueError:  # already carries its unit, or is free text: keep it as written
        return bw


def markdown(meta, main, evals):
    gpu = meta.get("gpu") or "GPU"
    facts = [f"**{k}:** {v}" for k, v in (("Date", meta.get("date")),
             ("Commit", meta.get("commit")), ("CPU", meta.get("cpu")),
             ("Copy bandwidth", bandwidth(meta) and bandwidth(meta) +
              " (bytes read plus written)")) if v]
    # Every -eval row carries a note saying what it measures; only a failure earns a column.
    failed = any("FAILED" in (r.get("note") or "") for r in evals)
    ev = table(["case", "level", "output faces", "re-evaluation (ms)", "floor (ms)",
                "ratio to floor"] + ["note"] * failed,
               [[txt(r.get("case")), txt(r.get("level")), faces(r), ms(num(r, "fused_chain_ms")),
                 ms(num(r, "floor_chain_ms")),
                 ratio(num(r, "fused_chain_ms"), num(r, "floor_chain_ms"), decimals=1)]
                + [(r.get("note") or "").replace("|", "\\|")] * failed for r in evals])
    # One value per scheme is expected; several distinct ones are all shown rather than hidden.
    bpf = {}
    for r in main:
        v = num(r, "bytes_per_face")
        if v is not None:
            bpf.setdefault(r.get("scheme"), []).append(f"{v:,.0f}" if v == int(v) else f"{v:,.1f}")
    bpf_s = ", ".join(f"{s} {' / '.join(dict.fromkeys(vs))}" for s, vs in bpf.items()) or DASH
    how = [
        "**fused chain**: GPU time of all levels of the fused path, the sum of the per-level "
        "CUDA-event times.",
        "**fused end to end**: host wall clock around the whole call, input checks and the "
        "adjacency of the control mesh included.",
        "**floor**: the bandwidth floor of the whole chain, the sum over levels of the bytes "
        "read (parent's matrix and positions) and written (child's matrix and positions) over "
        "the measured copy bandwidth.",
        "**chain / floor**: fused chain over floor; 1x would be running at copy bandwidth.",
        "**algebraic chain**, **fused vs algebraic**: GPU time of all levels of the algebraic "
        "(reference) path, and that time over the fused chain.",
        "**OpenSubdiv**: its total on the CPU (refine + stencils + eval); **OpenMesh**: its "
        "total on the CPU. The speed-ups divide these by the fused end-to-end time.",
        "**re-evaluation**: one re-evaluation of the plan (CUDA events), against the floor.",
        "**input order**: file = as in the file, shuffled = randomly shuffled vertices and "
        "faces, rcm = shuffled then RCM-reordered.",
    ]
    return "\n\n".join([
        f"# Fused subdivision on the {gpu}", " ".join(f + "." for f in facts) or "No metadata.",
        main_table(main, MD_COLS), "## Re-evaluation", ev, "## How to read",
        "\n".join("- " + h for h in how), f"floor bytes per output face: {bpf_s}"]) + "\n"


def plot(meta, main, path):
    n = len(main)
    fig, ax = plt.subplots(figsize=(11, max(3.0, 0.9 + 1.1 * n)))
    height = 0.8 / len(BARS)
    drawn = False
    for k, (col, label) in enumerate(BARS):
        # Log axis: zero or missing values have no bar.
        pts = [(i, num(r, col)) for i, r in enumerate(main) if (num(r, col) or 0) > 0]
        if pts:
            ys, xs = zip(*pts)
            ax.barh([y - 0.4 + height * (k + 0.5) for y in ys], xs, height=height,
                    color=f"C{k}", label=label)
            drawn = True
    ax.set_yticks(range(n))
    # A failed row keeps its place; say so rather than leave the reader to guess.
    ax.set_yticklabels([f"{r.get('scheme')}, {r.get('mesh')} {r.get('order')}, "
                        f"L{r.get('level')}" + ("" if num(r, "fused_chain_ms") is not None
                                                else " (no fused time)") for r in main],
                       fontsize=9)
    ax.invert_yaxis()  # first CSV row on top, as in the tables
    if drawn:
        ax.set_xscale("log")
        # Outside the axes: the long peer bars would hide a legend inside.
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_xlabel("ms (log)")
    ax.grid(True, axis="x", which="major", alpha=0.4)
    ax.set_title(f"Fused subdivision on the {(meta.get('gpu') or 'GPU').split(' (')[0].split(',')[0]}: "
                 "time to the final level")
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def readme_block(meta, main, args):
    here = os.path.dirname(os.path.abspath(args.readme))

    def rel(p):
        # Relative to the page, as its links need; an absolute path when the file lies
        # outside the project's tree.
        a = os.path.abspath(p)
        if os.path.commonpath([a, ROOT]) != ROOT:
            return a
        return os.path.relpath(a, here).replace(os.sep, "/")

    bw = bandwidth(meta)
    # The command as run from the project's root.
    cmd = f"python3 {os.path.relpath(os.path.abspath(__file__), ROOT)} {os.path.relpath(os.path.abspath(args.csv), ROOT)}"
    for flag, default in (("md", "bench/results/fused.md"),
                          ("png", "bench/results/fused_h200.png")):
        if os.path.abspath(getattr(args, flag)) != os.path.join(ROOT, default):
            cmd += f" --{flag} {os.path.relpath(os.path.abspath(getattr(args, flag)), ROOT)}"
    return "\n\n".join([
        f"Measured on the {meta.get('gpu') or 'GPU'}"
        + (f", copy bandwidth {bw}." if bw else "."), main_table(main, README_COLS),
        f"![fused subdivision]({rel(args.png)})", f"Regenerate with `{cmd}`."])


def main():
    p = argparse.ArgumentParser(description="Report of the bench/subdiv_fused CSV.")
    p.add_argument("csv", help="CSV written by bench/subdiv_fused")
    p.add_argument("--md", default=os.path.join(ROOT, "bench/results/fused.md"))
    p.add_argument("--png", default=os.path.join(ROOT, "bench/results/fused_h200.png"))
    p.add_argument("--readme", default=os.path.join(ROOT, "docs", "subdivision.md"),
                   help="the page whose marked table is rewritten (docs/subdivision.md)")
    p.add_argument("--no-readme", action="store_true", help="leave that page alone")
    args = p.parse_args()  # exits 2 with the usage on bad arguments
    if not os.path.isfile(args.csv):
        p.error(f"no such file: {args.csv}")

    meta, rows = read(args.csv)
    main_rows = [r for r in rows if not (r.get("case") or "").endswith("-eval")]
    evals = [r for r in rows if (r.get("case") or "").endswith("-eval")]

    # Check the README before writing anything, so a missing marker leaves no half-done update.
    if not args.no_readme:
        try:
            with open(args.readme, newline="") as f:
                lines = f.read().splitlines(keepends=True)
        except OSError as e:
            sys.exit(f"fused_report: cannot read {args.readme}: {e}")
        marks = [ln.strip() for ln in lines]
        if START not in marks or END not in marks or marks.index(START) > marks.index(END):
            sys.exit(f"fused_report: {args.readme} lacks the lines {START} and {END}")

    with open(args.md, "w") as f:
        f.write(markdown(meta, main_rows, evals))
    plot(meta, main_rows, args.png)
    if not args.no_readme:
        s, e = marks.index(START), marks.index(END)
        nl = "\r\n" if lines[s].endswith("\r\n") else "\n"  # keep the file's line endings
        block = readme_block(meta, main_rows, args).replace("\n", nl)
        with open(args.readme, "w", newline="") as f:
            # Blank lines around the block keep the markers apart from the markdown inside.
            f.write("".join(lines[:s + 1]) + nl + block + nl + nl + "".join(lines[e:]))


if __name__ == "__main__":
    main()
