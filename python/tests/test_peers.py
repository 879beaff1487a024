"""Quality against a peer on small meshes (issue 31): QEM simplification (mm.simplify) against
meshoptimizer's simplify (PyPI ``meshoptimizer``, a test dependency that scripts/run.sh
installs with pytest) at the same face count, measured by the symmetric Hausdorff distance to
the input relative to its bounding box diagonal.

The distance is estimated on surface samples: 60,000 points spread by area over each mesh's
triangles (a fixed seed) plus its vertices, the largest nearest-sample distance each way (a
k-d tree, scipy). Both results are held to the same estimate, so the ratio is fair; the
absolute figures are within the samples' spacing (about 0.3% of the diagonal here) of the
true distance.

Measured on the development VM (2026-11-27), mmx / meshoptimizer at 10% of the faces: here
Bigguy 1.18 and the bumpy sphere 1.20; with 200,000 samples a mesh, the Stanford bunny 1.24,
fandisk 1.08, spot 0.73 (the issue asks for 1.1x of MeshLab's, which CI does not install;
bench/results/simplify.md has MeshLab's on nefertiti: ours 0.82x). The test guards against a regression past 1.35x on Bigguy and on
a bumpy sphere, and checks what both must hold: the face count reached, a valid manifold
oriented result."""
import os

import numpy as np
import pytest

import meshmatrix as mm
from conftest import DATA, needs_data

mo = pytest.importorskip("meshoptimizer", reason="meshoptimizer (PyPI) is not installed: "
                         "scripts/run.sh installs it for the peer comparison")
spatial = pytest.importorskip("scipy.spatial", reason="scipy is not installed")


def _samples(V, F, n=60000, seed=1):
    rng = np.random.default_rng(seed)
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
    idx = rng.choice(len(F), n, p=area / area.sum())
    r1 = np.sqrt(rng.random(n))
    r2 = rng.random(n)
    P = ((1 - r1)[:, None] * a[idx] + (r1 * (1 - r2))[:, None] * b[idx] +
         (r1 * r2)[:, None] * c[idx])
    return np.vstack([P, V])


def _hausdorff(V1, F1, V2, F2):
    s1, s2 = _samples(V1, F1), _samples(V2, F2)
    d12 = spatial.cKDTree(s2).query(s1)[0].max()
    d21 = spatial.cKDTree(s1).query(s2)[0].max()
    return max(d12, d21)


def _compare(m, ratio=0.1):
    V = np.asarray(m.V, dtype=np.float64)
    F = np.asarray(m.F, dtype=np.int64)
    diag = np.linalg.norm(V.max(axis=0) - V.min(axis=0))
    ours = mm.simplify(m, ratio=ratio)
    assert 0 < ours.nfaces <= int(np.ceil(ratio * len(F)))
    v = ours.validate()
    assert v["valid"], v["problem"]
    st = ours.stats()
    assert st["manifold"] and st["oriented"]
    # meshoptimizer to the same face count (its error bound lifted so the count decides).
    dst = np.zeros(F.size, dtype=np.uint32)
    n = mo.simplify(dst, F.astype(np.uint32).ravel(), V.astype(np.float32),
                    target_index_count=3 * ours.nfaces, target_error=1.0)
    Fo = dst[:n].reshape(-1, 3).astype(np.int64)
    assert abs(len(Fo) - ours.nfaces) <= ours.nfaces // 20, (len(Fo), ours.nfaces)
    h_ours = _hausdorff(V, F, np.asarray(ours.V, dtype=np.float64),
                        np.asarray(ours.F, dtype=np.int64)) / diag
    h_peer = _hausdorff(V, F, V, Fo) / diag
    return h_ours, h_peer


@needs_data("bigguy_quads.obj")
def test_simplify_against_meshoptimizer_on_bigguy():
    m = mm.load(os.path.join(DATA, "bigguy_quads.obj")).triangulate()
    h_ours, h_peer = _compare(m)
    print(f"bigguy at 10%: Hausdorff / diagonal {h_ours:.3e}, meshoptimizer {h_peer:.3e}")
    assert h_ours <= 1.35 * h_peer, (h_ours, h_peer)


def test_simplify_against_meshoptimizer_on_a_bumpy_sphere():
    s = mm.shape("icosphere:5")
    V = np.asarray(s.V, dtype=np.float64)
    F = np.asarray(s.F, dtype=np.int64)
    # Bumps of a few wavelengths: curvature varies over the surface, as on a scan.
    u = V / np.linalg.norm(V, axis=1)[:, None]
    r = 1.0 + 0.08 * np.sin(5 * u[:, 0]) * np.sin(4 * u[:, 1]) * np.sin(3 * u[:, 2] + 1.0)
    m = mm.Mesh.from_arrays(u * r[:, None], F)
    h_ours, h_peer = _compare(m)
    print(f"bumpy sphere at 10%: Hausdorff / diagonal {h_ours:.3e}, meshoptimizer {h_peer:.3e}")
    assert h_ours <= 1.35 * h_peer, (h_ours, h_peer)
