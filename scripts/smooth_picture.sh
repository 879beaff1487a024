#!/usr/bin/env bash
# Pictures of smoothing for the README: Bigguy (tests/data, Catmull-Clark once: 5.8k quads)
# with noise along the normals (mmx smooth --noise, seeded, so the picture is the same on every
# run), then smoothed by Taubin's lambda|mu (10 iterations) and by bilateral normal filtering
# (3 iterations), each drawn with mmx render. Writes docs/smooth_noisy.png,
# docs/smooth_taubin.png and docs/smooth_bilateral.png (400 x 400), and prints each smoothing's
# report.
#   bash scripts/smooth_picture.sh [MMX]    MMX: the tool (default build/tools/mmx, then
#                                           build-demo/tools/mmx)
set -euo pipefail
cd "$(dirname "$0")/.."
MMX=${1:-}
if [ -z "$MMX" ]; then
    for m in build/tools/mmx build-demo/tools/mmx; do
        [ -x "$m" ] && { MMX=$m; break; }
    done
fi
[ -n "$MMX" ] && [ -x "$MMX" ] || { echo "smooth_picture.sh: build mmx first (meson + ninja)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mmx_smooth_picture.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
SIZE=400

"$MMX" --quiet subdiv --scheme catmull-clark --levels 1 --backend host tests/data/bigguy_quads.obj "$TMP/bigguy1.obj"
# --iterations 0: the noise alone (0.3 of the mean edge length, along the vertex normals).
"$MMX" --quiet smooth --method taubin --iterations 0 --noise 0.3 --seed 1 "$TMP/bigguy1.obj" "$TMP/noisy.obj"
"$MMX" smooth --method taubin --iterations 10 "$TMP/noisy.obj" "$TMP/taubin.obj"
"$MMX" smooth --method bilateral --iterations 3 "$TMP/noisy.obj" "$TMP/bilateral.obj"
for n in noisy taubin bilateral; do
    "$MMX" --quiet render --size "$SIZE" "$TMP/$n.obj" "docs/smooth_$n.png"
    echo "wrote docs/smooth_$n.png"
done
