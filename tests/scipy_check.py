#!/usr/bin/env python3
"""mmx_cg against SciPy's direct solve (optional oracle; exits 77, a skip, without SciPy).

Usage: scipy_check.py CG_DUMP

For a few (grid, k, rtol), cg_dump writes S, b and our x to a temporary folder (nothing goes
to the source tree); SciPy solves S x = b with scipy.sparse.linalg.spsolve, and the check is
    ||x - x_scipy|| / ||x_scipy|| <= 2 * cond(S) * (r + 1e-6)
for each column, r being the true relative residual ||b - S x|| / ||b|| that mmx_cg reports
(checked here too). cond(S) is numpy's exact 2-norm condition number of the dense S (the
systems are small); the bound is the textbook one, ||e|| / ||x|| <= cond(S) ||r|| / ||b||,
doubled and padded with 1e-6 for float32 rounding of x and of the file's weights.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import scipy.sparse
    import scipy.sparse.linalg
except ImportError as e:
    print(f"skipped: SciPy is not importable ({e})")
    sys.exit(77)


def check(cg_dump, folder, nx, ny, k, rtol):
    out = os.path.join(folder, f"cg_{nx}_{ny}_{k}.txt")
    subprocess.run([cg_dump, out, str(nx), str(ny), str(k), repr(rtol)], check=True)
    with open(out) as f:
        n, nnz, kk, _ = f.readline().split()
        n, nnz, kk = int(n), int(nnz), int(kk)
        trip = np.array([f.readline().split() for _ in range(nnz)], dtype=float)
        b = np.array([f.readline().split() for _ in range(n)], dtype=float).reshape(n, kk)
        x = np.array([f.readline().split() for _ in range(n)], dtype=float).reshape(n, kk)
        true_rel = np.array(f.readline().split(), dtype=float)
    S = scipy.sparse.csc_matrix((trip[:, 2], (trip[:, 0].astype(int), trip[:, 1].astype(int))),
                                shape=(n, n))
    cond = np.linalg.cond(S.toarray())
    ok = True
    for q in range(kk):
        xs = scipy.sparse.linalg.spsolve(S, b[:, q])
        err = np.linalg.norm(x[:, q] - xs) / np.linalg.norm(xs)
        res = np.linalg.norm(b[:, q] - S @ x[:, q]) / np.linalg.norm(b[:, q])
        bound = 2.0 * cond * (true_rel[q] + 1e-6)
        good = err <= bound and abs(res - true_rel[q]) <= 1e-5 + 0.1 * res
        ok &= good
        print(f"grid {nx}x{ny} k={kk} rtol={rtol:g} column {q}: error {err:.3g} "
              f"(bound {bound:.3g}, cond {cond:.1f}), residual {res:.3g} "
              f"(reported {true_rel[q]:.3g}) {'ok' if good else 'FAIL'}")
    return ok


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        for nx, ny, k, rtol in [(12, 10, 1, 1e-4), (20, 15, 3, 1e-6), (17, 17, 4, 1e-7)]:
            ok &= check(sys.argv[1], folder, nx, ny, k, rtol)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
