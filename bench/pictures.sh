#!/usr/bin/env bash
# Before/after pictures of isotropic remeshing (mmx remesh) and Delaunay flips (mmx delaunay),
# drawn by mmx render with the faces' edges (--edges), 1000 x 1000:
#   bash bench/pictures.sh MESHES [MMX] [OUT]
# MESHES holds fandisk.obj and nefertiti.obj; MMX defaults to build-host/tools/mmx, OUT to
# bench/results. Writes into OUT:
#   remesh_fandisk_before.png, remesh_fandisk_after.png          the whole model
#   remesh_nefertiti_detail_before.png, ..._after.png            the face, zoom 4
#   delaunay_nefertiti_detail_before.png, ..._after.png          the left eye, zoom 10
# Remeshing and flips use the commands' defaults (target length = the input's mean edge
# length, 3 iterations, feature angle 60 degrees; flips until none is left) on the host; the
# CUDA backend writes the same bytes. The nefertiti scan is z-up and mmx render looks along -z
# with +y up, so its meshes are turned (x, y, z) -> (x, z, -y) for drawing only: the vertex
# lines' text is rearranged, no number is recomputed. Prints each picture's size in bytes.
set -euo pipefail
usage="usage: pictures.sh MESHES [MMX] [OUT]"
meshes=${1:?$usage}
here=$(cd "$(dirname "$0")/.." && pwd)
mmx=${2:-$here/build-host/tools/mmx}
out=${3:-$here/bench/results}
for m in fandisk nefertiti; do
    [ -r "$meshes/$m.obj" ] || { echo "pictures.sh: no $meshes/$m.obj" >&2; exit 1; }
done
[ -d "$out" ] || { echo "pictures.sh: no folder $out" >&2; exit 1; }
[ -x "$mmx" ] || { echo "pictures.sh: no mmx at $mmx (build it: ninja -C build-host)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# turn IN OUT: the z-up OBJ IN as y-up (front view) in OUT.
turn() {
    awk '$1 == "v" { y = $3; if (y ~ /^-/) y = substr(y, 2); else y = "-" y
                     $3 = $4; $4 = y }
         { print }' "$1" >"$2"
}

# draw MESH PNG [RENDER OPTIONS...]
draw() {
    local mesh=$1 png=$2
    shift 2
    "$mmx" render --quiet --backend host --edges --size 1000 "$@" "$mesh" "$png"
    echo "$(basename "$png"): $(wc -c <"$png") bytes"
}

# Fandisk (CAD, sharp features): the whole model.
"$mmx" remesh --quiet --backend host "$meshes/fandisk.obj" "$tmp/fandisk_remeshed.obj"
draw "$meshes/fandisk.obj" "$out/remesh_fandisk_before.png"
draw "$tmp/fandisk_remeshed.obj" "$out/remesh_fandisk_after.png"

# Nefertiti (a 3D scan, 100k triangles): details of the face.
"$mmx" remesh --quiet --backend host "$meshes/nefertiti.obj" "$tmp/nef_remeshed.obj"
"$mmx" delaunay --quiet --backend host "$meshes/nefertiti.obj" "$tmp/nef_delaunay.obj"
turn "$meshes/nefertiti.obj" "$tmp/nef_front.obj"
turn "$tmp/nef_remeshed.obj" "$tmp/nef_remeshed_front.obj"
turn "$tmp/nef_delaunay.obj" "$tmp/nef_delaunay_front.obj"
face=(--zoom 4 --center 0.42,0.52)
eye=(--zoom 10 --center 0.36,0.48)
draw "$tmp/nef_front.obj" "$out/remesh_nefertiti_detail_before.png" "${face[@]}"
draw "$tmp/nef_remeshed_front.obj" "$out/remesh_nefertiti_detail_after.png" "${face[@]}"
draw "$tmp/nef_front.obj" "$out/delaunay_nefertiti_detail_before.png" "${eye[@]}"
draw "$tmp/nef_delaunay_front.obj" "$out/delaunay_nefertiti_detail_after.png" "${eye[@]}"
