"""Shared fixtures: small procedural meshes made here (no files), and the repository's test
data folder (tests/data) for the readers."""
import os

import numpy as np
import pytest

import meshmatrix as mm

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data")


@pytest.fixture
def tetra():
    """A closed tetrahedron, outward faces: (V float64, F int64)."""
    V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float64)
    F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], dtype=np.int64)
    return V, F


@pytest.fixture
def grid():
    """An open n x n grid of quads in the plane z = 0 (boundary on four sides)."""
    n = 4
    xs, ys = np.meshgrid(np.arange(n + 1, dtype=np.float32), np.arange(n + 1, dtype=np.float32))
    V = np.stack([xs.ravel(), ys.ravel(), np.zeros((n + 1) ** 2, np.float32)], axis=1)
    F = []
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i
            F.append([a, a + 1, a + n + 2, a + n + 1])
    return V, np.array(F, dtype=np.int32)


@pytest.fixture
def data_dir():
    return DATA


def needs_data(name):
    path = os.path.join(DATA, name)
    return pytest.mark.skipif(not os.path.exists(path),
                              reason=f"{path} not found (run from the repository)")
