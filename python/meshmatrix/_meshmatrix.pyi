"""Type stubs of meshmatrix's extension module (python/src/module.cpp); the statements are the
C headers' (include/meshmatrix/*.h). Use the package meshmatrix, which re-exports these."""
from typing import Any, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

ArrayLike = Any  # numpy arrays, DLPack objects (torch, cupy, jax), nested sequences
HostOrDevice = Union[npt.NDArray[Any], "DeviceArray"]


class Context:
    """An execution context (mmx_ctx): the host (device=None), or CUDA device `device` on a
    stream of the library's own (stream=None) or on the caller's (an int cudaStream_t, or an
    object with cuda_stream, ptr or __cuda_stream__: torch.cuda.Stream, cupy.cuda.Stream; the
    legacy and per-thread default streams are refused). Meshes, plans and arrays made through
    it keep it alive. Raises NoDeviceError / UnsupportedError without a device or CUDA build."""

    def __init__(self, device: Optional[int] = None, stream: Any = None) -> None: ...
    @property
    def backend(self) -> str:
        """"host" or "cuda"."""
    @property
    def device(self) -> Optional[int]: ...
    @property
    def stream(self) -> int:
        """The cudaStream_t the library queues its work on (0 on the host)."""
    @property
    def user_stream(self) -> bool:
        """True when the context runs on the caller's stream (no waits at hand-over)."""
    def sync(self) -> None:
        """Waits for the work queued on the context's stream (mmx_ctx_sync)."""


class DeviceArray:
    """An array in CUDA memory owned by the library, handed out without a copy: a DLPack
    producer. __dlpack__ waits for the context's stream unless the context is on the caller's
    stream and the consumer names that stream."""

    def __dlpack__(self, stream: Optional[int] = None, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def dtype(self) -> Any: ...
    @property
    def context(self) -> Context: ...


class Mesh:
    """A polygon mesh (mmx_mesh): its mesh matrix (faces as columns, vertices as rows) and
    float32 positions, on the host or on a CUDA device. Keeps its Context alive."""

    @staticmethod
    def from_arrays(V: ArrayLike, F: ArrayLike, offsets: Optional[ArrayLike] = None,
                    ctx: Optional[Context] = None, copy: bool = True) -> "Mesh":
        """A mesh from positions (nverts, 3) and faces (nfaces, k) or a flat corner list with
        offsets; float64 / int64 converted in one pass (see meshmatrix.Mesh.from_arrays)."""
    @property
    def nverts(self) -> int: ...
    @property
    def nfaces(self) -> int: ...
    @property
    def ncorners(self) -> int: ...
    @property
    def order(self) -> int:
        """k when stored in the reduced form (every face of order k), else 0."""
    @property
    def space(self) -> str:
        """"host" or "device"."""
    @property
    def context(self) -> Context: ...
    @property
    def V(self) -> Optional[HostOrDevice]:
        """The positions, (nverts, 3) float32, a view of the mesh's own array (numpy on the
        host, a DeviceArray on CUDA), or None. Writing them moves the vertices."""
    @property
    def F(self) -> HostOrDevice:
        """The faces, a read-only (nfaces, k) int32 view of the mesh matrix's row indices when
        every face has k corners; MeshError for mixed orders (use faces())."""
    def faces(self) -> Tuple[HostOrDevice, HostOrDevice]:
        """(offsets, indices), int32: face f is indices[offsets[f]:offsets[f+1]]."""
    @property
    def tags(self) -> Optional[str]:
        """The OBJ 't' lines (creases, corners, holes...), or None."""
    @property
    def uv(self) -> Optional[Tuple[npt.NDArray[np.float32], npt.NDArray[np.int32]]]:
        """Texture coordinates (values (n, 2), index (ncorners,)), host copies, or None."""
    def stats(self) -> dict:
        """mmx_mesh_stats_compute: counts, orders, boundary loops, manifoldness, orientation,
        components, Euler characteristic, genus (None unless defined), bounding box."""
    def validate(self) -> dict:
        """mmx_mesh_validate's report: valid, problem (a sentence naming the element),
        degenerate_faces."""
    def save(self, path: str) -> None:
        """Writes the mesh (OBJ, OFF, PLY, STL by the extension); FileError, MeshError (STL
        of a non-triangle)."""
    def to(self, ctx: Context) -> "Mesh":
        """A deep copy made by (and in the space of) ctx."""
    def triangulate(self) -> "Mesh":
        """Every face cut into triangles over its corners (quads along the shorter
        diagonal)."""
    def query(self, kind: str) -> Tuple[HostOrDevice, HostOrDevice]: ...
    def normals(self, weight: str = "area") -> HostOrDevice: ...
    def face_normals(self) -> Tuple[HostOrDevice, HostOrDevice]: ...
    def _operator(self, kind: str) -> Tuple[Tuple[int, int], HostOrDevice, HostOrDevice,
                                            HostOrDevice]: ...


class SubdivPlan:
    """A subdivision's topology refined once (mmx_subdiv_plan); eval maps new control
    positions to the last level's."""

    @property
    def control_nverts(self) -> int: ...
    @property
    def nverts(self) -> int: ...
    @property
    def nfaces(self) -> int: ...
    @property
    def context(self) -> Context: ...
    def eval(self, V: ArrayLike, out: Optional[ArrayLike] = None) -> HostOrDevice:
        """The last level's positions (nverts, 3) float32 for control positions V
        (control_nverts, 3); into `out` (C-contiguous float32 in the context's space) when
        given. Queued on CUDA (read through DLPack, which synchronises as DeviceArray says)."""
    def mesh(self, pos: Optional[ArrayLike] = None) -> Mesh:
        """A Mesh of the last level with positions `pos` (None: those of the creation)."""


def has_cuda() -> bool:
    """Whether the library was built with the CUDA backend."""
def cuda_device_count() -> int:
    """Usable CUDA devices (0 without a device or a CUDA build)."""

def _from_arrays(V: ArrayLike, F: ArrayLike, offsets: Optional[ArrayLike] = ...,
                 ctx: Optional[Context] = ..., copy: bool = ...) -> Mesh: ...
def _load(path: str, ctx: Optional[Context] = ...) -> Mesh: ...
def _shape(spec: str, ctx: Optional[Context] = ...) -> Mesh: ...
def _subdivide(*args: Any) -> Mesh: ...
def _plan(mesh: Mesh, scheme: str, levels: int, boundary: str) -> SubdivPlan: ...
def _smooth(*args: Any) -> Any: ...
def _delaunay(mesh: Mesh, report: bool) -> Any: ...
def _remesh(*args: Any) -> Any: ...
def _simplify(*args: Any) -> Any: ...
