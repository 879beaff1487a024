/* Geometry and smoothing on the GPU (issue 15): vertex normals, a Laplacian step, Taubin,
 * mean curvature flow by CG, against the floor, RXMesh's figures, a cuSPARSE + cuBLAS CG loop
 * on the same matrix and, where the oracle was built, OpenMesh's smoother on the CPU.
 *
 *   geom MESHES [--csv FILE]
 *
 * MESHES holds models/nefertiti.obj; nef0 to nef3 are made as bench/queries makes them
 * (bu_split4). A first pass over nef0 is run and thrown away (module loading, the pools'
 * growth, cuSPARSE's and cuBLAS's first calls), then per mesh the median of repeated calls
 * after a warm-up (CUDA events around each call):
 * The calls on one mesh after the warm-up find what they keep in the mesh's cache (mesh.h):
 * "algebraic" normals and "one call" rows time a repeated call (bench/cache times first ones).
 * - area-weighted vertex normals, algebraic (mmx_vertex_normals: its transpose of M kept),
 *   on a patch set built beforehand (mmx_vertex_normals_patch: one patch kernel written
 *   through meshmatrix/patch_kernel.cuh on the set's kept rows, MMX_PV_KEPT_ROWS, made by the
 *   first call and timed apart: "kept rows made"), and with a plan built beforehand
 *   (mmx_vertex_normals_planned: one kernel); floor: positions and M read, normals written;
 *   the kept rows' floor: what the patch kernels read (per patch its offsets and owned counts,
 *   20 B; per owned vertex its row offset, 4 B, and its row, 2 B an entry; per local vertex
 *   its global number and position, 16 B, ribbon included; for the normals the FE block, 2 B
 *   a local corner, and the EV block, 4 B a local edge) and the result written;
 * - one uniform Laplacian step (mmx_smooth LAPLACIAN, 1 iteration: set-up included), assembled
 *   and on the patches, and the step alone (100 iterations in one call, / 100); floor:
 *   positions, the VV pattern and the result;
 * - Taubin, 100 iterations (each a lambda and a mu step), on the patches and assembled;
 * - mean curvature flow, RXMesh's problems (apps/MCF of owensgroup/RXMesh, one implicit step
 *   from x, CG to 1e-6 of the initial residual): the current app's default, the uniform
 *   Laplacian with the valences as mass and dt = 10, (V - 10 L_u) x' = V x (-solver cg; its
 *   34 iterations fit this problem's conditioning), and the earlier app's, the cotangent
 *   Laplacian with the mixed Voronoi mass and dt = 0.001 in the model's units (RXMesh clamps
 *   the cotangents to [-19.1, 19.1] and the edge weights at 0; we keep the plain cotangents).
 *   RXMesh runs CG without preconditioner; we use Jacobi. Each: one mmx_smooth call (set-up
 *   included), assembled and matrix-free; then the solve alone on S = A - h L assembled
 *   beforehand (mmx_cg_csc) and the same solve by a cuSPARSE SpMM + cuBLAS loop (same S, b,
 *   x0, tolerance and Jacobi preconditioner); and, on the uniform S, the time of one CG
 *   iteration (fixed iteration counts, rtol 0: (t(60) - t(10)) / 50) against its floor;
 * - mean curvature flow with the default h (1e-3 times the squared bounding-box diagonal:
 *   a large step, whose CG iteration count grows with the resolution), for reference.
 * RXMesh (H200): nef3 vertex normals 0.783 ms, MCF 34 CG iterations 23.6 ms (32.2 with
 * set-up); nef2 MCF 7.7 ms. */
#include <math.h>
#include <string.h>
#include <time.h>
#include <cublas_v2.h>
#include "bench_util.h"
#include "bench_clock.h"
#include "meshmatrix/patch_view.h"      /* the kept rows (MMX_PV_KEPT_ROWS) */
#include "patch/patch_internal.h" /* the local counts of the kept rows' floor */
#ifdef MMX_BENCH_OPENMESH
#include "oracle.h"
#include "oracle_mmx.h"
#endif

static FILE *csv;
static double tbps;
static int quiet; /* the throw-away first pass */

#define BL_CUBLAS(call)                                                                    \
    do {                                                                                   \
        cublasStatus_t e_ = (call);                                                        \
        if (e_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call,    \
                    (int)e_);                                                              \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define BL_SPARSE(call)                                                                    \
    do {                                                                                   \
        if (!bu_sparse_ok((call), #call)) exit(1);                                         \
    } while (0)

typedef struct garg {
    mmx_ctx *ctx;
    const mmx_mesh *mesh;
    const mmx_patch_set *ps;
    float *out;
    mmx_smooth_options o;
    mmx_smooth_report r;
    int which; /* 0 normals, 1 normals on the patches, 2 smoothing, 3 CG on S, 4 planned
                  normals, 5 the cotangent Laplacian's hand-written assembly, 6 its assembly
                  by the valued product, 7 the SpMV L x of the product's L */
    const mmx_adjacency *adj;
    const mmx_csc *L;
    const mmx_normals_plan *plan;
    /* which = 3: */
    const mmx_csc *S;
    const float *wS, *b, *x0;
    mmx_cg_opts cg;
    mmx_cg_report cr;
} garg;

static int run(void *p)
{
    garg *a = p;
    switch (a->which) {
    case 0: return mmx_vertex_normals(a->ctx, a->mesh, MMX_NORMAL_AREA, a->out) != MMX_OK;
    case 1: return mmx_vertex_normals_patch(a->ctx, a->mesh, a->ps, a->out) != MMX_OK;
    case 2: return mmx_smooth(a->ctx, a->mesh, &a->o, a->out, &a->r) != MMX_OK;
    case 4: return mmx_vertex_normals_planned(a->ctx, a->plan, a->mesh->pos, MMX_NORMAL_AREA, a->out) != MMX_OK;
    case 5: {
        mmx_weighted *W = NULL;
        const int rc = mmx_cotan_laplacian(a->ctx, a->mesh, a->adj, &W) != MMX_OK;
        mmx_weighted_free(W);
        return rc;
    }
    case 6: {
        mmx_csc *L = NULL;
        const int rc = mmx_operator(a->ctx, a->mesh, a->adj, MMX_OPERATOR_COTAN, &L) != MMX_OK;
        mmx_csc_free(L);
        return rc;
    }
    case 7:
        return mmx_spmv(a->ctx, MMX_OP_T, 1.0f, a->L, mmx_map_table(MMX_MAP_X, NULL, 0),
                        a->mesh->pos, 3, 0.0f, a->out) != MMX_OK;
    default: {
        const size_t bytes = 3 * (size_t)a->S->nrows * sizeof(float);
        if (cudaMemcpyAsync(a->out, a->x0, bytes, cudaMemcpyDeviceToDevice,
                            (cudaStream_t)mmx_ctx_cuda_stream(a->ctx)) != cudaSuccess)
            return 1;
        return mmx_cg_csc(a->ctx, a->S, mmx_map_table(MMX_MAP_BY_ENTRY, a->wS, a->S->nnz), a->b, 3,
                          a->out, &a->cg, &a->cr) != MMX_OK;
    }
    }
}

static void emit(const char *mesh, const char *what, double ms, double floor_ms, const char *note)
{
    if (quiet) return;
    char f[64] = "";
    if (floor_ms > 0) snprintf(f, sizeof f, "%.4f | %.1fx", floor_ms, ms / floor_ms);
    else snprintf(f, sizeof f, " | ");
    printf("| %s | %s | %.4f | %s | %s |\n", mesh, what, ms, f, note);
    if (csv) fprintf(csv, "%s,%s,%.5f,%.5f,\"%s\"\n", mesh, what, ms, floor_ms, note);
    fflush(stdout);
}

/* ---- the cuSPARSE + cuBLAS CG loop ------------------------------------------------------------ */

/* Jacobi-preconditioned CG on 3 right-hand sides at once (n x 3 row-major, as ours): one
 * cusparseSpMM per iteration, the per-column dots, axpys and scalings by cuBLAS (strided by 3,
 * pointer mode host: each dot returns to the host, the usual loop), z = D⁻¹ r by cublasSdgmm.
 * A column stops when ||r||^2 <= rtol^2 ||r_0||^2 (RXMesh's test). */
typedef struct spcg {
    cusparseHandle_t sh;
    cublasHandle_t bh;
    cudaStream_t st;
    cusparseSpMatDescr_t S;
    cusparseDnMatDescr_t P, SP, X, R;
    void *buf;
    int n, max_iter, iters;
    double rtol, worst; /* worst: the largest final ||r|| / ||r_0|| */
    float *b, *x0, *x, *r, *z, *p, *sp, *dinv;
} spcg;

static int spcg_run(void *arg)
{
    spcg *c = arg;
    const int n = c->n;
    const float one = 1.0f, zero = 0.0f, minus = -1.0f;
    BU_CUDA(cudaMemcpyAsync(c->x, c->x0, 12 * (size_t)n, cudaMemcpyDeviceToDevice, c->st));
    /* r = b - S x, z = D⁻¹ r, p = z */
    BL_SPARSE(cusparseSpMM(c->sh, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                           &one, c->S, c->X, &zero, c->R, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, c->buf));
    BL_CUBLAS(cublasSscal(c->bh, 3 * n, &minus, c->r, 1));
    BL_CUBLAS(cublasSaxpy(c->bh, 3 * n, &one, c->b, 1, c->r, 1));
    BL_CUBLAS(cublasSdgmm(c->bh, CUBLAS_SIDE_RIGHT, 3, n, c->r, 3, c->dinv, 1, c->z, 3));
    BU_CUDA(cudaMemcpyAsync(c->p, c->z, 12 * (size_t)n, cudaMemcpyDeviceToDevice, c->st));
    float rz[3], rr0[3], rr[3];
    int active[3] = {1, 1, 1};
    for (int q = 0; q < 3; q++) {
        BL_CUBLAS(cublasSdot(c->bh, n, c->r + q, 3, c->z + q, 3, &rz[q]));
        BL_CUBLAS(cublasSdot(c->bh, n, c->r + q, 3, c->r + q, 3, &rr0[q]));
        active[q] = rr0[q] > 0.0f;
        rr[q] = rr0[q];
    }
    int t = 0;
    while (t < c->max_iter && (active[0] || active[1] || active[2])) {
        t++;
        BL_SPARSE(cusparseSpMM(c->sh, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                               &one, c->S, c->P, &zero, c->SP, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, c->buf));
        for (int q = 0; q < 3; q++) {
            if (!active[q]) continue;
            float pap;
            BL_CUBLAS(cublasSdot(c->bh, n, c->p + q, 3, c->sp + q, 3, &pap));
            const float al = rz[q] / pap, nal = -al;
            BL_CUBLAS(cublasSaxpy(c->bh, n, &al, c->p + q, 3, c->x + q, 3));
            BL_CUBLAS(cublasSaxpy(c->bh, n, &nal, c->sp + q, 3, c->r + q, 3));
        }
        BL_CUBLAS(cublasSdgmm(c->bh, CUBLAS_SIDE_RIGHT, 3, n, c->r, 3, c->dinv, 1, c->z, 3));
        for (int q = 0; q < 3; q++) {
            if (!active[q]) continue;
            BL_CUBLAS(cublasSdot(c->bh, n, c->r + q, 3, c->r + q, 3, &rr[q]));
            if ((double)rr[q] <= c->rtol * c->rtol * rr0[q]) {
                active[q] = 0;
                continue;
            }
            float rzn;
            BL_CUBLAS(cublasSdot(c->bh, n, c->r + q, 3, c->z + q, 3, &rzn));
            const float beta = rzn / rz[q];
            rz[q] = rzn;
            BL_CUBLAS(cublasSscal(c->bh, n, &beta, c->p + q, 3));
            BL_CUBLAS(cublasSaxpy(c->bh, n, &one, c->z + q, 3, c->p + q, 3));
        }
    }
    c->iters = t;
    c->worst = 0.0;
    for (int q = 0; q < 3; q++)
        if (rr0[q] > 0.0f) c->worst = fmax(c->worst, sqrt((double)rr[q] / rr0[q]));
    return 0;
}

/* ---- one mesh --------------------------------------------------------------------------------- */

/* S = A - h L on L's pattern (no fixed vertex), the right side b = A x and the Jacobi
 * diagonal, built on the host from the host mesh and moved to the device: L cotangent and A
 * the mixed Voronoi areas, or (uniform) L uniform and A the valences, -diag(L). */
typedef struct mcf_sys {
    mmx_csc *S;  /* device pattern (CSC of a symmetric matrix: also its CSR) */
    float *wS, *b, *x0, *dinv;
} mcf_sys;

static void mcf_system(mmx_ctx *host, mmx_ctx *cuda, const mmx_mesh *hm, float h, int uniform,
                       mcf_sys *sys)
{
    mmx_weighted *L = NULL, *A = NULL;
    BU_MMX(host, uniform ? mmx_uniform_laplacian(host, hm, NULL, &L) : mmx_cotan_laplacian(host, hm, NULL, &L));
    BU_MMX(host, mmx_mass_matrix(host, hm, MMX_MASS_VORONOI, &A));
    if (uniform)
        for (mmx_index j = 0; j < L->A->ncols; j++)
            for (mmx_index q = L->A->colptr[j]; q < L->A->colptr[j + 1]; q++)
                if (L->A->rowidx[q] == j) A->w[j] = -L->w[q];
    const mmx_index n = L->A->ncols;
    const mmx_index nnz = L->A->nnz;
    float *w = malloc((size_t)nnz * sizeof *w), *b = malloc(12 * (size_t)n), *dinv = malloc(4 * (size_t)n);
    if (!w || !b || !dinv) exit(1);
    for (mmx_index j = 0; j < n; j++)
        for (mmx_index q = L->A->colptr[j]; q < L->A->colptr[j + 1]; q++) {
            const int diag = L->A->rowidx[q] == j;
            w[q] = diag ? A->w[j] - h * L->w[q] : -h * L->w[q];
            if (diag) dinv[j] = 1.0f / w[q];
        }
    for (mmx_index v = 0; v < n; v++)
        for (int d = 0; d < 3; d++) b[3 * (int64_t)v + d] = A->w[v] * hm->pos[3 * (int64_t)v + d];
    BU_MMX(cuda, mmx_csc_create(cuda, n, n, L->A->colptr, L->A->rowidx, NULL, MMX_SPACE_HOST, &sys->S));
    BU_CUDA(cudaMalloc((void **)&sys->wS, 4 * (size_t)nnz));
    BU_CUDA(cudaMalloc((void **)&sys->b, 12 * (size_t)n));
    BU_CUDA(cudaMalloc((void **)&sys->x0, 12 * (size_t)n));
    BU_CUDA(cudaMalloc((void **)&sys->dinv, 4 * (size_t)n));
    BU_CUDA(cudaMemcpy(sys->wS, w, 4 * (size_t)nnz, cudaMemcpyHostToDevice));
    BU_CUDA(cudaMemcpy(sys->b, b, 12 * (size_t)n, cudaMemcpyHostToDevice));
    BU_CUDA(cudaMemcpy(sys->x0, hm->pos, 12 * (size_t)n, cudaMemcpyHostToDevice));
    BU_CUDA(cudaMemcpy(sys->dinv, dinv, 4 * (size_t)n, cudaMemcpyHostToDevice));
    free(w), free(b), free(dinv);
    mmx_weighted_free(L), mmx_weighted_free(A);
}

static void mcf_system_free(mcf_sys *s)
{
    mmx_csc_free(s->S);
    BU_CUDA(cudaFree(s->wS));
    BU_CUDA(cudaFree(s->b));
    BU_CUDA(cudaFree(s->x0));
    BU_CUDA(cudaFree(s->dinv));
}

static void measure(mmx_ctx *host, mmx_ctx *ctx, cusparseHandle_t sh, cublasHandle_t bh,
                    const char *name, const mmx_mesh *hm, int level)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    mmx_mesh *d = NULL;
    BU_MMX(ctx, mmx_mesh_copy(ctx, hm, MMX_SPACE_DEVICE, &d));
    mmx_patch_set *ps = NULL;
    BU_MMX(ctx, mmx_patch_set_create(ctx, d, NULL, NULL, &ps));
    const double nv = hm->M->nrows, nnz = hm->M->nnz;
    float *out = NULL;
    BU_CUDA(cudaMalloc((void **)&out, 3 * (size_t)nv * sizeof(float)));
    garg a = {.ctx = ctx, .mesh = d, .ps = ps, .out = out};
    char note[256];
    /* Normals: positions (12 B per vertex) and M (4 B per corner) read, normals written. */
    const double nfloor = (24.0 * nv + 4.0 * nnz) / (tbps * 1e9);
    a.which = 0;
    emit(name, "vertex normals, algebraic", bu_time(st, 5, 20, run, &a), nfloor, "");
    /* The kept rows, made by their first use (host clock: two waits, to size them), and the
     * patch kernels' floor on them (see the top). */
    mmx_patch_blocks kb;
    const double k0 = bc_now_ms();
    BU_MMX(ctx, mmx_patch_set_blocks(ctx, ps, MMX_PV_KEPT_ROWS, &kb));
    BU_MMX(ctx, mmx_ctx_sync(ctx));
    const double kept_ms = bc_now_ms() - k0;
    mmx_index nvv = 0, nvf = 0;
    BU_CUDA(cudaMemcpy(&nvv, kb.vv_ptr + (size_t)nv, sizeof nvv, cudaMemcpyDeviceToHost));
    BU_CUDA(cudaMemcpy(&nvf, kb.vf_ptr + (size_t)nv, sizeof nvf, cudaMemcpyDeviceToHost));
    const double kcommon = 20.0 * ps->npatches + 4.0 * nv + 16.0 * (double)ps->nlv + 12.0 * nv;
    const double pfloor = (kcommon + 2.0 * nvv) / (tbps * 1e9);
    const double nfloor_p = (kcommon + 2.0 * nvf + 2.0 * (double)ps->nlc + 4.0 * (double)ps->nle) / (tbps * 1e9);
    snprintf(note, sizeof note, "first use on the set: %lld VV and %lld VF entries (%.1f B a face more)",
             (long long)nvv, (long long)nvf,
             (2.0 * (nvv + nvf) + 8.0 * (nv + 1) + 4.0 * (ps->npatches + 1)) / hm->M->ncols);
    emit(name, "kept rows made", kept_ms, 0, note);
    a.which = 1;
    emit(name, "vertex normals, patches", bu_time(st, 5, 20, run, &a), nfloor_p,
         level == 3 ? "one patch kernel on the kept rows; target <= 0.196 ms (RXMesh / 4) and <= planned"
                    : "one patch kernel on the kept rows");
    mmx_normals_plan *plan = NULL;
    BU_MMX(ctx, mmx_normals_plan_create(ctx, d, &plan));
    a.plan = plan;
    a.which = 4;
    snprintf(note, sizeof note, "plan (Mt) built beforehand: one kernel%s",
             level == 3 ? "; RXMesh (H200) 0.783 ms; target <= 0.157 ms" : "");
    emit(name, "vertex normals, planned", bu_time(st, 5, 20, run, &a), nfloor, note);
    mmx_normals_plan_free(plan);
    /* The cotangent Laplacian (the adjacency built beforehand, for both): the hand-written
     * assembly (per column, the EF rows gathered) against the valued product M <TAIL> Mᵀ on
     * the pattern E + I, with the diagonal from an SpMV (mmx_operator), and L x by the
     * product's L (op = T, MMX_MAP_X): floor colptr, rows and floats of L read, positions read
     * once and written. */
    mmx_adjacency *adj = NULL;
    BU_MMX(ctx, mmx_adjacency_compute(ctx, d, &adj));
    a.adj = adj;
    a.which = 5;
    const double hand = bu_time(st, 2, 5, run, &a);
    emit(name, "cotangent L, hand-written assembly", hand, 0, "adjacency built beforehand");
    a.which = 6;
    const double prod = bu_time(st, 2, 5, run, &a);
    snprintf(note, sizeof note, "valued product, masked; %.2fx the hand-written%s", prod / hand,
             level == 3 ? "; target <= 2x" : "");
    emit(name, "cotangent L, valued product", prod, 0, note);
    mmx_csc *L = NULL;
    BU_MMX(ctx, mmx_operator(ctx, d, adj, MMX_OPERATOR_COTAN, &L));
    a.L = L;
    a.which = 7;
    const double sfloor = (8.0 * L->nnz + 4.0 * nv + 24.0 * nv) / (tbps * 1e9);
    emit(name, "cotangent L x (SpMV, op T)", bu_time(st, 5, 20, run, &a), sfloor,
         level == 3 ? "the product's L, MMX_MAP_X; target <= 2x floor" : "the product's L, MMX_MAP_X");
    mmx_csc_free(L);
    mmx_adjacency_free(adj);
    a.adj = NULL, a.L = NULL;
    /* A Laplacian step: positions read and written, the VV pattern (4 B per neighbour, about
     * 2 per corner) read. */
    const double lfloor = (24.0 * nv + 8.0 * nnz) / (tbps * 1e9);
    a.which = 2;
    a.o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    a.o.iterations = 1;
    emit(name, "Laplacian step, assembled, one call", bu_time(st, 2, 5, run, &a), lfloor, "set-up kept with the mesh");
    a.o.iterations = 100;
    emit(name, "Laplacian step, assembled, per step", bu_time(st, 1, 3, run, &a) / 100, lfloor,
         "one call of 100 steps / 100");
    a.o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    a.o.iterations = 1;
    a.o.path = MMX_SMOOTH_PATCH;
    a.o.patches = ps;
    emit(name, "Laplacian step, patches, one call", bu_time(st, 2, 5, run, &a), pfloor,
         "the kept rows made before; kept rows' floor");
    a.o.iterations = 100;
    emit(name, "Laplacian step, patches, per step", bu_time(st, 1, 3, run, &a) / 100, pfloor,
         level == 3 ? "one call of 100 steps (patch kernels) / 100; kept rows' floor; target <= the "
                      "assembled per step"
                    : "one call of 100 steps (patch kernels) / 100; kept rows' floor");
    for (int p = 0; p < 2; p++) {
        a.o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
        a.o.iterations = 100;
        a.o.path = p ? MMX_SMOOTH_ASSEMBLED : MMX_SMOOTH_PATCH;
        a.o.patches = ps;
        const double tb = bu_time(st, 1, 3, run, &a);
        snprintf(note, sizeof note, "100 iterations of a lambda and a mu step%s%s",
                 p ? "" : " (200 patch kernels, no wait; kept rows' floor)",
                 level == 2 ? (p ? "; target < 16 ms" : "; target < the assembled (7.1 ms)") : "");
        emit(name, p ? "Taubin x100, assembled" : "Taubin x100, patches", tb, 200 * (p ? lfloor : pfloor), note);
    }
    /* Mean curvature flow: RXMesh's two problems (the current app's default, uniform with
     * dt 10; the earlier app's, cotangent with dt 0.001), each as one mmx_smooth call on both
     * paths, then the solve alone on S built beforehand, ours and cuSPARSE's. */
    mcf_sys sys;
    spcg c;
    memset(&c, 0, sizeof c);
    c.sh = sh, c.bh = bh, c.st = st, c.n = (int)nv;
    float **vecs[] = {&c.x, &c.r, &c.z, &c.p, &c.sp};
    for (int i = 0; i < 5; i++) BU_CUDA(cudaMalloc((void **)vecs[i], 12 * (size_t)nv));
    for (int pr = 0; pr < 2; pr++) {
        const int uniform = pr == 0;
        const float h = uniform ? 10.0f : 0.001f;
        const char *what = uniform ? "uniform L, valence mass, h 10" : "cotangent L, Voronoi mass, h 0.001";
        const char *tag = uniform ? "MCF (RXMesh's default: uniform)" : "MCF (RXMesh's earlier: cotangent)";
        char row[128];
        for (int p = 0; p < 2; p++) {
            a.which = 2;
            a.o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
            a.o.step = h;
            a.o.mcf_uniform = uniform;
            a.o.mass = MMX_MASS_VORONOI;
            a.o.cg_rtol = 1e-6;
            a.o.cg_rel_initial = 1;
            a.o.path = p ? MMX_SMOOTH_MATRIX_FREE : MMX_SMOOTH_ASSEMBLED;
            const double mcf = bu_time(st, 1, 3, run, &a);
            snprintf(note, sizeof note, "%s, CG (Jacobi) to 1e-6 of r0: %d iterations%s, residual %.2g of b%s",
                     what, a.r.cg_iterations, a.r.cg_converged ? "" : " (not converged)", a.r.cg_residual,
                     level == 3 ? "; RXMesh (H200) 32.2 ms with set-up, 34 iterations; target <= 10.7 ms"
                                : level == 2 ? "; RXMesh (H200) 7.7 ms" : "");
            snprintf(row, sizeof row, "%s, one call, %s", tag, p ? "matrix-free" : "assembled");
            emit(name, row, mcf, 0, note);
        }
        mcf_system(host, ctx, hm, h, uniform, &sys);
        a.which = 3;
        a.S = sys.S, a.wS = sys.wS, a.b = sys.b, a.x0 = sys.x0;
        a.cg = mmx_cg_defaults();
        a.cg.rtol = 1e-6;
        a.cg.rel_initial = 1;
        a.cg.check_every = 16;
        const double solve = bu_time(st, 2, 5, run, &a);
        snprintf(note, sizeof note, "mmx_cg_csc, Jacobi, state read at 1, 2, 4, 8, then every 16: %d iterations, "
                 "true residual %.2g of b%s", a.cr.iterations, a.cr.true_rel_residual[0],
                 level == 3 ? "; RXMesh (H200) 23.6 ms, 34 iterations (no preconditioner); target <= 7.9 ms" : "");
        snprintf(row, sizeof row, "%s, solve only (S built), ours", tag);
        emit(name, row, solve, 0, note);
        c.max_iter = 1000, c.rtol = 1e-6;
        c.b = sys.b, c.x0 = sys.x0, c.dinv = sys.dinv;
        BL_SPARSE(cusparseCreateCsr(&c.S, c.n, c.n, sys.S->nnz, (void *)sys.S->colptr, (void *)sys.S->rowidx,
                                    sys.wS, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                    CUDA_R_32F));
        BL_SPARSE(cusparseCreateDnMat(&c.P, c.n, 3, 3, c.p, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        BL_SPARSE(cusparseCreateDnMat(&c.SP, c.n, 3, 3, c.sp, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        BL_SPARSE(cusparseCreateDnMat(&c.X, c.n, 3, 3, c.x, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        BL_SPARSE(cusparseCreateDnMat(&c.R, c.n, 3, 3, c.r, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        size_t bsz = 0;
        const float one = 1.0f, zero = 0.0f;
        BL_SPARSE(cusparseSpMM_bufferSize(sh, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                          &one, c.S, c.P, &zero, c.SP, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT,
                                          &bsz));
        BU_CUDA(cudaMalloc(&c.buf, bsz ? bsz : 1));
        const double peer = bu_time(st, 2, 5, spcg_run, &c);
        snprintf(note, sizeof note, "cusparseSpMM + cuBLAS, Jacobi, to 1e-6 of r0: %d iterations, ||r||/||r0|| %.2g",
                 c.iters, c.worst);
        snprintf(row, sizeof row, "%s, solve only (S built), cuSPARSE + cuBLAS", tag);
        emit(name, row, peer, 0, note);
        if (uniform) {
            /* One CG iteration: S read (rowidx and weight per entry, colptr), and the vectors of
             * the method (k = 3): p read and S p written by the product, x += a p, r -= a S p,
             * z = D⁻¹ r, p = z + b p: 160 B per vertex. */
            const double cfloor = (8.0 * sys.S->nnz + 4.0 * nv + 160.0 * nv) / (tbps * 1e9);
            for (int ce = 0; ce < 2; ce++) {
                a.cg = mmx_cg_defaults();
                a.cg.rtol = 0.0;
                a.cg.check_every = ce ? 16 : 1;
                a.cg.max_iter = 10;
                const double t10 = bu_time(st, 1, 5, run, &a);
                a.cg.max_iter = 60;
                const double t60 = bu_time(st, 1, 5, run, &a);
                snprintf(note, sizeof note, "(t(60) - t(10)) / 50, rtol 0, state read every %d iteration%s",
                         a.cg.check_every, ce ? "s" : "");
                emit(name, ce ? "CG iteration, check every 16" : "CG iteration, check every 1", (t60 - t10) / 50,
                     cfloor, note);
            }
            c.rtol = 0.0;
            c.max_iter = 60;
            const double p60 = bu_time(st, 1, 3, spcg_run, &c);
            c.max_iter = 10;
            const double p10 = bu_time(st, 1, 3, spcg_run, &c);
            emit(name, "CG iteration, cuSPARSE + cuBLAS", (p60 - p10) / 50, cfloor,
                 "(t(60) - t(10)) / 50, rtol 0");
        }
        cusparseDestroySpMat(c.S), cusparseDestroyDnMat(c.P), cusparseDestroyDnMat(c.SP);
        cusparseDestroyDnMat(c.X), cusparseDestroyDnMat(c.R);
        BU_CUDA(cudaFree(c.buf));
        mcf_system_free(&sys);
    }
    for (int i = 0; i < 5; i++) BU_CUDA(cudaFree(*vecs[i]));
    /* The default h (a large step). */
    a.which = 2;
    a.o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
    const double mcf = bu_time(st, 1, 3, run, &a);
    snprintf(note, sizeof note, "h = %.3g (1e-3 diag^2), barycentric mass, CG to 1e-5 of b: %d iterations%s, "
             "residual %.2g", a.r.step, a.r.cg_iterations, a.r.cg_converged ? "" : " (not converged)",
             a.r.cg_residual);
    emit(name, "MCF (default h), one call, assembled", mcf, 0, note);
#ifdef MMX_BENCH_OPENMESH
    /* OpenMesh's JacobiLaplaceSmootherT on the CPU (one thread): (t(5) - t(0)) / 5, the
     * mesh's construction in both. */
    if (!quiet) {
        oracle_mesh in, res;
        BU_MMX(host, oracle_mesh_from_mmx(host, hm, &in));
        char err[256];
        double t[2];
        for (int i = 0; i < 2; i++) {
            const double t0 = bc_now_ms();
            if (oracle_om_laplace_smooth(&in, i ? 5 : 0, &res, err, sizeof err)) {
                fprintf(stderr, "geom: OpenMesh: %s\n", err);
                exit(1);
            }
            t[i] = bc_now_ms() - t0;
            oracle_mesh_free(&res);
        }
        emit(name, "Laplacian step, OpenMesh (CPU)", (t[1] - t[0]) / 5, 0,
             "JacobiLaplaceSmootherT, one thread, (t(5) - t(0)) / 5");
        oracle_mesh_free(&in);
    }
#endif
    BU_CUDA(cudaFree(out));
    mmx_patch_set_free(ps);
    mmx_mesh_free(d);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) return 1;
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            fprintf(stderr, "usage: geom MESHES [--csv FILE]\n");
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "usage: geom MESHES [--csv FILE]\n");
        return 2;
    }
    mmx_ctx *host = NULL, *cuda = NULL;
    if (mmx_ctx_create(&host) || mmx_ctx_create(&cuda) || mmx_ctx_use_cuda(cuda, 0)) {
        fprintf(stderr, "geom: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(cuda);
    cusparseHandle_t sh;
    cublasHandle_t bh;
    BL_SPARSE(cusparseCreate(&sh));
    BL_SPARSE(cusparseSetStream(sh, st));
    BL_CUBLAS(cublasCreate(&bh));
    BL_CUBLAS(cublasSetStream(bh, st));
    char gpu[300];
    bu_gpu_name(gpu, sizeof gpu);
    tbps = bu_copy_tbps(st);
    printf("geom; GPU: %s; copy bandwidth %.3f TB/s\n\n", gpu, tbps);
    printf("| mesh | operation | ms (median) | floor ms | / floor | note |\n|---|---|---:|---:|---:|---|\n");
    if (csv) fprintf(csv, "# gpu: %s\n# copy_tbps: %.4f\nmesh,operation,ms,floor_ms,note\n", gpu, tbps);
    bu_nef it = BU_NEF_START;
    for (const mmx_mesh *nef; (nef = bu_nef_next(host, dir, 3, &it));) {
        const int l = it.level;
        const char *name = it.name;
        if (l == 0) {
            /* The throw-away pass: first calls of every kernel and library, the pools' growth. */
            quiet = 1;
            measure(host, cuda, sh, bh, "warm-up", nef, 0);
            quiet = 0;
        }
        measure(host, cuda, sh, bh, name, nef, l);
    }
    cublasDestroy(bh);
    cusparseDestroy(sh);
    mmx_ctx_free(cuda), mmx_ctx_free(host);
    if (csv) fclose(csv);
    return 0;
}
