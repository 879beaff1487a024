/* Execution contexts: the host backend, and the CUDA backend on one device and stream; and
 * the sentence that says why there is no usable device. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
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
    /* Errors on teardown have nowhere to go; the stream is released either way, once its
     * queued work (the objects' frees among it) is done: no wait here. */
    if (ctx->stream && !ctx->caller_stream) (void)cudaStreamDestroy((cudaStream_t)ctx->stream);
    /* The pool is released when its last block is back: the frees queued on the stream. */
    if (ctx->pool) (void)cudaMemPoolDestroy((cudaMemPool_t)ctx->pool);
#endif
    free(ctx);
}

mmx_status mmx_ctx_set_progress(mmx_ctx *ctx, mmx_progress_fn fn, void *user)
{
    if (!ctx) return MMX_ERR_ARG;
    ctx->progress = fn;
    ctx->progress_user = fn ? user : NULL;
    return MMX_OK;
}

int mmx_has_cuda(void)
{
#ifdef MMX_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

#ifdef MMX_HAVE_CUDA
/* "X.Y" of a CUDA version number (1000 * major + 10 * minor). */
static void cuda_version(int v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d.%d", v / 1000, v % 1000 / 10);
}

void mmx__no_device_reason(cudaError_t e, int driver, int runtime, int kernel_module,
                           const char *visible, char *buf, size_t cap)
{
    char why[200], have[16], need[16];
    cuda_version(driver, have, sizeof have);
    cuda_version(runtime, need, sizeof need);
    switch (e) {
    case cudaSuccess: /* the runtime answered, with no device */
    case cudaErrorNoDevice:
        if (visible)
            snprintf(why, sizeof why, "no NVIDIA GPU is visible to this process "
                     "(CUDA_VISIBLE_DEVICES=%.40s)", visible);
        else
            snprintf(why, sizeof why, "%s", kernel_module
                     ? "the NVIDIA driver is loaded but reports no GPU" : "no NVIDIA GPU was found");
        break;
    case cudaErrorInsufficientDriver:
        /* The runtime says this both for an old driver and for none at all (libcuda.so.1 not
         * found); the driver version (0: none) and the kernel module tell them apart. */
        if (driver > 0)
            snprintf(why, sizeof why, "the NVIDIA driver supports CUDA %s but this build's CUDA "
                     "runtime needs %s or newer", have, need);
        else if (kernel_module)
            snprintf(why, sizeof why, "the NVIDIA kernel driver is loaded but its CUDA library "
                     "(libcuda.so.1) was not found");
        else
            snprintf(why, sizeof why, "no NVIDIA driver is loaded");
        break;
    case cudaErrorStubLibrary:
        snprintf(why, sizeof why, "the CUDA library loaded is the toolkit's stub, not a driver "
                 "(a .../stubs folder is on the library path)");
        break;
    case cudaErrorSystemDriverMismatch:
        snprintf(why, sizeof why, "the NVIDIA kernel driver and its CUDA library are of "
                 "different versions (a driver update needs a reboot or a module reload)");
        break;
    case cudaErrorDevicesUnavailable:
        snprintf(why, sizeof why, "every GPU is busy or unavailable (exclusive-process or "
                 "prohibited compute mode)");
        break;
    case cudaErrorCompatNotSupportedOnDevice:
        snprintf(why, sizeof why, "the CUDA forward-compatibility package does not support "
                 "this GPU");
        break;
    case cudaErrorSystemNotReady:
        snprintf(why, sizeof why, "the GPU system is not ready (on NVSwitch machines, the "
                 "fabric manager is not running)");
        break;
    default:
        snprintf(why, sizeof why, "%s", kernel_module ? "the NVIDIA driver failed to initialise"
                                                      : "no NVIDIA driver is loaded");
        break;
    }
    if (e == cudaSuccess)
        snprintf(buf, cap, "no usable GPU or driver was found (%s) (CUDA: the runtime reports "
                 "0 devices)", why);
    else
        snprintf(buf, cap, "no usable GPU or driver was found (%s) (CUDA: %s)", why,
                 cudaGetErrorString(e));
}

/* Whether e says there is no usable device or driver (rather than a fault of the call): the
 * errors that cudaGetDeviceCount, or cudaSetDevice as it creates the device's context, give
 * on a machine that cannot run CUDA work. */
static int is_no_device(cudaError_t e)
{
    switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorInitializationError:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorDevicesUnavailable:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorSystemNotReady:
        return 1;
    default:
        return 0;
    }
}

/* Records the "no usable GPU or driver" sentence for e in ctx and returns MMX_ERR_NO_DEVICE.
 * CUDA's own text misleads on its own (with no driver at all it says "CUDA driver version is
 * insufficient for CUDA runtime version"), so what is there is probed first: the version
 * queries work without a driver (0 when none could be loaded), and the kernel module shows in
 * /proc. */
static mmx_status fail_no_device(mmx_ctx *ctx, cudaError_t e)
{
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = CUDART_VERSION;
    (void)cudaGetLastError(); /* so later calls start clean */
    char why[MMX__ERRLEN];
    mmx__no_device_reason(e, driver, runtime, access("/proc/driver/nvidia/version", F_OK) == 0,
                          getenv("CUDA_VISIBLE_DEVICES"), why, sizeof why);
    return mmx__fail(ctx, MMX_ERR_NO_DEVICE, "%s", why);
}
#endif

mmx_status mmx_cuda_device_count(mmx_ctx *ctx, int *count)
{
    if (!ctx || !count) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cuda_device_count: NULL argument");
    *count = 0;
#ifdef MMX_HAVE_CUDA
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        /* Any error here means no device can be used; the count stays 0 and the reason is
         * left in ctx. */
        (void)fail_no_device(ctx, e);
        return MMX_OK;
    }
    *count = n;
#else
    mmx__fail(ctx, MMX_ERR_NO_DEVICE, "no CUDA device: meshmatrix was built without CUDA");
#endif
    return MMX_OK;
}

#ifdef MMX_HAVE_CUDA
/* mmx_ctx_use_cuda (caller NULL: a stream of the context's own) and mmx_ctx_use_cuda_stream
 * (the caller's stream, already checked not to be a default one). */
static mmx_status use_cuda(mmx_ctx *ctx, int device, cudaStream_t caller)
{
    int n = 0;
    mmx_cuda_device_count(ctx, &n);
    if (n == 0) return MMX_ERR_NO_DEVICE; /* the detail is already in ctx */
    if (device < 0 || device >= n)
        return mmx__fail(ctx, MMX_ERR_NO_DEVICE, "CUDA device %d does not exist (%d present)",
                         device, n);
    /* cudaSetDevice creates the device's context, where a busy (exclusive-process) GPU or a
     * driver fault shows first: those get the same sentence as a missing device. */
    cudaError_t e = cudaSetDevice(device);
    if (is_no_device(e)) return fail_no_device(ctx, e);
    mmx_status s = mmx__cuda(ctx, e, "cudaSetDevice(device)");
    if (s) return s;
    cudaStream_t st = caller;
    if (caller) {
        /* A stream of another device would run the pool's memory there: refused, where the
         * runtime can tell (a dead handle is the caller's to avoid: core.h). */
        int on = -1;
        s = MMX__CUDA(ctx, cudaStreamGetDevice(caller, &on));
        if (s) return s;
        if (on != device)
            return mmx__fail(ctx, MMX_ERR_ARG, "the stream given belongs to CUDA device %d, "
                             "not to device %d", on, device);
    } else {
        s = MMX__CUDA(ctx, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        if (s) return s;
    }
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
        if (!caller) (void)cudaStreamDestroy(st);
        return s;
    }
    uint64_t keep = UINT64_MAX;
    s = MMX__CUDA(ctx, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    if (s) {
        (void)cudaMemPoolDestroy(pool);
        if (!caller) (void)cudaStreamDestroy(st);
        return s;
    }
    if (ctx->stream) {
        /* The old stream's queued work may still use memory of the old pool: let it finish
         * before both go (the one wait here is for the context's own stream). A caller's
         * stream is left to the caller. */
        (void)cudaStreamSynchronize((cudaStream_t)ctx->stream);
        if (!ctx->caller_stream) (void)cudaStreamDestroy((cudaStream_t)ctx->stream);
    }
    if (ctx->pool) (void)cudaMemPoolDestroy((cudaMemPool_t)ctx->pool);
    ctx->stream = st;
    ctx->caller_stream = caller != NULL;
    ctx->pool = pool;
    ctx->backend = MMX_BACKEND_CUDA;
    ctx->device = device;
    ctx->err[0] = '\0';
    return MMX_OK;
}
#else
static mmx_status no_cuda(mmx_ctx *ctx)
{
    return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                     "the CUDA backend is not available: meshmatrix was built without CUDA");
}
#endif

mmx_status mmx_ctx_use_cuda(mmx_ctx *ctx, int device)
{
    if (!ctx) return MMX_ERR_ARG;
#ifdef MMX_HAVE_CUDA
    return use_cuda(ctx, device, NULL);
#else
    (void)device;
    return no_cuda(ctx);
#endif
}

mmx_status mmx_ctx_use_cuda_stream(mmx_ctx *ctx, int device, void *stream)
{
    if (!ctx) return MMX_ERR_ARG;
    /* The default streams by their handles' values (cudaStreamLegacy is 0x1,
     * cudaStreamPerThread 0x2), so that the refusal reads the same with or without CUDA. */
    if (stream == NULL || stream == (void *)0x1)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_ctx_use_cuda_stream: the legacy default stream "
                         "(%s) is refused: it would serialise the library's work with every "
                         "other stream of the device; pass a stream of your own",
                         stream ? "cudaStreamLegacy" : "NULL");
    if (stream == (void *)0x2)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_ctx_use_cuda_stream: the per-thread default "
                         "stream (cudaStreamPerThread) is refused: it is another stream on "
                         "every thread, which would break the order of the context's memory; "
                         "pass a stream of your own");
#ifdef MMX_HAVE_CUDA
    return use_cuda(ctx, device, (cudaStream_t)stream);
#else
    (void)device;
    return no_cuda(ctx);
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
    return ctx->backend == MMX_BACKEND_CUDA ? mmx__stream_sync(ctx) : MMX_OK;
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
