/* See bench_util.h. */
#include <string.h>
#include <time.h>
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

void bu_date(char *buf, size_t cap)
{
    const time_t now = time(NULL);
    struct tm tm;
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S %Z", localtime_r(&now, &tm));
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

void bu_spgemm_release(bu_spgemm *s)
{
    /* Freed in stream order so the next repeat reuses the pool's blocks. */
    if (s->b1) BU_CUDA(cudaFreeAsync(s->b1, s->st));
    if (s->b2) BU_CUDA(cudaFreeAsync(s->b2, s->st));
    if (s->cptr) BU_CUDA(cudaFreeAsync(s->cptr, s->st));
    if (s->cidx) BU_CUDA(cudaFreeAsync(s->cidx, s->st));
    if (s->cval) BU_CUDA(cudaFreeAsync(s->cval, s->st));
    s->b1 = s->b2 = NULL;
    s->cptr = s->cidx = NULL;
    s->cval = NULL;
}

int bu_spgemm_run(void *p)
{
    bu_spgemm *s = p;
    bu_spgemm_release(s);
    const float one = 1.0f, zero = 0.0f;
    cusparseSpMatDescr_t C;
    cusparseSpGEMMDescr_t d;
    size_t n1 = 0, n2 = 0;
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
    int ok = bu_sparse_ok(cusparseCreateCsr(&C, s->m, s->m, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), "C") &&
             bu_sparse_ok(cusparseSpGEMM_createDescr(&d), "descr");
    if (!ok) return 1;
    ok = bu_sparse_ok(cusparseSpGEMM_workEstimation(s->h, N, N, &one, s->A, s->B, &zero, C, CUDA_R_32F,
                                                    alg, d, &n1, NULL), "workEstimation");
    if (ok) BU_CUDA(cudaMallocAsync(&s->b1, n1 ? n1 : 1, s->st));
    ok = ok && bu_sparse_ok(cusparseSpGEMM_workEstimation(s->h, N, N, &one, s->A, s->B, &zero, C,
                                                          CUDA_R_32F, alg, d, &n1, s->b1), "workEstimation");
    ok = ok && bu_sparse_ok(cusparseSpGEMM_compute(s->h, N, N, &one, s->A, s->B, &zero, C, CUDA_R_32F,
                                                   alg, d, &n2, NULL), "compute");
    if (ok) BU_CUDA(cudaMallocAsync(&s->b2, n2 ? n2 : 1, s->st));
    ok = ok && bu_sparse_ok(cusparseSpGEMM_compute(s->h, N, N, &one, s->A, s->B, &zero, C, CUDA_R_32F,
                                                   alg, d, &n2, s->b2), "compute");
    int64_t r, c, nnz = 0;
    ok = ok && bu_sparse_ok(cusparseSpMatGetSize(C, &r, &c, &nnz), "size");
    if (ok) {
        BU_CUDA(cudaMallocAsync((void **)&s->cptr, ((size_t)s->m + 1) * sizeof(int), s->st));
        BU_CUDA(cudaMallocAsync((void **)&s->cidx, (size_t)nnz * sizeof(int), s->st));
        BU_CUDA(cudaMallocAsync((void **)&s->cval, (size_t)nnz * sizeof(float), s->st));
    }
    ok = ok && bu_sparse_ok(cusparseCsrSetPointers(C, s->cptr, s->cidx, s->cval), "set");
    ok = ok && bu_sparse_ok(cusparseSpGEMM_copy(s->h, N, N, &one, s->A, s->B, &zero, C, CUDA_R_32F,
                                                alg, d), "copy");
    s->cnnz = nnz;
    cusparseSpGEMM_destroyDescr(d);
    cusparseDestroySpMat(C);
    s->ok = ok;
    return !ok;
}

void bu_csr_of_mesh(cusparseHandle_t h, cudaStream_t st, const mmx_csc *M, const float *val,
                    int **rowptr, int **colidx, float **csr_val)
{
    const int nv = M->nrows, nf = M->ncols, nnz = M->nnz;
    BU_CUDA(cudaMallocAsync((void **)rowptr, ((size_t)nv + 1) * sizeof(int), 0));
    BU_CUDA(cudaMallocAsync((void **)colidx, (size_t)nnz * sizeof(int), 0));
    BU_CUDA(cudaMallocAsync((void **)csr_val, (size_t)nnz * sizeof(float), 0));
    BU_CUDA(cudaDeviceSynchronize());
    size_t cb = 0;
    void *cbuf = NULL;
    if (!bu_sparse_ok(cusparseCsr2cscEx2_bufferSize(h, nf, nv, nnz, val, M->colptr, M->rowidx, *csr_val,
                                                    *rowptr, *colidx, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
                                                    CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &cb),
                      "csr2csc"))
        exit(1);
    BU_CUDA(cudaMalloc(&cbuf, cb ? cb : 1));
    if (!bu_sparse_ok(cusparseCsr2cscEx2(h, nf, nv, nnz, val, M->colptr, M->rowidx, *csr_val, *rowptr,
                                         *colidx, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
                                         CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, cbuf),
                      "csr2csc"))
        exit(1);
    BU_CUDA(cudaStreamSynchronize(st));
    BU_CUDA(cudaFree(cbuf));
}

/* One 1-to-4 split of a triangle mesh by its edge midpoints (host): vertex nv + e is edge e's
 * midpoint; triangle (a, b, c) becomes (a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca). */
mmx_mesh *bu_split4(mmx_ctx *h, const mmx_mesh *m)
{
    mmx_adjacency *adj = NULL;
    BU_MMX(h, mmx_adjacency_compute(h, m, &adj));
    const mmx_index nv = m->M->nrows, nf = m->M->ncols, ne = adj->nedges;
    float *pos = malloc(3 * ((size_t)nv + ne) * sizeof *pos);
    mmx_index *start = malloc(((size_t)4 * nf + 1) * sizeof *start);
    mmx_index *idx = malloc((size_t)12 * nf * sizeof *idx);
    if (!pos || !start || !idx) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    memcpy(pos, m->pos, 3 * (size_t)nv * sizeof *pos);
    for (mmx_index e = 0; e < ne; e++)
        for (int d = 0; d < 3; d++)
            pos[3 * ((size_t)nv + e) + d] =
                0.5f * (m->pos[3 * (size_t)adj->ev[2 * e] + d] + m->pos[3 * (size_t)adj->ev[2 * e + 1] + d]);
    for (mmx_index f = 0; f < nf; f++) {
        const mmx_index *v = m->M->rowidx + 3 * (size_t)f; /* reduced: triangles only */
        const mmx_index *fe = adj->fe + 3 * (size_t)f;
        const mmx_index ab = nv + (fe[0] >> 1), bc = nv + (fe[1] >> 1), ca = nv + (fe[2] >> 1);
        const mmx_index t[12] = {v[0], ab, ca, ab, v[1], bc, ca, bc, v[2], ab, bc, ca};
        memcpy(idx + 12 * (size_t)f, t, sizeof t);
    }
    for (mmx_index k = 0; k <= 4 * nf; k++) start[k] = 3 * k;
    mmx_mesh *out = NULL;
    BU_MMX(h, mmx_mesh_from_faces(h, nv + ne, 4 * nf, start, idx, pos, &out));
    BU_MMX(h, mmx_mesh_reduce(h, out));
    free(pos), free(start), free(idx);
    mmx_adjacency_free(adj);
    return out;
}

void bu_patch_updates(const char *who, const mmx_patch_stats *pst, double extra_ms)
{
    const double share = pst->update_patches ? 100.0 * (double)pst->update_dirty /
                                                   (double)pst->update_patches : 0;
    printf("        %-5s %lld updates (%lld incremental), %.1f%% of the patches rebuilt per update "
           "(dirty), %.3f ms more per update\n", who, (long long)pst->updates,
           (long long)pst->updates_incremental, share,
           pst->updates ? extra_ms / (double)pst->updates : 0.0);
}

const mmx_mesh *bu_nef_next(mmx_ctx *host, const char *dir, int max, bu_nef *it)
{
    if (it->level >= max) {
        mmx_mesh_free(it->m);
        it->m = NULL;
        return NULL;
    }
    if (it->level < 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/models/nefertiti.obj", dir);
        BU_MMX(host, mmx_mesh_read(host, path, MMX_FORMAT_AUTO, &it->m));
        BU_MMX(host, mmx_mesh_reduce(host, it->m));
    } else {
        mmx_mesh *next = bu_split4(host, it->m);
        mmx_mesh_free(it->m);
        it->m = next;
    }
    it->level++;
    snprintf(it->name, sizeof it->name, "nef%d", it->level);
    return it->m;
}
