/* mmx bench's GPU part (bench.h): the copy bandwidth that defines the floors, and the cuSPARSE
 * peers on the same matrix, queued on the context's stream so that bench_time's CUDA events
 * time them as they time ours. Built only with the CUDA backend (tools/meson.build), linked
 * with cuSPARSE and bench/bench_util.c (the copy bandwidth, the GPU's name and cuSPARSE's
 * error messages are measured and worded as bench/ does).
 *
 * The peers get what cuSPARSE needs: the general form of M (column pointers), explicit float
 * values (1/c of each entry's face for the SpMVs, ones for the binary product), component
 * arrays for the vectors (cuSPARSE's SpMV takes one vector at a time), and M in CSR form from
 * cuSPARSE's own conversion. That preparation is not timed; the products are. Device memory
 * comes from the context's pool (mmx_mem_alloc), in the stream's order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "bench_util.h"
#include "tool.h"

void bench_gpu_describe(char *gpu, size_t n)
{
    char name[256];
    int major = 0, minor = 0, patch = 0;
    bu_gpu_name(name, sizeof name);
    if (cusparseGetProperty(MAJOR_VERSION, &major) != CUSPARSE_STATUS_SUCCESS ||
        cusparseGetProperty(MINOR_VERSION, &minor) != CUSPARSE_STATUS_SUCCESS ||
        cusparseGetProperty(PATCH_LEVEL, &patch) != CUSPARSE_STATUS_SUCCESS)
        snprintf(gpu, n, "%s; cuSPARSE (version unknown)", name);
    else
        snprintf(gpu, n, "%s; cuSPARSE %d.%d.%d", name, major, minor, patch);
}

int bench_copy_tbps(mmx_ctx *ctx, double *tbps)
{
    /* bench/'s measure: a 1 GiB device-to-device copy, median of 10, read + write bytes. */
    *tbps = bu_copy_tbps((cudaStream_t)mmx_ctx_cuda_stream(ctx));
    if (!(*tbps > 0)) {
        fprintf(stderr, "mmx: bench: the copy bandwidth could not be measured\n");
        return -1;
    }
    return 0;
}

/* ---- the operands ---------------------------------------------------------------------------- */

typedef struct peers {
    mmx_ctx *ctx;
    cusparseHandle_t h;
    int nv, nf, nnz;
    mmx_mesh *gen;                /* the mesh in the general form: M's CSC arrays */
    float *val;                   /* 1/c of each entry's face */
    float *ones;                  /* 1 for each entry: the binary product's values */
    int *rowptr, *colidx;         /* M in CSR form */
    float *csr_val;
    float *in[3], *out[3];        /* component arrays of max(nv, nf) floats */
    void *buf;                    /* cuSPARSE's work space, grown as needed */
    size_t buf_bytes;
    cusparseSpMatDescr_t csr_mt;  /* CSR of Mᵀ: M's CSC arrays read by rows (nf x nv) */
    cusparseSpMatDescr_t csc_m;   /* CSC of M (nv x nf) */
    cusparseSpMatDescr_t csr_m;   /* CSR of M (nv x nf) */
    cusparseSpMatDescr_t bin_a, bin_b; /* the binary M (CSR) and Mᵀ (CSR) for SpGEMM */
} peers;

/* Device memory from the context's pool; NULL and a message when it fails. */
static void *dev_alloc(peers *p, size_t bytes)
{
    void *d = NULL;
    mmx_status s = mmx_mem_alloc(p->ctx, MMX_SPACE_DEVICE, bytes ? bytes : 1, &d);
    if (s) {
        fail(p->ctx, s, "bench: cuSPARSE operands");
        return NULL;
    }
    return d;
}

static void dev_free(peers *p, void *d)
{
    mmx_mem_free(p->ctx, MMX_SPACE_DEVICE, d);
}

/* Makes sure the work space holds `need` bytes (outside the timing). */
static int grow_buf(peers *p, size_t need)
{
    if (need <= p->buf_bytes && p->buf) return 0;
    dev_free(p, p->buf);
    p->buf = dev_alloc(p, need);
    p->buf_bytes = p->buf ? need : 0;
    return p->buf ? 0 : -1;
}

/* Copies n floats between host and device through the library (which orders the copy on the
 * context's stream and, into the host, waits for it). */
static int copy(peers *p, void *dst, mmx_space ds, const void *src, mmx_space ss, size_t n)
{
    mmx_status s = mmx_mem_copy(p->ctx, dst, ds, src, ss, n * sizeof(float));
    if (!s) return 0;
    fail(p->ctx, s, "bench: cuSPARSE operands");
    return -1;
}

static int make_csr(peers *p, cusparseSpMatDescr_t *d, int rows, int cols, int *ptr, int *idx,
                    float *val)
{
    return bu_sparse_ok(cusparseCreateCsr(d, rows, cols, p->nnz, ptr, idx, val,
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), "CreateCsr")
               ? 0 : -1;
}

/* The operands: general M, its values, its CSR form, the component arrays. */
static int prepare(peers *p, const mmx_mesh *mesh)
{
    mmx_status s = mmx_mesh_copy(p->ctx, mesh, MMX_SPACE_DEVICE, &p->gen);
    if (!s) s = mmx_mesh_expand(p->ctx, p->gen);
    if (s) {
        fail(p->ctx, s, "bench: the general form of M");
        return -1;
    }
    const mmx_csc *M = p->gen->M;
    p->nv = M->nrows;
    p->nf = M->ncols;
    p->nnz = M->nnz;
    const size_t nnz = (size_t)p->nnz, big = (size_t)(p->nv > p->nf ? p->nv : p->nf);
    /* Values on the host: each entry's 1/c from the column pointers, and ones. */
    int *colptr = malloc(((size_t)p->nf + 1) * sizeof *colptr);
    float *hv = malloc((nnz ? nnz : 1) * sizeof *hv), *h1 = malloc((nnz ? nnz : 1) * sizeof *h1);
    int rc = -1;
    if (!colptr || !hv || !h1) {
        out_of_memory("bench: cuSPARSE operands");
        goto done;
    }
    s = mmx_mem_copy(p->ctx, colptr, MMX_SPACE_HOST, M->colptr, MMX_SPACE_DEVICE,
                     ((size_t)p->nf + 1) * sizeof *colptr);
    if (s) {
        fail(p->ctx, s, "bench: cuSPARSE operands");
        goto done;
    }
    for (int j = 0; j < p->nf; j++)
        for (int k = colptr[j]; k < colptr[j + 1]; k++) {
            hv[k] = 1.0f / (float)(colptr[j + 1] - colptr[j]);
            h1[k] = 1.0f;
        }
    if (!(p->val = dev_alloc(p, nnz * 4)) || !(p->ones = dev_alloc(p, nnz * 4)) ||
        !(p->rowptr = dev_alloc(p, ((size_t)p->nv + 1) * 4)) || !(p->colidx = dev_alloc(p, nnz * 4)) ||
        !(p->csr_val = dev_alloc(p, nnz * 4)))
        goto done;
    for (int d = 0; d < 3; d++)
        if (!(p->in[d] = dev_alloc(p, big * 4)) || !(p->out[d] = dev_alloc(p, big * 4))) goto done;
    if (copy(p, p->val, MMX_SPACE_DEVICE, hv, MMX_SPACE_HOST, nnz) ||
        copy(p, p->ones, MMX_SPACE_DEVICE, h1, MMX_SPACE_HOST, nnz))
        goto done;
    /* M in CSR form: cuSPARSE's conversion of Mᵀ's CSR (M's CSC arrays). */
    size_t need = 0;
    if (!bu_sparse_ok(cusparseCsr2cscEx2_bufferSize(p->h, p->nf, p->nv, p->nnz, p->val, M->colptr,
                                                    M->rowidx, p->csr_val, p->rowptr, p->colidx,
                                                    CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
                                                    CUSPARSE_INDEX_BASE_ZERO,
                                                    CUSPARSE_CSR2CSC_ALG1, &need), "Csr2cscEx2") ||
        grow_buf(p, need) ||
        !bu_sparse_ok(cusparseCsr2cscEx2(p->h, p->nf, p->nv, p->nnz, p->val, M->colptr, M->rowidx,
                                         p->csr_val, p->rowptr, p->colidx, CUDA_R_32F,
                                         CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                         CUSPARSE_CSR2CSC_ALG1, p->buf), "Csr2cscEx2"))
        goto done;
    if (make_csr(p, &p->csr_mt, p->nf, p->nv, M->colptr, M->rowidx, p->val) ||
        make_csr(p, &p->csr_m, p->nv, p->nf, p->rowptr, p->colidx, p->csr_val) ||
        !bu_sparse_ok(cusparseCreateCsc(&p->csc_m, p->nv, p->nf, p->nnz, M->colptr, M->rowidx,
                                        p->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), "CreateCsc") ||
        make_csr(p, &p->bin_a, p->nv, p->nf, p->rowptr, p->colidx, p->ones) ||
        make_csr(p, &p->bin_b, p->nf, p->nv, M->colptr, M->rowidx, p->ones))
        goto done;
    rc = 0;
done:
    free(colptr);
    free(hv);
    free(h1);
    return rc;
}

static void release(peers *p)
{
    cusparseSpMatDescr_t *m[] = {&p->csr_mt, &p->csc_m, &p->csr_m, &p->bin_a, &p->bin_b};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (*m[i]) cusparseDestroySpMat(*m[i]);
    for (int d = 0; d < 3; d++) {
        dev_free(p, p->in[d]);
        dev_free(p, p->out[d]);
    }
    dev_free(p, p->buf);
    dev_free(p, p->val);
    dev_free(p, p->ones);
    dev_free(p, p->rowptr);
    dev_free(p, p->colidx);
    dev_free(p, p->csr_val);
    mmx_mesh_free(p->gen);
    if (p->h) cusparseDestroy(p->h);
}

/* ---- SpMV -------------------------------------------------------------------------------------- */

typedef struct spmv_job {
    peers *p;
    cusparseSpMatDescr_t mat;
    cusparseOperation_t op;
    cusparseDnVecDescr_t x[3], y[3];
} spmv_job;

/* y_d = op(A) x_d for the three coordinates. */
static int run_spmv(void *arg)
{
    spmv_job *j = arg;
    const float one = 1.0f, zero = 0.0f;
    for (int d = 0; d < 3; d++)
        if (cusparseSpMV(j->p->h, j->op, &one, j->mat, j->x[d], &zero, j->y[d], CUDA_R_32F,
                         CUSPARSE_SPMV_ALG_DEFAULT, j->p->buf) != CUSPARSE_STATUS_SUCCESS)
            return 1;
    return 0;
}

/* The largest difference between the peer's result (components in p->out) and ours (n x 3,
 * on the device), relative to our largest value; -1 when it cannot be read. */
static double compare(peers *p, const float *ours, size_t n)
{
    float *a = malloc(3 * n * sizeof *a + 1), *b = malloc(3 * n * sizeof *b + 1);
    double rel = -1;
    if (!a || !b) {
        out_of_memory("bench: comparing the results");
        goto done;
    }
    if (copy(p, a, MMX_SPACE_HOST, ours, MMX_SPACE_DEVICE, 3 * n)) goto done;
    for (int d = 0; d < 3; d++)
        if (copy(p, b + (size_t)d * n, MMX_SPACE_HOST, p->out[d], MMX_SPACE_DEVICE, n)) goto done;
    double diff = 0, big = 1e-30;
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            diff = fmax(diff, fabs((double)a[3 * i + d] - b[(size_t)d * n + i]));
            big = fmax(big, fabs((double)a[3 * i + d]));
        }
    rel = diff / big;
done:
    free(a);
    free(b);
    return rel;
}

/* One SpMV peer row: x (n_in x 3, device, ours's layout) split into components, the
 * descriptors and work space made, one untimed run (an unsupported form is a row without a
 * time), then the timing and the comparison with ours (n_out x 3). Returns -1 when a
 * preparation step fails (not for a form cuSPARSE refuses). */
static int spmv_row(peers *p, bench_table *t, bench_product prod, const char *impl,
                    cusparseSpMatDescr_t mat, cusparseOperation_t op, const float *x, int n_in,
                    const float *ours, int n_out, int warm, int reps)
{
    spmv_job j = {.p = p, .mat = mat, .op = op};
    int rc = -1;
    float *h = malloc(3 * (size_t)n_in * sizeof *h + 1), *c = malloc((size_t)n_in * sizeof *c + 1);
    if (!h || !c) {
        out_of_memory("bench: cuSPARSE operands");
        goto done;
    }
    if (copy(p, h, MMX_SPACE_HOST, x, MMX_SPACE_DEVICE, 3 * (size_t)n_in)) goto done;
    for (int d = 0; d < 3; d++) {
        for (int i = 0; i < n_in; i++) c[i] = h[3 * (size_t)i + d];
        if (copy(p, p->in[d], MMX_SPACE_DEVICE, c, MMX_SPACE_HOST, (size_t)n_in)) goto done;
    }
    rc = 0;
    const float one = 1.0f, zero = 0.0f;
    size_t need = 0;
    int ok = 1;
    for (int d = 0; d < 3 && ok; d++)
        ok = bu_sparse_ok(cusparseCreateDnVec(&j.x[d], n_in, p->in[d], CUDA_R_32F), "DnVec") &&
             bu_sparse_ok(cusparseCreateDnVec(&j.y[d], n_out, p->out[d], CUDA_R_32F), "DnVec");
    ok = ok && bu_sparse_ok(cusparseSpMV_bufferSize(p->h, op, &one, mat, j.x[0], &zero, j.y[0],
                                                    CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &need),
                            "SpMV_bufferSize");
    if (ok && grow_buf(p, need)) {
        rc = -1;
        goto done;
    }
    ok = ok && run_spmv(&j) == 0;
    double ms = -1;
    char note[120] = "cuSPARSE refused this form (see above)";
    if (ok && bench_time(p->ctx, warm, reps, run_spmv, &j, &ms) == 0) {
        double rel = compare(p, ours, (size_t)n_out);
        if (rel < 0) rc = -1;
        else if (rel > 1e-4) snprintf(note, sizeof note, "DIFFERS from ours: rel. diff %.1e", rel);
        else snprintf(note, sizeof note, "rel. diff to ours %.1e", rel);
    } else if (ok) {
        ms = -1;
        snprintf(note, sizeof note, "a timed call failed");
    }
    bench_add(t, prod, 0, impl, ms, note);
done:
    for (int d = 0; d < 3; d++) {
        if (j.x[d]) cusparseDestroyDnVec(j.x[d]);
        if (j.y[d]) cusparseDestroyDnVec(j.y[d]);
    }
    free(h);
    free(c);
    return rc;
}

/* ---- SpGEMM ------------------------------------------------------------------------------------ */

typedef struct gemm_job {
    peers *p;
    void *b1, *b2;              /* the two work spaces */
    int *cptr, *cidx;           /* the result C = M·Mᵀ (CSR) */
    float *cval;
    int64_t cnnz;
} gemm_job;

/* The last result and work spaces go back to the pool in stream order, so the next repeat
 * reuses their blocks (as the library's results do in run_mesh_product). */
static void gemm_release(gemm_job *g)
{
    dev_free(g->p, g->b1);
    dev_free(g->p, g->b2);
    dev_free(g->p, g->cptr);
    dev_free(g->p, g->cidx);
    dev_free(g->p, g->cval);
    g->b1 = g->b2 = NULL;
    g->cptr = g->cidx = NULL;
    g->cval = NULL;
}

/* C = A·B with cuSPARSE's generic SpGEMM: work estimation, compute, result allocation and
 * copy, each work space sized by its first call and allocated in between. */
static int run_spgemm(void *arg)
{
    gemm_job *g = arg;
    peers *p = g->p;
    gemm_release(g);
    const float one = 1.0f, zero = 0.0f;
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
    cusparseSpMatDescr_t C = NULL;
    cusparseSpGEMMDescr_t d = NULL;
    size_t n1 = 0, n2 = 0;
    int64_t rows, cols, nnz = 0;
    int ok = cusparseCreateCsr(&C, p->nv, p->nv, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F) ==
                 CUSPARSE_STATUS_SUCCESS &&
             cusparseSpGEMM_createDescr(&d) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseSpGEMM_workEstimation(p->h, N, N, &one, p->bin_a, p->bin_b, &zero, C,
                                             CUDA_R_32F, alg, d, &n1, NULL) ==
                   CUSPARSE_STATUS_SUCCESS;
    ok = ok && (g->b1 = dev_alloc(p, n1)) != NULL;
    ok = ok && cusparseSpGEMM_workEstimation(p->h, N, N, &one, p->bin_a, p->bin_b, &zero, C,
                                             CUDA_R_32F, alg, d, &n1, g->b1) ==
                   CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseSpGEMM_compute(p->h, N, N, &one, p->bin_a, p->bin_b, &zero, C, CUDA_R_32F,
                                      alg, d, &n2, NULL) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && (g->b2 = dev_alloc(p, n2)) != NULL;
    ok = ok && cusparseSpGEMM_compute(p->h, N, N, &one, p->bin_a, p->bin_b, &zero, C, CUDA_R_32F,
                                      alg, d, &n2, g->b2) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseSpMatGetSize(C, &rows, &cols, &nnz) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && (g->cptr = dev_alloc(p, ((size_t)p->nv + 1) * sizeof(int))) != NULL &&
         (g->cidx = dev_alloc(p, (size_t)nnz * sizeof(int))) != NULL &&
         (g->cval = dev_alloc(p, (size_t)nnz * sizeof(float))) != NULL;
    ok = ok && cusparseCsrSetPointers(C, g->cptr, g->cidx, g->cval) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseSpGEMM_copy(p->h, N, N, &one, p->bin_a, p->bin_b, &zero, C, CUDA_R_32F,
                                   alg, d) == CUSPARSE_STATUS_SUCCESS;
    g->cnnz = nnz;
    if (d) cusparseSpGEMM_destroyDescr(d);
    if (C) cusparseDestroySpMat(C);
    return !ok;
}

/* ---- the rows ---------------------------------------------------------------------------------- */

int bench_peers(mmx_ctx *ctx, const mmx_mesh *mesh, const float *pos, const float *faces,
                const float *ours_f, const float *ours_v, int warm, int reps, bench_table *t)
{
    peers p;
    memset(&p, 0, sizeof p);
    p.ctx = ctx;
    if (!bu_sparse_ok(cusparseCreate(&p.h), "Create")) return -1;
    if (!bu_sparse_ok(cusparseSetStream(p.h, (cudaStream_t)mmx_ctx_cuda_stream(ctx)), "SetStream") ||
        prepare(&p, mesh)) {
        release(&p);
        return -1;
    }
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE, T = CUSPARSE_OPERATION_TRANSPOSE;
    int rc = spmv_row(&p, t, BP_FACE_POINTS, "cuSPARSE SpMV x3, CSR of M^T (M's CSC arrays)",
                      p.csr_mt, N, pos, p.nv, ours_f, p.nf, warm, reps);
    if (!rc)
        rc = spmv_row(&p, t, BP_FACE_POINTS, "cuSPARSE SpMV x3, CSC of M, transposed", p.csc_m, T,
                      pos, p.nv, ours_f, p.nf, warm, reps);
    if (!rc)
        rc = spmv_row(&p, t, BP_VERTEX_SCATTER, "cuSPARSE SpMV x3, CSR of M (converted)", p.csr_m,
                      N, faces, p.nf, ours_v, p.nv, warm, reps);
    if (!rc)
        rc = spmv_row(&p, t, BP_VERTEX_SCATTER, "cuSPARSE SpMV x3, CSC of M", p.csc_m, N, faces,
                      p.nf, ours_v, p.nv, warm, reps);
    if (!rc) {
        gemm_job g = {.p = &p};
        double ms = -1;
        char note[120] = "cuSPARSE SpGEMM failed (see above)";
        if (bench_time(ctx, 1, reps, run_spgemm, &g, &ms) == 0)
            snprintf(note, sizeof note, "C: %lld entries (binary, with the diagonal)",
                     (long long)g.cnnz);
        else
            ms = -1;
        gemm_release(&g);
        bench_add(t, BP_MESH_PRODUCT, 0, "cuSPARSE SpGEMM, binary M M^T", ms, note);
    }
    release(&p);
    return rc;
}
