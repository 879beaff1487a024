"""Every operation of the package on small meshes: I/O, stats, subdivision and its options,
plans, queries, operators, normals, smoothing, Delaunay, remeshing, and the errors."""
import os

import numpy as np
import pytest

import meshmatrix as mm
from conftest import needs_data


def test_load_save_roundtrip(tmp_path):
    m = mm.shape("torus:6:4")
    for ext in ("obj", "off", "ply"):
        path = tmp_path / f"t.{ext}"
        m.save(str(path))
        r = mm.load(path)
        np.testing.assert_array_equal(r.V, m.V)
        np.testing.assert_array_equal(r.F, m.F)


def test_load_errors(tmp_path):
    missing = tmp_path / "nope.obj"
    with pytest.raises(mm.FileError, match="nope.obj") as e:
        mm.load(missing)
    assert isinstance(e.value, OSError) and e.value.status == -3
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n")
    with pytest.raises(mm.Error, match=r"bad.obj:4: face 0"):
        mm.load(bad)
    with pytest.raises(mm.MeshError, match="face 0"):
        mm.shape("cube").triangulate().save(str(tmp_path / "x.stl")) or \
            mm.shape("cube").save(str(tmp_path / "y.stl"))


@needs_data("bigguy_quads.obj")
def test_load_file(data_dir):
    m = mm.load(os.path.join(data_dir, "bigguy_quads.obj"))
    st = m.stats()
    assert st["nfaces"] == 1450 and st["uniform_order"] == 4 and st["manifold"]


def test_stats_and_validate():
    st = mm.shape("torus:8:6").stats()
    assert (st["nverts"], st["nfaces"], st["nedges"]) == (48, 48, 96)
    assert st["euler"] == 0 and st["genus"] == 1 and st["oriented"]
    assert st["boundary_loops"] == 0
    v = mm.shape("cube").validate()
    assert v["valid"] and v["problem"] == ""


@pytest.mark.parametrize("scheme,shape,faces", [
    ("catmull-clark", "cube", 6 * 16), ("bilinear", "cube", 6 * 16),
    ("loop", "icosphere:0", 20 * 16), ("sqrt3", "icosphere:0", 20 * 9)])
def test_subdivide_schemes(scheme, shape, faces):
    m = mm.shape(shape)
    s = mm.subdivide(m, scheme, 2)
    assert s.nfaces == faces
    assert s.F.shape[1] == (4 if scheme in ("catmull-clark", "bilinear") else 3)
    a = mm.subdivide(m, scheme, 2, path="algebraic")
    np.testing.assert_array_equal(a.F, s.F)                      # same topology
    np.testing.assert_allclose(a.V, s.V, atol=1e-5)              # positions within rounding
    assert s.stats()["euler"] == 2


def test_subdivide_boundary_modes(grid):
    m = mm.Mesh.from_arrays(*grid)
    a = mm.subdivide(m, "catmull-clark", 1, boundary="edge-only")
    b = mm.subdivide(m, "catmull-clark", 1, boundary="edge-and-corner")
    np.testing.assert_array_equal(a.F, b.F)
    np.testing.assert_array_equal(b.V[0], m.V[0])                # the corner stays
    assert not np.allclose(a.V[0], m.V[0])
    c = mm.subdivide(m, "catmull-clark", 1, boundary="none")
    assert c.nfaces < a.nfaces                                    # boundary faces are holes


def test_subdivide_creases_corners_holes():
    m = mm.shape("cube")
    smooth = mm.subdivide(m, "catmull-clark", 2)
    F = m.F
    edges = np.array([[F[0, i], F[0, (i + 1) % 4]] for i in range(4)])
    sharp = mm.subdivide(m, "catmull-clark", 2, creases=(edges, 10.0))
    assert not np.allclose(sharp.V, smooth.V)
    assert "crease" in (sharp.tags or "")
    assert m.tags is None                                          # the input is untouched
    per_edge = mm.subdivide(m, "catmull-clark", 2, creases=(edges, [10, 10, 10, 10]))
    np.testing.assert_array_equal(per_edge.V, sharp.V)
    corner = mm.subdivide(m, "catmull-clark", 2, corners=([0], 10.0))
    np.testing.assert_array_equal(corner.V[0], m.V[0])
    holed = mm.subdivide(m, "catmull-clark", 1, holes=[2])
    assert holed.nfaces == 5 * 4
    kept = mm.subdivide(m, "catmull-clark", 1, holes=[2], keep_holes=True)
    assert kept.nfaces == 6 * 4 and "hole" in kept.tags
    with pytest.raises(mm.MeshError, match="edge"):
        mm.subdivide(m, "catmull-clark", 1, creases=([[0, 7]], 1.0))   # not an edge
    with pytest.raises(mm.ArgumentError, match="sharpness"):
        mm.subdivide(m, "catmull-clark", 1, creases=(edges, [1, 2]))


def test_subdivide_uv_and_limit():
    m = mm.shape("cube")
    off, idx = m.faces()
    values = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    index = np.tile(np.arange(4, dtype=np.int32), m.nfaces)       # each face the unit square
    s = mm.subdivide(m, "catmull-clark", 1, uv=(values, index))
    vals, ind = s.uv
    assert ind.shape == (s.ncorners,) and vals.shape[1] == 2
    assert vals.min() >= 0 and vals.max() <= 1
    with pytest.raises(mm.ArgumentError, match="corners"):
        mm.subdivide(m, "catmull-clark", 1, uv=(values, index[:-1]))
    lim = mm.subdivide(m, "catmull-clark", 2, limit=True)
    two = mm.subdivide(m, "catmull-clark", 2)
    assert not np.allclose(lim.V, two.V)
    np.testing.assert_array_equal(lim.F, two.F)


def test_subdivide_errors():
    with pytest.raises(mm.MeshError, match="face"):
        mm.subdivide(mm.shape("cube"), "loop", 1)                 # Loop needs triangles
    with pytest.raises(mm.ArgumentError, match="scheme 'nope'"):
        mm.subdivide(mm.shape("cube"), "nope", 1)
    with pytest.raises(mm.ArgumentError, match="boundary"):
        mm.subdivide(mm.shape("cube"), "catmull-clark", 1, boundary="sideways")
    with pytest.raises(mm.ArgumentError):
        mm.subdivide(mm.shape("cube"), "catmull-clark", -1)


def test_plan_matches_subdivide():
    m = mm.shape("cube")
    p = mm.plan(m, "catmull-clark", 3)
    s = mm.subdivide(m, "catmull-clark", 3)
    assert (p.control_nverts, p.nverts, p.nfaces) == (8, s.nverts, s.nfaces)
    np.testing.assert_allclose(p.eval(m.V), s.V, atol=1e-6)
    V2 = m.V.astype(np.float64) * 3                                # float64 frames convert
    out = np.empty((p.nverts, 3), np.float32)
    r = p.eval(V2, out=out)
    assert r is out
    np.testing.assert_allclose(out, s.V * 3, atol=1e-5)
    pm = p.mesh(out)
    np.testing.assert_array_equal(pm.F, s.F)
    np.testing.assert_array_equal(pm.V, out)
    with pytest.raises(mm.ArgumentError, match=r"\(8, 3\)"):
        p.eval(np.zeros((7, 3), np.float32))


def test_queries():
    m = mm.shape("torus:6:5")
    st = m.stats()
    nv, nf, ne = st["nverts"], st["nfaces"], st["nedges"]
    rows = {"VV": nv, "VE": nv, "VF": nv, "EV": ne, "EF": ne, "FV": nf, "FE": nf, "FF": nf}
    for kind, n in rows.items():
        indptr, indices = mm.query(m, kind)
        assert indptr.shape == (n + 1,) and indptr[-1] == indices.shape[0], kind
        assert indptr.dtype == np.int32 and indices.dtype == np.int32
    ptr, fv = mm.query(m, "FV")
    np.testing.assert_array_equal(fv.reshape(-1, 4), m.F)
    ptr, vf = mm.query(m, "VF")
    assert (np.diff(ptr) == 4).all()                                  # valence 4 everywhere
    _, ev = mm.query(m, "EV")
    ev = ev.reshape(-1, 2)
    assert (ev[:, 0] < ev[:, 1]).all()
    with pytest.raises(mm.ArgumentError):
        mm.query(m, "XY")


def test_operators():
    sp = pytest.importorskip("scipy.sparse")
    m = mm.shape("icosphere:1")
    A = mm.adjacency(m)
    assert sp.issparse(A) and (A != A.T).nnz == 0
    for kind in ("uniform", "cotan"):
        L = mm.laplacian(m, kind)
        assert L.shape == (m.nverts, m.nverts)
        np.testing.assert_allclose(np.asarray(L.sum(axis=0)).ravel(), 0, atol=1e-5)
        assert abs(L - L.T).max() < 1e-6
    Lu = mm.laplacian(m, "uniform").toarray()
    np.testing.assert_array_equal(-np.diag(Lu), A.toarray().sum(0))
    M = mm.mass_matrix(m)
    _, areas = mm.face_normals(m)
    assert abs(M.diagonal().sum() - areas.sum()) < 1e-4
    Mv = mm.mass_matrix(m, "voronoi")
    assert abs(Mv.diagonal().sum() - areas.sum()) < 1e-4
    d0, d1 = mm.operator(m, "ev"), mm.operator(m, "fe")
    assert abs(d1 @ d0).max() == 0
    np.testing.assert_allclose((d0.T @ d0).toarray(), -Lu, atol=1e-6)
    with pytest.raises(mm.MeshError, match="face"):
        mm.laplacian(mm.shape("cube"), "cotan")
    with pytest.raises(mm.ArgumentError):
        mm.laplacian(m, "spectral")


def test_normals():
    m = mm.shape("icosphere:2")
    n = mm.normals(m)
    c = m.V - m.V.mean(0)
    cos = (n * c).sum(1) / np.linalg.norm(c, axis=1)
    assert cos.min() > 0.99                                           # outward
    for w in ("angle", "uniform"):
        assert np.allclose(np.linalg.norm(mm.normals(m, w), axis=1), 1, atol=1e-5)
    fn, fa = mm.face_normals(m)
    assert fn.shape == (m.nfaces, 3) and (fa > 0).all()
    with pytest.raises(mm.ArgumentError):
        mm.normals(m, "heavy")


def test_smooth(grid):
    m = mm.shape("icosphere:2")
    V0 = m.V.copy()
    for method in ("laplacian", "taubin", "cotan", "bilateral", "mcf"):
        s = mm.smooth(m, method, iterations=2)
        assert s.nverts == m.nverts and np.isfinite(s.V).all(), method
        np.testing.assert_array_equal(s.F, m.F)
    np.testing.assert_array_equal(m.V, V0)                            # a copy, not in place
    a = mm.smooth(m, "laplacian", iterations=3)
    b = mm.smooth(m, "laplacian", iterations=3, path="patch")
    np.testing.assert_allclose(a.V, b.V, atol=1e-5)
    s, rep = mm.smooth(m, "mcf", report=True)
    assert rep["iterations"] == 1 and rep["cg_converged"]
    g = mm.Mesh.from_arrays(*grid)
    g.V[:, 2] = np.random.default_rng(1).normal(size=g.nverts).astype(np.float32)
    f = mm.smooth(g, "laplacian", fix_boundary=True)
    bnd = np.isin(np.arange(g.nverts), np.r_[0:5, 20:25, 0:25:5, 4:25:5])
    np.testing.assert_array_equal(f.V[bnd], g.V[bnd])
    with pytest.raises(mm.ArgumentError):
        mm.smooth(m, "laplacian", step=2.0)


def test_delaunay_and_remesh():
    m = mm.shape("grid:6:6").triangulate()
    d, rep = mm.delaunay(m, report=True)
    assert d.nfaces == m.nfaces and rep["remaining"] == 0
    s = mm.shape("icosphere:2")
    r = mm.remesh(s, target_length=0.3, iterations=2)
    assert r.validate()["valid"] and r.stats()["euler"] == 2
    with pytest.raises(mm.MeshError):
        mm.remesh(mm.shape("cube"))


def test_simplify():
    s = mm.shape("icosphere:3")
    r, rep = mm.simplify(s, ratio=0.25, report=True)
    assert rep["faces_in"] == s.nfaces and rep["faces_out"] == r.nfaces
    assert r.nfaces <= -(-s.nfaces // 4) and r.nfaces > 0
    assert r.validate()["valid"] and r.stats()["euler"] == 2
    # Every kept vertex is one of the input's (collapses move vertices onto the quadrics'
    # optimum, which for a sphere stays near the surface).
    radius = np.linalg.norm(s.V, axis=1).mean()
    assert np.all(np.abs(np.linalg.norm(r.V, axis=1) - radius) < 0.05 * radius)
    assert rep["max_error"] >= 0.0 and rep["collapses"] > 0
    t = mm.simplify(s, faces=400)
    assert t.nfaces <= 400
    e, rep_e = mm.simplify(s, max_error=1e-4, report=True)
    assert rep_e["max_error"] <= 1e-4 and e.nfaces <= s.nfaces
    with pytest.raises(mm.Error, match="mmx_simplify"):
        mm.simplify(s)                          # no target, no ratio, no error bound
    with pytest.raises(mm.Error, match="mmx_simplify"):
        mm.simplify(mm.shape("cube"), ratio=0.5)  # quads: triangles only
    with pytest.raises(ValueError):
        mm.simplify(s, ratio=-1.0)


def test_to_and_triangulate():
    m = mm.shape("mixed")
    t = m.triangulate()
    assert t.F.shape[1] == 3 and t.nverts == m.nverts
    c = m.to(mm.Context())
    assert c.context is not m.context
    np.testing.assert_array_equal(c.faces()[1], m.faces()[1])


def test_error_hierarchy():
    with pytest.raises(ValueError):
        mm.shape("dodecahedron")
    try:
        mm.shape("dodecahedron")
    except mm.Error as e:
        assert e.code == "MMX_ERR_ARG" and e.status == -1 and "dodecahedron" in str(e)
    assert mm.has_cuda() in (True, False)
    assert mm.cuda_device_count() >= 0
    if mm.cuda_device_count() == 0:
        with pytest.raises((mm.NoDeviceError, mm.UnsupportedError)):
            mm.Context(device=0)
    with pytest.raises(mm.ArgumentError, match="stream"):
        mm.Context(stream=5)


def test_operators_without_scipy(monkeypatch):
    """Without SciPy the operators are the raw CSC arrays (shape, indptr, indices, data)."""
    import sys
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.sparse", None)
    m = mm.shape("icosphere:1")
    shp, indptr, indices, data = mm.laplacian(m, "uniform")
    assert shp == (m.nverts, m.nverts)
    assert indptr.shape == (m.nverts + 1,) and indptr[-1] == indices.shape[0] == data.shape[0]
    col_sums = np.add.reduceat(data, indptr[:-1])
    np.testing.assert_allclose(col_sums, 0, atol=1e-6)
    shp, indptr, indices, data = mm.mass_matrix(m)                 # the diagonal: one per column
    np.testing.assert_array_equal(indptr, np.arange(m.nverts + 1))
    np.testing.assert_array_equal(indices, np.arange(m.nverts))


def test_context_repr():
    assert repr(mm.Context()) == "Context(host)"
    c = mm.Context()
    assert c.backend == "host" and c.device is None and c.stream == 0 and not c.user_stream
    c.sync()
