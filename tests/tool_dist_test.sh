#!/usr/bin/env bash
# The mmx tool under mpirun (tools/dist_run.c), run by meson as the 'tool_dist' test:
#   tool_dist_test.sh MMX MPIRUN
# normals and smooth over 2-4 ranks write the single process's file byte for byte (the same
# sums in the same order); subdiv over ranks gives the single process's counts and a --json
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

# Byte for byte against one process.
same() {
    local name=$1 r=$2
    shift 2
    "$MMX" "$@" "$TMP/one.obj" --quiet 2>/dev/null
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

# subdiv: the counts, once, and the JSON report.
"$MMX" subdiv --scheme loop --levels 2 builtin:icosphere:4 "$TMP/one.obj" --quiet
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

# sqrt3 (two ghost rings past one level) and --limit over ranks: the single process's result,
# its vertices renumbered by first use in face order (mmx_dist_canonical), the faces exactly and
# the positions within float rounding of the bounding box's diagonal.
canon_same() {
    local name=$1 r=$2
    shift 2
    "$MMX" "$@" "$TMP/one.obj" --quiet 2>/dev/null
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
fi
mpi 2 subdiv --scheme sqrt3 --levels 2 builtin:icosphere:2 "$TMP/rings.obj"
[ "$rc" -eq 0 ] && [[ "$out" == *"2 ghost rings with no exchange"* ]] \
    && ok "subdiv sqrt3 2 levels over ranks: two ghost rings, said" || bad "sqrt3 rings" "rc $rc" "${out:0:400}" "${err:0:300}"

# Usage errors, before any work.
mpi 2 subdiv --scheme cc --levels 2 --boundary edge-only builtin:cube "$TMP/x.obj"
[ "$rc" -ne 0 ] && [[ "$err" == *"--boundary does not run over MPI ranks yet"* ]] \
    && ok "an option not run over ranks: refused, named" || bad "option over ranks" "rc $rc" "${err:0:300}"
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
else
    rm -f "$TMP/many.obj"
    mpi 2 --backend cuda normals builtin:icosphere:3 "$TMP/many.obj"
    [ "$rc" -ne 0 ] && [[ "$err" == *"--backend cuda over MPI ranks"* ]] && [ ! -e "$TMP/many.obj" ] \
        && ok "--backend cuda over ranks without a GPU: a clear refusal, no output" \
        || bad "--backend cuda over ranks without a GPU" "rc $rc" "${err:0:400}"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
