#!/usr/bin/env bash
# Large faces: Catmull-Clark level 1 of one n-gon (and of two n-gons glued into a pillow, whose
# edges all have a face on each side), fused and algebraic paths, with the level times the
# tool reports (CUDA events on the GPU, a monotonic clock on the host):
#   bash bench/ngon.sh MMX [host|cuda] [N...]
# Prints a Markdown table. Before the fix of issue 11 the fused path summed every face's
# corners again for each of its edges and vertices, so its time grew with n^2.
set -euo pipefail
mmx=${1:?usage: ngon.sh MMX [host|cuda] [N...]}
backend=${2:-host}
shift 2 || shift $#
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(4000 16000 64000 1000000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| mesh | n | fused level 1 (ms) | algebraic level 1 (ms) | backend |"
echo "|---|---:|---:|---:|---|"
for n in "${sizes[@]}"; do
    for pillow in 0 1; do
        python3 - "$n" "$pillow" "$tmp/m.obj" <<'PY'
import math, sys
n, pillow, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
with open(path, "w") as f:
    for i in range(n):
        a = 2 * math.pi * i / n
        f.write(f"v {math.cos(a):.7f} {math.sin(a):.7f} {0.1 * math.sin(3 * a):.7f}\n")
    f.write("f " + " ".join(str(i + 1) for i in range(n)) + "\n")
    if pillow:
        f.write("f " + " ".join(str(n - i) for i in range(n)) + "\n")
PY
        t=()
        for path in fused algebraic; do
            t+=("$("$mmx" subdiv --backend "$backend" --scheme catmull-clark --levels 1 --path $path "$tmp/m.obj" "$tmp/o.ply" | awk '$1 == "1" {print $5}')")
        done
        name=$([ "$pillow" = 1 ] && echo "two n-gons glued" || echo "one n-gon")
        echo "| $name | $n | ${t[0]} | ${t[1]} | $backend |"
    done
done
