#!/usr/bin/env python3
"""The geometry module against libigl (PyPI 'libigl'): for each mesh, tests/geom_dump writes
our cotangent Laplacian, barycentric and Voronoi mass diagonals and area/angle/uniform vertex
normals; this script computes igl.cotmatrix, igl.massmatrix and igl.per_vertex_normals on the
same positions (as doubles) and faces, and compares within 1e-5 of the largest magnitude of
each quantity. With MMX, the tool's `mmx matrix --kind K` files (Matrix Market, read by
scipy.io.mmread) are checked too: cotan against igl.cotmatrix, mass and mass-voronoi against
igl.massmatrix, adjacency against igl.adjacency_matrix, uniform against it minus its row sums,
and the incidences: d0 one row per edge of igl.edges, d1 d0 = 0, d0^T d0 = -uniform.
Exits 77 (a skip for meson) when igl, numpy or scipy cannot be imported.

usage: igl_check.py GEOM_DUMP DATA_DIR [MMX]
"""
import subprocess
import sys

try:
    import numpy as np
    import scipy.sparse as sp
    import igl
except Exception as e:  # ImportError, or an igl build that fails to load (std::bad_cast with numpy >= 2.3)
    print(f"skipped: cannot import igl, numpy and scipy ({type(e).__name__}: {e}); "
          "pip install libigl 'numpy<2.3' scipy")
    sys.exit(77)

TOL = 1e-5

MESHES = ["builtin:tetrahedron", "builtin:icosphere:1", "builtin:icosphere:3",
          "{data}/strip.obj", "{data}/tetra_ascii.ply", "FLAT", "BUMPY"]


def read_dump(text):
    out, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        key, n = lines[i].split()
        n = int(n)
        out[key] = [lines[i + 1 + k].split() for k in range(n)]
        i += n + 1
    return out


def rel_err(ours, ref):
    scale = max(np.abs(ref).max() if ref.size else 0.0, 1e-30)
    return float(np.abs(ours - ref).max() / scale) if ref.size else 0.0


def write_obj(path, V, F):
    with open(path, "w") as f:
        for v in V:
            f.write("v %.9g %.9g %.9g\n" % tuple(v))
        for t in F:
            f.write("f %d %d %d\n" % tuple(x + 1 for x in t))


def grid(n, bumpy, seed):
    """A triangulated n x n grid, flat with sheared, jittered vertices, or a bumpy height field
    (obtuse and acute angles, boundary edges: every branch of the formulas)."""
    rng = np.random.default_rng(seed)
    V, F = [], []
    for y in range(n):
        for x in range(n):
            jx, jy = rng.uniform(-0.2, 0.2, 2)
            z = 0.3 * np.sin(1.3 * x) * np.cos(0.9 * y) + rng.uniform(-0.1, 0.1) if bumpy else 0.0
            V.append((x + 0.3 * y + jx, y + jy, z))
    for y in range(n - 1):
        for x in range(n - 1):
            a, b, c, d = y * n + x, y * n + x + 1, (y + 1) * n + x, (y + 1) * n + x + 1
            F += [(a, b, d), (a, d, c)] if (x + y) % 2 else [(a, b, c), (b, d, c)]
    return np.array(V), np.array(F)


def check_matrices(mmx, mesh, V, F, tmp):
    """mmx matrix's files for this mesh against libigl and each other; the errors by name."""
    import scipy.io
    mats = {}
    for kind in ("cotan", "mass", "mass-voronoi", "adjacency", "uniform", "ev", "fe"):
        path = f"{tmp}/op_{kind}.mtx"
        r = subprocess.run([mmx, "matrix", "--kind", kind, mesh, path], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"mmx matrix --kind {kind} exited {r.returncode}: {r.stderr.strip()}")
        with open(path) as f:
            head = f.read(4096)
        if "% rows:" not in head:
            raise RuntimeError(f"mmx matrix --kind {kind}: no '% rows:' line in the header")
        mats[kind] = sp.csr_matrix(scipy.io.mmread(path)).astype(np.float64)
    n = V.shape[0]
    A = igl.adjacency_matrix(F).astype(np.float64)
    U = A - sp.diags(np.asarray(A.sum(axis=1)).ravel())
    d0, d1 = mats["ev"], mats["fe"]
    errs = {
        "mtx cotmatrix": rel_err(mats["cotan"].toarray(), igl.cotmatrix(V, F).toarray()),
        "mtx mass": rel_err(mats["mass"].toarray(),
                            igl.massmatrix(V, F, igl.MASSMATRIX_TYPE_BARYCENTRIC).toarray()),
        "mtx mass-voronoi": rel_err(mats["mass-voronoi"].toarray(),
                                    igl.massmatrix(V, F, igl.MASSMATRIX_TYPE_VORONOI).toarray()),
        "mtx adjacency": rel_err(mats["adjacency"].toarray(), A.toarray()),
        "mtx uniform": rel_err(mats["uniform"].toarray(), U.toarray()),
        "mtx d1 d0": float(np.abs((d1 @ d0).toarray()).max()) if d1.nnz else 0.0,
        "mtx d0'd0+L": rel_err((d0.T @ d0).toarray(), -U.toarray()),
    }
    if d0.shape != (igl.edges(F).shape[0], n):
        errs["mtx ev shape"] = 1.0
    return errs


def check(dump, data, mesh, tmp, mmx=None):
    if mesh in ("FLAT", "BUMPY"):
        V, F = grid(12, mesh == "BUMPY", 7)
        path = f"{tmp}/igl_{mesh.lower()}.obj"
        write_obj(path, V, F)
        mesh = path
    else:
        mesh = mesh.format(data=data)
    r = subprocess.run([dump, mesh], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {mesh}: geom_dump exited {r.returncode}: {r.stderr.strip()}")
        return False
    d = read_dump(r.stdout)
    V = np.array(d["V"], dtype=np.float64)
    F = np.array(d["F"], dtype=np.int64)
    n = V.shape[0]
    L = np.array(d["L"], dtype=np.float64)
    ours_L = sp.csr_matrix((L[:, 2], (L[:, 0].astype(int), L[:, 1].astype(int))), shape=(n, n))
    ref_L = igl.cotmatrix(V, F)
    errs = {"cotmatrix": rel_err(ours_L.toarray(), ref_L.toarray())}
    for key, kind in (("MB", igl.MASSMATRIX_TYPE_BARYCENTRIC), ("MV", igl.MASSMATRIX_TYPE_VORONOI)):
        ref = igl.massmatrix(V, F, kind).diagonal()
        errs["massmatrix " + ("barycentric" if key == "MB" else "voronoi")] = rel_err(
            np.array(d[key], dtype=np.float64).ravel(), ref)
    for key, kind in (("NAREA", igl.PER_VERTEX_NORMALS_WEIGHTING_TYPE_AREA),
                      ("NANGLE", igl.PER_VERTEX_NORMALS_WEIGHTING_TYPE_ANGLE),
                      ("NUNIFORM", igl.PER_VERTEX_NORMALS_WEIGHTING_TYPE_UNIFORM)):
        ref = igl.per_vertex_normals(V, F, kind)
        errs["normals " + key[1:].lower()] = rel_err(np.array(d[key], dtype=np.float64), ref)
    if mmx:
        try:
            errs.update(check_matrices(mmx, mesh, V, F, tmp))
        except Exception as e:  # a failed run or an unreadable file
            print(f"FAIL {mesh}: {e}")
            return False
    ok = all(e <= TOL for e in errs.values())
    print(("ok  " if ok else "FAIL") + f" {mesh} ({n} vertices, {F.shape[0]} triangles): " +
          ", ".join(f"{k} {v:.2e}" for k, v in errs.items()))
    return ok


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    import tempfile
    mmx = sys.argv[3] if len(sys.argv) == 4 else None
    with tempfile.TemporaryDirectory() as tmp:
        results = [check(sys.argv[1], sys.argv[2], m, tmp, mmx) for m in MESHES]
    print(f"{sum(results)} of {len(results)} meshes within {TOL:g} of libigl")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
