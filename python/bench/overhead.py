"""The Python binding's overhead over the C calls (issue 29: at most 5 us per call; Bigguy
Catmull-Clark to level 6 on CUDA from a PyTorch tensor in and out within 1.1x of the C call; the
host path within 1.1x).

Runs the same calls from Python and from C (python/bench/overhead_c.c, built with the package
in the meson-python build folder) and prints both:
  stats     mesh.stats() on the cube, per call (the fastest of 7 batches of 20000, both sides)
  query     mm.query(cube, "VV"), per call (a copy of the cached result, as in C)
  host      subdivide(Bigguy, catmull-clark, HOST_LEVELS) on the host
  cuda      the same to CUDA_LEVELS levels on CUDA: the mesh already on the device (the C call's
            conditions), then from a torch tensor in (copy=False: wrapped, validated on the
            device) to a torch tensor out (torch.from_dlpack of the result's V and F), each
            ending with the stream synchronised
Usage: python overhead.py [--c PATH/overhead_c] [--mesh OBJ] [--host-levels 4]
       [--cuda-levels 6]
"""
import argparse
import gc
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import meshmatrix as mm

HERE = os.path.dirname(os.path.abspath(__file__))
BIGGUY = "/work/shared/meshes/cages/bigguy_quads.obj"
if not os.path.exists(BIGGUY):
    BIGGUY = os.path.join(HERE, "..", "..", "tests", "data", "bigguy_quads.obj")


def per_call_us(fn, calls=20000, batches=7):
    # As timeit does, with the garbage collector off: its passes, triggered by the count of
    # objects made, belong to the program's allocations rather than to the call.
    times = []
    gc.disable()
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) * 1e6 / calls)
    gc.enable()
    return min(times)  # the least disturbed batch, as timeit and overhead_c take


def median_ms(fn, runs, warm=0):
    times = []
    for i in range(runs + warm):
        t0 = time.perf_counter()
        result = fn()
        if i >= warm:
            times.append((time.perf_counter() - t0) * 1e3)
        del result  # freeing the result is not timed, on either side (overhead_c.c)
    return statistics.median(times)


def c_figures(exe, mesh, host_levels, cuda_levels):
    if not exe or not os.path.exists(exe):
        return {}
    out = subprocess.run([exe, mesh, str(host_levels), str(cuda_levels)], check=True,
                         capture_output=True, text=True).stdout
    figs = {}
    for line in out.splitlines():
        k, v = line.split(" ", 1)
        try:
            figs[k] = float(v)
        except ValueError:
            figs[k] = v
    return figs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c", default=os.environ.get("MMX_OVERHEAD_C", ""),
                    help="the C benchmark (overhead_c) built beside the package")
    ap.add_argument("--mesh", default=BIGGUY)
    ap.add_argument("--host-levels", type=int, default=4)
    ap.add_argument("--cuda-levels", type=int, default=6)
    a = ap.parse_args()
    c = c_figures(a.c, a.mesh, a.host_levels, a.cuda_levels)
    py = {}
    cube = mm.shape("cube")
    cube.stats()
    py["stats_us"] = per_call_us(cube.stats)
    mm.query(cube, "VV")
    py["query_us"] = per_call_us(lambda: mm.query(cube, "VV"))
    mesh = mm.load(a.mesh)
    py["host_ms"] = median_ms(lambda: mm.subdivide(mesh, "catmull-clark", a.host_levels), 5)
    gpu_note = ""
    if mm.has_cuda() and mm.cuda_device_count() > 0:
        try:
            import torch
        except ImportError:
            torch = None
            gpu_note = "torch not installed: only the mesh-on-device figure"
        ctx = mm.Context(device=0)
        dmesh = mesh.to(ctx)

        def on_device():
            s = mm.subdivide(dmesh, "catmull-clark", a.cuda_levels)
            ctx.sync()
            return s
        py["cuda_ms"] = median_ms(on_device, 7, warm=2)
        if torch is not None:
            stream = torch.cuda.Stream()
            torch.cuda.set_stream(stream)
            tctx = mm.Context(device=0, stream=torch.cuda.current_stream())
            V = torch.tensor(mesh.V, device="cuda")
            F = torch.tensor(mesh.F, device="cuda", dtype=torch.int32)

            def torch_in_out():
                m = mm.from_dlpack(V, F, ctx=tctx, copy=False)
                s = mm.subdivide(m, "catmull-clark", a.cuda_levels)
                Vo, Fo = torch.from_dlpack(s.V), torch.from_dlpack(s.F)
                stream.synchronize()
                return Vo, Fo
            py["cuda_torch_ms"] = median_ms(torch_in_out, 7, warm=2)
            # Two tensors made from the same result share its memory only when neither was
            # copied (a copying export would give each its own buffer).
            s = mm.subdivide(mm.from_dlpack(V, F, ctx=tctx, copy=False), "catmull-clark", 1)
            same = torch.from_dlpack(s.V).data_ptr() == torch.from_dlpack(s.V).data_ptr()
            py["cuda_torch_copies"] = "no copy" if same else "copy"
    else:
        gpu_note = "no CUDA device or a build without CUDA"
    print(f"meshmatrix {mm.__version__}, Python {sys.version.split()[0]}, mesh {a.mesh}")
    rows = [("stats (cube), us/call", "stats_us", "stats_us"),
            ("query VV (cube), us/call", "query_us", "query_us"),
            (f"subdivide CC level {a.host_levels}, host, ms", "host_ms", "host_ms"),
            (f"subdivide CC level {a.cuda_levels}, CUDA, mesh on device, ms", "cuda_ms",
             "cuda_ms"),
            (f"subdivide CC level {a.cuda_levels}, CUDA, torch in and out, ms",
             "cuda_torch_ms", "cuda_ms")]
    print(f"{'':58s} {'Python':>10s} {'C':>10s} {'ratio':>7s} {'diff':>10s}")
    for label, pk, ck in rows:
        p, cv = py.get(pk), c.get(ck)
        if p is None:
            continue
        if isinstance(cv, float):
            print(f"{label:58s} {p:10.3f} {cv:10.3f} {p / cv:7.3f} {p - cv:10.3f}")
        else:
            print(f"{label:58s} {p:10.3f} {'-':>10s}")
    if gpu_note:
        print("GPU:", gpu_note)
    if "cuda_torch_copies" in py:
        print("torch.from_dlpack(result.V):", py["cuda_torch_copies"])
    if not c:
        print("(no C figures: pass --c build-dir/python/overhead_c)")


if __name__ == "__main__":
    main()
