/* Device utilities, once for every module: stream-ordered device memory, scans and reductions
 * over arrays in a context's memory space.
 *
 * Each utility that works on arrays has a host statement (a loop, device.c) and a CUDA half
 * (CUB, device.cu) and picks one by the context's backend. The CUDA halves are declared
 * whatever the build; a build without CUDA links stubs instead (nocuda.c) that report
 * MMX_ERR_INTERNAL, which nothing reaches, since such a build cannot make a CUDA context. So
 * call sites need no #ifdef. The launch helpers for .cu files (block size, grid, block-wide
 * reduction) are in launch.cuh.
 *
 * Ordering: on CUDA these calls only queue work on the context's stream and return; none of
 * them synchronises. Their results are ready for whatever is queued next on the same context,
 * and for the host after a call that synchronises (a copy into host memory, mmx_ctx_sync). */
#ifndef MMX_CORE_DEVICE_H
#define MMX_CORE_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include "meshmatrix/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- device memory (device.cu) ----------------------------------------------------------- */

/* Device memory from the context's pool in the order of its stream (cudaMallocFromPoolAsync):
 * no wait, and ready for work queued on that stream. bytes = 0 gives NULL.
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__dev_alloc(mmx_ctx *ctx, size_t bytes, void **out);

/* Gives p back to its pool, ordered after the work queued on the context's stream
 * (cudaFreeAsync); NULL accepted. ctx must be the context whose pool p came from; a NULL ctx
 * falls back to cudaFree, which waits for the whole device (no library path does that). */
void mmx__dev_free(mmx_ctx *ctx, void *p);

/* The body of mmx_mem_copy for a pair of spaces involving the device, on checked arguments:
 * cudaMemcpyAsync on the context's stream, then a wait for the stream only when dst is host
 * memory (core.h says why). Errors: MMX_ERR_CUDA. */
mmx_status mmx__dev_copy(mmx_ctx *ctx, void *dst, mmx_space dst_space, const void *src,
                         mmx_space src_space, size_t bytes);

/* Waits until the work queued on the context's stream is done (cudaStreamSynchronize), and
 * counts the wait (mmx__ctx_syncs). The one place the library waits: a caller names why in
 * a comment. Errors: MMX_ERR_CUDA (a queued kernel failed; the detail names it). */
mmx_status mmx__stream_sync(mmx_ctx *ctx);

/* The free and total memory of the device the calling thread is on (cudaMemGetInfo).
 * Errors: MMX_ERR_CUDA. */
mmx_status mmx__dev_mem_info(mmx_ctx *ctx, size_t *free_bytes, size_t *total_bytes);

/* ---- CUDA graphs (device.cu) -------------------------------------------------------------- */

/* A chain of queued work captured once and replayed with one launch (a CUDA graph), for a call
 * made every frame on small inputs, where launches cost more than the work (subdiv's plans). */
typedef struct mmx__graph mmx__graph;

/* The work a graph holds: queues its kernels and copies on the context's stream, and nothing
 * else (no wait, no allocation, no read-back: those cannot be captured). */
typedef mmx_status (*mmx__graph_work)(void *arg);

/* The largest key mmx__graph_run compares, in bytes. */
#define MMX__GRAPH_KEY_MAX 64

/* Queues work(arg) as one graph launch on the context's stream. The first call captures what
 * work queues (cudaStreamBeginCapture on the context's stream, thread-local mode) into *g; a
 * later call with the same key (keylen <= MMX__GRAPH_KEY_MAX bytes: what tells one capture
 * from another, such as the pointers work reads and writes) launches *g again without calling
 * work; another key captures work again and updates *g in place (cudaGraphExecUpdate: the same
 * kernels with new arguments), or instantiates it anew where the update is refused. Same
 * kernels, same arguments: the bytes of work queued without a graph. *g is NULL to begin with
 * and freed by mmx__graph_free. Errors: work's, and MMX_ERR_CUDA (the capture is then ended
 * and *g left as it was). Nothing waits. */
mmx_status mmx__graph_run(mmx_ctx *ctx, mmx__graph **g, const void *key, size_t keylen,
                          mmx__graph_work work, void *arg);

/* Frees a graph (NULL accepted); a launch still running completes first. */
void mmx__graph_free(mmx__graph *g);

/* ---- scans and reductions (device.c dispatches; device.cu has the CUDA halves) ------------- */

/* Exclusive prefix sum: out[i] = in[0] + ... + in[i - 1] for 0 <= i < n (out[0] = 0), in the
 * context's space. in == out is allowed (in place); other overlaps are not. Sums are taken
 * modulo 2^32 (two's complement), so a caller that can overflow sees a wrapped value, the same
 * on both backends. n = 0 does nothing. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__scan_exclusive(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index *out);

/* Offsets from counts: out[0] = 0 and out[i + 1] = out[i] + in[i] for 0 <= i < n, so out has
 * n + 1 entries and out[n] is the total. in and out must not overlap. Same wrapping and errors
 * as mmx__scan_exclusive. */
mmx_status mmx__scan_offsets(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index *out);

/* mmx__scan_exclusive on 64-bit unsigned counts (modulo 2^64). */
mmx_status mmx__scan_exclusive_u64(mmx_ctx *ctx, const unsigned long long *in, int64_t n,
                                   unsigned long long *out);

/* *out = in[0] + ... + in[n - 1], summed in 64 bits (exact for any n < 2^32); *out lives in
 * the context's space (device memory on CUDA, read it back to use it on the host).
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__reduce_sum(mmx_ctx *ctx, const mmx_index *in, int64_t n, int64_t *out);

/* *out = the largest of init and in[0 .. n) (init for n = 0), *out in the context's space.
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__reduce_max(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index init,
                           mmx_index *out);

/* Where the floats x[0 .. n) leave [-bound, bound] (NaN included): *slot, in the context's
 * space, becomes the largest n - i over such i (so n - *slot is the first one), or stays as it
 * was (0 from a read-back slot) when there is none. Queued (mmx__readback's slots take it);
 * no float is summed, so the verdict is exact and the same on both backends. Errors:
 * MMX_ERR_CUDA. */
mmx_status mmx__flag_beyond(mmx_ctx *ctx, const float *x, int64_t n, float bound,
                            unsigned long long *slot);

/* The same, read on the host: *first = the first i with |x[i]| > bound or x[i] NaN, -1 if
 * none. Synchronises: yes on CUDA, once (a read-back). Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__first_beyond(mmx_ctx *ctx, const float *x, int64_t n, float bound, int64_t *first);

/* The CUDA halves of the above, arrays in device memory, queued on the context's stream. */
mmx_status mmx__flag_beyond_cuda(mmx_ctx *ctx, const float *x, int64_t n, float bound,
                                 unsigned long long *slot);
mmx_status mmx__scan_exclusive_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index *out);
mmx_status mmx__scan_offsets_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index *out);
mmx_status mmx__scan_exclusive_u64_cuda(mmx_ctx *ctx, const unsigned long long *in, int64_t n,
                                        unsigned long long *out);
mmx_status mmx__reduce_sum_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n, int64_t *out);
mmx_status mmx__reduce_max_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index init,
                                mmx_index *out);

/* ---- one read-back per call (readback.c) ------------------------------------------------- */

/* The device values a call must read on the host (sizes, counts, faults, cached properties),
 * gathered into one small block in the context's space and read back with one copy: one wait
 * for the stream where a value at a time would cost one each. Usage: open; take slots and
 * queue the work that writes them; wait; read each slot's host copy; close. Every slot starts
 * at zero, so what writes a slot folds into zero as its neutral value (counts add, flags or,
 * maxima of non-negative keys max). On the host backend the block is host memory and the
 * wait a copy. */
#define MMX__READBACK_BYTES 256

typedef struct mmx__readback {
    mmx_ctx *ctx;
    mmx_space space;
    unsigned char *block; /* MMX__READBACK_BYTES in `space`, zeroed at open */
    size_t used;
    union {               /* the block's host copy after mmx__readback_wait */
        unsigned long long align;
        unsigned char bytes[MMX__READBACK_BYTES];
    } host;
} mmx__readback;

/* Takes the block from the context's memory and zeroes it (queued). Synchronises: no.
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__readback_open(mmx_ctx *ctx, mmx__readback *rb);

/* A zeroed slot of `bytes` (8-byte aligned) in the block, for the work queued next to write.
 * Errors: MMX_ERR_INTERNAL if the block is full (a fixed set of callers fits it). */
mmx_status mmx__readback_slot(mmx__readback *rb, size_t bytes, void **slot);

/* Copies the block into its host copy: the call's one wait on CUDA, where a fault of the work
 * queued before it also shows. Errors: MMX_ERR_CUDA. */
mmx_status mmx__readback_wait(mmx__readback *rb);

/* The host copy of a slot (valid after mmx__readback_wait). */
const void *mmx__readback_host(const mmx__readback *rb, const void *slot);

/* Gives the block back (in stream order); a zeroed or closed rb is accepted. */
void mmx__readback_close(mmx__readback *rb);

/* Sets `bytes` of memory in the context's space to zero (queued on CUDA: cudaMemsetAsync, its
 * CUDA half mmx__dev_zero). Synchronises: no. Errors: MMX_ERR_CUDA. */
mmx_status mmx__mem_zero(mmx_ctx *ctx, void *p, size_t bytes);
mmx_status mmx__dev_zero(mmx_ctx *ctx, void *p, size_t bytes);

/* ---- builds without CUDA ------------------------------------------------------------------- */

/* What every no-CUDA stub returns: MMX_ERR_INTERNAL naming the function (`what`), since only a
 * CUDA context or a device object, which such a build cannot make, leads there. */
mmx_status mmx__no_cuda(mmx_ctx *ctx, const char *what);

#ifdef __cplusplus
}
#endif
#endif
