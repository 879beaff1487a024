#!/usr/bin/env bash
# Compares the subdivision of two builds of mmx (before and after a change that must not change
# what the library computes):
#   bash scripts/compare_subdiv.sh OLD_MMX NEW_MMX [--backend host|cuda] [--levels N] MESH...
# For every mesh, scheme (those the mesh is fit for: the old build's refusal is the reference)
# and path (fused, algebraic), both builds write a binary PLY; the faces must be identical, and
# the positions are compared bit for bit: it prints, per run, "identical" or the largest
# difference relative to the bounding-box diagonal. Exits 1 if any topology differs, if one
# build refuses what the other refines, or if a position moves by more than 1e-6 of the
# diagonal (float rounding).
set -uo pipefail
old=${1:?usage: compare_subdiv.sh OLD_MMX NEW_MMX [--backend B] [--levels N] MESH...}
new=${2:?usage: compare_subdiv.sh OLD_MMX NEW_MMX [--backend B] [--levels N] MESH...}
shift 2
backend=host
levels=2
meshes=()
while [ $# -gt 0 ]; do
    case $1 in
        --backend) backend=$2; shift 2 ;;
        --levels) levels=$2; shift 2 ;;
        *) meshes+=("$1"); shift ;;
    esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
runs=0
for m in "${meshes[@]}"; do
    for scheme in catmull-clark loop sqrt3; do
        for path in fused algebraic; do
            o=$("$old" subdiv --backend "$backend" --scheme $scheme --levels "$levels" --path $path "$m" "$tmp/a.ply" 2>&1)
            orc=$?
            n=$("$new" subdiv --backend "$backend" --scheme $scheme --levels "$levels" --path $path "$m" "$tmp/b.ply" 2>&1)
            nrc=$?
            label="$(basename "$m") $scheme $path"
            if [ $orc -ne 0 ] || [ $nrc -ne 0 ]; then
                if [ $orc -ne 0 ] && [ $nrc -ne 0 ]; then
                    continue # refused by both (not fit for the scheme)
                fi
                echo "$label: old rc $orc, new rc $nrc"
                [ $orc -ne 0 ] && echo "  old: $(echo "$o" | tail -1)"
                [ $nrc -ne 0 ] && echo "  new: $(echo "$n" | tail -1)"
                rc=1
                continue
            fi
            runs=$((runs + 1))
            python3 - "$tmp/a.ply" "$tmp/b.ply" "$label" <<'PY' || rc=1
import struct, sys

def read_ply(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().split("\n")
    nv = nf = 0
    for line in header:
        if line.startswith("element vertex"): nv = int(line.split()[2])
        if line.startswith("element face"): nf = int(line.split()[2])
    pos = struct.unpack_from("<%df" % (3 * nv), data, end)
    return nv, nf, pos, data[end + 12 * nv:]

a, b, label = sys.argv[1], sys.argv[2], sys.argv[3]
nva, nfa, pa, fa = read_ply(a)
nvb, nfb, pb, fb = read_ply(b)
if (nva, nfa) != (nvb, nfb) or fa != fb:
    print(f"{label}: TOPOLOGY DIFFERS ({nva} v {nfa} f against {nvb} v {nfb} f)")
    sys.exit(1)
lo = [min(pa[i::3]) for i in range(3)] if nva else [0, 0, 0]
hi = [max(pa[i::3]) for i in range(3)] if nva else [0, 0, 0]
diag = sum((h - l) ** 2 for h, l in zip(hi, lo)) ** 0.5 or 1.0
worst = max((abs(x - y) for x, y in zip(pa, pb)), default=0.0)
same = sum(1 for x, y in zip(pa, pb) if x == y)
if worst == 0:
    print(f"{label}: identical ({nva} vertices, {nfa} faces)")
else:
    print(f"{label}: topology identical; {len(pa) - same} of {len(pa)} coordinates differ, "
          f"largest by {worst / diag:.2e} of the diagonal")
sys.exit(1 if worst > 1e-6 * diag else 0)
PY
        done
    done
done
echo "$runs runs compared; $([ $rc -eq 0 ] && echo "no difference beyond float rounding" || echo "DIFFERENCES above")"
exit $rc
