/* The implicit mesh product M·Mᵀ against cuSPARSE SpGEMM on the GPU, in one run (issue 3,
 * item 7): time and peak device memory.
 *
 * Ours: E = M <CYCLE_BOTH 1, MAP, SUM> Mᵀ and F = M <CYCLE 1, K, MIN> Mᵀ with
 * mmx_mesh_product on the reduced mesh matrix (and, for reference, the whole
 * mmx_adjacency_compute, which adds edge numbering, EV, FE, valence and boundary flags).
 * Peer: cusparseSpGEMM of the binary M·Mᵀ (explicit float ones, M in CSR and Mᵀ in CSR, which
 * is M's CSC arrays), timed from the work estimation to the filled result, buffer and output
 * allocations included (cudaMallocAsync on the same stream, as the library does).
 * Peak memory: the high-water mark of a stream-ordered pool during the operation (the
 * library's context pool for ours, the device's default pool for the peer's buffers and
 * result), above what was in use before it (the operation's own memory), and in total with
 * its inputs added.
 *
 * Usage: mmt_peers [--quick] [--csv FILE] */
#include <string.h>
#include "bench_util.h"
#include "core/core_internal.h" /* the context's memory pool */

typedef struct mm {
    mmx_ctx *ctx;
    const mmx_csc *M;
    mmx_csc *E, *F;
    mmx_adjacency *adj;
    int which;            /* 0: E and F; 1: the whole adjacency */
} mm;

static int run_ours(void *p)
{
    mm *a = p;
    mmx_csc_free(a->E);
    mmx_csc_free(a->F);
    mmx_adjacency_free(a->adj);
    a->E = a->F = NULL;
    a->adj = NULL;
    if (a->which == 1) {
        mmx_mesh mesh = {.M = (mmx_csc *)a->M, .space = MMX_SPACE_DEVICE};
        return mmx_adjacency_compute(a->ctx, &mesh, &a->adj) != MMX_OK;
    }
    mmx_gemm_map e = {{MMX_REL_CYCLE_BOTH, 1, NULL, 0}, MMX_COLL_MAP, MMX_MONOID_SUM};
    mmx_gemm_map f = {{MMX_REL_CYCLE, 1, NULL, 0}, MMX_COLL_K, MMX_MONOID_MIN};
    return mmx_mesh_product(a->ctx, a->M, e, &a->E) != MMX_OK ||
           mmx_mesh_product(a->ctx, a->M, f, &a->F) != MMX_OK;
}

static FILE *csv;

static void row(const char *mesh, const char *order, const char *impl, double ms, size_t extra,
                size_t total, double ref_ms, size_t ref_total, const char *what)
{
    if (ms < 0) {
        printf("| %s | %s | %s | n/a | | | | | %s |\n", mesh, order, impl, what);
        return;
    }
    printf("| %s | %s | %s | %.3f | %.1f | %.1f | %.1fx | %.3f | %s |\n", mesh, order, impl, ms,
           extra / 1e6, total / 1e6, ref_ms / ms, (double)total / (double)ref_total, what);
    if (csv)
        fprintf(csv, "%s,%s,%s,%.4f,%zu,%zu,%.3f,%.4f\n", mesh, order, impl, ms, extra, total,
                ref_ms / ms, (double)total / (double)ref_total);
}

static void run_mesh(mmx_ctx *ctx, cusparseHandle_t h, const char *spec, const char *label,
                     int shuffled, int reps)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    mmx_mesh *m0, *mesh;
    BU_MMX(ctx, mmx_mesh_shape(ctx, spec, &m0));
    if (shuffled) {
        BU_MMX(ctx, mmx_mesh_shuffle(ctx, m0, 12345, NULL, NULL, &mesh));
        mmx_mesh_free(m0);
    } else {
        mesh = m0;
    }
    const char *order = shuffled ? "shuffled" : "tidy";
    /* The peer's operands first: CSR of M (via cuSPARSE's conversion) and CSR of Mᵀ. */
    mmx_mesh *gen;
    BU_MMX(ctx, mmx_mesh_copy(ctx, mesh, MMX_SPACE_DEVICE, &gen));
    BU_MMX(ctx, mmx_mesh_expand(ctx, gen));
    BU_MMX(ctx, mmx_mesh_reduce(ctx, mesh));
    int nv = gen->M->nrows, nf = gen->M->ncols, nnz = gen->M->nnz;
    float *val = bu_dev_fill((size_t)nnz, 1.0f), *csr_val;
    int *rowptr, *colidx;
    bu_csr_of_mesh(h, st, gen->M, val, &rowptr, &colidx, &csr_val);

    bu_spgemm s = {.h = h, .st = st, .m = nv};
    cusparseCreateCsr(&s.A, nv, nf, nnz, rowptr, colidx, csr_val, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    cusparseCreateCsr(&s.B, nf, nv, nnz, gen->M->colptr, gen->M->rowidx, val, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);

    /* Peer: its inputs are M in CSR and Mᵀ in CSR, with float values. Its own memory is what
     * the pool's high-water mark rises above the use before its first call (the last repeat's
     * buffers and result are still held then, so one full set is counted). */
    cudaMemPool_t dp = bu_default_pool(), op = (cudaMemPool_t)ctx->pool;
    size_t before = bu_pool_used(dp);
    bu_pool_reset_high(dp);
    double sg_ms = bu_time(st, 1, reps, bu_spgemm_run, &s);
    size_t sg_extra = bu_pool_high(dp) - before;
    size_t sg_in = ((size_t)nv + 1 + (size_t)nf + 1) * 4 + (size_t)nnz * 16;
    size_t sg_total = sg_extra + sg_in;
    bu_spgemm_release(&s);
    BU_CUDA(cudaStreamSynchronize(st));
    int64_t sg_nnz = s.cnnz;

    /* Ours: only the reduced M is input. Free the peer's operands first so they do not sit in
     * the pool during our run (they are not counted either way: the high-water mark is taken
     * relative to the use before the call). */
    cusparseDestroySpMat(s.A);
    cusparseDestroySpMat(s.B);
    BU_CUDA(cudaFreeAsync(val, 0));
    BU_CUDA(cudaFreeAsync(rowptr, 0));
    BU_CUDA(cudaFreeAsync(colidx, 0));
    BU_CUDA(cudaFreeAsync(csr_val, 0));
    mmx_mesh_free(gen);
    BU_CUDA(cudaDeviceSynchronize());

    size_t our_in = (size_t)nnz * 4;
    mm a = {.ctx = ctx, .M = mesh->M, .which = 0};
    before = bu_pool_used(op);
    bu_pool_reset_high(op);
    double ef_ms = bu_time(st, 1, reps, run_ours, &a);
    size_t ef_high = bu_pool_high(op);
    int64_t e_nnz = a.E ? a.E->nnz : -1, f_nnz = a.F ? a.F->nnz : -1;
    /* The results of the last repeat are still held: the peak counts one set of outputs plus
     * whatever the last call needed on top, relative to the use before the first call. */
    size_t ef_extra = ef_high - before;
    mmx_csc_free(a.E);
    mmx_csc_free(a.F);
    a.E = a.F = NULL;
    a.which = 1;
    before = bu_pool_used(op);
    bu_pool_reset_high(op);
    double adj_ms = bu_time(st, 1, reps, run_ours, &a);
    size_t adj_extra = bu_pool_high(op) - before;
    mmx_index nedges = a.adj ? a.adj->nedges : -1;
    mmx_adjacency_free(a.adj);
    a.adj = NULL;

    char what[160];
    snprintf(what, sizeof what, "C: %lld entries", (long long)sg_nnz);
    row(label, order, "cuSPARSE SpGEMM (binary M·Mᵀ)", sg_ms, sg_extra, sg_total, sg_ms, sg_total, what);
    snprintf(what, sizeof what, "E: %lld, F: %lld entries", (long long)e_nnz, (long long)f_nnz);
    row(label, order, "mmx_mesh_product: E and F", ef_ms, ef_extra, ef_extra + our_in, sg_ms, sg_total, what);
    snprintf(what, sizeof what, "%d edges; + EV, FE, valence, boundary", nedges);
    row(label, order, "mmx_adjacency_compute", adj_ms, adj_extra, adj_extra + our_in, sg_ms, sg_total, what);
    mmx_mesh_free(mesh);
}

int main(int argc, char **argv)
{
    bu_env e;
    bu_start(argc, argv, "mmt_peers", &e);
    csv = e.csv;
    printf("GPU: %s; cuSPARSE %d\n\n", e.gpu, e.sparse_version);
    printf("| mesh | order | implementation | ms (median) | own peak MB | peak MB with inputs | speed-up vs cuSPARSE | memory / cuSPARSE | result |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    if (csv) fprintf(csv, "mesh,order,impl,ms,extra_bytes,total_bytes,speedup,mem_ratio\n");
    int reps = e.quick ? 3 : 15;
    for (int sh = 0; sh < 2; sh++)
        for (int m = 0; m < 2; m++) run_mesh(e.ctx, e.h, e.spec[m], e.label[m], sh, reps);
    bu_finish(&e);
    return 0;
}
