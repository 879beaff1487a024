/* Timers: CUDA events on the context's stream, or the monotonic clock on the host. */
#include <time.h>
#include "core_internal.h"

struct mmx_timer {
    mmx_ctx *ctx;
    int started;
    struct timespec t0;
#ifdef MMX_HAVE_CUDA
    cudaEvent_t e0, e1;
#endif
};

mmx_status mmx_timer_create(mmx_ctx *ctx, mmx_timer **out)
{
    MMX__NEED_CTX(ctx);
    if (!ctx || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_timer_create: NULL argument");
    mmx_timer *t = calloc(1, sizeof *t);
    if (!t) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a timer");
    t->ctx = ctx;
#ifdef MMX_HAVE_CUDA
    if (ctx->backend == MMX_BACKEND_CUDA) {
        mmx_status s = MMX__CUDA(ctx, cudaEventCreate(&t->e0));
        if (s) { free(t); return s; }
        s = MMX__CUDA(ctx, cudaEventCreate(&t->e1));
        if (s) { (void)cudaEventDestroy(t->e0); free(t); return s; }
    }
#endif
    *out = t;
    return MMX_OK;
}

void mmx_timer_free(mmx_timer *t)
{
    if (!t) return;
#ifdef MMX_HAVE_CUDA
    if (t->ctx->backend == MMX_BACKEND_CUDA) {
        (void)cudaEventDestroy(t->e0);
        (void)cudaEventDestroy(t->e1);
    }
#endif
    free(t);
}

mmx_status mmx_timer_start(mmx_timer *t)
{
    if (!t) return MMX_ERR_ARG;
    t->started = 1;
#ifdef MMX_HAVE_CUDA
    if (t->ctx->backend == MMX_BACKEND_CUDA)
        return MMX__CUDA(t->ctx, cudaEventRecord(t->e0, (cudaStream_t)t->ctx->stream));
#endif
    clock_gettime(CLOCK_MONOTONIC, &t->t0);
    return MMX_OK;
}

mmx_status mmx_timer_stop(mmx_timer *t, double *ms)
{
    if (!t || !ms) return MMX_ERR_ARG;
    if (!t->started) return mmx__fail(t->ctx, MMX_ERR_ARG, "timer stopped before it was started");
#ifdef MMX_HAVE_CUDA
    if (t->ctx->backend == MMX_BACKEND_CUDA) {
        float f = 0;
        mmx_status s = MMX__CUDA(t->ctx, cudaEventRecord(t->e1, (cudaStream_t)t->ctx->stream));
        if (!s) s = MMX__CUDA(t->ctx, cudaEventSynchronize(t->e1));
        if (!s) s = MMX__CUDA(t->ctx, cudaEventElapsedTime(&f, t->e0, t->e1));
        *ms = f;
        return s;
    }
#endif
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *ms = (double)(t1.tv_sec - t->t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t->t0.tv_nsec) * 1e-6;
    return MMX_OK;
}
