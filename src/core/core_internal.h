/* Private declarations of the core module: the context's layout, error reporting, checked
 * arithmetic on sizes, the CUDA error check, and (device.h) the device utilities every module
 * uses. */
#ifndef MMX_CORE_INTERNAL_H
#define MMX_CORE_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include "meshmatrix/core.h"
#include "device.h"

#ifdef MMX_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MMX__ERRLEN 512

struct mmx_ctx {
    mmx_backend backend;
    int device;          /* -1 on the host backend */
    void *stream;        /* cudaStream_t on the CUDA backend: all of the context's work */
    int caller_stream;   /* 1: the stream is the caller's (mmx_ctx_use_cuda_stream), never
                            destroyed here */
    void *pool;          /* cudaMemPool_t the context's device memory comes from, in the
                            stream's order (device.h) */
    unsigned long long syncs; /* host waits for the stream so far (mmx__stream_sync) */
    mmx_progress_fn progress; /* mmx_ctx_set_progress: called between steps, or NULL */
    void *progress_user;
    int cause;           /* the last failure's mmx__cause (mmx__fail_cause), 0 for any other */
    char err[MMX__ERRLEN];
};

/* Tells the context's progress function, if any, that `done` of `total` steps of `what` are
 * finished (core.h, mmx_ctx_set_progress). Host code only, between steps. */
static inline void mmx__progress(mmx_ctx *ctx, const char *what, int done, int total)
{
    if (ctx && ctx->progress) ctx->progress(ctx->progress_user, what, done, total);
}

/* How many times the library has waited for the context's stream (every wait goes through
 * mmx__stream_sync): the benchmarks report it per call, to hold the synchronisation
 * contract (core.h) to account. */
static inline unsigned long long mmx__ctx_syncs(const mmx_ctx *ctx)
{
    return ctx->syncs;
}

#if defined(__GNUC__)
#define MMX__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MMX__PRINTF(a, b)
#endif

/* Records a detail sentence in ctx (if not NULL) and returns s, so a failing path reads
 * `return mmx__fail(ctx, MMX_ERR_ARG, "face %d: ...", f);`. */
mmx_status mmx__fail(mmx_ctx *ctx, mmx_status s, const char *fmt, ...) MMX__PRINTF(3, 4);

/* Failures that a caller higher up routes on (rather than on the sentence's words): a module
 * records one with mmx__fail_cause and its caller reads mmx__ctx_cause right after the failed
 * call. Every mmx__fail clears it. */
typedef enum mmx__cause {
    MMX__CAUSE_NONE = 0,
    MMX__CAUSE_PILLOW = 1 /* subdiv: two triangles glued along all three edges, which the mesh
                             matrix cannot refine and the face lists can (mmx_subdivide) */
} mmx__cause;

/* mmx__fail with the failure's cause recorded. */
mmx_status mmx__fail_cause(mmx_ctx *ctx, mmx_status s, mmx__cause cause, const char *fmt, ...)
    MMX__PRINTF(4, 5);

static inline mmx__cause mmx__ctx_cause(const mmx_ctx *ctx)
{
    return ctx ? (mmx__cause)ctx->cause : MMX__CAUSE_NONE;
}

/* The first statement of every public entry point that takes a context (core.h): a NULL one
 * is refused with MMX_ERR_ARG, there being no context to hold the sentence. The name parsers
 * (mmx_*_parse) take NULL instead: they only record their sentence where there is one. */
#define MMX__NEED_CTX(ctx)                                                                    \
    do {                                                                                      \
        if (!(ctx)) return MMX_ERR_ARG;                                                       \
    } while (0)

/* Allocates n * size bytes of host memory, refusing a product that overflows; n = 0 returns
 * a valid minimal allocation so that callers need not special-case empty arrays. */
mmx_status mmx__host_alloc(mmx_ctx *ctx, size_t n, size_t size, void **out);

/* a * b into *out unless it overflows size_t. */
static inline int mmx__mul_ok(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b) return 0;
    *out = a * b;
    return 1;
}

/* Sorts n 64-bit keys by their bits [lo, hi) (hi - lo a multiple of 8), stably: an LSD radix
 * sort on bytes, through ktmp (n entries), linear in n. val (n entries, or NULL) is permuted
 * with the keys through vtmp. The sorted keys end up in key or ktmp: the one returned (and
 * *val_out, when not NULL, says where the values are). Host memory only. */
uint64_t *mmx__radix_sort_u64(uint64_t *key, uint64_t *ktmp, mmx_index *val, mmx_index *vtmp,
                              size_t n, unsigned lo, unsigned hi, mmx_index **val_out);

/* Whether the operands' space can be used by the context's backend. */
mmx_status mmx__check_space(mmx_ctx *ctx, mmx_space space, const char *what);

#ifdef MMX_HAVE_CUDA
/* Turns a CUDA runtime error into MMX_ERR_CUDA (MMX_ERR_NOMEM for allocation failures) with
 * the call and the runtime's message in the detail. */
mmx_status mmx__cuda(mmx_ctx *ctx, cudaError_t e, const char *call);
#define MMX__CUDA(ctx, call) mmx__cuda((ctx), (call), #call)

/* The sentence for "no usable device": "no usable GPU or driver was found (REASON) (CUDA:
 * CUDA's text)", REASON in plain words from the error of cudaGetDeviceCount (cudaSuccess: it
 * counted 0), the driver's and the runtime's CUDA versions (1000 * major + 10 * minor; driver
 * 0: no driver library could be loaded), whether the NVIDIA kernel module is loaded, and
 * CUDA_VISIBLE_DEVICES (NULL if unset). A pure function of its arguments, so every case can be
 * tested on any machine. Writes at most cap bytes to buf, NUL-terminated. */
void mmx__no_device_reason(cudaError_t e, int driver, int runtime, int kernel_module,
                           const char *visible, char *buf, size_t cap);
#endif

#ifdef __cplusplus
}
#endif
#endif
