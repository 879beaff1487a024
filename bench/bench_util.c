/* See bench_util.h. */
#include <string.h>
#include "bench_util.h"
#include "bench_clock.h"

int bu_sparse_ok(cusparseStatus_t s, const char *what)
{
    if (s == CUSPARSE_STATUS_SUCCESS) return 1;
    fprintf(stderr, "  (cuSPARSE %s: %s; reported as n/a)\n", what, cusparseGetErrorString(s));
    return 0;
}

double bu_time(cudaStream_t st, int warm, int reps, bu_fn fn, void *arg)
{
    cudaEvent_t e0, e1;
    BU_CUDA(cudaEventCreate(&e0));
    BU_CUDA(cudaEventCreate(&e1));
    for (int i = 0; i < warm; i++)
        if (fn(arg)) return -1;
    BU_CUDA(cudaStreamSynchronize(st));
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t) exit(1);
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        BU_CUDA(cudaEventRecord(e0, st));
        if (fn(arg)) { free(t); return -1; }
        BU_CUDA(cudaEventRecord(e1, st));
        BU_CUDA(cudaEventSynchronize(e1));
        BU_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        t[i] = ms;
    }
    double med = bc_median(t, reps);
    free(t);
    BU_CUDA(cudaEventDestroy(e0));
    BU_CUDA(cudaEventDestroy(e1));
    return med;
}

typedef struct copy_arg { void *dst; const void *src; size_t bytes; cudaStream_t st; } copy_arg;

static int copy_once(void *p)
{
    copy_arg *a = p;
    return cudaMemcpyAsync(a->dst, a->src, a->bytes, cudaMemcpyDeviceToDevice, a->st) != cudaSuccess;
}

double bu_copy_tbps(cudaStream_t st)
{
    copy_arg a = {NULL, NULL, (size_t)1 << 30, st};
    void *src;
    BU_CUDA(cudaMalloc(&a.dst, a.bytes));
    BU_CUDA(cudaMalloc(&src, a.bytes));
    BU_CUDA(cudaMemset(src, 1, a.bytes));
    a.src = src;
    double ms = bu_time(st, 3, 10, copy_once, &a);
    BU_CUDA(cudaFree(a.dst));
    BU_CUDA(cudaFree(src));
    return 2.0 * (double)a.bytes / (ms * 1e-3) / 1e12;
}

cudaMemPool_t bu_default_pool(void)
{
    int dev;
    cudaMemPool_t p;
    BU_CUDA(cudaGetDevice(&dev));
    BU_CUDA(cudaDeviceGetDefaultMemPool(&p, dev));
    return p;
}

size_t bu_pool_used(cudaMemPool_t pool)
{
    uint64_t v = 0;
    BU_CUDA(cudaDeviceSynchronize());
    BU_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &v));
    return (size_t)v;
}

size_t bu_pool_high(cudaMemPool_t pool)
{
    uint64_t v = 0;
    BU_CUDA(cudaDeviceSynchronize());
    BU_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &v));
    return (size_t)v;
}

void bu_pool_reset_high(cudaMemPool_t pool)
{
    uint64_t zero = 0; /* setting the high-water mark to 0 resets it to the current use */
    BU_CUDA(cudaDeviceSynchronize());
    BU_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
}

void bu_gpu_name(char *buf, size_t cap)
{
    int dev, drv = 0;
    struct cudaDeviceProp p;
    BU_CUDA(cudaGetDevice(&dev));
    BU_CUDA(cudaGetDeviceProperties(&p, dev));
    BU_CUDA(cudaDriverGetVersion(&drv));
    snprintf(buf, cap, "%s (CUDA driver API %d.%d, %d SMs, %.0f GiB)", p.name, drv / 1000,
             drv % 1000 / 10, p.multiProcessorCount, (double)p.totalGlobalMem / (1 << 30));
}

float *bu_dev_fill(size_t n, float v)
{
    float *h = malloc((n ? n : 1) * sizeof *h), *d = NULL;
    if (!h) exit(1);
    for (size_t i = 0; i < n; i++) h[i] = v;
    BU_CUDA(cudaMallocAsync((void **)&d, (n ? n : 1) * sizeof *d, 0));
    BU_CUDA(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

void bu_start(int argc, char **argv, const char *name, bu_env *e)
{
    memset(e, 0, sizeof *e);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            e->quick = 1;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            e->csv = fopen(argv[++i], "w");
            if (!e->csv) {
                fprintf(stderr, "%s: cannot write %s\n", name, argv[i]);
                exit(1);
            }
        } else {
            fprintf(stderr, "usage: %s [--quick] [--csv FILE]\n", name);
            exit(2);
        }
    }
    if (mmx_ctx_create(&e->ctx) || mmx_ctx_use_cuda(e->ctx, 0)) {
        fprintf(stderr, "%s: no CUDA device: %s\n", name, mmx_ctx_error(e->ctx));
        exit(1);
    }
    e->st = (cudaStream_t)mmx_ctx_cuda_stream(e->ctx);
    if (!bu_sparse_ok(cusparseCreate(&e->h), "create") ||
        !bu_sparse_ok(cusparseSetStream(e->h, e->st), "stream"))
        exit(1);
    bu_gpu_name(e->gpu, sizeof e->gpu);
    cusparseGetVersion(e->h, &e->sparse_version);
    e->spec[0] = e->quick ? "torus:256:256" : "torus:2048:2048";
    e->spec[1] = e->quick ? "icosphere:5" : "icosphere:9";
    snprintf(e->label[0], sizeof e->label[0], "quads %s", e->spec[0]);
    snprintf(e->label[1], sizeof e->label[1], "triangles %s", e->spec[1]);
}

void bu_finish(bu_env *e)
{
    cusparseDestroy(e->h);
    mmx_ctx_free(e->ctx);
    if (e->csv) fclose(e->csv);
}
