#!/usr/bin/env bash
# Run on the GPU machine (see ../shared/device/README.md):
#   source .device-kit/env.sh && bash scripts/gpu_check.sh [--bench] [--quick-bench]
#       [--subdiv-bench] [--fused-bench] [--bench-only] [MESHES]
# Builds with CUDA for sm_90, runs every test suite (host and GPU), runs the device tests under
# compute-sanitizer memcheck and racecheck, compares the tool's CUDA and host backends (on the
# OpenSubdiv shapes too when a folder of them, MESHES, is given: MESHES/opensubdiv, or MESHES
# itself), runs those shapes through CUDA subdivision against OpenSubdiv, optionally runs the
# GPU benchmarks against cuSPARSE (--bench) or the subdivision benchmark against OpenSubdiv
# and OpenMesh (--subdiv-bench, which needs MESHES with cages/ and models/) or the fused path's
# benchmark (--fused-bench: bench/subdiv_fused, CSV in $OUT/fused.csv), and prints a short
# table. Logs go to $OUT (or ./out). RACECHECK=0 leaves racecheck out; MEM_SUITES and
# RACE_SUITES name the gpu_* suites each sanitizer covers (default: all).
set -uo pipefail
cd "$(dirname "$0")/.."
bench=0
only_bench=0   # --bench-only: build, then the shapes comparisons and the benchmarks alone
sbench=0
fbench=0
meshes=
for a in "$@"; do
    case $a in
        --bench) bench=1 ;;
        --quick-bench) bench=2 ;;
        --bench-only) only_bench=1 ;;
        --subdiv-bench) sbench=1 ;;
        --fused-bench) fbench=1 ;;
        *) meshes=$a ;;
    esac
done
out=${OUT:-out}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
export CRITERION_VERBOSITY_LEVEL=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt" 2>&1
echo "GPU: $(cat "$out/gpu.txt")"

meson setup build-gpu -Dcuda=enabled -Dgpu_arch=sm_90 -Dwerror=true > "$out/setup.log" 2>&1 \
    && ninja -C build-gpu > "$out/build.log" 2>&1
build_rc=$?
[ $build_rc -eq 0 ] || { tail -n 40 "$out/setup.log" "$out/build.log"; exit 1; }

tests_rc=0; mem_rc=0; race_rc=0
if [ $only_bench -eq 0 ]; then
meson test -C build-gpu --print-errorlogs --num-processes 4 > "$out/tests.log" 2>&1
tests_rc=$?
cp build-gpu/meson-logs/testlog.txt "$out/testlog.txt"
fi

san() { # tool
    # Criterion runs each test in a child process: the sanitizer must follow them. The test
    # that asks for 1 PiB on purpose is left out: its (intended) API error would be counted.
    compute-sanitizer --tool "$1" --target-processes all --error-exitcode 9 \
        build-gpu/tests/test_gpu --jobs 1 --filter='!(*absurd*)' > "$out/sanitizer-$1.log" 2>&1 || return
    # The device tests of the other suites.
    compute-sanitizer --tool "$1" --target-processes all --error-exitcode 9 \
        build-gpu/tests/test_stats --jobs 1 --filter='stats/device_mesh' >> "$out/sanitizer-$1.log" 2>&1 || return
    compute-sanitizer --tool "$1" --target-processes all --error-exitcode 9 \
        build-gpu/tests/test_io_roundtrip --jobs 1 --filter='io_roundtrip/a_device_mesh*' >> "$out/sanitizer-$1.log" 2>&1 || return
    # The algebra and subdivision suites name their device tests gpu_*.
    for suite in ${2:-spmv spgemm adjacency reorder subdiv fused}; do
        compute-sanitizer --tool "$1" --target-processes all --error-exitcode 9 \
            build-gpu/tests/test_$suite --jobs 1 --filter="$suite/gpu_*" >> "$out/sanitizer-$1.log" 2>&1 || return
    done
}
if [ $only_bench -eq 0 ]; then
    san memcheck "${MEM_SUITES:-}"; mem_rc=$?
    # RACECHECK=0 leaves racecheck out (it is slow: some suites need minutes under it).
    if [ "${RACECHECK:-1}" = 1 ]; then san racecheck "${RACE_SUITES:-}"; race_rc=$?; else echo "(racecheck not run)" > "$out/sanitizer-racecheck.log"; fi
fi

# The tool on the CUDA backend: the same files as the host backend writes.
cuda_tool_rc=0
for spec in torus:512:512 icosphere:5 mixed grid:40:30; do
    for ext in obj off ply; do
        build-gpu/tools/mmx convert --backend cuda "builtin:$spec" "$out/c.$ext" > /dev/null &&
        build-gpu/tools/mmx convert --backend host "builtin:$spec" "$out/h.$ext" > /dev/null &&
        cmp -s "$out/c.$ext" "$out/h.$ext" || { echo "cuda/host differ: $spec .$ext"; cuda_tool_rc=1; }
    done
done
rm -f "$out"/c.* "$out"/h.*
build-gpu/tools/mmx info --backend cuda builtin:torus:2048:2048 > "$out/info-cuda.txt" 2>&1 || cuda_tool_rc=1

# mmx info on both backends over a folder of meshes (OpenSubdiv's shapes: the 360-valent poles,
# non-manifold cases): the same report apart from the timing lines.
shapes_rc=0
nshapes=0
if [ -n "$meshes" ]; then
    sd=$meshes; [ -d "$meshes/opensubdiv" ] && sd=$meshes/opensubdiv
    for f in "$sd"/*.obj; do
        h=$(build-gpu/tools/mmx info --backend host "$f" 2>&1 | grep -v " ms")
        c=$(build-gpu/tools/mmx info --backend cuda "$f" 2>&1 | grep -v " ms")
        nshapes=$((nshapes + 1))
        [ "$h" = "$c" ] || { echo "info differs between backends: $f"; shapes_rc=1; }
    done
fi

# Subdivision of OpenSubdiv's shapes on the CUDA backend against OpenSubdiv (2 levels), and
# the demo on the GPU.
osd_rc=0
if [ -n "$meshes" ]; then
    sd=$meshes; [ -d "$meshes/opensubdiv" ] && sd=$meshes/opensubdiv
    BUILD=build-gpu bash scripts/osd_shapes.sh --backend cuda "$sd" > "$out/osd_shapes_cuda.txt" 2>&1; osd_rc=$?
fi
mkdir -p "$out/demo"
build-gpu/tools/mmx demo "$out/demo" > "$out/demo.txt" 2>&1 || cuda_tool_rc=1
rm -rf "$out/demo"

sbench_rc=0
if [ $sbench -ne 0 ]; then
    build-gpu/bench/subdiv_peers "$meshes" --csv "$out/subdiv_peers.csv" > "$out/subdiv_peers.txt" 2>&1 || sbench_rc=1
fi

fbench_rc=0
if [ $fbench -ne 0 ]; then
    MMX_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown) \
        build-gpu/bench/subdiv_fused "$meshes" --csv "$out/fused.csv" > "$out/fused.txt" 2>&1 || fbench_rc=1
fi

bench_rc=0
if [ $bench -ne 0 ]; then
    q=; [ $bench -eq 2 ] && q=--quick
    build-gpu/bench/spmv_peers $q --csv "$out/spmv_peers.csv" > "$out/spmv_peers.md" 2> "$out/spmv_peers.err" || bench_rc=1
    build-gpu/bench/mmt_peers $q --csv "$out/mmt_peers.csv" > "$out/mmt_peers.md" 2> "$out/mmt_peers.err" || bench_rc=1
fi

tally() {
    python3 - "$@" <<'PY'
import re, sys
text = "".join(open(f, errors="replace").read() for f in sys.argv[1:])
t = p = f = 0
for a, b, c, d in re.findall(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", text):
    t += int(a); p += int(b); f += int(c) + int(d)
for a, b in re.findall(r"^(\d+) passed, (\d+) failed$", text, re.M):
    t += int(a) + int(b); p += int(a); f += int(b)
s = len(re.findall(r"^\[SKIP\]", text, re.M))
print(f"{p} passed, {f} failed, {s} skipped")
PY
}
errs() { grep -Eo "ERROR SUMMARY: [0-9]+ error" "$1" | awk '{s+=$3} END {print s+0}'; }

echo
echo "| step | result |"
echo "|---|---|"
echo "| all suites (host + GPU) | $(tally "$out/testlog.txt") (meson rc $tests_rc) |"
echo "| device tests under memcheck | $(tally "$out/sanitizer-memcheck.log" | sed "s/skipped/filtered out/") |"
echo "| compute-sanitizer memcheck | $(errs "$out/sanitizer-memcheck.log") errors (rc $mem_rc) |"
if [ "${RACECHECK:-1}" = 1 ]; then
    echo "| compute-sanitizer racecheck | $(errs "$out/sanitizer-racecheck.log") hazards/errors (rc $race_rc) |"
else
    echo "| compute-sanitizer racecheck | not run (RACECHECK=0) |"
fi
echo "| mmx --backend cuda vs host (12 conversions) | $([ $cuda_tool_rc -eq 0 ] && echo identical || echo DIFFER) |"
[ -n "$meshes" ] && echo "| mmx info cuda vs host on $nshapes meshes | $([ $shapes_rc -eq 0 ] && echo identical || echo DIFFER) |"
[ -n "$meshes" ] && echo "| subdivision cuda vs OpenSubdiv (osd_shapes.sh) | rc $osd_rc (\$OUT/osd_shapes_cuda.txt) |"
echo "| mmx demo (cuda) | $(grep -c '^scheme' "$out/demo.txt") schemes, $(grep -o 'cuda backend' "$out/demo.txt" | head -1) |"
[ $bench -ne 0 ] && echo "| benchmarks | rc $bench_rc (tables in \$OUT/*_peers.md) |"
[ $sbench -ne 0 ] && echo "| subdivision benchmark | rc $sbench_rc (\$OUT/subdiv_peers.txt) |"
[ $fbench -ne 0 ] && echo "| fused subdivision benchmark | rc $fbench_rc (\$OUT/fused.txt, fused.csv) |"
grep -h "^\[SKIP\]" "$out/testlog.txt" | head -5
if [ $bench -ne 0 ]; then
    cat "$out/spmv_peers.md" "$out/mmt_peers.md"
    tail -n 5 "$out/spmv_peers.err" "$out/mmt_peers.err"
fi
[ -n "$meshes" ] && tail -n 12 "$out/osd_shapes_cuda.txt"
[ $sbench -ne 0 ] && tail -n 40 "$out/subdiv_peers.txt"
[ $fbench -ne 0 ] && cat "$out/fused.txt"
[ $tests_rc -eq 0 ] && [ $osd_rc -eq 0 ] && [ $sbench_rc -eq 0 ] && [ $fbench_rc -eq 0 ] && [ $mem_rc -eq 0 ] && [ $race_rc -eq 0 ] && [ $cuda_tool_rc -eq 0 ] && [ $shapes_rc -eq 0 ] && [ $bench_rc -eq 0 ]
