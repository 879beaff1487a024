#!/usr/bin/env bash
# The Python package on the GPU machine (no network there): builds it from this tree with the
# CUDA backend, from the wheels scripts/py_wheels.sh put in .pywheels/ (carried with the tree),
# into a virtual environment that sees the machine's own numpy, PyTorch and CuPy
# (--system-site-packages), then runs every pytest suite (python/tests: the GPU ones run
# there, zero-copy in and out of torch and cupy) and the overhead benchmark
# (python/bench/overhead.py: the binding's per-call cost and Bigguy Catmull-Clark level 6 on
# CUDA from a torch tensor in and out, each against the same call in C). Prints the Python
# version it finds and uses.
#   bash scripts/py_gpu.sh            build, test, benchmark
#   MMX_PY_SKIP_BENCH=1 bash ...      build and test only
#   MMX_PY_CUDA=disabled bash ...     a host-only build (to try the script without a GPU)
# Warnings are not errors here (CI checks -Dwerror=true on the same sources): a newer nvcc's
# warning must not cost the GPU run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
fi
# The interpreter that has PyTorch (else CuPy, else the first python3).
py=""
for cand in ${PYTHON:-} python3 /usr/bin/python3 /opt/conda/bin/python /usr/local/bin/python3; do
    command -v "$cand" >/dev/null 2>&1 || continue
    if "$cand" -c 'import torch' 2>/dev/null || "$cand" -c 'import cupy' 2>/dev/null; then
        py=$(command -v "$cand"); break
    fi
    [ -z "$py" ] && py=$(command -v "$cand")
done
[ -n "$py" ] || { echo "== no python3 found"; exit 1; }
echo "== Python: $("$py" --version 2>&1) ($py)"
"$py" - <<'PY' || true
for name in ("numpy", "torch", "cupy", "scipy"):
    try:
        mod = __import__(name)
        extra = ""
        if name == "torch":
            extra = f", CUDA {mod.version.cuda}, available {mod.cuda.is_available()}"
        print(f"   {name} {mod.__version__}{extra}")
    except Exception as e:
        print(f"   {name}: not importable ({type(e).__name__}: {e})")
PY
nvidia-smi -L 2>/dev/null | sed 's/^/   /' || true
command -v nvcc >/dev/null && echo "   $(nvcc --version | tail -1)"
[ -d .pywheels ] || { echo "== .pywheels/ is missing: run scripts/py_wheels.sh where PyPI is reachable"; exit 1; }
venv=${TMPDIR:-/tmp}/meshmatrix-pygpu-venv
rm -rf "$venv"
if ! "$py" -m venv --system-site-packages "$venv" 2>/dev/null; then
    # No ensurepip (Debian without python3-venv): a bare environment, pip from the wheel.
    rm -rf "$venv"
    "$py" -m venv --system-site-packages --without-pip "$venv"
    pipwhl=$(ls .pywheels/pip-*.whl | sort -V | tail -1)
    "$venv/bin/python" "$pipwhl/pip" install -q --no-index --find-links .pywheels pip
fi
# When $py is itself a virtual environment (the GPU machine's PyTorch lives in one), a venv
# made from it sees only the base interpreter's packages: a .pth file adds $py's own
# site-packages (numpy, torch, cupy, scipy) behind the new environment's.
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$py" -c 'import site, sys; print("\n".join(p for p in site.getsitepackages() if p))' > "$site/_mmx_host_site.pth"
"$venv/bin/python" -m pip install -q --no-index --find-links .pywheels \
    meson-python meson ninja nanobind pytest
echo "== pip install . (CUDA ${MMX_PY_CUDA:-enabled}, build folder build-pygpu)"
t0=$(date +%s)
"$venv/bin/python" -m pip install -q --no-index --find-links .pywheels --no-build-isolation --no-deps \
    -Cbuild-dir=build-pygpu -Csetup-args=-Dcuda=${MMX_PY_CUDA:-enabled} "$root"
echo "   built and installed in $(( $(date +%s) - t0 )) s"
rc=0
(cd /tmp && "$venv/bin/python" -m pytest -v -rs -p no:cacheprovider "$root/python/tests") || rc=$?
echo "== pytest exit $rc"
if [ -z "${MMX_PY_SKIP_BENCH:-}" ]; then
    echo "== python/bench/overhead.py"
    (cd /tmp && "$venv/bin/python" "$root/python/bench/overhead.py" \
        --c "$root/build-pygpu/python/overhead_c") || rc=1
fi
exit $rc
