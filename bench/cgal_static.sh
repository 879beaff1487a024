#!/usr/bin/env bash
# CGAL's isotropic remeshing (bench/cgal_remesh.cpp, the peer of mmx remesh) as one fully
# static binary, for a machine without CGAL or internet (the GPU benchmark machine): built
# here, where Debian's libcgal-dev, libgmp-dev and libmpfr-dev are (installed with apt-get if
# missing), linked with -static (glibc, libstdc++, GMP and MPFR inside), then checked to be
# static and to remesh a tetrahedron.
#   bash bench/cgal_static.sh OUT
# Copy OUT to BUILD/bench/cgal_remesh on the other machine for bench/remesh_quality.py, or run
# it as `OUT IN.obj OUT.obj L ITERATIONS FEATURE_DEGREES` (one line of JSON: remesh_ms is the
# isotropic_remeshing call alone).
set -euo pipefail
out=${1:?usage: cgal_static.sh OUT}
src=$(cd "$(dirname "$0")" && pwd)/cgal_remesh.cpp

need=()
[ -f /usr/include/CGAL/Polygon_mesh_processing/remesh.h ] || need+=(libcgal-dev)
[ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ] || need+=(libgmp-dev)
[ -f /usr/include/mpfr.h ] || need+=(libmpfr-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "cgal_static: installing ${need[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

# The flags of bench/meson.build's cgal_remesh (its release build: -O3 -DNDEBUG); -static
# takes libc.a, libstdc++.a, libgmp.a and libmpfr.a (MPFR before GMP, which it uses).
g++ -std=c++17 -O3 -DNDEBUG -DCGAL_DISABLE_ROUNDING_MATH_CHECK -w -static -o "$out" "$src" \
    -lmpfr -lgmp
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
"$out" "$tmp/tet.obj" "$tmp/out.obj" 0.3 2 60 | grep -q '"remesh_ms"'
echo "cgal_static: $out: $(stat -c %s "$out") bytes, static, remeshes"
