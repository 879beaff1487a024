"""Mesh.from_arrays: dtypes, layouts, conversions, refusals, and the views V and F."""
import numpy as np
import pytest

import meshmatrix as mm


def test_float64_int64_converted(tetra):
    V, F = tetra
    m = mm.Mesh.from_arrays(V, F)
    assert (m.nverts, m.nfaces, m.ncorners) == (4, 4, 12)
    assert m.V.dtype == np.float32 and m.F.dtype == np.int32
    np.testing.assert_array_equal(m.V, V.astype(np.float32))
    np.testing.assert_array_equal(m.F, F)
    assert m.stats()["euler"] == 2


def test_float32_int32_same_mesh(tetra):
    V, F = tetra
    a = mm.Mesh.from_arrays(V, F)
    b = mm.Mesh.from_arrays(V.astype(np.float32), F.astype(np.int32))
    np.testing.assert_array_equal(a.V, b.V)
    np.testing.assert_array_equal(a.F, b.F)


@pytest.mark.parametrize("layout", ["fortran", "strided", "list", "int16", "uint32"])
def test_layouts(tetra, layout):
    V, F = tetra
    if layout == "fortran":
        Vi, Fi = np.asfortranarray(V), np.asfortranarray(F)
        assert not Vi.flags.c_contiguous
    elif layout == "strided":
        big = np.zeros((8, 6), np.float64)
        big[::2, ::2] = V
        Vi = big[::2, ::2]
        Fb = np.zeros((8, 3), np.int64)
        Fb[::2] = F
        Fi = Fb[::2]
        assert not Vi.flags.c_contiguous and not Fi.flags.c_contiguous
    elif layout == "list":
        Vi, Fi = V.tolist(), F.tolist()
    elif layout == "int16":
        Vi, Fi = V, F.astype(np.int16)
    else:
        Vi, Fi = V.astype(np.float32), F.astype(np.uint32)
    m = mm.Mesh.from_arrays(Vi, Fi)
    np.testing.assert_array_equal(m.V, np.asarray(V, np.float32))
    np.testing.assert_array_equal(m.F, F)


def test_polygons_with_offsets():
    m0 = mm.shape("mixed")
    off, idx = m0.faces()
    m = mm.Mesh.from_arrays(m0.V, idx, offsets=off)
    o2, i2 = m.faces()
    np.testing.assert_array_equal(o2, off)
    np.testing.assert_array_equal(i2, idx)
    assert m.order == 0
    st = m.stats()
    assert st["min_order"] == 3 and st["max_order"] == 6
    with pytest.raises(mm.MeshError, match="several orders"):
        m.F


def test_offsets_int64_and_mismatch():
    m0 = mm.shape("mixed")
    off, idx = m0.faces()
    m = mm.Mesh.from_arrays(m0.V, idx.astype(np.int64), offsets=off.astype(np.int64))
    assert m.nfaces == m0.nfaces
    with pytest.raises(mm.ArgumentError, match="corners"):
        mm.Mesh.from_arrays(m0.V, idx[:-1], offsets=off)


def test_int64_out_of_range_refused(tetra):
    V, F = tetra
    F = F.copy()
    F[2, 1] = 2 ** 40
    with pytest.raises(mm.SizeError, match=r"F\[2, 1\] is 1099511627776"):
        mm.Mesh.from_arrays(V, F)
    F[2, 1] = -1
    with pytest.raises(mm.ArgumentError, match=r"F\[2, 1\] is -1"):
        mm.Mesh.from_arrays(V, F)
    with pytest.raises(mm.SizeError):
        mm.Mesh.from_arrays(V, np.array([[0, 1, 2 ** 63 + 5]], dtype=np.uint64))


def test_float64_bad_values_refused(tetra):
    V, F = tetra
    V = V.copy()
    V[3, 2] = np.nan
    with pytest.raises(mm.ArgumentError, match=r"V\[3, 2\] is NaN"):
        mm.Mesh.from_arrays(V, F)
    V[3, 2] = 1e300
    with pytest.raises(mm.SizeError, match=r"V\[3, 2\]"):
        mm.Mesh.from_arrays(V, F)
    # float32 NaN: the library's own check names the vertex.
    V32 = tetra[0].astype(np.float32)
    V32[1, 0] = np.inf
    with pytest.raises(mm.MeshError, match="vertex 1"):
        mm.Mesh.from_arrays(V32, F)


@pytest.mark.parametrize("F,match", [
    ([[0, 1, 4]], "face 0"),          # index out of range
    ([[0, 1, 1]], "face 0"),          # a vertex twice
    ([[0, 1, 2], [0, 2, 9]], "face 1"),
])
def test_bad_faces_named(tetra, F, match):
    with pytest.raises(mm.MeshError, match=match):
        mm.Mesh.from_arrays(tetra[0], F)


def test_bad_shapes_and_dtypes(tetra):
    V, F = tetra
    with pytest.raises(mm.ArgumentError, match=r"\(nverts, 3\)"):
        mm.Mesh.from_arrays(V[:, :2], F)
    with pytest.raises(mm.MeshError, match="at least 3"):
        mm.Mesh.from_arrays(V, F[:, :2])
    with pytest.raises(mm.ArgumentError, match="int32 or int64"):
        mm.Mesh.from_arrays(V, F.astype(np.float64))
    with pytest.raises(mm.ArgumentError, match="float32 or float64"):
        mm.Mesh.from_arrays(V.astype(np.complex64), F)
    with pytest.raises(mm.ArgumentError, match="flat corner list"):
        mm.Mesh.from_arrays(V, F.ravel())


def test_empty_mesh():
    m = mm.Mesh.from_arrays(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.int32))
    assert (m.nverts, m.nfaces) == (0, 0)
    assert m.V.shape == (0, 3) and m.F.shape == (0, 3)


def test_views_without_copy(tetra):
    V, F = tetra
    m = mm.Mesh.from_arrays(V, F)
    a, b = m.V, m.V
    assert a.ctypes.data == b.ctypes.data            # the mesh's own array, each time
    assert m.F.ctypes.data == m.F.ctypes.data
    assert not m.F.flags.writeable                   # topology is read-only
    assert m.V.flags.writeable
    n0 = mm.normals(m).copy()
    m.V[:] = m.V * np.float32(2)                     # writes move the vertices
    np.testing.assert_array_equal(m.V, (V * 2).astype(np.float32))
    np.testing.assert_allclose(mm.normals(m), n0, atol=1e-6)
    m.V[3] = [0, 0, -1]
    assert not np.allclose(mm.normals(m), n0)


def test_copy_false_uses_the_arrays(tetra):
    V = np.ascontiguousarray(tetra[0], np.float32)
    F = np.ascontiguousarray(tetra[1], np.int32)
    m = mm.Mesh.from_arrays(V, F, copy=False)
    assert m.V.ctypes.data == V.ctypes.data and m.F.ctypes.data == F.ctypes.data
    V[0, 0] = 0.25                                   # the mesh sees the caller's array
    assert m.V[0, 0] == np.float32(0.25)
    with pytest.raises(mm.ArgumentError, match="copy=False"):
        mm.Mesh.from_arrays(tetra[0], F, copy=False)  # float64 would need a conversion
    off, idx = mm.shape("mixed").faces()
    with pytest.raises(mm.ArgumentError):
        mm.Mesh.from_arrays(mm.shape("mixed").V, np.array(idx), offsets=np.array(off),
                            copy=False)


def test_device_array_needs_cuda_context():
    class FakeCuda:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("must not be asked")
    with pytest.raises(mm.SpaceError, match="CUDA Context"):
        mm.Mesh.from_arrays(FakeCuda(), [[0, 1, 2]])
