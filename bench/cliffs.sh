#!/usr/bin/env bash
# The super-linear cliffs of issue 26 (items 7, 8, 9) timed through the tool, on the host:
#   bash bench/cliffs.sh MMX [LIMIT_S] [quick]
# Makes the shapes with python3 (one face of n corners on a circle, n triangles around one
# vertex, a grid of about n triangles as the regular baseline), runs each command once under
# `timeout LIMIT_S` (default 60) and prints a Markdown table of wall seconds (a run cut off
# prints "> LIMIT_S"). "quick" keeps the sizes under 30k (for a slow "before" build).
set -euo pipefail
mmx=${1:?usage: cliffs.sh MMX [LIMIT_S] [quick]}
limit=${2:-60}
quick=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make_shape() { # KIND N PATH
    python3 - "$@" <<'PY'
import math, sys
kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "w") as f:
    w = f.write
    if kind == "ngon":
        for i in range(n):
            a = 2 * math.pi * i / n
            w("v %.9g %.9g %.9g\n" % (math.cos(a), math.sin(a), 0.01 * math.sin(7 * a)))
        w("f " + " ".join(str(i + 1) for i in range(n)) + "\n")
    elif kind == "fan":
        w("v 0 0 0\n")
        for i in range(n):
            a = 2 * math.pi * i / n
            w("v %.9g %.9g 0\n" % (math.cos(a), math.sin(a)))
        for i in range(n):
            w("f 1 %d %d\n" % (2 + i, 2 + (i + 1) % n))
    else:  # grid
        k = int((n / 2) ** 0.5) + 1
        for y in range(k):
            for x in range(k):
                w("v %.9g %.9g 0\n" % (x / (k - 1), y / (k - 1)))
        for y in range(k - 1):
            for x in range(k - 1):
                a = y * k + x + 1
                w("f %d %d %d\nf %d %d %d\n" % (a, a + 1, a + k + 1, a, a + k + 1, a + k))
PY
}

# row ITEM SHAPE N ARGS...: one timed run of `mmx ARGS...` on the shape (IN in ARGS).
row() {
    local item=$1 shape=$2 n=$3
    shift 3
    local in="$tmp/${shape}_$n.obj"
    [ -f "$in" ] || make_shape "$shape" "$n" "$in"
    local args=("${@//IN/$in}") t0 t1 rc=0 secs
    t0=$(date +%s%N)
    timeout "$limit" "$mmx" "${args[@]}" >/dev/null 2>&1 || rc=$?
    t1=$(date +%s%N)
    if [ "$rc" -eq 124 ]; then secs="> $limit"
    elif [ "$rc" -ne 0 ]; then secs="failed ($rc)"
    else secs=$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.2f", d / 1e9 }'); fi
    echo "| $item | $shape | $n | ${args[*]//$tmp\//} | $secs |"
}

big=(100000)
[ "$quick" = quick ] && big=()
echo "| item | shape | n | command | wall s |"
echo "|---|---|---:|---|---:|"
for n in 10000 30000 "${big[@]}"; do
    row 7 ngon "$n" normals IN "$tmp/o.obj"
    row 7 ngon "$n" smooth --method bilateral --iterations 1 IN "$tmp/o.obj"
done
for n in 1000 3000 10000 30000 "${big[@]}"; do
    row 8 fan "$n" remesh --iterations 1 IN "$tmp/o.obj"
    row 8 fan "$n" remesh --iterations 1 --length 10 IN "$tmp/o.obj"
done
row 8 grid 30000 remesh --iterations 1 IN "$tmp/o.obj"
for n in 30000 "${big[@]}"; do
    row 9 fan "$n" render IN "$tmp/o.png"
    row 9 ngon "$n" render IN "$tmp/o.png"
    row 9 grid "$n" render IN "$tmp/o.png"
done
