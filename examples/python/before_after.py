"""Before and after pictures of a subdivision, drawn with matplotlib.

    python examples/python/before_after.py [MESH] [--scheme catmull-clark] [--levels 2]
        [--out before_after.png]

MESH defaults to the Bigguy cage in tests/data (or the built-in cube when run elsewhere). The
faces are drawn as polygons shaded by their normals (meshmatrix.face_normals), the cage on the
left, the refined mesh on the right. Without matplotlib the script says so and exits quietly.
"""
import argparse
import os
import sys

import numpy as np

import meshmatrix as mm

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "..", "tests", "data", "bigguy_quads.obj")


def draw(ax, mesh, title):
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection
    offsets, indices = mesh.faces()
    V = np.asarray(mesh.V)
    polys = [V[indices[offsets[f]:offsets[f + 1]]] for f in range(mesh.nfaces)]
    normals, _ = mm.face_normals(mesh)
    light = np.array([-0.4, 0.6, 0.7])  # from the upper left, in front (y up)
    shade = 0.25 + 0.75 * np.clip(np.asarray(normals) @ (light / np.linalg.norm(light)), 0, 1)
    colors = np.stack([shade * 0.55, shade * 0.7, shade * 0.95, np.ones_like(shade)], axis=1)
    ax.add_collection3d(Poly3DCollection(polys, facecolors=colors, edgecolors=(0, 0, 0, 0.25),
                                         linewidths=0.2))
    lo, hi = V.min(0), V.max(0)
    c, r = (lo + hi) / 2, (hi - lo).max() / 2
    ax.set_xlim(c[0] - r, c[0] + r)
    ax.set_ylim(c[1] - r, c[1] + r)
    ax.set_zlim(c[2] - r, c[2] + r)
    ax.set_axis_off()
    ax.set_title(f"{title}\n{mesh.nverts} vertices, {mesh.nfaces} faces", fontsize=9)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mesh", nargs="?", default=DEFAULT if os.path.exists(DEFAULT) else None)
    ap.add_argument("--scheme", default="catmull-clark")
    ap.add_argument("--levels", type=int, default=2)
    ap.add_argument("--out", default="before_after.png")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("before_after.py: matplotlib is not installed (pip install matplotlib); "
              "nothing drawn")
        return 0
    cage = mm.load(a.mesh) if a.mesh else mm.shape("cube")
    fine = mm.subdivide(cage, a.scheme, a.levels)
    fig = plt.figure(figsize=(10, 5))
    name = os.path.basename(a.mesh) if a.mesh else "cube"
    for i, (m, t) in enumerate([(cage, name), (fine, f"{a.scheme}, {a.levels} levels")]):
        ax = fig.add_subplot(1, 2, i + 1, projection="3d")
        try:  # the models are y-up (OBJ's habit); matplotlib >= 3.6 can turn the view
            ax.view_init(elev=15, azim=-60, vertical_axis="y")
        except TypeError:
            ax.view_init(elev=15, azim=-60)
        draw(ax, m, t)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
