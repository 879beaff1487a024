/* Execution contexts: the host backend, and the CUDA backend on one device and stream. */
#include <string.h>
#include "core_internal.h"

mmx_status mmx_ctx_create(mmx_ctx **out)
{
    if (!out) return MMX_ERR_ARG;
    *out = calloc(1, sizeof **out);
    if (!*out) return MMX_ERR_NOMEM;
    (*out)->backend = MMX_BACKEND_HOST;
    (*out)->device = -1;
    return MMX_OK;
}

void mmx_ctx_free(mmx_ctx *ctx)
{
    if (!ctx) return;
#ifdef MMX_HAVE_CUDA
    /* Errors on teardown have nowhere to go; the stream is released either way. */
    if (ctx->stream) (void)cudaStreamDestroy((cudaStream_t)ctx->stream);
    /* Destruction waits for blocks still allocated from the pool: objects outlive contexts. */
    if (ctx->pool) (void)cudaMemPoolDestroy((cudaMemPool_t)ctx->pool);
#endif
    free(ctx);
}

int mmx_has_cuda(void)
{
#ifdef MMX_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

mmx_status mmx_cuda_device_count(mmx_ctx *ctx, int *count)
{
    if (!ctx || !count) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cuda_device_count: NULL argument");
    *count = 0;
#ifdef MMX_HAVE_CUDA
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
        mmx__fail(ctx, MMX_ERR_NO_DEVICE, "no CUDA device: cudaGetDeviceCount: %s",
                  cudaGetErrorString(e));
        return MMX_OK;
    }
    if (n == 0) mmx__fail(ctx, MMX_ERR_NO_DEVICE, "no CUDA device: the runtime reports 0 devices");
    *count = n;
#else
    mmx__fail(ctx, MMX_ERR_NO_DEVICE, "no CUDA device: meshmatrix was built without CUDA");
#endif
    return MMX_OK;
}

mmx_status mmx_ctx_use_cuda(mmx_ctx *ctx, int device)
{
    if (!ctx) return MMX_ERR_ARG;
#ifdef MMX_HAVE_CUDA
    int n = 0;
    mmx_cuda_device_count(ctx, &n);
    if (n == 0) return MMX_ERR_NO_DEVICE; /* the detail is already in ctx */
    if (device < 0 || device >= n)
        return mmx__fail(ctx, MMX_ERR_NO_DEVICE, "CUDA device %d does not exist (%d present)",
                         device, n);
    mmx_status s = MMX__CUDA(ctx, cudaSetDevice(device));
    if (s) return s;
    cudaStream_t st;
    s = MMX__CUDA(ctx, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    if (s) return s;
    /* The context's own stream-ordered pool, which keeps freed blocks for reuse instead of
     * returning them to the driver at every sync (the default pool's threshold of 0 made each
     * operation's scratch cost a fresh mapping); a pool of our own leaves the process's
     * default pool as the application set it. */
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool;
    s = MMX__CUDA(ctx, cudaMemPoolCreate(&pool, &props));
    if (s) {
        (void)cudaStreamDestroy(st);
        return s;
    }
    uint64_t keep = UINT64_MAX;
    s = MMX__CUDA(ctx, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    if (s) {
        (void)cudaMemPoolDestroy(pool);
        (void)cudaStreamDestroy(st);
        return s;
    }
    if (ctx->stream) (void)cudaStreamDestroy((cudaStream_t)ctx->stream);
    if (ctx->pool) (void)cudaMemPoolDestroy((cudaMemPool_t)ctx->pool);
    ctx->stream = st;
    ctx->pool = pool;
    ctx->backend = MMX_BACKEND_CUDA;
    ctx->device = device;
    ctx->err[0] = '\0';
    return MMX_OK;
#else
    (void)device;
    return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                     "the CUDA backend is not available: meshmatrix was built without CUDA");
#endif
}

mmx_backend mmx_ctx_backend(const mmx_ctx *ctx) { return ctx ? ctx->backend : MMX_BACKEND_HOST; }
int mmx_ctx_device(const mmx_ctx *ctx) { return ctx ? ctx->device : -1; }

void *mmx_ctx_cuda_stream(const mmx_ctx *ctx)
{
    return ctx && ctx->backend == MMX_BACKEND_CUDA ? ctx->stream : NULL;
}

mmx_status mmx_ctx_sync(mmx_ctx *ctx)
{
    if (!ctx) return MMX_ERR_ARG;
#ifdef MMX_HAVE_CUDA
    if (ctx->backend == MMX_BACKEND_CUDA)
        return MMX__CUDA(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream));
#endif
    return MMX_OK;
}

mmx_space mmx_ctx_space(const mmx_ctx *ctx)
{
    return ctx && ctx->backend == MMX_BACKEND_CUDA ? MMX_SPACE_DEVICE : MMX_SPACE_HOST;
}

mmx_status mmx__check_space(mmx_ctx *ctx, mmx_space space, const char *what)
{
    if (space == MMX_SPACE_HOST) return MMX_OK;
    if (space == MMX_SPACE_DEVICE && ctx && ctx->backend == MMX_BACKEND_CUDA) return MMX_OK;
    if (space == MMX_SPACE_DEVICE)
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s is in device memory but the context is on the host backend", what);
    return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown memory space %d", what, (int)space);
}

#ifdef MMX_HAVE_CUDA
mmx_status mmx__cuda(mmx_ctx *ctx, cudaError_t e, const char *call)
{
    if (e == cudaSuccess) return MMX_OK;
    (void)cudaGetLastError();
    return mmx__fail(ctx, e == cudaErrorMemoryAllocation ? MMX_ERR_NOMEM : MMX_ERR_CUDA,
                     "%s failed: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
}
#endif
