#!/usr/bin/env bash
# Fills .pywheels/ (ignored by git) with what scripts/py_gpu.sh needs to build and test the
# Python package on a machine without network: the build tools (meson-python, meson, ninja,
# nanobind and their dependencies) and pytest. Run it here, where PyPI is reachable; the
# folder then travels with the tree. Every wheel is pure Python except ninja's, which is a
# manylinux wheel for any Python 3; the back-ports for older Pythons (tomli, exceptiongroup)
# are fetched too, so the GPU machine's Python version does not matter; and pip itself, for a
# Python whose venv module cannot install it (Debian's without python3-venv). numpy, PyTorch and CuPy
# are the GPU machine's own.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.pywheels
mkdir -p "$dest"
pkgs=(pip meson-python meson ninja nanobind pyproject-metadata packaging pytest iniconfig pluggy
      pygments tomli exceptiongroup typing-extensions)
# For the oldest and the newest Pythons the GPU machine may have: the newest versions that
# support each (pip install there picks the newest that fits its own).
for v in 3.9 3.13; do
    python3 -m pip download --quiet --dest "$dest" --only-binary=:all: \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform any \
        --python-version $v --implementation py --abi none "${pkgs[@]}"
done
echo "== $dest: $(ls "$dest" | wc -l) wheels"
ls "$dest"
