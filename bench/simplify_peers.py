"""CPU peers of mmx_simplify (issue 31) on one mesh file, and the quality measure of every
result, ours included: the symmetric Hausdorff distance to the input, sampled, relative to
the input's bounding box diagonal.

    python3 simplify_peers.py IN.obj [--split N] [--ratio R] [--mmx PATH] [--ours OUT.obj] [--csv FILE]

--split N first splits IN N times by edge midpoints, 1-to-4, positions unchanged (nefertiti.obj
with --split 1 is nef1, as bench/simplify.c makes it: the same triangles, other numbering).

Peers (each run once, one thread, the simplification call alone timed: wall and CPU time, the
latter steadier on a shared machine):
  meshlab        pymeshlab's meshing_decimation_quadric_edge_collapse (Garland-Heckbert with
                 optimal placement; the boundary preserved, normals checked against flips)
                 to the same face count;
  meshoptimizer  meshoptimizer's simplify (PyPI meshoptimizer) to the same index count, the
                 border locked, the error bound open (1.0) so the count decides;
  mmx            with --mmx PATH: `mmx simplify --backend host --ratio R` on IN (its
                 simplify_ms from --json); with --ours OUT.obj: a result made elsewhere (the
                 GPU run of bench/simplify), measured but not timed.
Hausdorff: pymeshlab's get_hausdorff_distance both ways (vertices, edges and faces sampled,
10 samples per input face), the larger of the two maxima over the input's diagonal.
Prints a Markdown table (and --csv FILE: the same rows as CSV)."""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import pymeshlab

try:
    import meshoptimizer
except ImportError:  # the peer is optional
    meshoptimizer = None


def load(path):
    ms = pymeshlab.MeshSet()
    ms.load_new_mesh(path)
    return ms


def split4(src, dst, times):
    """src split `times` times by edge midpoints (1-to-4) into dst."""
    ms = load(src)
    m = ms.current_mesh()
    v = m.vertex_matrix()
    f = m.face_matrix().astype(np.int64)
    for _ in range(times):
        e = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
        key = np.minimum(e[:, 0], e[:, 1]) * len(v) + np.maximum(e[:, 0], e[:, 1])
        uniq, inv = np.unique(key, return_inverse=True)
        a, b = uniq // len(v), uniq % len(v)
        mid = len(v) + inv.reshape(3, -1).T  # per face: the midpoints of edges 01, 12, 20
        v = np.concatenate([v, 0.5 * (v[a] + v[b])])
        f = np.concatenate([np.stack([f[:, 0], mid[:, 0], mid[:, 2]], 1),
                            np.stack([mid[:, 0], f[:, 1], mid[:, 1]], 1),
                            np.stack([mid[:, 2], mid[:, 1], f[:, 2]], 1),
                            np.stack([mid[:, 0], mid[:, 1], mid[:, 2]], 1)])
    out = pymeshlab.MeshSet()
    out.add_mesh(pymeshlab.Mesh(vertex_matrix=v, face_matrix=f.astype(np.int32)))
    out.save_current_mesh(dst)


def hausdorff(in_path, out_path, nsamples):
    """The symmetric sampled Hausdorff distance between two mesh files (absolute)."""
    ms = pymeshlab.MeshSet()
    ms.load_new_mesh(in_path)
    ms.load_new_mesh(out_path)
    ms.meshing_remove_unreferenced_vertices()
    kw = dict(samplevert=True, sampleedge=True, sampleface=True, samplenum=nsamples,
              maxdist=pymeshlab.PercentageValue(100))
    a = ms.get_hausdorff_distance(sampledmesh=0, targetmesh=1, **kw)["max"]
    b = ms.get_hausdorff_distance(sampledmesh=1, targetmesh=0, **kw)["max"]
    return max(a, b)


def run_meshlab(src, dst, target):
    ms = load(src)
    t0, c0 = time.perf_counter(), time.process_time()
    ms.meshing_decimation_quadric_edge_collapse(targetfacenum=target, preserveboundary=True,
                                                preservenormal=True, optimalplacement=True,
                                                planarquadric=False, autoclean=True)
    ms_, cpu = (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3
    ms.save_current_mesh(dst)
    return ms_, cpu, ms.current_mesh().face_number()


def run_meshoptimizer(src, dst, target):
    ms = load(src)
    m = ms.current_mesh()
    pos = np.ascontiguousarray(m.vertex_matrix(), dtype=np.float32)
    idx = np.ascontiguousarray(m.face_matrix(), dtype=np.uint32).reshape(-1)
    dest = np.zeros_like(idx)
    t0, c0 = time.perf_counter(), time.process_time()
    n = meshoptimizer.simplify(dest, idx, pos, target_index_count=3 * target, target_error=1.0,
                               options=meshoptimizer.SIMPLIFY_LOCK_BORDER)
    ms_, cpu = (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3
    faces = dest[:n].reshape(-1, 3).astype(np.int32)
    out = pymeshlab.MeshSet()
    out.add_mesh(pymeshlab.Mesh(vertex_matrix=pos.astype(np.float64), face_matrix=faces))
    out.meshing_remove_unreferenced_vertices()
    out.save_current_mesh(dst)
    return ms_, cpu, len(faces)


def run_mmx(mmx, src, dst, ratio):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([mmx, "--json", "simplify", "--backend", "host", "--ratio", str(ratio), src,
                        dst], capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3
    j = json.loads(r.stdout)
    return j["simplify_ms"], cpu, j["output"]["faces"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("--split", type=int, default=0)
    ap.add_argument("--ratio", type=float, default=0.1)
    ap.add_argument("--mmx")
    ap.add_argument("--ours")
    ap.add_argument("--csv")
    a = ap.parse_args()
    keep = tempfile.TemporaryDirectory()
    if a.split:
        name = os.path.splitext(os.path.basename(a.input))[0] + f"_split{a.split}.ply"
        split4(a.input, os.path.join(keep.name, name), a.split)
        a.input = os.path.join(keep.name, name)
    ms0 = load(a.input)  # keeps the mesh alive
    src = ms0.current_mesh()
    nf = src.face_number()
    diag = src.bounding_box().diagonal()
    target = math.ceil(a.ratio * nf)
    nsamples = 10 * nf
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        runs = [("meshlab (pymeshlab QEC)", run_meshlab)]
        if meshoptimizer is not None:
            runs.append(("meshoptimizer simplify", run_meshoptimizer))
        for name, fn in runs:
            dst = os.path.join(tmp, name.split()[0] + ".ply")
            ms_, cpu, faces = fn(a.input, dst, target)
            rows.append((name, ms_, cpu, faces, hausdorff(a.input, dst, nsamples) / diag))
        if a.mmx:
            dst = os.path.join(tmp, "mmx.ply")
            ms_, cpu, faces = run_mmx(a.mmx, a.input, dst, a.ratio)
            rows.append(("mmx simplify (host; CPU: the whole process)", ms_, cpu, faces,
                         hausdorff(a.input, dst, nsamples) / diag))
        if a.ours:
            faces = load(a.ours).current_mesh().face_number()
            rows.append(("mmx simplify (" + os.path.basename(a.ours) + ")", float("nan"), float("nan"), faces,
                         hausdorff(a.input, a.ours, nsamples) / diag))
    print(f"{os.path.basename(a.input)}: {nf} faces, target {target} (ratio {a.ratio}), "
          f"diagonal {diag:.6g}, {nsamples} samples per direction")
    print("| method | wall ms | CPU ms | faces | Hausdorff / diagonal |")
    print("|---|---:|---:|---:|---:|")
    for name, ms_, cpu, faces, h in rows:
        print(f"| {name} | {ms_:.1f} | {cpu:.1f} | {faces} | {h:.3e} |")
    if a.csv:
        with open(a.csv, "a") as f:
            for name, ms_, cpu, faces, h in rows:
                f.write(f"{os.path.basename(a.input)},{name},{ms_:.3f},{cpu:.3f},{faces},{h:.6e}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
