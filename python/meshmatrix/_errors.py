"""The exceptions of meshmatrix: one class per status of the C library (core.h's mmx_status).

Every exception carries the library's sentence (what went wrong and where: file, line, face,
vertex, edge) as its message, the status code in ``status`` and its name in ``code``. Each class
also derives from the closest built-in exception, so ``except ValueError`` catches a bad mesh.
"""


class Error(Exception):
    """A meshmatrix call failed; ``str(e)`` is the library's sentence."""

    status = 0
    code = "MMX_OK"

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status


class ArgumentError(Error, ValueError):
    """An argument is invalid (MMX_ERR_ARG)."""
    status, code = -1, "MMX_ERR_ARG"


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed on the host or the device (MMX_ERR_NOMEM)."""
    status, code = -2, "MMX_ERR_NOMEM"


class FileError(Error, OSError):
    """A file could not be opened, read or written (MMX_ERR_IO)."""
    status, code = -3, "MMX_ERR_IO"


class ParseError(Error, ValueError):
    """A file is malformed (MMX_ERR_PARSE)."""
    status, code = -4, "MMX_ERR_PARSE"


class MeshError(Error, ValueError):
    """The mesh is invalid: an index out of range, a face of fewer than 3 vertices, a vertex
    repeated in a face, a non-finite coordinate... (MMX_ERR_MESH)."""
    status, code = -5, "MMX_ERR_MESH"


class SizeError(Error, OverflowError):
    """A size or a value does not fit in 32-bit indices or in memory (MMX_ERR_OVERFLOW)."""
    status, code = -6, "MMX_ERR_OVERFLOW"


class NoDeviceError(Error, RuntimeError):
    """No usable CUDA device (MMX_ERR_NO_DEVICE)."""
    status, code = -7, "MMX_ERR_NO_DEVICE"


class CudaError(Error, RuntimeError):
    """A CUDA runtime call failed (MMX_ERR_CUDA)."""
    status, code = -8, "MMX_ERR_CUDA"


class SpaceError(Error, ValueError):
    """An array lives in a memory space the context cannot use (MMX_ERR_SPACE)."""
    status, code = -9, "MMX_ERR_SPACE"


class UnsupportedError(Error, NotImplementedError):
    """A feature this build or this input does not support (MMX_ERR_UNSUPPORTED)."""
    status, code = -10, "MMX_ERR_UNSUPPORTED"


class InternalError(Error, RuntimeError):
    """A bug in meshmatrix (MMX_ERR_INTERNAL)."""
    status, code = -11, "MMX_ERR_INTERNAL"


_BY_STATUS = {c.status: c for c in (ArgumentError, OutOfMemoryError, FileError, ParseError,
                                    MeshError, SizeError, NoDeviceError, CudaError, SpaceError,
                                    UnsupportedError, InternalError)}


def _from_status(status, message):
    """The exception for a library status (called by the extension module)."""
    return _BY_STATUS.get(status, Error)(message, status)
