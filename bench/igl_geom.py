#!/usr/bin/env python3
"""libigl on the CPU for bench/geom's table (issue 15): nefertiti and its 1-to-4 midpoint
splits (igl.upsample: the same meshes as bench_util's bu_split4, up to vertex order), timed
here because libigl does not install on the GPU machine.

    igl_geom.py MESHES [--levels N] [--repeats R]

Per mesh (median of R runs, wall clock, the process's threads as numpy/scipy use them):
- igl.per_vertex_normals (area weighting);
- one uniform Laplacian step x + 0.5 (D^-1 A x - x) by a scipy sparse product (the adjacency
  built beforehand);
- RXMesh's MCF problems, solved by scipy's CG with Jacobi to 1e-6 of the initial residual
  from x (double): its app's default, (V - 10 L_u) x' = V x (uniform Laplacian, valences), and
  its earlier one, (A - 0.001 L) x' = A x with libigl's cotmatrix and Voronoi massmatrix.
Prints markdown rows: | mesh | operation | ms | note |."""
import argparse, statistics, sys, time

import igl
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla


def timed(fn, repeats):
    ts, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("meshes")
    ap.add_argument("--levels", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    V, F = igl.read_triangle_mesh(a.meshes + "/models/nefertiti.obj")
    V = V.astype(np.float64)
    print("| mesh | operation | ms (median) | note |\n|---|---|---:|---|")
    for level in range(a.levels + 1):
        if level:
            V, F = igl.upsample(V, F, 1)
        name = "nef%d" % level
        ms, _ = timed(lambda: igl.per_vertex_normals(V, F, igl.PER_VERTEX_NORMALS_WEIGHTING_TYPE_AREA)
                      if hasattr(igl, "PER_VERTEX_NORMALS_WEIGHTING_TYPE_AREA")
                      else igl.per_vertex_normals(V, F), a.repeats)
        print("| %s | vertex normals, libigl | %.3f | %d vertices, %d triangles |" % (name, ms, len(V), len(F)))
        adj = igl.adjacency_matrix(F).astype(np.float64)
        deg = np.asarray(adj.sum(axis=1)).ravel()
        dinv = sp.diags(1.0 / np.where(deg > 0, deg, 1.0))
        P = (dinv @ adj).tocsr()
        ms, _ = timed(lambda: V + 0.5 * (P @ V - V), a.repeats)
        print("| %s | Laplacian step, scipy (libigl's adjacency) | %.3f | operator built beforehand |" % (name, ms))
        for uniform in (True, False):
            mcf_rows(name, V, F, adj, deg, uniform, a.repeats)
        sys.stdout.flush()


def mcf_rows(name, V, F, adj, deg, uniform, repeats):
    """RXMesh's MCF problems: uniform (valence mass, h 10) or cotangent (Voronoi, h 0.001)."""
    t0 = time.perf_counter()
    if uniform:
        h = 10.0
        L = (adj - sp.diags(deg)).tocsr()
        M = sp.diags(deg)
    else:
        h = 0.001
        L = igl.cotmatrix(V, F)
        M = igl.massmatrix(V, F, igl.MASSMATRIX_TYPE_VORONOI)
    S = (M - h * L).tocsr()
    setup = (time.perf_counter() - t0) * 1e3
    d = S.diagonal()
    Pj = sla.LinearOperator(S.shape, matvec=lambda r: r / d)
    B = M @ V
    def cg_solve():
        X, its = np.empty_like(V), 0
        for c in range(3):
            count = [0]
            r0 = np.linalg.norm(B[:, c] - S @ V[:, c])
            x, info = sla.cg(S, B[:, c], x0=V[:, c], rtol=1e-6 * r0 / np.linalg.norm(B[:, c]),
                             atol=0.0, M=Pj, maxiter=1000,
                             callback=lambda xk: count.__setitem__(0, count[0] + 1))
            X[:, c] = x
            its = max(its, count[0])
        return X, its

    ms, (_, its) = timed(cg_solve, repeats)
    what = "uniform, valence mass, h 10" if uniform else "cotangent, Voronoi mass, h 0.001"
    print("| %s | MCF (RXMesh's %s), scipy CG + Jacobi | %.3f | %s; operator built before in %.1f ms "
          "(libigl); %d iterations, 1e-6 of r0, double |"
          % (name, "default" if uniform else "earlier", ms, what, setup, its))


if __name__ == "__main__":
    main()
