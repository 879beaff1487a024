"""The GPU paths: meshes from and to PyTorch and CuPy tensors without a copy, the caller's
stream, device-side conversion and validation. Skipped, saying why, without a CUDA build, a
GPU, or the framework; scripts/py_gpu.sh runs them on the GPU machine."""
import gc

import numpy as np
import pytest

import meshmatrix as mm

if not mm.has_cuda():
    pytest.skip("meshmatrix was built without the CUDA backend", allow_module_level=True)
if mm.cuda_device_count() == 0:
    pytest.skip("no CUDA device", allow_module_level=True)


def host_cube(levels=0):
    m = mm.shape("cube")
    return m if levels == 0 else mm.subdivide(m, "catmull-clark", levels)


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


@pytest.fixture
def cupy():
    return pytest.importorskip("cupy", reason="CuPy is not installed")


def test_device_mesh_from_host_shapes():
    ctx = mm.Context(device=0)
    assert ctx.backend == "cuda" and ctx.device == 0 and not ctx.user_stream
    m = mm.shape("cube", ctx=ctx)
    assert m.space == "device"
    s = mm.subdivide(m, "catmull-clark", 3)
    h = mm.subdivide(host_cube(), "catmull-clark", 3)
    st = s.stats()
    assert st["nfaces"] == h.nfaces and st["euler"] == 2


def test_torch_zero_copy_roundtrip(torch):
    ctx = mm.Context(device=0)
    h = host_cube(1)
    V = torch.tensor(h.V, device="cuda")
    F = torch.tensor(h.F, device="cuda", dtype=torch.int32)
    m = mm.from_dlpack(V, F, ctx=ctx, copy=False)
    assert m.space == "device"
    Vt = torch.from_dlpack(m.V)
    assert Vt.data_ptr() == V.data_ptr()                     # wrapped in place: no copy
    assert torch.from_dlpack(m.F).data_ptr() == F.data_ptr()
    s = mm.subdivide(m, "catmull-clark", 2)
    out = torch.from_dlpack(s.V)
    assert out.data_ptr() == torch.from_dlpack(s.V).data_ptr()   # the mesh's own array
    ref = mm.subdivide(h, "catmull-clark", 2)
    np.testing.assert_allclose(out.cpu().numpy(), ref.V, atol=1e-5)
    np.testing.assert_array_equal(torch.from_dlpack(s.F).cpu().numpy(), ref.F)


def test_torch_float64_int64_converted_on_device(torch):
    ctx = mm.Context(device=0)
    h = host_cube()
    V = torch.tensor(h.V, device="cuda", dtype=torch.float64)
    F = torch.tensor(h.F, device="cuda", dtype=torch.int64)
    m = mm.from_dlpack(V, F, ctx=ctx)
    np.testing.assert_array_equal(torch.from_dlpack(m.V).cpu().numpy(), h.V)
    bad = F.clone()
    bad[3, 2] = 2 ** 40
    with pytest.raises(mm.SizeError, match=r"F\[3, 2\]"):
        mm.from_dlpack(V, bad, ctx=ctx)
    bad[3, 2] = 99
    with pytest.raises(mm.MeshError, match="face 3"):       # validated on the device
        mm.from_dlpack(V, bad, ctx=ctx)
    with pytest.raises(mm.ArgumentError, match="contiguous"):
        mm.from_dlpack(V.t().contiguous().t(), F, ctx=ctx)
    with pytest.raises(mm.SpaceError):
        mm.from_dlpack(V, F)                                   # a host Context


def test_torch_on_callers_stream(torch):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        ctx = mm.Context(device=0, stream=torch.cuda.current_stream())
        assert ctx.user_stream and ctx.stream == s.cuda_stream
        h = host_cube(1)
        V = torch.tensor(h.V, device="cuda") * 2              # queued on s
        F = torch.tensor(h.F, device="cuda", dtype=torch.int32)
        m = mm.from_dlpack(V, F, ctx=ctx)
        sub = mm.subdivide(m, "catmull-clark", 2)
        out = torch.from_dlpack(sub.V) + 0                   # ordered on s: no wait needed
    s.synchronize()
    ref = mm.subdivide(mm.Mesh.from_arrays(h.V * 2, h.F), "catmull-clark", 2)
    np.testing.assert_allclose(out.cpu().numpy(), ref.V, atol=1e-4)
    ctx2 = mm.Context(device=0, stream=s)                   # an object with cuda_stream
    assert ctx2.stream == s.cuda_stream


def test_torch_plan_eval(torch):
    stream = torch.cuda.Stream()
    torch.cuda.set_stream(stream)
    ctx = mm.Context(device=0, stream=torch.cuda.current_stream())
    h = host_cube()
    m = mm.from_dlpack(torch.tensor(h.V, device="cuda"),
                       torch.tensor(h.F, device="cuda", dtype=torch.int32), ctx=ctx)
    p = mm.plan(m, "catmull-clark", 3)
    out = torch.empty((p.nverts, 3), device="cuda")
    for k in (1.0, 2.0):
        r = p.eval(torch.tensor(h.V, device="cuda") * k, out=out)
        assert r is out
        ref = mm.subdivide(mm.Mesh.from_arrays(h.V * k, h.F), "catmull-clark", 3)
        np.testing.assert_allclose(out.cpu().numpy(), ref.V, atol=1e-4)
    torch.cuda.set_stream(torch.cuda.default_stream())


def test_default_stream_refused(torch):
    with pytest.raises(mm.ArgumentError, match="stream"):
        mm.Context(device=0, stream=torch.cuda.default_stream())


def test_torch_queries_operators_normals(torch):
    ctx = mm.Context(device=0)
    m = mm.shape("icosphere:2", ctx=ctx)
    h = mm.shape("icosphere:2")
    for kind in ("VV", "EF", "FV"):
        a = [torch.from_dlpack(x).cpu().numpy() for x in mm.query(m, kind)]
        b = mm.query(h, kind)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    shp, ptr, idx, x = mm.laplacian(m, "cotan")               # raw arrays on the device
    L = mm.laplacian(h, "cotan")
    np.testing.assert_array_equal(torch.from_dlpack(idx).cpu().numpy(), L.indices)
    np.testing.assert_allclose(torch.from_dlpack(x).cpu().numpy(), L.data, atol=1e-5)
    n = torch.from_dlpack(mm.normals(m)).cpu().numpy()
    np.testing.assert_allclose(n, mm.normals(h), atol=1e-5)
    sm = mm.smooth(m, "taubin", iterations=3)
    np.testing.assert_allclose(torch.from_dlpack(sm.V).cpu().numpy(),
                               mm.smooth(h, "taubin", iterations=3).V, atol=1e-4)


def test_simplify_host_equals_cuda(torch):
    ctx = mm.Context(device=0)
    h = mm.shape("icosphere:3")
    d = mm.simplify(h.to(ctx), ratio=0.3)
    r = mm.simplify(h, ratio=0.3)
    np.testing.assert_array_equal(torch.from_dlpack(d.F).cpu().numpy(), r.F)
    np.testing.assert_array_equal(torch.from_dlpack(d.V).cpu().numpy(), r.V)


def test_device_lifetimes(torch):
    ctx = mm.Context(device=0)
    m = mm.shape("cube", ctx=ctx)
    V = torch.from_dlpack(m.V)
    s = mm.subdivide(m, "catmull-clark", 2)
    W = torch.from_dlpack(s.V)
    del m, s, ctx
    gc.collect()
    # The cube's corners are (+-1, +-1, +-1): a freed or reused buffer would not read so.
    assert V.abs().sum().item() == 24.0 and V.shape == (8, 3)
    assert W.shape[1] == 3 and bool(torch.isfinite(W).all()) and W.abs().max().item() <= 1.0


def test_cupy_roundtrip(cupy):
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        ctx = mm.Context(device=0, stream=stream)
        h = host_cube(1)
        V = cupy.asarray(h.V)
        F = cupy.asarray(h.F)
        m = mm.from_dlpack(V, F, ctx=ctx, copy=False)
        assert cupy.from_dlpack(m.V).data.ptr == V.data.ptr
        s = mm.subdivide(m, "catmull-clark", 1)
        out = cupy.from_dlpack(s.V)
    stream.synchronize()
    ref = mm.subdivide(h, "catmull-clark", 1)
    np.testing.assert_allclose(cupy.asnumpy(out), ref.V, atol=1e-5)
