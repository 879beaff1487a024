"""meshmatrix: polygon meshes as sparse linear algebra, on the host and on CUDA GPUs.

A mesh is its mesh matrix (faces as columns, vertices as rows) plus float32 positions. Arrays
come in as numpy arrays or any DLPack object (PyTorch, CuPy, JAX) and go out as views of the
library's own memory, without a copy where the layout allows:

    import meshmatrix as mm
    mesh = mm.load("bigguy.obj")             # or mm.Mesh.from_arrays(V, F)
    fine = mm.subdivide(mesh, "catmull-clark", 2)
    V, F = fine.V, fine.F                    # numpy views owned by `fine`

On the GPU, a Context on your framework's stream puts the library's work in order with yours:

    ctx = mm.Context(device=0, stream=torch.cuda.current_stream())
    mesh = mm.from_dlpack(V_cuda, F_cuda, ctx=ctx)
    fine = mm.subdivide(mesh, "loop", 3)
    Vt = torch.from_dlpack(fine.V)           # no copy, no wait

Errors raise meshmatrix.Error subclasses carrying the library's sentence (what and where).
"""
import os
from typing import Any, Optional, Sequence, Tuple, Union

from ._errors import (Error, ArgumentError, OutOfMemoryError, FileError, ParseError, MeshError,
                      SizeError, NoDeviceError, CudaError, SpaceError, UnsupportedError,
                      InternalError)
from . import _meshmatrix as _mm
from ._meshmatrix import Context, Mesh, SubdivPlan, DeviceArray, has_cuda, cuda_device_count

__version__ = "0.1.0"

__all__ = [
    "Context", "Mesh", "SubdivPlan", "DeviceArray", "load", "shape", "from_dlpack",
    "subdivide", "plan", "query", "adjacency", "laplacian", "mass_matrix", "operator",
    "normals", "face_normals", "smooth", "delaunay", "remesh", "simplify", "has_cuda", "cuda_device_count",
    "Error", "ArgumentError", "OutOfMemoryError", "FileError", "ParseError", "MeshError",
    "SizeError", "NoDeviceError", "CudaError", "SpaceError", "UnsupportedError", "InternalError",
]


def _from_arrays(V: Any, F: Any, offsets: Any = None, ctx: Optional[Context] = None,
                 copy: bool = True) -> Mesh:
    """A mesh from positions V (nverts, 3) and faces F.

    F is an (nfaces, k) array of 0-based vertex indices (every face of order k >= 3, each row
    in the face's cyclic order, counter-clockwise seen from outside), or, with ``offsets``, the
    flat corner list of polygons of any orders: face f is F[offsets[f]:offsets[f+1]]
    (offsets has nfaces + 1 entries, offsets[0] = 0).

    The arrays may be numpy arrays (host) or DLPack objects (torch, cupy: on the GPU they need
    a CUDA ``ctx``, and are read on the context's stream: ``__dlpack__(stream=...)``). ``ctx``
    None makes a host Context for the mesh.

    Types and cost: float32 positions and int32 indices that are C-contiguous are read in
    place. float64 positions and int64 indices are converted by one pass into a temporary
    float32 / int32 copy (O(n) time, 4 bytes per element, freed once the mesh is built); a
    NaN, an infinity or a float64 beyond float32's range, and an index outside [0, 2**31), are
    refused naming the element (``ArgumentError`` / ``SizeError``). Fortran-ordered or strided
    host arrays are gathered into a contiguous copy first (numpy); strided device arrays are
    refused (make them contiguous).

    ``copy=True`` (the default) copies the arrays into the library's memory, so they may change
    afterwards. ``copy=False`` uses them in place (no copy at all): F must be (nfaces, k) int32
    and V float32, both C-contiguous and in the context's space; the mesh keeps them alive and
    they must not change while it lives.

    The checks (mmx_mesh_from_faces's): every face of order >= 3, indices in [0, nverts), no
    vertex twice in a face, every coordinate finite; a violation raises ``MeshError`` naming
    the face. Cost: O(nverts + corners).
    """
    return _mm._from_arrays(V, F, offsets, ctx, copy)


Mesh.from_arrays = staticmethod(_from_arrays)


def from_dlpack(V: Any, F: Any, offsets: Any = None, ctx: Optional[Context] = None,
                copy: bool = True) -> Mesh:
    """``Mesh.from_arrays`` for DLPack objects (torch, cupy, jax arrays): the same rules."""
    return _mm._from_arrays(V, F, offsets, ctx, copy)


def load(path: Union[str, "os.PathLike[str]"], ctx: Optional[Context] = None) -> Mesh:
    """Reads a mesh (OBJ, OFF, PLY, STL by the extension) into ``ctx``'s space (None: a new
    host Context). Raises FileError, ParseError or MeshError naming the file, line and face."""
    return _mm._load(str(path), ctx)


def shape(spec: str, ctx: Optional[Context] = None) -> Mesh:
    """A built-in procedural mesh: "tetrahedron", "cube", "icosphere[:L]", "torus[:U:V]",
    "grid[:NX:NY]", "mixed" (mmx_mesh_shape)."""
    return _mm._shape(spec, ctx)


def subdivide(mesh: Mesh, scheme: str = "catmull-clark", levels: int = 1,
              boundary: str = "mesh", creases: Optional[Tuple[Any, Any]] = None,
              corners: Optional[Tuple[Any, Any]] = None, holes: Optional[Sequence[int]] = None,
              keep_holes: bool = False, uv: Optional[Tuple[Any, Any]] = None,
              fvar: str = "mesh", limit: bool = False, path: str = "auto",
              crease_method: str = "mesh", triangles: str = "mesh") -> Mesh:
    """Refines ``mesh`` ``levels`` times by ``scheme`` ("catmull-clark", "loop", "sqrt3",
    "bilinear") on its context's backend; returns a new Mesh (reduced form: quads for
    Catmull-Clark and bilinear, triangles for the others).

    boundary: "mesh" (the mesh's 'interpolateboundary' tag, else edge only), "edge-only",
    "edge-and-corner", "none". creases: (edges (m, 2), sharpness: one value or m), OpenSubdiv's
    sharpness (10 and above: infinitely sharp); corners: (vertices (m,), sharpness). holes:
    face numbers whose descendants are left out (keep_holes=True: kept and tagged). uv: texture
    coordinates (values (n, 2), index (ncorners,), one per corner in face order), refined by
    ``fvar`` ("mesh", "linear", "smooth", "corners-only", "boundaries"); the result's are in
    ``.uv``. limit: push the result's vertices to the limit surface. path: "auto", "fused",
    "algebraic" (the reference). crease_method: "mesh", "uniform", "chaikin"; triangles:
    "mesh", "catmark", "smooth" (Catmull-Clark's rule beside triangles).

    The creases, corners, holes and uv are set on a copy of the mesh (the caller's is left
    as it is). Errors (mmx_subdivide's checks, before any work): ArgumentError, MeshError
    naming the face, vertex or edge, SizeError when the result would not fit 32-bit indices.
    Cost: linear in the refined mesh's corners. On CUDA the result is queued: reading it
    through the package synchronises as the DLPack rules say (docs/python.md).
    """
    return _mm._subdivide(mesh, scheme, levels, boundary, creases, corners, holes, keep_holes,
                          uv, fvar, limit, path, crease_method, triangles)


def plan(mesh: Mesh, scheme: str = "catmull-clark", levels: int = 1,
         boundary: str = "mesh") -> SubdivPlan:
    """A SubdivPlan: the topology of ``levels`` levels of ``scheme`` over ``mesh`` refined once;
    ``plan.eval(V)`` then gives the last level's positions for new control positions V
    (nverts, 3) (one pass per level; on CUDA a replayed CUDA graph), ``plan.mesh(pos)`` a Mesh.
    Always the fused path (sqrt3 with boundary: UnsupportedError)."""
    return _mm._plan(mesh, scheme, levels, boundary)


def query(mesh: Mesh, kind: str) -> Tuple[Any, Any]:
    """A first-order query ("VV", "VE", "VF", "EV", "EF", "FV", "FE", "FF") as
    ``(indptr, indices)`` int32 arrays: element i's neighbours are indices[indptr[i]:
    indptr[i+1]], in the order query.h fixes (around a vertex: counter-clockwise, fan by fan).
    Views of the library's result (no copy). Edges are numbered as the adjacency numbers them
    (the upper triangle of E in column order). The vertex queries need consistently oriented
    faces (MeshError naming the edge)."""
    return mesh.query(kind)


def _sparse(t):
    shp, indptr, indices, data = t
    if isinstance(indptr, DeviceArray):
        return t
    try:
        import scipy.sparse as sp
    except ImportError:
        return t
    return sp.csc_matrix((data, indices, indptr), shape=shp)


def operator(mesh: Mesh, kind: str) -> Any:
    """The operator ``kind`` ("adjacency", "uniform", "cotan", "mass", "mass-voronoi", "ev",
    "fe") built by the algebra (mmx_operator), as a ``scipy.sparse.csc_matrix`` (float32) when
    SciPy is importable, else (or for a device mesh) the raw ``(shape, indptr, indices,
    data)`` of its CSC storage. "cotan" and "mass-voronoi" need triangles (MeshError)."""
    return _sparse(mesh._operator(kind))


def adjacency(mesh: Mesh) -> Any:
    """The vertex adjacency matrix (1 at (i, j) and (j, i) for every edge): ``operator``."""
    return operator(mesh, "adjacency")


def laplacian(mesh: Mesh, kind: str = "cotan") -> Any:
    """The cotangent ("cotan", libigl's cotmatrix convention, triangles only) or uniform
    ("uniform") Laplacian, symmetric, with L 1 = 0: ``operator``."""
    if kind not in ("cotan", "uniform"):
        raise ArgumentError(f"laplacian: kind '{kind}' is not one of cotan, uniform", -1)
    return operator(mesh, kind)


def mass_matrix(mesh: Mesh, kind: str = "barycentric") -> Any:
    """The diagonal mass matrix: "barycentric" (any faces) or "voronoi" (Meyer's mixed
    Voronoi areas, triangles only): ``operator``."""
    names = {"barycentric": "mass", "voronoi": "mass-voronoi"}
    if kind not in names:
        raise ArgumentError(f"mass_matrix: kind '{kind}' is not one of barycentric, voronoi", -1)
    return operator(mesh, names[kind])


def normals(mesh: Mesh, weight: str = "area") -> Any:
    """Unit vertex normals (nverts, 3) float32, weighted by "area", "angle" or "uniform"
    (zero for a vertex in no face)."""
    return mesh.normals(weight)


def face_normals(mesh: Mesh) -> Tuple[Any, Any]:
    """(normals (nfaces, 3), areas (nfaces,)) by Newell's formula, any face order."""
    return mesh.face_normals()


def smooth(mesh: Mesh, method: str = "laplacian", iterations: int = -1, step: float = 0.0,
           mu: float = 0.0, fix_boundary: bool = False, path: str = "assembled",
           report: bool = False) -> Any:
    """A smoothed copy of ``mesh`` (same topology): method "laplacian", "cotan", "taubin",
    "bilateral" or "mcf" (implicit mean curvature flow); iterations -1: the method's default
    (10; MCF 1); step 0: the default (lambda 0.5; MCF's h from the bounding box); mu 0: Taubin's
    default. path: "assembled", "patch" (laplacian, taubin), "matrix-free" (mcf).
    report=True returns (mesh, dict) with the iterations, steps and CG figures."""
    return _mm._smooth(mesh, method, iterations, step, mu, fix_boundary, path, report)


def delaunay(mesh: Mesh, report: bool = False) -> Any:
    """The intrinsic Delaunay triangulation by edge flips (mmx_delaunay_flip): a new mesh with
    the same vertices; report=True returns (mesh, dict(rounds, flips, remaining))."""
    return _mm._delaunay(mesh, report)


def remesh(mesh: Mesh, target_length: float = 0.0, iterations: int = -1,
           feature_angle: float = 60.0, report: bool = False) -> Any:
    """Isotropic remeshing of a triangle mesh towards edge length ``target_length`` (0: the
    mean edge length), Botsch and Kobbelt 2004 (mmx_remesh); iterations -1: 3."""
    return _mm._remesh(mesh, target_length, iterations, feature_angle, report)


def simplify(mesh: Mesh, faces: int = 0, ratio: float = 0.0, max_error: float = 0.0,
             feature_angle: float = 180.0, report: bool = False) -> Any:
    """Quadric error simplification of a triangle mesh (Garland and Heckbert 1997;
    mmx_simplify): edge collapses in parallel rounds, cheapest first, until the mesh has at
    most ``faces`` faces, or ``ratio`` of its faces, or no collapse stays within ``max_error``
    (relative to the bounding box diagonal); at least one of the three must be given, and with
    a face target and an error bound it stops at whichever comes first. Boundary vertices, and
    the ends of edges whose faces bend by more than ``feature_angle`` degrees, never move. No
    fold-over; the output is manifold and oriented; the same bytes on the host and CUDA. With
    ``report=True`` returns ``(mesh, dict)``: faces and vertices in and out, rounds,
    collapses, the largest error kept (relative to the diagonal) and the time in ms."""
    if faces < 0 or ratio < 0 or max_error < 0:
        raise ValueError("simplify: faces, ratio and max_error must not be negative")
    return _mm._simplify(mesh, int(faces), float(ratio), float(max_error),
                         float(feature_angle), report)
