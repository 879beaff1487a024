#!/usr/bin/env bash
# The mmx tool under mpirun (tools/dist_run.c), run by meson as the 'tool_dist' test:
#   tool_dist_test.sh MMX MPIRUN
# normals and smooth over 2-4 ranks write the single process's file byte for byte (the same
# sums in the same order), query over 1-4 ranks its text; subdiv over ranks gives the single process's counts and a --json
# report whose "ranks" is R; options and commands that do not run over ranks are usage errors;
# bad input on one rank stops every rank with one message naming the rank.
set -u
MMX=${1:?usage: tool_dist_test.sh MMX MPIRUN}
MPIRUN=${2:?usage: tool_dist_test.sh MMX MPIRUN}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mmx_dist_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; shift; for l in "$@"; do printf '     %s\n' "$l"; done; }
# mpi R ARGS...: mmx ARGS on R ranks; sets rc, out, err.
mpi() {
    local r=$1
    shift
    "$MPIRUN" --oversubscribe -n "$r" "$MMX" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
    rc=$?
    out=$(cat "$TMP/stdout")
    err=$(cat "$TMP/stderr")
}

# The single process runs on the host as the ranks do by default (mmx subdiv alone takes the
# GPU when there is one: on a GPU machine its sums would be the CUDA path's).
# Byte for byte against one process.
same() {
    local name=$1 r=$2
    shift 2
    "$MMX" --backend host "$@" "$TMP/one.obj" --quiet 2>/dev/null
    mpi "$r" "$@" "$TMP/many.obj"
    if [ "$rc" -eq 0 ] && cmp -s "$TMP/one.obj" "$TMP/many.obj" && [[ "$out" == *"ranks"*"$r (MPI)"* ]]; then
        ok "$name on $r ranks: the single process's file"
    else
        bad "$name on $r ranks" "rc $rc" "${out:0:400}" "${err:0:400}"
    fi
}
same "normals" 2 normals builtin:icosphere:4
same "normals --weight angle" 4 normals --weight angle builtin:grid:40:30
same "smooth laplacian" 3 smooth --method laplacian --iterations 4 builtin:icosphere:4
same "smooth taubin --fix-boundary" 2 smooth --method taubin --iterations 6 --fix-boundary builtin:grid:40:30
# every rank writes its block (MPI-IO), no rank gathering the whole: OBJ and binary PLY
same_written() {
    local name=$1 r=$2 ext=$3
    shift 3
    "$MMX" --backend host "$@" "$TMP/one.$ext" --quiet 2>/dev/null
    mpi "$r" "$@" "$TMP/many.$ext"
    if [ "$rc" -eq 0 ] && cmp -s "$TMP/one.$ext" "$TMP/many.$ext" && [[ "$out" == *"written by every rank"* ]]; then
        ok "$name on $r ranks: the single process's file, written by every rank"
    else
        bad "$name on $r ranks (written by every rank)" "rc $rc" "${out:0:400}" "${err:0:400}"
    fi
}
same_written "normals to OBJ" 3 obj normals builtin:icosphere:4
same_written "normals to PLY" 4 ply normals --weight angle builtin:grid:40:30
same_written "smooth to PLY" 3 ply smooth --method laplacian --iterations 4 builtin:torus:30:20
same_written "smooth to OBJ" 2 obj smooth --method taubin --iterations 3 builtin:icosphere:3

# query over 1-4 ranks: every kind, the single process's text byte for byte, on a mesh with
# boundaries, holes, triangles among the quads and a non-manifold vertex (a second fan of two
# triangles at vertex 1). One rank under mpirun is the single process itself.
awk 'BEGIN {
    N = 40; W = N + 1
    for (y = 0; y <= N; y++) for (x = 0; x <= N; x++) printf "v %d %d %g\n", x, y, ((x * 7 + y * 3) % 5) * 0.1
    print "v -1 -0.3 0.5"; print "v -0.3 -1 0.5"; print "v -1.2 -1.1 0.3"
    for (y = 0; y < N; y++) for (x = 0; x < N; x++) {
        if ((int(x / 3) + y * 7) % 11 == 5 && x > 1 && y > 1) continue
        a = y * W + x + 1; b = a + 1; c = a + W + 1; d = a + W
        if ((x + 2 * y) % 5 == 0) { print "f", a, b, c; print "f", a, c, d } else print "f", a, b, c, d
    }
    print "f", 1, W * W + 2, W * W + 3; print "f", 1, W * W + 3, W * W + 1
}' >"$TMP/nm.obj"
for k in VV VE VF EV EF FV FE FF; do
    "$MMX" query "$k" "$TMP/nm.obj" "$TMP/one_$k.txt" --quiet 2>/dev/null
done
for r in 1 2 3 4; do
    bad_kinds=""
    for k in VV VE VF EV EF FV FE FF; do
        mpi "$r" query "$k" "$TMP/nm.obj" "$TMP/many.txt"
        if [ "$rc" -ne 0 ] || ! cmp -s "$TMP/one_$k.txt" "$TMP/many.txt" || { [ "$r" -gt 1 ] && [[ "$out" != *"ranks"*"$r (MPI)"* ]]; }; then
            bad_kinds="$bad_kinds $k"
            last="rc $rc: ${out:0:300} ${err:0:300}"
        fi
    done
    [ -z "$bad_kinds" ] && ok "query, all eight kinds, on $r rank(s): the single process's text" \
        || bad "query on $r ranks:$bad_kinds" "$last"
done
mpi 3 query FE "$TMP/nm.obj" --json
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | cmp -s - "$TMP/one_FE.txt" && [[ "$err" == *'"ranks": 3'* ]]; then
    ok "query to standard output on 3 ranks: the text alone there, the --json report with \"ranks\": 3 on stderr"
else
    bad "query --json on 3 ranks" "rc $rc" "${out:0:200}" "${err:0:400}"
fi
mpi 2 query --path patch VV "$TMP/nm.obj" "$TMP/x.txt"
[ "$rc" -eq 2 ] && [[ "$err" == *"--path does not run over MPI ranks yet"* ]] \
    && ok "query --path over ranks: refused, named" || bad "query --path over ranks" "rc $rc" "${err:0:300}"

# subdiv: the counts, once, and the JSON report.
"$MMX" --backend host subdiv --scheme loop --levels 2 builtin:icosphere:4 "$TMP/one.obj" --quiet
mpi 3 subdiv --scheme loop --levels 2 builtin:icosphere:4 "$TMP/many.obj" --json
want=$(grep -c '^f ' "$TMP/one.obj")
got=$(grep -c '^f ' "$TMP/many.obj" 2>/dev/null)
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ] && [[ "$out" == *'"ranks": 3'* ]]; then
    ok "subdiv loop 2 on 3 ranks: $got faces as one process, \"ranks\": 3"
else
    bad "subdiv loop on 3 ranks" "rc $rc, $got faces, want $want" "${out:0:400}" "${err:0:400}"
fi
if command -v python3 >/dev/null; then
    printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["ranks"] == 3 and len(j["per_rank"]) == 3' \
        && ok "subdiv --json over ranks parses, one object, per_rank of 3" || bad "subdiv --json over ranks" "${out:0:400}"
fi

# subdiv to OBJ or PLY: every rank writes its share with the single process's numbers
# (mmx_dist_subdivide_write), the single process's file byte for byte: every scheme but sqrt3,
# the limit, levels 0 to 3, every --boundary mode but none, on the mesh with boundaries,
# triangles among the quads and a non-manifold vertex
sub_same() {
    local name=$1 r=$2 ext=$3
    shift 3
    "$MMX" --backend host "$@" "$TMP/one.$ext" --quiet 2>/dev/null
    mpi "$r" "$@" "$TMP/many.$ext"
    if [ "$rc" -eq 0 ] && cmp -s "$TMP/one.$ext" "$TMP/many.$ext" && [[ "$out" == *"numbering its share as one process does"* ]]; then
        ok "$name on $r ranks: the single process's file, written by every rank"
    else
        bad "$name on $r ranks (written by every rank)" "rc $rc" "${out:0:400}" "${err:0:400}"
    fi
}
"$MMX" triangulate builtin:grid:12:10 "$TMP/tri.obj" --quiet
sub_same "subdiv cc 1 level" 2 obj subdiv --scheme cc --levels 1 builtin:grid:8:6
sub_same "subdiv cc 3 levels, mixed and non-manifold" 4 obj subdiv --scheme cc --levels 3 "$TMP/nm.obj"
sub_same "subdiv cc 2 levels --limit to PLY" 3 ply subdiv --scheme cc --levels 2 --limit "$TMP/nm.obj"
sub_same "subdiv cc 0 levels --limit" 3 obj subdiv --scheme cc --levels 0 --limit "$TMP/nm.obj"
sub_same "subdiv loop 2 levels --limit" 2 obj subdiv --scheme loop --levels 2 --limit builtin:icosphere:3
sub_same "subdiv loop 3 levels, boundaries" 4 obj subdiv --scheme loop --levels 3 "$TMP/tri.obj"
sub_same "subdiv bilinear 3 levels to PLY" 4 ply subdiv --scheme bilinear --levels 3 builtin:grid:12:10
sub_same "subdiv cc 2 levels on a closed mesh" 3 obj subdiv --scheme cc --levels 2 builtin:torus:16:8
for b in tagged edge-only edge-and-corner none; do
    sub_same "subdiv cc --boundary $b" 3 obj subdiv --scheme cc --levels 2 --boundary "$b" "$TMP/nm.obj"
    sub_same "subdiv loop --boundary $b" 2 ply subdiv --scheme loop --levels 2 --boundary "$b" "$TMP/tri.obj"
    sub_same "subdiv bilinear --boundary $b" 4 obj subdiv --scheme bilinear --levels 1 --boundary "$b" "$TMP/nm.obj"
done
sub_same "subdiv cc --boundary none --limit, 4 ranks" 4 ply subdiv --scheme cc --levels 2 --limit --boundary none "$TMP/nm.obj"
sub_same "subdiv cc --boundary none --holes keep to PLY" 3 ply subdiv --scheme cc --levels 2 --boundary none --holes keep "$TMP/nm.obj"
"$MMX" convert builtin:grid:12:10 "$TMP/holed.obj" --quiet
echo "t hole 9/0/0 0 17 40 41 60 77 100 105 111" >>"$TMP/holed.obj"
sub_same "subdiv cc 3 levels, hole tags left out, to PLY" 4 ply subdiv --scheme cc --levels 3 "$TMP/holed.obj"

# Texture coordinates (mmx_dist_subdivide_write numbers them as one process does): a quad grid
# with boundaries and a few faces missing, its values in three charts (seams: a value shared by
# some but not all faces at a vertex, down column N/2 and along row N/3 of the left half), and
# its triangulation (tri=1); Catmull-Clark, Loop and bilinear, 1 to 3 levels, the --uv modes
# (test_dist runs every combination): the file byte for byte, "vt" lines and "f v/vt" corners.
uvgrid() {
    awk -v N="$1" -v tri="$2" 'BEGIN {
        W = N + 1; h = int(N / 2); t3 = int(N / 3)
        for (y = 0; y <= N; y++) for (x = 0; x <= N; x++) printf "v %d %d %g\n", x, y, ((x * 7 + y * 3) % 5) * 0.1
        for (y = 0; y <= N; y++) for (x = 0; x <= N; x++) printf "vt %g %g\n", x / N, y / N
        for (y = 0; y <= N; y++) for (x = h; x <= N; x++) printf "vt %g %g\n", 0.5 + x / N, y / N * 0.9
        for (y = t3; y <= N; y++) for (x = 0; x <= h; x++) printf "vt %g %g\n", x / N * 0.7, 1.5 + y / N
        na = W * W; nb = (N + 1) * (N - h + 1)
        for (y = 0; y < N; y++) for (x = 0; x < N; x++) {
            if ((int(x / 3) + y * 7) % 11 == 5 && x > 1 && y > 1 && x < N - 2) continue
            a = y * W + x + 1
            P[1] = a; P[2] = a + 1; P[3] = a + W + 1; P[4] = a + W
            px[1] = x; py[1] = y; px[2] = x + 1; py[2] = y; px[3] = x + 1; py[3] = y + 1; px[4] = x; py[4] = y + 1
            for (k = 1; k <= 4; k++) {
                if (x >= h) T[k] = na + py[k] * (N - h + 1) + (px[k] - h) + 1
                else if (y >= t3) T[k] = na + nb + (py[k] - t3) * (h + 1) + px[k] + 1
                else T[k] = py[k] * W + px[k] + 1
            }
            if (tri && (x + 2 * y) % 3 != 0) {
                printf "f %d/%d %d/%d %d/%d\n", P[1], T[1], P[2], T[2], P[3], T[3]
                printf "f %d/%d %d/%d %d/%d\n", P[1], T[1], P[3], T[3], P[4], T[4]
            } else if (tri) {
                printf "f %d/%d %d/%d %d/%d\n", P[1], T[1], P[2], T[2], P[4], T[4]
                printf "f %d/%d %d/%d %d/%d\n", P[2], T[2], P[3], T[3], P[4], T[4]
            } else printf "f %d/%d %d/%d %d/%d %d/%d\n", P[1], T[1], P[2], T[2], P[3], T[3], P[4], T[4]
        }
    }'
}
uvgrid 14 0 >"$TMP/uvq.obj"
uvgrid 14 1 >"$TMP/uvt.obj"
"$MMX" --backend host subdiv --scheme cc --levels 1 "$TMP/uvq.obj" "$TMP/one.obj" --quiet 2>/dev/null
grep -q '^vt ' "$TMP/one.obj" && grep -q '^f [0-9]*/[0-9]* ' "$TMP/one.obj" \
    && ok "the textured meshes refine with their texture coordinates on one process" \
    || bad "the textured meshes on one process" "no vt lines or v/vt corners"
sub_same "subdiv cc 2 levels, texture seams" 3 obj subdiv --scheme cc --levels 2 "$TMP/uvq.obj"
sub_same "subdiv cc 1 level of triangles, texture seams" 2 obj subdiv --scheme cc --levels 1 "$TMP/uvt.obj"
sub_same "subdiv loop 2 levels, texture seams (numbered by value)" 3 obj subdiv --scheme loop --levels 2 "$TMP/uvt.obj"
sub_same "subdiv bilinear 3 levels, texture seams" 4 obj subdiv --scheme bilinear --levels 3 "$TMP/uvq.obj"
sub_same "subdiv cc --uv smooth, texture seams" 3 obj subdiv --scheme cc --levels 2 --uv smooth "$TMP/uvq.obj"
sub_same "subdiv loop --uv corners, texture seams" 4 obj subdiv --scheme loop --levels 2 --uv corners "$TMP/uvt.obj"
sub_same "subdiv cc 3 levels --limit --uv boundaries" 2 obj subdiv --scheme cc --levels 3 --limit --uv boundaries "$TMP/uvq.obj"
cp "$TMP/uvq.obj" "$TMP/uvtag.obj"
echo "t crease 2/1/0 0 1 10" >>"$TMP/uvtag.obj"
# part files hold no texture coordinates: said, and left out
mpi 2 partition "$TMP/uvq.obj" "$TMP/uvparts"
[ "$rc" -eq 0 ] && [[ "$err" == *"texture coordinates are not written to part files"* ]] \
    && ok "partition of a textured mesh: the texture coordinates left out, said" \
    || bad "partition of a textured mesh" "rc $rc" "${err:0:400}"

# sqrt3 (two ghost rings past one level) and --limit over ranks: the single process's result,
# its vertices renumbered by first use in face order (mmx_dist_canonical), the faces exactly and
# the positions within float rounding of the bounding box's diagonal.
canon_same() {
    local name=$1 r=$2
    shift 2
    "$MMX" --backend host "$@" "$TMP/one.obj" --quiet 2>/dev/null
    mpi "$r" "$@" "$TMP/many.obj"
    if [ "$rc" -eq 0 ] && python3 - "$TMP/one.obj" "$TMP/many.obj" <<'PY'
import sys
def canon(path):
    v, f = [], []
    for line in open(path):
        w = line.split()
        if w and w[0] == 'v': v.append([float(x) for x in w[1:4]])
        elif w and w[0] == 'f': f.append([int(x.split('/')[0]) - 1 for x in w[1:]])
    num, pos, faces = {}, [], []
    for face in f:
        for x in face:
            if x not in num: num[x] = len(num); pos.append(v[x])
        faces.append([num[x] for x in face])
    return faces, pos
fa, pa = canon(sys.argv[1]); fb, pb = canon(sys.argv[2])
assert fa == fb, "topology differs"
lo = [min(p[k] for p in pa) for k in range(3)]; hi = [max(p[k] for p in pa) for k in range(3)]
diag = sum((h - l) ** 2 for h, l in zip(hi, lo)) ** 0.5
worst = max(abs(x - y) for p, q in zip(pa, pb) for x, y in zip(p, q))
assert worst <= 1e-5 * diag, "positions differ by %g" % worst
holes = lambda path: [l.split() for l in open(path) if l.startswith('t hole')]
assert holes(sys.argv[1]) == holes(sys.argv[2]), "hole tags differ"
def canon_uv(path):
    t, f = [], []
    for line in open(path):
        w = line.split()
        if w and w[0] == 'vt': t.append([float(x) for x in w[1:3]])
        elif w and w[0] == 'f' and '/' in w[1] and w[1].split('/')[1]: f.append([int(x.split('/')[1]) - 1 for x in w[1:]])
    num, val, faces = {}, [], []
    for face in f:
        for x in face:
            if x not in num: num[x] = len(num); val.append(t[x])
        faces.append([num[x] for x in face])
    return faces, val
ua, ta = canon_uv(sys.argv[1]); ub, tb = canon_uv(sys.argv[2])
assert ua == ub, "texture corners differ"
assert all(abs(x - y) <= 1e-5 for p, q in zip(ta, tb) for x, y in zip(p, q)), "texture coordinates differ"
PY
    then
        ok "$name on $r ranks: the single process's result (canonical order)"
    else
        bad "$name on $r ranks" "rc $rc" "${out:0:400}" "${err:0:400}"
    fi
}
if command -v python3 >/dev/null; then
    canon_same "subdiv sqrt3 3 levels, closed" 3 subdiv --scheme sqrt3 --levels 3 builtin:icosphere:3
    "$MMX" triangulate builtin:grid:12:10 "$TMP/tri.obj" --quiet
    canon_same "subdiv sqrt3 4 levels, boundaries" 4 subdiv --scheme sqrt3 --levels 4 "$TMP/tri.obj"
    canon_same "subdiv sqrt3 1 level" 2 subdiv --scheme sqrt3 --levels 1 builtin:icosphere:2
    canon_same "subdiv cc 2 levels --limit" 3 subdiv --scheme cc --levels 2 --limit builtin:grid:12:10
    canon_same "subdiv loop 2 levels --limit" 2 subdiv --scheme loop --levels 2 --limit builtin:icosphere:3
    # hole tags (faces numbered from 0): at the boundary, inside, and spread so that some are
    # beside a cut; left out (the default) or kept and tagged
    "$MMX" convert builtin:grid:12:10 "$TMP/holed.obj" --quiet
    echo "t hole 9/0/0 0 17 40 41 60 77 100 105 111" >>"$TMP/holed.obj"
    cp "$TMP/tri.obj" "$TMP/triholed.obj"
    echo "t hole 8/0/0 0 5 33 34 90 131 200 223" >>"$TMP/triholed.obj"
    canon_same "subdiv cc 2 levels, holes left out" 3 subdiv --scheme cc --levels 2 "$TMP/holed.obj"
    canon_same "subdiv cc 3 levels, --holes keep" 4 subdiv --scheme cc --levels 3 --holes keep "$TMP/holed.obj"
    canon_same "subdiv loop 2 levels, holes left out" 2 subdiv --scheme loop --levels 2 "$TMP/triholed.obj"
    canon_same "subdiv loop 1 level, --holes keep" 3 subdiv --scheme loop --levels 1 --holes keep "$TMP/triholed.obj"
    # texture coordinates gathered (a tagged mesh to OBJ, standard output, --boundary none)
    canon_same "subdiv cc 2 levels, textured and tagged" 3 subdiv --scheme cc --levels 2 "$TMP/uvtag.obj"
    canon_same "subdiv loop 2 levels --boundary none, textured" 2 subdiv --scheme loop --levels 2 --boundary none "$TMP/uvt.obj"
fi
mpi 2 subdiv --scheme sqrt3 --levels 2 builtin:icosphere:2 "$TMP/rings.obj"
[ "$rc" -eq 0 ] && [[ "$out" == *"2 ghost rings with no exchange"* ]] \
    && ok "subdiv sqrt3 2 levels over ranks: two ghost rings, said" || bad "sqrt3 rings" "rc $rc" "${out:0:400}" "${err:0:300}"

# Usage errors, before any work.
mpi 2 subdiv --scheme cc --levels 2 --path fused builtin:cube "$TMP/x.obj"
[ "$rc" -ne 0 ] && [[ "$err" == *"--path does not run over MPI ranks yet"* ]] \
    && ok "an option not run over ranks: refused, named" || bad "option over ranks" "rc $rc" "${err:0:300}"
# a usage error is said once (rank 0), every rank exiting with its status
mpi 3 subdiv --scheme cc --levels 1 --boundary nonsense builtin:cube "$TMP/x.obj"
n=$(printf '%s\n' "$err" | grep -c "^mmx: unknown --boundary 'nonsense'")
[ "$rc" -eq 2 ] && [ "$n" = 1 ] && [ ! -e "$TMP/x.obj" ] \
    && ok "a usage error over 3 ranks: said once, status 2" || bad "usage error over ranks" "rc $rc, $n messages" "${err:0:400}"
mpi 3 normals builtin:cube "$TMP/nowhere/x.obj"
n=$(printf '%s\n' "$err" | grep -c "cannot write there")
[ "$rc" -eq 1 ] && [ "$n" = 1 ] \
    && ok "an output that cannot be written, over 3 ranks: said once" || bad "unwritable output over ranks" "rc $rc, $n messages" "${err:0:400}"
mpi 2 info builtin:cube
[ "$rc" -ne 0 ] && [[ "$err" == *"does not run over MPI ranks"* ]] \
    && ok "a command not run over ranks: refused" || bad "info over ranks" "rc $rc" "${err:0:300}"
mpi 2 smooth --method mcf builtin:cube "$TMP/x.obj"
[ "$rc" -ne 0 ] && [[ "$err" == *"mcf does not run over MPI ranks"* ]] \
    && ok "smooth --method mcf over ranks: refused" || bad "mcf over ranks" "rc $rc" "${err:0:300}"

# Bad input in one rank's part: every rank stops, one message naming the rank.
{
    for y in $(seq 0 20); do for x in $(seq 0 20); do
        if [ "$x" = 20 ] && [ "$y" = 20 ]; then echo "v 1e30 $y 0"; else echo "v $x $y 0"; fi
    done; done
    for y in $(seq 0 19); do for x in $(seq 0 19); do
        a=$((y * 21 + x + 1)); echo "f $a $((a + 1)) $((a + 22)) $((a + 21))"
    done; done
} >"$TMP/far.obj"
mpi 3 subdiv --scheme cc --levels 2 "$TMP/far.obj" "$TMP/x.obj"
n=$(printf '%s\n' "$err" | grep -c 'rank [0-9]*:')
[ "$rc" -ne 0 ] && [ "$n" = 1 ] && [ ! -e "$TMP/x.obj" ] \
    && ok "bad input on one rank: every rank stops, one message naming it, no output" \
    || bad "bad input over ranks" "rc $rc, $n messages" "${err:0:400}"

# mmx partition: each rank writes its part, rank 0 the index; bad arguments and an unwritable
# prefix refused on every rank.
mpi 3 partition --rings 2 builtin:icosphere:4 "$TMP/p"
if [ "$rc" -eq 0 ] && [ -s "$TMP/p.0.part" ] && [ -s "$TMP/p.1.part" ] && [ -s "$TMP/p.2.part" ] \
    && [ ! -e "$TMP/p.3.part" ] && grep -qx 'ranks 3' "$TMP/p.index" && grep -qx 'rings 2' "$TMP/p.index" \
    && [[ "$out" == *"3 (MPI), 2 ghost rings"* ]]; then
    ok "partition on 3 ranks: three parts and the index"
else
    bad "partition on 3 ranks" "rc $rc" "${out:0:400}" "${err:0:400}"
fi
mpi 2 partition --rings 0 builtin:cube "$TMP/q"
[ "$rc" -eq 2 ] && [[ "$err" == *"--rings needs a whole number from 1 to 64"* ]] && [ ! -e "$TMP/q.index" ] \
    && ok "partition --rings 0: a usage error" || bad "partition --rings 0" "rc $rc" "${err:0:300}"
mpi 2 partition builtin:icosphere:4 "$TMP/none/p"
n=$(printf '%s\n' "$err" | grep -c 'cannot create')
[ "$rc" -eq 1 ] && [ "$n" = 1 ] && [[ "$err" == *"rank 0: $TMP/none/p.0.part: cannot create"* ]] \
    && ok "partition into a missing folder: one message naming the rank and the file" \
    || bad "partition into a missing folder" "rc $rc, $n messages" "${err:0:400}"

# Part files as input (IN = PREFIX.index): partition, then run = run on the OBJ (normals and
# smoothing: the single process's file; subdiv: the run over ranks from the OBJ; query: the
# single process's rows, the header naming the index instead); one part read alone; a part
# count other than the ranks' refused on every rank, no output.
mpi 3 partition --rings 2 "$TMP/nm.obj" "$TMP/nm3"
"$MMX" normals "$TMP/nm.obj" "$TMP/one.obj" --quiet 2>/dev/null
mpi 3 normals "$TMP/nm3.index" "$TMP/many.obj"
[ "$rc" -eq 0 ] && cmp -s "$TMP/one.obj" "$TMP/many.obj" && [[ "$out" == *"its part read"* ]] \
    && [[ "$out" == *"written by every rank"* ]] \
    && ok "normals from 3 part files: the single process's file, written by every rank" || bad "normals from part files" "rc $rc" "${out:0:400}" "${err:0:400}"
# (an OBJ file from part files is written by every rank, MPI-IO: over a longer file, truncated)
"$MMX" normals "$TMP/nm.obj" "$TMP/one.ply" --quiet 2>/dev/null
mpi 3 normals "$TMP/nm3.index" "$TMP/many.ply"
[ "$rc" -eq 0 ] && cmp -s "$TMP/one.ply" "$TMP/many.ply" && [[ "$out" == *"MPI-IO"* ]] \
    && ok "normals from 3 part files to PLY (written by every rank): the single process's file" \
    || bad "normals from part files to PLY" "rc $rc" "${out:0:400}" "${err:0:400}"
"$MMX" smooth --method taubin --iterations 5 "$TMP/nm.obj" "$TMP/one.obj" --quiet 2>/dev/null
for i in $(seq 1 30000); do echo "# a longer file that was here"; done >"$TMP/many.obj"
mpi 3 smooth --method taubin --iterations 5 "$TMP/nm3.index" "$TMP/many.obj"
[ "$rc" -eq 0 ] && cmp -s "$TMP/one.obj" "$TMP/many.obj" \
    && ok "smooth taubin from 3 part files: the single process's file" || bad "smooth from part files" "rc $rc" "${out:0:400}" "${err:0:400}"
"$MMX" --backend host subdiv --scheme cc --levels 2 "$TMP/nm.obj" "$TMP/one.obj" --quiet 2>/dev/null
mpi 3 subdiv --scheme cc --levels 2 "$TMP/nm3.index" "$TMP/many.obj"
[ "$rc" -eq 0 ] && [ -s "$TMP/one.obj" ] && cmp -s "$TMP/one.obj" "$TMP/many.obj" \
    && [[ "$out" == *"numbering its share as one process does"* ]] \
    && ok "subdiv from 3 part files: the single process's file, written by every rank" || bad "subdiv from part files" "rc $rc" "${out:0:400}" "${err:0:400}"
"$MMX" --backend host subdiv --scheme loop --levels 2 --boundary none "$TMP/tri.obj" "$TMP/one.ply" --quiet 2>/dev/null
mpi 2 partition "$TMP/tri.obj" "$TMP/tri2"
mpi 2 subdiv --scheme loop --levels 2 --boundary none "$TMP/tri2.index" "$TMP/many.ply"
[ "$rc" -eq 0 ] && cmp -s "$TMP/one.ply" "$TMP/many.ply" \
    && ok "subdiv loop --boundary none from 2 part files to PLY: the single process's file" || bad "subdiv to PLY from part files" "rc $rc" "${out:0:400}" "${err:0:400}"
bad_kinds=""
for k in VV VE VF EV EF FV FE FF; do
    mpi 3 query "$k" "$TMP/nm3.index" "$TMP/many.txt"
    if [ "$rc" -ne 0 ] || ! cmp -s <(tail -n +2 "$TMP/one_$k.txt") <(tail -n +2 "$TMP/many.txt") \
        || ! head -1 "$TMP/many.txt" | grep -q "of $TMP/nm3.index:"; then
        bad_kinds="$bad_kinds $k"
    fi
done
[ -z "$bad_kinds" ] && ok "query from 3 part files, all eight kinds: the single process's rows" \
    || bad "query from part files:$bad_kinds" "rc $rc" "${err:0:300}"
"$MMX" partition "$TMP/nm.obj" "$TMP/nm1" --quiet
"$MMX" normals "$TMP/nm.obj" "$TMP/one.obj" --quiet 2>/dev/null
"$MMX" normals "$TMP/nm1.index" "$TMP/many.obj" >/dev/null 2>&1
cmp -s "$TMP/one.obj" "$TMP/many.obj" && ok "normals from one part file, no mpirun: the single process's file" \
    || bad "normals from one part file"
for r in 1 2 4; do
    rm -f "$TMP/x.obj"
    mpi "$r" normals "$TMP/nm3.index" "$TMP/x.obj"
    n=$(printf '%s\n' "$err" | grep -c 'written by 3 ranks, read by')
    [ "$rc" -eq 1 ] && [ "$n" = 1 ] && [[ "$err" == *"written by 3 ranks, read by $r"* ]] && [ ! -e "$TMP/x.obj" ] \
        && ok "3 part files read by $r rank(s): every rank stops, one message naming both counts" \
        || bad "3 part files on $r ranks" "rc $rc, $n messages" "${err:0:400}"
done
mpi 3 partition "$TMP/nm.obj" "$TMP/nm3r1"
mpi 3 smooth --method taubin "$TMP/nm3r1.index" "$TMP/x.obj"
[ "$rc" -eq 1 ] && [[ "$err" == *"needs 2 ghost rings, the partitioned mesh has 1"* ]] \
    && ok "taubin from parts of one ghost ring: refused, the rings named" || bad "taubin from 1-ring parts" "rc $rc" "${err:0:300}"
mpi 2 normals --from obj "$TMP/nm3.index" "$TMP/x.obj"
[ "$rc" -eq 2 ] && [[ "$err" == *"--from does not apply to part files"* ]] \
    && ok "--from with part files: a usage error" || bad "--from with part files" "rc $rc" "${err:0:300}"

# --backend cuda: each rank on its GPU, the single CUDA process's file (normals and smoothing
# bit for bit, as on the host); where a rank has no GPU, every rank stops with the reason.
if "$MMX" --backend cuda normals builtin:icosphere:3 "$TMP/one.obj" --quiet 2>/dev/null; then
    mpi 2 --backend cuda normals builtin:icosphere:3 "$TMP/many.obj"
    [ "$rc" -eq 0 ] && cmp -s "$TMP/one.obj" "$TMP/many.obj" \
        && ok "normals --backend cuda on 2 ranks: the single CUDA process's file" \
        || bad "normals --backend cuda on 2 ranks" "rc $rc" "${out:0:400}" "${err:0:400}"
    "$MMX" --backend cuda smooth --method taubin --iterations 5 builtin:torus:40:20 "$TMP/one.obj" --quiet 2>/dev/null
    mpi 2 --backend cuda smooth --method taubin --iterations 5 builtin:torus:40:20 "$TMP/many.obj"
    [ "$rc" -eq 0 ] && cmp -s "$TMP/one.obj" "$TMP/many.obj" \
        && ok "taubin --backend cuda on 2 ranks: the single CUDA process's file" \
        || bad "taubin --backend cuda on 2 ranks" "rc $rc" "${out:0:400}" "${err:0:400}"
    # subdiv written by every rank on the GPUs: the single CUDA process's faces and counts
    # exactly, texture corners included (the positions and texture coordinates are held to it
    # within rounding by test_dist)
    for sub in "--scheme cc --levels 3 $TMP/nm.obj" "--scheme loop --levels 2 --boundary none $TMP/tri.obj" \
               "--scheme cc --levels 2 $TMP/uvq.obj" "--scheme loop --levels 2 $TMP/uvt.obj"; do
        "$MMX" --backend cuda subdiv $sub "$TMP/one.obj" --quiet 2>/dev/null
        mpi 3 --backend cuda subdiv $sub "$TMP/many.obj"
        [ "$rc" -eq 0 ] && cmp -s <(grep -Ev '^vt? ' "$TMP/one.obj") <(grep -Ev '^vt? ' "$TMP/many.obj") \
            && [[ "$out" == *"numbering its share as one process does"* ]] \
            && ok "subdiv $sub --backend cuda on 3 ranks: the single CUDA process's faces, written by every rank" \
            || bad "subdiv $sub --backend cuda on 3 ranks" "rc $rc" "${out:0:400}" "${err:0:400}"
    done
else
    rm -f "$TMP/many.obj"
    mpi 2 --backend cuda normals builtin:icosphere:3 "$TMP/many.obj"
    [ "$rc" -ne 0 ] && [[ "$err" == *"--backend cuda over MPI ranks"* ]] && [ ! -e "$TMP/many.obj" ] \
        && ok "--backend cuda over ranks without a GPU: a clear refusal, no output" \
        || bad "--backend cuda over ranks without a GPU" "rc $rc" "${err:0:400}"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
