#!/usr/bin/env bash
# The README's two commands for a fresh machine:
#   bash scripts/run.sh demo   set up, build only the tool, and run the main job (mmx demo) on its
#                              default input, the Bigguy cage in tests/data
#   bash scripts/run.sh test   set up, build (warnings are errors: -Dwerror=true, which every
#                              build made here passes, as the project's default is off for
#                              packagers), run every test suite, the install check, the
#                              Python package's check (pip install . into a clean virtual
#                              environment, then its pytest suites) and the fuzz targets, then
#                              build again with AddressSanitizer + UBSan and run the suites again
# Setup installs only what is missing, from Debian. CUDA is built when nvcc is found.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs() {
    local missing=()
    command -v meson >/dev/null || missing+=(meson)
    command -v ninja >/dev/null || missing+=(ninja-build)
    command -v pkg-config >/dev/null || missing+=(pkg-config)
    command -v cc >/dev/null || missing+=(gcc)
    pkg-config --exists criterion 2>/dev/null || missing+=(libcriterion-dev)
    # The subdivision oracles (OpenSubdiv, OpenMesh) are test-only dependencies, with a C++
    # compiler for their shims.
    command -v c++ >/dev/null || missing+=(g++)
    [ -e /usr/include/opensubdiv/version.h ] || missing+=(libosd-dev)
    [ -d /usr/include/OpenMesh ] || missing+=(libopenmesh-dev)
    # The fuzz targets' short runs in the tests: clang and its libFuzzer runtime.
    command -v clang >/dev/null || missing+=(clang)
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
        missing+=(libclang-rt-dev)
    # The partitioned mesh's tests run several ranks under mpirun (tests/test_dist.c).
    command -v mpirun >/dev/null || missing+=(openmpi-bin)
    pkg-config --exists ompi-c 2>/dev/null || missing+=(libopenmpi-dev)
    # The tool test renders the generated manual page with man -l (and says so when it cannot).
    command -v man >/dev/null || missing+=(man-db)
    # A virtual environment for the geometry and solver oracles from PyPI (oracle_python).
    python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
    # The Python package's build (pip install ., python_check) needs the interpreter's headers.
    python3 -c 'import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
        2>/dev/null || missing+=(python3-dev)
    echo "${missing[@]:-}"
}

# The oracles of the geometry and solver checks (tests/igl_check.py: libigl; tests/
# scipy_check.py: SciPy) come from PyPI, into a virtual environment of their own, whose
# python3 then comes first on PATH so that meson's tests run with it. numpy stays below 2.3:
# libigl 2.6's wheels fail to import with later ones. If pip cannot install them (no network),
# those two checks report themselves skipped, saying why.
oracle_python() {
    local venv=${MMX_ORACLE_VENV:-$HOME/.cache/meshmatrix/oracle-venv}
    if ! "$venv/bin/python3" -c 'import igl, numpy, scipy' 2>/dev/null; then
        echo "== installing the Python oracles (libigl, numpy<2.3, scipy) from PyPI into $venv"
        if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q libigl 'numpy<2.3' scipy; }; then
            echo "== pip could not install them: igl_check and scipy_check will be skipped"
            return 0
        fi
    fi
    export PATH="$venv/bin:$PATH"
}

setup() {
    local pkgs
    pkgs=$(need_pkgs)
    if [ -n "$pkgs" ]; then
        echo "== installing from Debian: $pkgs"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo=sudo
        $sudo apt-get update -qq
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
    fi
    # The CUDA toolkit's usual place, for machines whose PATH lacks it.
    if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
        export PATH="/usr/local/cuda/bin:$PATH"
    fi
}

configure() { # build-dir, extra meson options...
    local dir=$1; shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
        # Meson before 1.4 records no header dependencies for .cu files (meson.build warns):
        # drop the CUDA objects older than the newest header, so that ninja rebuilds them.
        local newest
        newest=$(find src include -name '*.h' -o -name '*.cuh' -printf '%T@\n' | sort -n | tail -1)
        [ -n "$newest" ] && find "$dir" -name '*.cu.o' ! -newermt "@$newest" -delete
    else
        meson setup "$dir" "$@" >/dev/null
    fi
    if grep -q '\.cu\.o:' "$dir/build.ninja"; then
        echo "== $dir: CUDA backend built ($(nvcc --version | tail -1))"
    elif [[ " $* " == *" -Dcuda=disabled "* ]]; then
        echo "== $dir: host backend only (-Dcuda=disabled)"
    else
        echo "== $dir: host backend only (no CUDA toolkit found)"
    fi
}

# Sums the Criterion syntheses and the tool test's tally from a meson test log.
summarize() {
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
passed = failed = 0
for t, p, f, c in re.findall(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", text):
    passed += int(p); failed += int(f) + int(c)
for p, f in re.findall(r"^(\d+) passed, (\d+) failed$", text, re.M):
    passed += int(p); failed += int(f)
skipped = len(re.findall(r"^\[SKIP\]", text, re.M))
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
}

run_suite() { # build-dir, label
    local dir=$1 label=$2 rc=0
    meson test -C "$dir" --print-errorlogs --num-processes 2 || rc=$?
    # Criterion prints each test's line on stderr in verbose mode; keep a log for the tally.
    echo "== $label: $(summarize "$dir/meson-logs/testlog.txt")"
    # Each skip with its reason.
    grep -h '^\[SKIP\]' "$dir/meson-logs/testlog.txt" | sed 's/^/   /' || true
    return $rc
}

# Installs into a scratch root and checks what a packager and a user get: the shared library's
# soname carries its major version (libmeshmatrix.so.0), it exports the public API alone (no
# mmx__ internal symbol), the manual page mmx.1 and the examples' sources are installed. Then
# builds the installed examples/mesh_stats.c the way a user would, through pkg-config, twice:
# against the shared library (run with LD_LIBRARY_PATH, as the scratch root is not in the
# loader's path), and against the static archive alone (pkg-config --static,
# whose Libs.private must name all that libmeshmatrix.a needs: libm, and with CUDA built the
# CUDA and C++ runtimes). Both programs must run and print the cube's figures.
# Takes the build folder (default: build; another one when run by hand).
# shellcheck disable=SC2120
install_check() {
    local dir=${1:-build} root
    root=$(mktemp -d)
    if ! meson install -C "$dir" --destdir "$root" --quiet >/dev/null; then
        echo "== install check FAILED: meson install -C $dir --destdir $root"
        return 1
    fi
    local pc prefix
    pc=$(dirname "$(find "$root" -name meshmatrix.pc | head -1)")
    # The .pc file holds the real prefix; point it into the scratch root. (Not with
    # PKG_CONFIG_SYSROOT_DIR, which would move the CUDA toolkit's -L folder there too.)
    prefix=$(PKG_CONFIG_PATH=$pc pkg-config --variable=prefix meshmatrix)
    local pkgconf=(env "PKG_CONFIG_PATH=$pc" pkg-config "--define-variable=prefix=$root$prefix")
    local libdir shared static
    libdir=$("${pkgconf[@]}" --variable=libdir meshmatrix)
    shared=$("${pkgconf[@]}" --cflags --libs meshmatrix)
    static=$("${pkgconf[@]}" --static --cflags --libs meshmatrix)
    # -l:libmeshmatrix.a makes the linker take the archive by name, never the .so beside it.
    static=${static/-lmeshmatrix/-l:libmeshmatrix.a}
    local want="builtin:cube: 8 vertices, 6 faces, 12 edges, Euler characteristic 2" out step=""
    local so example man soname exported internal
    so=$libdir/libmeshmatrix.so
    example=$(find "$root" -path '*/doc/meshmatrix/examples/mesh_stats.c' | head -1)
    man=$(find "$root" -path '*/man1/mmx.1' | head -1)
    soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    exported=$(nm -D --defined-only "$so" 2>/dev/null | awk '{print $NF}')
    internal=$(grep '^mmx__' <<<"$exported" || true)
    # shellcheck disable=SC2086
    if [[ ! "$soname" =~ ^libmeshmatrix\.so\.[0-9]+$ ]]; then
        step="the soname of $so is '$soname', not libmeshmatrix.so.MAJOR"
    elif ! grep -qx mmx_mesh_free <<<"$exported"; then
        step="$so does not export the public API (mmx_mesh_free)"
    elif [ -n "$internal" ]; then
        step="$so exports $(wc -l <<<"$internal") internal mmx__ symbols, $(head -1 <<<"$internal") the first"
    elif [ -z "$man" ]; then
        step="no manual page share/man/man1/mmx.1 installed"
    elif [ -z "$example" ]; then
        step="no examples installed in share/doc/meshmatrix/examples"
    elif ! cc -std=c11 -Wall -Werror "$example" $shared -o "$root/mesh_stats_shared"; then
        step="building against the shared library: cc examples/mesh_stats.c $shared"
    elif ! out=$(LD_LIBRARY_PATH=$libdir "$root/mesh_stats_shared" builtin:cube) ||
        [[ "$out" != *"$want"* ]]; then
        step="running the example linked to the shared library: '$out'"
    elif ! cc -std=c11 -Wall -Werror "$example" $static -o "$root/mesh_stats_static"; then
        step="building against the static archive: cc examples/mesh_stats.c $static"
    elif readelf -d "$root/mesh_stats_static" | grep -q 'NEEDED.*libmeshmatrix'; then
        step="the static build still needs libmeshmatrix.so"
    elif ! out=$("$root/mesh_stats_static" builtin:cube) || [[ "$out" != *"$want"* ]]; then
        step="running the statically linked example: '$out'"
    fi
    if [ -z "$step" ]; then
        echo "== install check: $soname exports the public API alone, mmx.1 and the examples are"
        echo "   installed; the installed mesh_stats.c builds through pkg-config against the shared"
        echo "   library and, with --static, against libmeshmatrix.a alone; both run"
        rm -rf "$root"
    else
        echo "== install check FAILED ($dir): $step (left in $root)"
        return 1
    fi
}

# The Python package (python/, docs/python.md) as a user gets it: `pip install .` into a new
# virtual environment (meson-python builds the tree with nanobind from PyPI), with numpy, scipy,
# pytest and meshoptimizer (the simplification's peer), then its pytest suites (python/tests),
# run from outside the tree so that the installed package is the one imported. The package
# gets the CUDA backend only where a GPU can run it (compiling the backend again costs minutes
# on a small machine, and without a GPU the GPU tests report themselves skipped);
# scripts/py_gpu.sh runs them on the GPU machine.
# The environment is made afresh each time and removed afterwards.
python_check() {
    local tmp venv cuda=disabled rc=0 root=$PWD
    tmp=$(mktemp -d)
    venv=$tmp/venv
    if command -v nvcc >/dev/null && command -v nvidia-smi >/dev/null &&
        nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        cuda=enabled
    fi
    echo "== python: pip install . into a clean virtual environment ($tmp; CUDA $cuda)"
    if ! python3 -m venv "$venv" || ! "$venv/bin/pip" install -q pytest numpy scipy; then
        echo "== python: FAILED to make the virtual environment or install pytest, numpy, scipy"
        rm -rf "$tmp"
        return 1
    fi
    # The peer of the quality comparison (python/tests/test_peers.py); without it that test
    # reports itself skipped, saying why.
    "$venv/bin/pip" install -q meshoptimizer ||
        echo "== python: meshoptimizer could not be installed: test_peers.py will be skipped"
    if ! "$venv/bin/pip" install -q -Csetup-args=-Dcuda=$cuda -Csetup-args=-Dwerror=true "$root" \
        >"$tmp/pip.log" 2>&1; then
        tail -40 "$tmp/pip.log"
        echo "== python: pip install . FAILED"
        rm -rf "$tmp"
        return 1
    fi
    (cd "$tmp" && "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider "$root/python/tests") ||
        rc=$?
    # pytest's 5 is "no test collected": a failure here, not a pass.
    [ "$rc" -eq 0 ] || echo "== python: pytest FAILED (exit $rc)"
    rm -rf "$tmp"
    return $rc
}

# Builds the libFuzzer targets (clang, ASan + UBSan, host backend) and runs each for a fixed
# number of inputs from a fixed seed, starting from the files in tests/data and fuzz/seeds:
# the readers on every file, the subdivision (both paths must agree), what runs on a read
# mesh (queries on both paths, patches, geometry, smoothing, Delaunay, remeshing) on the seeds'
# meshes, and the options of smoothing, remeshing and subdivision (finite output or a
# sentence). Each target's count of inputs is about 25 to 30 s of one core (2026-11-27, the
# 2-core development VM: 100,000 inputs took 10 s of CPU for fuzz_read and fuzz_subdiv, 21 s
# for fuzz_ops, 31 s for fuzz_opts), so the runs take about two minutes in all; MMX_FUZZ_RUNS
# sets one count for every target instead. fuzz_parts (part files on one MPI rank, where the
# build has MPI): 60,000 inputs, about 10 s (its two files a run in /dev/shm).
fuzz_check() {
    local rc=0 t runs
    local -A budget=([read]=250000 [subdiv]=250000 [ops]=120000 [opts]=100000 [parts]=60000)
    local targets=(read subdiv ops opts)
    CC=clang configure build-fuzz -Dfuzz=true -Dcuda=disabled -Dtests=false -Dbench=false -Dwerror=true
    # fuzz_parts (part files, one MPI rank) where the build found MPI.
    ninja -C build-fuzz -t targets all 2>/dev/null | grep -q '^fuzz/fuzz_parts:' && targets+=(parts)
    ninja -C build-fuzz "${targets[@]/#/fuzz/fuzz_}" >/dev/null || return 1
    for t in "${targets[@]}"; do
        local corpus seeds=(tests/data tests/data/bad)
        runs=${MMX_FUZZ_RUNS:-${budget[$t]}}
        corpus=$(mktemp -d)
        # The subdivision's seeds start with a control byte, as fuzz_ops' input does;
        # fuzz_opts' with its header of control bytes (fuzz_opts.c).
        [ "$t" != read ] && seeds=(fuzz/seeds/subdiv)
        [ "$t" = opts ] && seeds=(fuzz/seeds/opts)
        [ "$t" = parts ] && seeds=(fuzz/seeds/parts)
        if build-fuzz/fuzz/fuzz_$t -seed=1 -runs="$runs" -artifact_prefix=build-fuzz/ \
            "$corpus" "${seeds[@]}" >build-fuzz/fuzz_$t.log 2>&1; then
            echo "== fuzz_$t: $runs inputs, no finding ($(grep -o 'Done [0-9]* runs in [0-9]* second(s)' build-fuzz/fuzz_$t.log))"
        else
            echo "== fuzz_$t FAILED after $(grep -c '^#' build-fuzz/fuzz_$t.log) status lines; the input is in build-fuzz/:"
            tail -30 build-fuzz/fuzz_$t.log
            [ "$t" = opts ] &&
                echo "   (MMX_FUZZ_VERBOSE=1 build-fuzz/fuzz/fuzz_opts build-fuzz/crash-... says what it ran)"
            rc=1
        fi
        rm -rf "$corpus"
    done
    return $rc
}

cmd=${1:-}
case "$cmd" in
demo)
    # Only what the demo needs: a C compiler and the build tools (the test oracles and
    # Criterion are for 'test').
    missing=()
    command -v meson >/dev/null || missing+=(meson)
    command -v ninja >/dev/null || missing+=(ninja-build)
    command -v cc >/dev/null || missing+=(gcc)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "== installing from Debian: ${missing[*]}"
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo=sudo
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
        export PATH="/usr/local/cuda/bin:$PATH"
    fi
    # The CUDA backend only where a GPU can run it: compiling it takes minutes on a small
    # machine, and without a GPU the demo runs on the host anyway.
    gpu=""
    if command -v nvidia-smi >/dev/null; then
        gpu=$(nvidia-smi -L 2>/dev/null | grep -m1 '^GPU' || true)
    fi
    if [ -z "$gpu" ] && [ -e /dev/nvidia0 ]; then
        gpu="/dev/nvidia0"
    fi
    if [ -n "$gpu" ] && command -v nvcc >/dev/null; then
        cuda=enabled
        echo "== GPU found ($gpu): building mmx with the CUDA backend in build-demo (a few minutes the first time)"
    elif [ -n "$gpu" ]; then
        cuda=disabled
        echo "== GPU found ($gpu) but no CUDA toolkit (nvcc): building mmx for the host only in build-demo"
    else
        cuda=disabled
        if command -v nvidia-smi >/dev/null; then why="nvidia-smi -L lists no GPU"
        else why="no nvidia-smi"; fi
        echo "== no NVIDIA GPU found ($why, no /dev/nvidia0): building mmx for the host only in build-demo (-Dcuda=disabled)"
    fi
    opts=(-Dcuda=$cuda -Dtests=false -Dbench=false)
    if [ -f build-demo/build.ninja ]; then
        meson setup --reconfigure build-demo "${opts[@]}" >/dev/null
    else
        meson setup build-demo "${opts[@]}" >/dev/null
    fi
    # The tool and the library it links, nothing else (no tests, benchmarks or examples).
    ninja -C build-demo tools/mmx
    mkdir -p out
    echo "== mmx demo: Catmull-Clark, Loop and sqrt3 on Bay Raitt's Bigguy to millions of faces, into out/"
    ./build-demo/tools/mmx demo out
    echo "== mmx info out/demo_catmull_clark.ply"
    ./build-demo/tools/mmx info out/demo_catmull_clark.ply
    ;;
test)
    setup
    oracle_python
    export CRITERION_VERBOSITY_LEVEL=1 # prints each test and each skip's reason
    configure build -Dwerror=true
    ninja -C build
    rc=0
    run_suite build "tests" || rc=1
    install_check || rc=1
    python_check || rc=1
    fuzz_check || rc=1
    # Second run under the sanitizers. CUDA's runtime maps memory in ASan's shadow gap.
    export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # Host debug information (-Og), but no device debug code: buildtype=debug
    # would add nvcc -G, whose size warning on large kernels the warnings-as-errors build
    # refuses, and the sanitizers check host code only.
    configure build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false -Ddebug=true -Doptimization=g -Dbench=false
    ninja -C build-asan
    run_suite build-asan "tests under ASan+UBSan" || rc=1
    exit $rc
    ;;
*)
    echo "usage: bash scripts/run.sh demo|test" >&2
    exit 2
    ;;
esac
