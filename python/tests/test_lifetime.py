"""Refcounts and lifetimes: a mesh keeps its Context alive, a view keeps its mesh alive, and no
order of deletion crashes."""
import gc
import subprocess
import sys

import numpy as np

import meshmatrix as mm


def test_mesh_keeps_context_alive(tetra):
    ctx = mm.Context()
    before = sys.getrefcount(ctx)
    m = mm.Mesh.from_arrays(*tetra, ctx=ctx)
    assert sys.getrefcount(ctx) == before + 1
    assert m.context is ctx
    del ctx
    gc.collect()
    assert m.stats()["nfaces"] == 4                  # the context is still there
    s = mm.subdivide(m, "loop", 1)
    del m
    gc.collect()
    assert s.nfaces == 16 and s.context.backend == "host"


def test_views_keep_mesh_alive(tetra):
    m = mm.Mesh.from_arrays(*tetra)
    V, F = m.V, m.F
    off, idx = m.faces()
    before = sys.getrefcount(m)
    W = m.V
    assert sys.getrefcount(m) == before + 1          # the view holds the mesh
    del W
    assert sys.getrefcount(m) == before
    del m
    gc.collect()
    assert V.sum() == 3.0 and F.max() == 3 and idx.shape == (12,) and off[-1] == 12


def test_results_outlive_mesh_and_context(tetra):
    ctx = mm.Context()
    m = mm.Mesh.from_arrays(*tetra, ctx=ctx)
    indptr, indices = mm.query(m, "VF")
    L = mm.laplacian(m, "uniform")
    n = mm.normals(m)
    p = mm.plan(m, "loop", 2)
    del m, ctx
    gc.collect()
    assert indptr[-1] == 12 and indices.max() == 3
    assert (L.shape if hasattr(L, "shape") else L[0]) == (4, 4)    # scipy's, or raw arrays
    assert n.shape == (4, 3)
    out = p.eval(tetra[0])
    assert out.shape == (p.nverts, 3)
    del p
    gc.collect()
    assert np.isfinite(out).all()


def test_copy_false_holds_the_caller_arrays(tetra):
    V = np.ascontiguousarray(tetra[0], np.float32)
    F = np.ascontiguousarray(tetra[1], np.int32)
    rv, rf = sys.getrefcount(V), sys.getrefcount(F)
    m = mm.Mesh.from_arrays(V, F, copy=False)
    assert sys.getrefcount(V) > rv and sys.getrefcount(F) > rf
    del m
    gc.collect()
    assert sys.getrefcount(V) == rv and sys.getrefcount(F) == rf   # released exactly once


def test_deletion_orders_at_exit():
    """Objects left to the interpreter's teardown, in every order, exit cleanly."""
    code = """
import meshmatrix as mm, numpy as np
ctx = mm.Context()
m = mm.shape("cube", ctx=ctx)
V = m.V; q = mm.query(m, "VV"); p = mm.plan(m, "catmull-clark", 1)
s = mm.subdivide(m, "catmull-clark", 1)
del ctx
import sys; sys.modules['keep'] = (m, V, q, p, s)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "Error" not in r.stderr


def test_faces_views_survive_F():
    """mesh.F after mesh.faces(): the offsets view stays valid (the mesh is not converted)."""
    m = mm.shape("torus:5:4")
    off, idx = m.faces()
    F = m.F
    assert m.order == 0                                  # still the general form
    np.testing.assert_array_equal(off, np.arange(0, 4 * m.nfaces + 1, 4))
    np.testing.assert_array_equal(F.ravel(), idx)
    assert F.ctypes.data == idx.ctypes.data             # the same row indices, no copy
