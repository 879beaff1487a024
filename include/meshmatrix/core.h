/*
 * meshmatrix/core.h: status codes, execution contexts, memory spaces, timing.
 *
 * Every fallible call in meshmatrix returns an mmx_status: MMX_OK (0) on success, a negative
 * code otherwise. Calls that take a context also leave a sentence in it that says what went
 * wrong and where (file, line, face index); read it with mmx_ctx_error(). There is no global
 * state: two contexts may be used from two threads, but one context must not be used by two
 * threads at once.
 */
#ifndef MESHMATRIX_CORE_H
#define MESHMATRIX_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Indices (vertices, faces, entries) are 32-bit signed; sizes that would not fit are refused
 * with MMX_ERR_OVERFLOW. */
typedef int32_t mmx_index;
#define MMX_INDEX_MAX INT32_MAX

typedef enum mmx_status {
    MMX_OK = 0,
    MMX_ERR_ARG = -1,         /* an argument is invalid (NULL, negative size, ...) */
    MMX_ERR_NOMEM = -2,       /* an allocation failed, on the host or the device */
    MMX_ERR_IO = -3,          /* a file could not be opened, read or written */
    MMX_ERR_PARSE = -4,       /* a file is malformed */
    MMX_ERR_MESH = -5,        /* the mesh is invalid: index out of range, face order < 3,
                                 a vertex repeated in a face, a non-finite coordinate */
    MMX_ERR_OVERFLOW = -6,    /* a size does not fit in 32-bit indices or in memory */
    MMX_ERR_NO_DEVICE = -7,   /* no usable CUDA device */
    MMX_ERR_CUDA = -8,        /* a CUDA runtime call failed */
    MMX_ERR_SPACE = -9,       /* an operand lives in a memory space the context cannot use */
    MMX_ERR_UNSUPPORTED = -10,/* a feature this build or this input does not support */
    MMX_ERR_INTERNAL = -11    /* a bug in meshmatrix */
} mmx_status;

/* A short fixed name of a status ("MMX_ERR_PARSE: malformed file"). Never NULL. */
const char *mmx_status_str(mmx_status s);

/* Where an array lives. */
typedef enum mmx_space {
    MMX_SPACE_HOST = 0,   /* ordinary host memory (malloc) */
    MMX_SPACE_DEVICE = 1  /* CUDA device memory of the context's device */
} mmx_space;

/* The backend that executes operations. */
typedef enum mmx_backend {
    MMX_BACKEND_HOST = 0, /* plain C on the CPU: the readable statement of every operation */
    MMX_BACKEND_CUDA = 1  /* CUDA kernels on one device, on the context's stream */
} mmx_backend;

/* An execution context: the backend, the CUDA device and stream where there is one, and the
 * detail of the last error. Opaque. */
typedef struct mmx_ctx mmx_ctx;

/* Creates a host context. Errors: MMX_ERR_ARG (out is NULL), MMX_ERR_NOMEM. */
mmx_status mmx_ctx_create(mmx_ctx **out);

/* Frees a context (and its CUDA stream); NULL is accepted. Objects created through the context
 * stay valid and are freed by their own free functions. */
void mmx_ctx_free(mmx_ctx *ctx);

/* Switches the context to the CUDA backend on `device` (0-based) with a new stream.
 * Errors: MMX_ERR_UNSUPPORTED (built without CUDA), MMX_ERR_NO_DEVICE (no device, or `device`
 * out of range; the detail names the CUDA runtime's reason), MMX_ERR_CUDA. On error the context
 * stays on the backend it had. */
mmx_status mmx_ctx_use_cuda(mmx_ctx *ctx, int device);

/* The context's backend, its memory space (host for the host backend, device for CUDA), and
 * its device index (-1 on the host backend). */
mmx_backend mmx_ctx_backend(const mmx_ctx *ctx);
mmx_space mmx_ctx_space(const mmx_ctx *ctx);
int mmx_ctx_device(const mmx_ctx *ctx);

/* The context's cudaStream_t (as a void pointer, so this header needs no CUDA), NULL on the
 * host backend: for queueing one's own kernels or a peer library's calls in order with the
 * library's work. */
void *mmx_ctx_cuda_stream(const mmx_ctx *ctx);

/* Waits until the work queued on the context's stream is done (a no-op on the host backend):
 * for one's own kernels queued on mmx_ctx_cuda_stream. The library's operations return with
 * their work done. Errors: MMX_ERR_CUDA (a kernel failed; the detail names it). */
mmx_status mmx_ctx_sync(mmx_ctx *ctx);

/* The detail of the last error reported through this context ("" if none). The string is
 * owned by the context and valid until its next failing call. */
const char *mmx_ctx_error(const mmx_ctx *ctx);

/* Number of usable CUDA devices, 0 where none is present or the build has no CUDA; the reason
 * for 0 is left in the context's error detail. Never fails for lack of a device.
 * Errors: MMX_ERR_ARG only. */
mmx_status mmx_cuda_device_count(mmx_ctx *ctx, int *count);

/* Whether this library was built with the CUDA backend (1) or not (0). */
int mmx_has_cuda(void);

/* ---- memory spaces ---------------------------------------------------------------------- */

/* Allocates `bytes` in `space` (device memory on the context's device). A request of 0 bytes
 * returns NULL and MMX_OK. Errors: MMX_ERR_SPACE (device space on a host context),
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx_mem_alloc(mmx_ctx *ctx, mmx_space space, size_t bytes, void **out);

/* Frees memory from mmx_mem_alloc in `space`; NULL is accepted. */
void mmx_mem_free(mmx_space space, void *p);

/* Copies `bytes` from src (in src_space) to dst (in dst_space), synchronously: when it returns
 * the data is in place. Any pair of spaces is allowed; a pair involving the device needs a
 * CUDA context. Errors: MMX_ERR_ARG, MMX_ERR_SPACE, MMX_ERR_CUDA. */
mmx_status mmx_mem_copy(mmx_ctx *ctx, void *dst, mmx_space dst_space, const void *src,
                        mmx_space src_space, size_t bytes);

/* ---- timing ----------------------------------------------------------------------------- */

/* A timer for the context's backend: CUDA events on the context's stream for CUDA (so it
 * measures the GPU work queued between start and stop), a monotonic clock on the host. */
typedef struct mmx_timer mmx_timer;

mmx_status mmx_timer_create(mmx_ctx *ctx, mmx_timer **out);
void mmx_timer_free(mmx_timer *t);
mmx_status mmx_timer_start(mmx_timer *t);
/* Stops the timer, waiting for the GPU work queued before the stop, and gives the elapsed
 * milliseconds since the last start. Errors: MMX_ERR_ARG (never started), MMX_ERR_CUDA. */
mmx_status mmx_timer_stop(mmx_timer *t, double *ms);

#ifdef __cplusplus
}
#endif
#endif
