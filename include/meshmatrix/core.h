/*
 * meshmatrix/core.h: status codes, execution contexts, memory spaces, timing.
 *
 * Every fallible call in meshmatrix returns an mmx_status: MMX_OK (0) on success, a negative
 * code otherwise. Calls that take a context also leave a sentence in it that says what went
 * wrong and where (file, line, face index); read it with mmx_ctx_error(). A call given a
 * NULL context returns MMX_ERR_ARG (no sentence: there is nowhere to put it) and does
 * nothing, except the name parsers (mmx_*_parse), which take NULL and then record no
 * sentence. There is no global state: two contexts may be used from two threads, but one context must not be used by two
 * threads at once.
 *
 * Synchronisation contract. On the CUDA backend a context has one stream (its own, or the
 * caller's: mmx_ctx_use_cuda_stream), and every call queues its device work there, in call
 * order: a call may return before its kernels have run,
 * and the next call on the same context sees their results without any wait. A call
 * synchronises the context's stream (waits for the work queued on it) only where it must read
 * a device value on the host: a size to allocate, a fault to report (a bad index, an
 * overflow), a property kept in a host field, or data it returns in host memory, and then
 * reads every such value of the call at once (sizing arrays by bounds where it can, so that
 * no size needs a wait of its own): mmx_adjacency_compute waits once, mmx_subdivide twice.
 * Each function's header says whether it does ("Synchronises: yes/no, because ..."); no call waits
 * for the whole device, so two contexts on two threads run side by side. Device memory comes
 * from the context's stream-ordered pool and goes back to it in stream order: freeing an
 * object while work that reads it is still queued is safe, and costs no wait. To read device
 * results by other means than the library (your own cudaMemcpy or kernels on another stream,
 * a peer library, another context), call mmx_ctx_sync first; mmx_mem_copy into host memory
 * synchronises by itself. Errors of queued kernels surface at the next call that
 * synchronises (or at mmx_ctx_sync), as MMX_ERR_CUDA.
 *
 * Ownership. Every object that owns arrays (mmx_csc, mmx_mesh, mmx_adjacency, plans, timers)
 * records the context that made it, in its `ctx` field for the transparent structs. Its device
 * arrays come from that context's pool and are given back to it, on its stream, by the
 * object's free function: the context must outlive the object (free objects before their
 * context). Use an object with the context that made it; another context on the same device
 * may read it too, but the two streams are not ordered with each other: call mmx_ctx_sync on
 * the maker before the other context reads the object, and on the other context before the
 * object is freed or changed through its maker. On the host backend nothing is queued and
 * every call returns with its work done.
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

/* A short fixed name of a status ("MMX_ERR_PARSE: malformed file"). Never NULL.
 * Synchronises: no. */
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

/* Creates a host context. Errors: MMX_ERR_ARG (out is NULL), MMX_ERR_NOMEM.
 * Synchronises: no (no device work). */
mmx_status mmx_ctx_create(mmx_ctx **out);

/* Frees a context (its CUDA stream, unless it is the caller's (mmx_ctx_use_cuda_stream), and
 * its memory pool); NULL is accepted. Free the objects made
 * through the context first: their free functions give their arrays back to the context's
 * pool on its stream. Work still queued on the stream finishes on its own (the stream and the
 * pool are released when it has). Synchronises: no. */
void mmx_ctx_free(mmx_ctx *ctx);

/* Switches the context to the CUDA backend on `device` (0-based) with a new stream and memory
 * pool. Errors: MMX_ERR_UNSUPPORTED (built without CUDA), MMX_ERR_NO_DEVICE (no device, or
 * `device` out of range; the detail names the CUDA runtime's reason), MMX_ERR_CUDA. On error
 * the context stays on the backend it had. Switch before making device objects through the
 * context: those made on a previous stream would be freed on the new one.
 * Synchronises: the previous stream, when the context was already on CUDA, because its
 * queued work must be done before the stream and its pool are released. */
mmx_status mmx_ctx_use_cuda(mmx_ctx *ctx, int device);

/* Switches the context to the CUDA backend on `device` (0-based) on the caller's stream: a
 * cudaStream_t of that device, passed as a void pointer so that this header needs no CUDA
 * (PyTorch's torch.cuda.current_stream().cuda_stream, CuPy's Stream.ptr). The legacy default
 * stream (NULL, cudaStreamLegacy) and the per-thread default stream (cudaStreamPerThread) are
 * refused: the first would serialise with every other stream of the device, and the second
 * names a different stream on every thread, which breaks the stream order of the context's
 * memory. The library never destroys the stream (the caller does, after mmx_ctx_free or
 * after switching the context away); it makes a memory pool of its own, as mmx_ctx_use_cuda
 * does, and allocates from it in the stream's order.
 * Who synchronises: everything the library does on the context is queued on that stream, in
 * call order, so the caller's work queued on the same stream after a call sees its results,
 * and the library's next call sees the caller's work queued before it, with no wait on either
 * side (a binding on the caller's current stream needs no synchronisation at all). Work on
 * any other stream is the caller's to order (an event recorded on this stream and waited for
 * there, or mmx_ctx_sync). The library's own waits are those of the contract above, for this
 * stream only; they also wait for the caller's work queued on it before.
 * Errors: MMX_ERR_ARG (stream NULL, cudaStreamLegacy or cudaStreamPerThread; a stream of
 * another device than `device`), MMX_ERR_UNSUPPORTED (built without CUDA), MMX_ERR_NO_DEVICE,
 * MMX_ERR_CUDA (as mmx_ctx_use_cuda; an invalid stream handle is not always detected: pass a
 * live stream). On error the context stays on the backend it had.
 * Synchronises: as mmx_ctx_use_cuda (the previous stream, when the context was on CUDA). */
mmx_status mmx_ctx_use_cuda_stream(mmx_ctx *ctx, int device, void *stream);

/* The context's backend, its memory space (host for the host backend, device for CUDA), and
 * its device index (-1 on the host backend). Synchronises: no (they read the context). */
mmx_backend mmx_ctx_backend(const mmx_ctx *ctx);
mmx_space mmx_ctx_space(const mmx_ctx *ctx);
int mmx_ctx_device(const mmx_ctx *ctx);

/* The context's cudaStream_t (as a void pointer, so this header needs no CUDA), NULL on the
 * host backend: for queueing one's own kernels or a peer library's calls in order with the
 * library's work (work queued there needs no mmx_ctx_sync to be ordered with the library's).
 * Synchronises: no. */
void *mmx_ctx_cuda_stream(const mmx_ctx *ctx);

/* Waits until the work queued on the context's stream is done (a no-op on the host backend):
 * the library's calls that do not synchronise (see the contract above) and one's own kernels
 * queued on mmx_ctx_cuda_stream. Needed before reading device results by other means than the
 * library, and before another context or stream uses them. Waits for this stream only, never
 * for the whole device. Errors: MMX_ERR_CUDA (a queued kernel failed; the detail names it).
 * Synchronises: yes, that is its purpose. */
mmx_status mmx_ctx_sync(mmx_ctx *ctx);

/* The detail of the last error reported through this context ("" if none). The string is
 * owned by the context and valid until its next failing call. Synchronises: no. */
const char *mmx_ctx_error(const mmx_ctx *ctx);

/* Progress of the long operations: mmx_subdivide (once per level), mmx_remesh (once per
 * iteration), mmx_smooth (once per iteration; Taubin: per lambda|mu pair) and
 * mmx_delaunay_flip (once per round, total 0: not known beforehand) call fn(user, what, done,
 * total) after each step: `what` names the operation and the step ("subdivide level",
 * "remesh iteration", "smooth iteration", "delaunay round"), done counts the steps finished so
 * far (1, 2, ...) and total the steps asked for. It is called on the host, from the thread
 * that called the operation, between steps, never from device code; on the CUDA backend the
 * step's work has been queued (it may still be running where the operation does not wait
 * between steps). It must not call the library with this context. NULL fn (the default)
 * turns it off. Errors: MMX_ERR_ARG (NULL ctx). Synchronises: no. */
typedef void (*mmx_progress_fn)(void *user, const char *what, int done, int total);
mmx_status mmx_ctx_set_progress(mmx_ctx *ctx, mmx_progress_fn fn, void *user);

/* Number of usable CUDA devices, 0 where none is present or the build has no CUDA; the reason
 * for 0 is left in the context's error detail. Never fails for lack of a device.
 * Errors: MMX_ERR_ARG only. Synchronises: no. */
mmx_status mmx_cuda_device_count(mmx_ctx *ctx, int *count);

/* Whether this library was built with the CUDA backend (1) or not (0). Synchronises: no. */
int mmx_has_cuda(void);

/* ---- memory spaces ---------------------------------------------------------------------- */

/* Allocates `bytes` in `space`: host memory, or device memory from the context's
 * stream-ordered pool (cudaMallocFromPoolAsync on its stream). A request of 0 bytes returns
 * NULL and MMX_OK. The device memory is ready for work queued on the context's stream at once
 * (every library call on the context); for another stream or the host, call mmx_ctx_sync
 * first. Errors: MMX_ERR_SPACE (device space on a host context), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: no; the pool hands out memory in stream order. */
mmx_status mmx_mem_alloc(mmx_ctx *ctx, mmx_space space, size_t bytes, void **out);

/* Gives back memory from mmx_mem_alloc in `space`; NULL is accepted. Host memory is freed at
 * once; device memory goes back to the pool of ctx, which must be the context that allocated
 * it, ordered after the work already queued on its stream (cudaFreeAsync), so work that still
 * reads it is not disturbed. ctx may be NULL for host memory (for device memory a NULL ctx
 * falls back to cudaFree, which waits for the whole device: pass the context).
 * Synchronises: no. */
void mmx_mem_free(mmx_ctx *ctx, mmx_space space, void *p);

/* Copies `bytes` from src (in src_space) to dst (in dst_space), queued on the context's stream
 * after the work already there. Any pair of spaces is allowed; a pair involving the device
 * needs a CUDA context. When it returns:
 *   - into host memory: the data is in place (a copy from the device synchronises the stream;
 *     into pageable memory, as from malloc, cudaMemcpyAsync itself returns only once the copy
 *     is done, and into pinned memory the explicit wait is what makes it so);
 *   - from host memory to the device: the source may be reused or freed (from pageable memory
 *     the source is staged before the call returns), and the data lands in stream order. From
 *     pinned (page-locked) host memory the copy is asynchronous: keep the source unchanged
 *     until mmx_ctx_sync;
 *   - device to device: queued, in stream order.
 * Errors: MMX_ERR_ARG, MMX_ERR_SPACE, MMX_ERR_CUDA. Synchronises: only a copy into host memory
 * from the device, because the host reads the data. */
mmx_status mmx_mem_copy(mmx_ctx *ctx, void *dst, mmx_space dst_space, const void *src,
                        mmx_space src_space, size_t bytes);

/* ---- conversions for bindings ------------------------------------------------------------ */

/* Converts n doubles to floats, dst[i] = (float)src[i] rounded to nearest, for a binding handed
 * numpy's float64 positions. Both arrays live in the context's space (host memory on a host
 * context, device memory on CUDA) and must not overlap. A value that is NaN, infinite, or
 * whose float is infinite (|x| beyond FLT_MAX after rounding) is refused, naming the first
 * such element: MMX_ERR_ARG for a NaN or an infinity ("element 7 is NaN"), MMX_ERR_OVERFLOW
 * for a finite value beyond float's range ("element 9 is 1e+300, beyond float's range");
 * dst is then partly written. Deterministic: the same bits on both backends (one correctly
 * rounded conversion each). Errors: MMX_ERR_ARG (also NULL arrays with n > 0),
 * MMX_ERR_OVERFLOW, MMX_ERR_CUDA. Cost: O(n), one pass.
 * Synchronises: on CUDA, once, to read the fault record (the first bad element). */
mmx_status mmx_convert_f64(mmx_ctx *ctx, const double *src, size_t n, float *dst);

/* Converts n 64-bit integers to indices, dst[i] = src[i], for a binding handed numpy's int64
 * faces. Same spaces and overlap rule as mmx_convert_f64. A value outside [0, 2^31) (negative,
 * or beyond MMX_INDEX_MAX) is refused naming the first: MMX_ERR_ARG for a negative one
 * ("element 4 is -1, outside the index range [0, 2147483647]"), MMX_ERR_OVERFLOW for one
 * too large ("element 4 is 4294967296, outside ..."); dst is then partly written.
 * Errors: MMX_ERR_ARG (also NULL arrays with n > 0), MMX_ERR_OVERFLOW, MMX_ERR_CUDA.
 * Cost: O(n), one pass.
 * Synchronises: on CUDA, once, to read the fault record. */
mmx_status mmx_convert_i64(mmx_ctx *ctx, const int64_t *src, size_t n, mmx_index *dst);

/* ---- timing ----------------------------------------------------------------------------- */

/* A timer for the context's backend: CUDA events on the context's stream for CUDA (so it
 * measures the GPU work queued between start and stop), a monotonic clock on the host. The
 * timer keeps its context, which must outlive it. */
typedef struct mmx_timer mmx_timer;

/* Synchronises: no (create, free and start only make, release or record events). */
mmx_status mmx_timer_create(mmx_ctx *ctx, mmx_timer **out);
void mmx_timer_free(mmx_timer *t);
mmx_status mmx_timer_start(mmx_timer *t);
/* Stops the timer, waiting for the GPU work queued before the stop, and gives the elapsed
 * milliseconds since the last start. Errors: MMX_ERR_ARG (never started), MMX_ERR_CUDA.
 * Synchronises: yes, up to the stop event (cudaEventSynchronize), because the host reads the
 * time the GPU recorded. */
mmx_status mmx_timer_stop(mmx_timer *t, double *ms);

#ifdef __cplusplus
}
#endif
#endif
