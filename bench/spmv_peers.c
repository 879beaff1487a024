/* Mapped SpMV against cuSPARSE on the GPU, in one run (issue 3, item 7).
 *
 * For each mesh (quads and triangles of 4M+ faces, generated, in tidy and in shuffled order):
 *   Mᵀp  face points of 3-component positions (gather per column), weight 1/c per entry;
 *   M f  the faces' 3-component data summed into their vertices (scatter), weight 1/c.
 * Ours: mmx_spmv on the reduced mesh matrix with a constant map (each kernel variant too).
 * Peers: cuSPARSE with explicit float values, three SpMV calls (one per component, on
 * component arrays) and one SpMM with 4 columns (row-major n x 4), each in CSR form (the
 * natural one for the product) and in CSC form (the mesh matrix as it is stored). The floor is
 * the fewest bytes the product must move (the row indices once, each input item once, each
 * output item once) over the measured copy bandwidth.
 *
 * Usage: spmv_peers [--quick] [--csv FILE]    (--quick: small meshes, for a smoke test) */
#include <math.h>
#include <string.h>
#include "bench_util.h"
#include "spla/spla_internal.h"

typedef struct bench {
    mmx_ctx *ctx;
    cudaStream_t st;
    cusparseHandle_t h;
    const mmx_csc *M;           /* reduced, device */
    mmx_csc *Mt;                /* Mᵀ built once by mmx_csc_transpose: M f as a gather */
    mmx_index nv, nf, c;
    float w;                    /* 1 / c */
    const float *p;             /* nv x 3 */
    float *f, *yf, *yv;         /* nf x 3, nf x 3, nv x 3 */
    /* cuSPARSE operands */
    cusparseSpMatDescr_t csr_mt, csc_m, csr_m; /* CSR of Mᵀ (= M's CSC arrays), CSC of M, CSR of M */
    float *soa_in[3], *soa_out[3], *dn_in, *dn_out;
    void *buf;
    size_t buf_bytes;
} bench;

/* One timed case: what the closure needs. */
typedef struct job {
    bench *b;
    int kind;                /* 0 ours (variant in var), 1 three SpMV, 2 SpMM, 3 ours on Mᵀ */
    int var;
    mmx_op op;
    cusparseSpMatDescr_t mat;
    cusparseOperation_t sop;
    cusparseDnVecDescr_t vx[3], vy[3];
    cusparseDnMatDescr_t mx, my;
} job;

static int run_job(void *p)
{
    job *j = p;
    bench *b = j->b;
    const float one = 1.0f, zero = 0.0f;
    if (j->kind == 0) {
        const float *x = j->op == MMX_OP_T ? b->p : b->f;
        float *y = j->op == MMX_OP_T ? b->yf : b->yv;
        return mmx__spmv_variant_enqueue(b->ctx, (mmx__spmv_variant)j->var, j->op, 1.0f, b->M,
                                     mmx_map_const(b->w), x, 3, 0.0f, y) != MMX_OK;
    }
    if (j->kind == 3)
        return mmx__spmv_variant_enqueue(b->ctx, MMX__SPMV_AUTO, MMX_OP_T, 1.0f, b->Mt,
                                         mmx_map_const(b->w), b->f, 3, 0.0f, b->yv) != MMX_OK;
    if (j->kind == 1) {
        for (int d = 0; d < 3; d++)
            if (cusparseSpMV(b->h, j->sop, &one, j->mat, j->vx[d], &zero, j->vy[d], CUDA_R_32F,
                             CUSPARSE_SPMV_ALG_DEFAULT, b->buf) != CUSPARSE_STATUS_SUCCESS)
                return 1;
        return 0;
    }
    return cusparseSpMM(b->h, j->sop, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, j->mat, j->mx,
                        &zero, j->my, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, b->buf) !=
           CUSPARSE_STATUS_SUCCESS;
}

/* Makes sure the shared cuSPARSE buffer holds `need` bytes (allocated outside the timing). */
static void grow_buf(bench *b, size_t need)
{
    if (need <= b->buf_bytes) return;
    if (b->buf) BU_CUDA(cudaFree(b->buf));
    BU_CUDA(cudaMalloc(&b->buf, need));
    b->buf_bytes = need;
}

/* Prepares descriptors for a cuSPARSE job; returns 0 when this configuration is unsupported. */
static int prep_sparse(bench *b, job *j, int out_rows, int in_rows)
{
    const float one = 1.0f, zero = 0.0f;
    size_t need = 0;
    if (j->kind == 3)
        return mmx__spmv_variant_enqueue(b->ctx, MMX__SPMV_AUTO, MMX_OP_T, 1.0f, b->Mt,
                                         mmx_map_const(b->w), b->f, 3, 0.0f, b->yv) != MMX_OK;
    if (j->kind == 1) {
        for (int d = 0; d < 3; d++) {
            if (!bu_sparse_ok(cusparseCreateDnVec(&j->vx[d], in_rows, b->soa_in[d], CUDA_R_32F), "vec") ||
                !bu_sparse_ok(cusparseCreateDnVec(&j->vy[d], out_rows, b->soa_out[d], CUDA_R_32F), "vec"))
                return 0;
        }
        if (!bu_sparse_ok(cusparseSpMV_bufferSize(b->h, j->sop, &one, j->mat, j->vx[0], &zero,
                                                  j->vy[0], CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT,
                                                  &need), "SpMV_bufferSize"))
            return 0;
    } else {
        if (!bu_sparse_ok(cusparseCreateDnMat(&j->mx, in_rows, 4, 4, b->dn_in, CUDA_R_32F, CUSPARSE_ORDER_ROW), "dnmat") ||
            !bu_sparse_ok(cusparseCreateDnMat(&j->my, out_rows, 4, 4, b->dn_out, CUDA_R_32F, CUSPARSE_ORDER_ROW), "dnmat"))
            return 0;
        if (!bu_sparse_ok(cusparseSpMM_bufferSize(b->h, j->sop, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  &one, j->mat, j->mx, &zero, j->my, CUDA_R_32F,
                                                  CUSPARSE_SPMM_ALG_DEFAULT, &need), "SpMM_bufferSize"))
            return 0;
    }
    grow_buf(b, need);
    return run_job(j) == 0;
}

static void free_job(job *j)
{
    for (int d = 0; d < 3; d++) {
        if (j->vx[d]) cusparseDestroyDnVec(j->vx[d]);
        if (j->vy[d]) cusparseDestroyDnVec(j->vy[d]);
    }
    if (j->mx) cusparseDestroyDnMat(j->mx);
    if (j->my) cusparseDestroyDnMat(j->my);
}

/* Largest |a - b| relative to the largest |b| between two n x 3 host arrays, one of them
 * possibly split into components (stride 1, three arrays). */
static double rel_diff(const float *a, const float *b, size_t n)
{
    double d = 0, m = 1e-30;
    for (size_t i = 0; i < 3 * n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        m = fmax(m, fabs((double)b[i]));
    }
    return d / m;
}

static float *host_copy(const float *d, size_t n)
{
    float *h = malloc(n * sizeof *h);
    if (!h) exit(1);
    BU_CUDA(cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost));
    return h;
}

static FILE *csv;

static void report(const char *mesh, const char *order, const char *prod, const char *impl,
                   double ms, double floor_ms, double ours_ms, double agree)
{
    if (ms < 0) {
        printf("| %s | %s | %s | %s | n/a | | | |\n", mesh, order, prod, impl);
        if (csv) fprintf(csv, "%s,%s,%s,%s,,,,\n", mesh, order, prod, impl);
        return;
    }
    printf("| %s | %s | %s | %s | %.4f | %.0f%% | %.2fx | %.1e |\n", mesh, order, prod, impl, ms,
           100.0 * floor_ms / ms, ms / ours_ms, agree);
    if (csv)
        fprintf(csv, "%s,%s,%s,%s,%.5f,%.5f,%.4f,%.2e\n", mesh, order, prod, impl, ms, floor_ms,
                ms / ours_ms, agree);
}

static void run_mesh(mmx_ctx *ctx, cusparseHandle_t h, const char *spec, const char *label,
                     int shuffled, double tbps, int reps)
{
    bench b = {0};
    b.ctx = ctx;
    b.st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    b.h = h;
    mmx_mesh *m0, *mesh;
    BU_MMX(ctx, mmx_mesh_shape(ctx, spec, &m0));
    if (shuffled) {
        BU_MMX(ctx, mmx_mesh_shuffle(ctx, m0, 12345, NULL, NULL, &mesh));
        mmx_mesh_free(m0);
    } else {
        mesh = m0;
    }
    /* The general form for cuSPARSE, then the reduced form for us. */
    mmx_mesh *gen;
    BU_MMX(ctx, mmx_mesh_copy(ctx, mesh, MMX_SPACE_DEVICE, &gen));
    BU_MMX(ctx, mmx_mesh_expand(ctx, gen));
    BU_MMX(ctx, mmx_mesh_reduce(ctx, mesh));
    b.M = mesh->M;
    b.nv = mesh->M->nrows;
    b.nf = mesh->M->ncols;
    b.c = mesh->M->order;
    b.w = 1.0f / (float)b.c;
    b.p = mesh->pos;
    size_t nv = (size_t)b.nv, nf = (size_t)b.nf, nnz = (size_t)mesh->M->nnz;

    /* Face data: the face points themselves (any data will do; these are realistic). */
    BU_CUDA(cudaMalloc((void **)&b.f, nf * 3 * sizeof(float)));
    BU_CUDA(cudaMalloc((void **)&b.yf, nf * 3 * sizeof(float)));
    BU_CUDA(cudaMalloc((void **)&b.yv, nv * 3 * sizeof(float)));
    BU_MMX(ctx, mmx_spmv(ctx, MMX_OP_T, 1.0f, b.M, mmx_map_const(b.w), b.p, 3, 0.0f, b.f));
    BU_MMX(ctx, mmx_csc_transpose(ctx, b.M, &b.Mt));

    /* cuSPARSE operands: explicit values 1/c; CSR of M from cuSPARSE's own conversion. */
    float *val = bu_dev_fill(nnz, b.w), *csr_val;
    int *rowptr, *colidx;
    BU_CUDA(cudaMalloc((void **)&rowptr, (nv + 1) * sizeof(int)));
    BU_CUDA(cudaMalloc((void **)&colidx, nnz * sizeof(int)));
    BU_CUDA(cudaMalloc((void **)&csr_val, nnz * sizeof(float)));
    size_t cbytes = 0;
    BU_CUDA(cudaDeviceSynchronize());
    if (!bu_sparse_ok(cusparseCsr2cscEx2_bufferSize(h, b.nf, b.nv, (int)nnz, val, gen->M->colptr,
                                                    gen->M->rowidx, csr_val, rowptr, colidx,
                                                    CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
                                                    CUSPARSE_INDEX_BASE_ZERO,
                                                    CUSPARSE_CSR2CSC_ALG1, &cbytes), "csr2csc"))
        exit(1);
    grow_buf(&b, cbytes);
    if (!bu_sparse_ok(cusparseCsr2cscEx2(h, b.nf, b.nv, (int)nnz, val, gen->M->colptr,
                                         gen->M->rowidx, csr_val, rowptr, colidx, CUDA_R_32F,
                                         CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                         CUSPARSE_CSR2CSC_ALG1, b.buf), "csr2csc"))
        exit(1);
    BU_CUDA(cudaStreamSynchronize(b.st));
    cusparseCreateCsr(&b.csr_mt, b.nf, b.nv, (int)nnz, gen->M->colptr, gen->M->rowidx, val,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    cusparseCreateCsc(&b.csc_m, b.nv, b.nf, (int)nnz, gen->M->colptr, gen->M->rowidx, val,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    cusparseCreateCsr(&b.csr_m, b.nv, b.nf, (int)nnz, rowptr, colidx, csr_val,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);

    /* Component arrays and padded 4-column matrices, sized for the larger side. */
    size_t big = nv > nf ? nv : nf;
    for (int d = 0; d < 3; d++) {
        BU_CUDA(cudaMalloc((void **)&b.soa_in[d], big * sizeof(float)));
        BU_CUDA(cudaMalloc((void **)&b.soa_out[d], big * sizeof(float)));
    }
    BU_CUDA(cudaMalloc((void **)&b.dn_in, big * 4 * sizeof(float)));
    BU_CUDA(cudaMalloc((void **)&b.dn_out, big * 4 * sizeof(float)));

    double floor_ms = (4.0 * nnz + 12.0 * nv + 12.0 * nf) / (tbps * 1e12) * 1e3;
    for (int prod = 0; prod < 2; prod++) {
        mmx_op op = prod == 0 ? MMX_OP_T : MMX_OP_N;
        const char *pname = prod == 0 ? "Mᵀp" : "M f";
        size_t nin = prod == 0 ? nv : nf, nout = prod == 0 ? nf : nv;
        const float *x = prod == 0 ? b.p : b.f;
        float *y = prod == 0 ? b.yf : b.yv;
        /* Inputs in the peers' layouts. */
        float *hx = host_copy(x, 3 * nin), *tmp = malloc(4 * nin * sizeof *tmp);
        if (!tmp) exit(1);
        for (int d = 0; d < 3; d++) {
            for (size_t i = 0; i < nin; i++) tmp[i] = hx[3 * i + d];
            BU_CUDA(cudaMemcpy(b.soa_in[d], tmp, nin * sizeof *tmp, cudaMemcpyHostToDevice));
        }
        for (size_t i = 0; i < nin; i++) {
            for (int d = 0; d < 3; d++) tmp[4 * i + d] = hx[3 * i + d];
            tmp[4 * i + 3] = 0.0f;
        }
        BU_CUDA(cudaMemcpy(b.dn_in, tmp, 4 * nin * sizeof *tmp, cudaMemcpyHostToDevice));
        free(tmp);
        free(hx);

        job ours = {.b = &b, .kind = 0, .var = MMX__SPMV_AUTO, .op = op};
        double ours_ms = bu_time(b.st, 3, reps, run_job, &ours);
        float *ref = host_copy(y, 3 * nout);
        report(label, shuffled ? "shuffled" : "tidy", pname, "mmx_spmv (auto)", ours_ms, floor_ms,
               ours_ms, 0.0);
        if (op == MMX_OP_N) {
            /* Determinism: 10 more runs, each compared byte for byte with the first. */
            int same = 1;
            for (int r = 0; r < 10 && same; r++) {
                if (run_job(&ours)) exit(1);
                float *got = host_copy(y, 3 * nout);
                same = memcmp(got, ref, 3 * nout * sizeof *got) == 0;
                free(got);
            }
            report(label, shuffled ? "shuffled" : "tidy", pname,
                   same ? "mmx_spmv: 10 runs, same bytes: yes" : "mmx_spmv: 10 runs, same bytes: NO",
                   -1, floor_ms, ours_ms, 0.0);
            /* The peers' CSR form of M f is the transpose built beforehand; ours can do the
             * same: a gather per column of Mᵀ (mmx_spmv op N keeps M's row view instead). */
            job jt = {.b = &b, .kind = 3};
            double ms = bu_time(b.st, 3, reps, run_job, &jt);
            float *got = host_copy(y, 3 * nout);
            report(label, shuffled ? "shuffled" : "tidy", pname, "mmx_spmv op T on Mᵀ (transpose built before)",
                   ms, floor_ms, ours_ms, rel_diff(got, ref, nout));
            free(got);
        }
        if (op == MMX_OP_T) {
            static const struct { int var; const char *name; } vars[] = {
                {MMX__SPMV_THREAD_PER_COLUMN, "mmx: thread per face"},
                {MMX__SPMV_SHUFFLE, "mmx: corner threads + shuffles"},
            };
            for (int v = 0; v < 2; v++) {
                job jv = {.b = &b, .kind = 0, .var = vars[v].var, .op = op};
                double ms = bu_time(b.st, 3, reps, run_job, &jv);
                float *got = host_copy(y, 3 * nout);
                report(label, shuffled ? "shuffled" : "tidy", pname, vars[v].name, ms, floor_ms,
                       ours_ms, rel_diff(got, ref, nout));
                free(got);
            }
        }
        /* The peers: (form, operation) pairs that compute this product. */
        struct { const char *form; cusparseSpMatDescr_t mat; cusparseOperation_t sop; } forms[2] = {
            {"CSR", prod == 0 ? b.csr_mt : b.csr_m, CUSPARSE_OPERATION_NON_TRANSPOSE},
            {"CSC", b.csc_m, prod == 0 ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE},
        };
        for (int fo = 0; fo < 2; fo++)
            for (int kind = 1; kind <= 2; kind++) {
                char name[96];
                snprintf(name, sizeof name, "cuSPARSE %s (%s)", kind == 1 ? "3 x SpMV" : "SpMM 4 cols",
                         forms[fo].form);
                job j = {.b = &b, .kind = kind, .mat = forms[fo].mat, .sop = forms[fo].sop};
                double ms = -1, agree = 0;
                if (prep_sparse(&b, &j, (int)nout, (int)nin)) {
                    ms = bu_time(b.st, 3, reps, run_job, &j);
                    /* Gather the peer's result into n x 3 to compare with ours. */
                    float *got = malloc(3 * nout * sizeof *got);
                    if (!got) exit(1);
                    if (kind == 1) {
                        for (int d = 0; d < 3; d++) {
                            float *c = host_copy(b.soa_out[d], nout);
                            for (size_t i = 0; i < nout; i++) got[3 * i + d] = c[i];
                            free(c);
                        }
                    } else {
                        float *c = host_copy(b.dn_out, 4 * nout);
                        for (size_t i = 0; i < nout; i++)
                            for (int d = 0; d < 3; d++) got[3 * i + d] = c[4 * i + d];
                        free(c);
                    }
                    agree = rel_diff(got, ref, nout);
                    free(got);
                }
                report(label, shuffled ? "shuffled" : "tidy", pname, name, ms, floor_ms, ours_ms, agree);
                free_job(&j);
            }
        free(ref);
    }
    printf("|  |  | floor (%zu B at %.2f TB/s) | | %.4f | 100%% | | |\n",
           (size_t)(4.0 * nnz + 12.0 * nv + 12.0 * nf), tbps, floor_ms);

    cusparseDestroySpMat(b.csr_mt);
    cusparseDestroySpMat(b.csc_m);
    cusparseDestroySpMat(b.csr_m);
    for (int d = 0; d < 3; d++) {
        BU_CUDA(cudaFree(b.soa_in[d]));
        BU_CUDA(cudaFree(b.soa_out[d]));
    }
    BU_CUDA(cudaFree(b.dn_in));
    BU_CUDA(cudaFree(b.dn_out));
    BU_CUDA(cudaFree(b.f));
    BU_CUDA(cudaFree(b.yf));
    BU_CUDA(cudaFree(b.yv));
    BU_CUDA(cudaFree(rowptr));
    BU_CUDA(cudaFree(colidx));
    BU_CUDA(cudaFree(csr_val));
    BU_CUDA(cudaFreeAsync(val, 0));
    if (b.buf) BU_CUDA(cudaFree(b.buf));
    mmx_csc_free(b.Mt);
    mmx_mesh_free(gen);
    mmx_mesh_free(mesh);
}

int main(int argc, char **argv)
{
    bu_env e;
    bu_start(argc, argv, "spmv_peers", &e);
    csv = e.csv;
    double tbps = bu_copy_tbps(e.st);
    printf("GPU: %s; cuSPARSE %d; copy bandwidth %.2f TB/s (read + write)\n\n", e.gpu,
           e.sparse_version, tbps);
    printf("| mesh | order | product | implementation | ms (median) | of floor | time / ours | rel. diff vs ours |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    if (csv) fprintf(csv, "mesh,order,product,impl,ms,floor_ms,time_over_ours,rel_diff\n");
    int reps = e.quick ? 5 : 50;
    for (int sh = 0; sh < 2; sh++)
        for (int m = 0; m < 2; m++) run_mesh(e.ctx, e.h, e.spec[m], e.label[m], sh, tbps, reps);
    bu_finish(&e);
    return 0;
}
