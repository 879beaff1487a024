#!/usr/bin/env bash
# CGAL's isotropic remeshing (bench/cgal_remesh.cpp, the peer of mmx remesh) or its
# Garland-Heckbert simplification (bench/cgal_simplify.cpp, the peer of mmx simplify) as one
# fully static binary, for a machine without CGAL or internet (the GPU benchmark machine):
# built here, where Debian's libcgal-dev, libgmp-dev, libmpfr-dev and libeigen3-dev are
# (installed with apt-get if missing), linked with -static (glibc, libstdc++, GMP and MPFR
# inside), then checked to be static and to run on a tetrahedron.
#   bash bench/cgal_static.sh OUT [remesh|simplify]
# Remesh (the default): copy OUT to BUILD/bench/cgal_remesh on the other machine for
# bench/remesh_quality.py, or run it as `OUT IN.obj OUT.obj L ITERATIONS FEATURE_DEGREES` (one
# line of JSON: remesh_ms is the isotropic_remeshing call alone). Simplify: give it to
# bench/simplify's --cgal (`OUT IN.obj OUT.obj TARGET_FACES`; simplify_ms is edge_collapse
# alone).
set -euo pipefail
out=${1:?usage: cgal_static.sh OUT [remesh|simplify]}
what=${2:-remesh}
case $what in remesh|simplify) ;; *) echo "cgal_static: $what: remesh or simplify" >&2; exit 2;; esac
src=$(cd "$(dirname "$0")" && pwd)/cgal_$what.cpp

need=()
[ -f /usr/include/CGAL/Polygon_mesh_processing/remesh.h ] || need+=(libcgal-dev)
[ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ] || need+=(libgmp-dev)
[ -f /usr/include/mpfr.h ] || need+=(libmpfr-dev)
[ "$what" = remesh ] || [ -d /usr/include/eigen3 ] || need+=(libeigen3-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "cgal_static: installing ${need[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

# The flags of bench/meson.build's cgal_remesh (its release build: -O3 -DNDEBUG); -static
# takes libc.a, libstdc++.a, libgmp.a and libmpfr.a (MPFR before GMP, which it uses).
eigen=()
[ "$what" = remesh ] || eigen=(-DCGAL_EIGEN3_ENABLED -I/usr/include/eigen3)
g++ -std=c++17 -O3 -DNDEBUG -DCGAL_DISABLE_ROUNDING_MATH_CHECK "${eigen[@]}" -w -static -o "$out" \
    "$src" -lmpfr -lgmp
strip "$out"

if file "$out" | grep -q 'dynamically linked'; then
    echo "cgal_static: $out is dynamically linked" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/tet.obj" <<'OBJ'
v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
f 1 3 2
f 1 2 4
f 2 3 4
f 1 4 3
OBJ
if [ "$what" = remesh ]; then
    "$out" "$tmp/tet.obj" "$tmp/out.obj" 0.3 2 60 | grep -q '"remesh_ms"'
else
    "$out" "$tmp/tet.obj" "$tmp/out.obj" 4 | grep -q '"simplify_ms"'
fi
echo "cgal_static: $out: $(stat -c %s "$out") bytes, static, runs $what"
