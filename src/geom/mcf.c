/* Implicit mean curvature flow (geom.h, MMX_SMOOTH_MCF): one backward Euler step of
 * dx/dt = A^-1 L x per iteration,
 *   (A - h L) x' = A x,
 * L the cotangent Laplacian and A the diagonal mass matrix of the current positions, solved by
 * Jacobi-preconditioned CG for the three coordinates at once (k = 3) from x as the initial
 * guess. S = A - h L is symmetric positive definite where every vertex has a positive mass
 * (L is negative semi-definite on acute meshes; obtuse ones keep S positive definite for the
 * small h of a smoothing step, and CG's breakdown check says when not).
 *
 * Two ways to apply S: assembled, on L's own pattern (one weight per entry of L, the diagonal
 * entries gaining A: no new pattern, no SpGEMM), solved by mmx_cg_csc; matrix-free, an
 * mmx_linop whose apply is one kernel: a gather per vertex over L's column (the by-entry
 * product, fixed neighbours read as 0) fused with the finish A x - h (L x).
 *
 * A fixed boundary keeps S symmetric: the fixed vertices' rows and columns become the
 * identity's and their known positions move to the right-hand side, b_j = A_j x_j + h sum
 * over fixed i of L_ji x_i for a free j, b_i = x_i for a fixed i; the solve then leaves x_i
 * as it is up to CG's float arithmetic, and the fixed rows are copied back from b afterwards
 * so that they stay bit for bit. */
#include <math.h>
#include <stdlib.h>
#include "geom_internal.h"

/* The matrix-free operator: y = S x for S = A - h L with the fixed rows and columns the
 * identity's (mmx__mcf_apply_vertex). */
typedef struct mcf_op {
    const mmx_weighted *L;
    const float *A;
    float h;
    const unsigned char *fixed;
} mcf_op;

static mmx_status mcf_apply(mmx_ctx *ctx, void *data, const float *x, int k, float *y)
{
    const mcf_op *op = (const mcf_op *)data;
    /* One kernel: the product with L over the free neighbours and the finish, fused. */
    return mmx__mcf_apply(ctx, op->L->A, op->L->w, op->A, op->h, op->fixed, x, k, y);
}

/* 1e-3 times the square of the bounding-box diagonal of the positions (read on the host). */
static mmx_status default_h(mmx_ctx *ctx, const float *x, mmx_index n, float *h)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const float *p = x;
    float *copy = NULL;
    mmx_status s = MMX_OK;
    if (sp == MMX_SPACE_DEVICE) {
        s = mmx__host_alloc(ctx, 3 * (size_t)n, sizeof *copy, (void **)&copy);
        /* A wait: the host reads the positions (the header says so). */
        if (!s && n > 0) s = mmx_mem_copy(ctx, copy, MMX_SPACE_HOST, x, sp, 3 * (size_t)n * sizeof *copy);
        p = copy;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (mmx_index v = 0; !s && v < n; v++)
        for (int d = 0; d < 3; d++) {
            const double c = p[3 * (int64_t)v + d];
            lo[d] = c < lo[d] ? c : lo[d];
            hi[d] = c > hi[d] ? c : hi[d];
        }
    double d2 = 0.0;
    for (int d = 0; n > 0 && d < 3; d++) d2 += (hi[d] - lo[d]) * (hi[d] - lo[d]);
    /* A mesh reduced to a point has no scale: any h leaves it where it is. */
    *h = d2 > 0.0 ? (float)(1e-3 * d2) : 1.0f;
    free(copy);
    return s;
}

mmx_status mmx__smooth_mcf(mmx_ctx *ctx, mmx__smooth_job *job)
{
    const mmx_smooth_options *o = job->opts;
    const mmx_index n = job->view.M->nrows;
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t vec = 3 * (size_t)n * sizeof(float);
    float h = o->step;
    mmx_status s = h > 0.0f ? MMX_OK : default_h(ctx, job->x, n, &h);
    job->rep->step = h;
    float *b = NULL, *lx = NULL, *xm = NULL, *diag = NULL, *ldiag = NULL;
    if (!s) s = mmx_mem_alloc(ctx, sp, vec, (void **)&b);
    /* 4 columns of scratch: the linop may be applied with any k <= MMX_CG_MAX_K. */
    if (!s) s = mmx_mem_alloc(ctx, sp, 4 * (size_t)n * sizeof *lx, (void **)&lx);
    if (!s) s = mmx_mem_alloc(ctx, sp, 4 * (size_t)n * sizeof *xm, (void **)&xm);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof *diag, (void **)&diag);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof *ldiag, (void **)&ldiag);
    /* The fixed vertices: the boundary's when asked, and always those in no face. */
    unsigned char *fixed = NULL;
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)n, (void **)&fixed);
    if (!s) s = mmx__smooth_mask(ctx, n, job->adj->valence, job->fixed, fixed);
    mmx_cg_opts cg = mmx_cg_defaults();
    cg.rtol = o->cg_rtol;
    cg.max_iter = o->cg_max_iter;
    cg.rel_initial = o->cg_rel_initial;
    /* CUDA reads CG's state back at iterations 1, 2, 4, 8 and then every 16, not every one: a
     * short solve stops at most twice its length, a long one waits once per 16 iterations;
     * the result does not depend on it (stopped columns are frozen, mmx_cg). */
    cg.check_every = 16;
    mmx__cotan_op cot = {NULL, NULL}; /* L's pattern made once, its weights each step */
    /* The uniform problem: L and the valences once. */
    mmx_weighted *Lu = NULL;
    float *valence = NULL;
    if (!s && o->mcf_uniform && o->iterations > 0) {
        s = mmx_uniform_laplacian(ctx, &job->view, job->adj, &Lu);
        if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof *valence, (void **)&valence);
        if (!s) s = mmx_csc_diagonal(ctx, Lu->A, mmx_weighted_map(Lu), ldiag);
        if (!s) s = mmx__mcf_per_vertex(ctx, MMX__MCF_NEGATE, n, 1, ldiag, NULL, NULL, 0.0f, NULL, valence);
    }
    for (int it = 0; !s && it < o->iterations; it++) {
        mmx_weighted *L = NULL, *A = NULL, Au;
        float *wS = NULL;
        mmx_cg_report cr;
        if (o->mcf_uniform) {
            L = Lu;
            Au.w = valence; /* only A->w is read below */
            A = &Au;
        } else {
            s = mmx__cotan_op_update(ctx, &job->view, job->adj, &cot);
            if (!s) L = cot.L;
            if (!s) s = mmx__geom_mass(ctx, &job->view, o->mass, job->adj, &A);
        }
        /* The right-hand side: A x, plus h L x_fixed on the free rows, x on the fixed. */
        const float *lxf = NULL;
        if (!s) {
            s = mmx__mcf_per_vertex(ctx, MMX__MCF_FIXED_ONLY, n, 3, job->x, NULL, NULL, 0.0f,
                                    fixed, xm);
            if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, L->A, mmx_weighted_map(L), xm, 3, 0.0f, lx);
            lxf = lx;
        }
        if (!s) s = mmx__mcf_per_vertex(ctx, MMX__MCF_RHS, n, 3, job->x, A->w, lxf, h, fixed, b);
        if (!s && o->path == MMX_SMOOTH_MATRIX_FREE) {
            mcf_op op = {L, A->w, h, fixed};
            s = mmx_csc_diagonal(ctx, L->A, mmx_weighted_map(L), ldiag);
            if (!s) s = mmx__mcf_per_vertex(ctx, MMX__MCF_DIAG, n, 1, ldiag, A->w, NULL, h, fixed, diag);
            mmx_linop S = {n, mcf_apply, &op, diag};
            if (!s) s = mmx_cg(ctx, &S, b, 3, job->x, &cg, &cr);
        } else if (!s) {
            s = mmx_mem_alloc(ctx, sp, (size_t)L->A->nnz * sizeof *wS, (void **)&wS);
            if (!s) s = mmx__mcf_assemble(ctx, L->A, L->w, A->w, h, fixed, wS);
            if (!s) s = mmx_cg_csc(ctx, L->A, mmx_map_table(MMX_MAP_BY_ENTRY, wS, L->A->nnz), b, 3,
                                   job->x, &cg, &cr);
        }
        if (!s)
            s = mmx__mcf_per_vertex(ctx, MMX__MCF_RESTORE, n, 3, b, NULL, NULL, 0.0f, fixed, job->x);
        if (!s) {
            job->rep->iterations = it + 1;
            mmx__progress(ctx, "smooth iteration", it + 1, o->iterations);
            job->rep->cg_iterations += cr.iterations;
            double worst = 0.0;
            for (int q = 0; q < 3; q++) {
                worst = cr.true_rel_residual[q] > worst ? cr.true_rel_residual[q] : worst;
                if (!cr.converged[q]) job->rep->cg_converged = 0;
            }
            job->rep->cg_residual = worst;
        }
        mmx_mem_free(ctx, sp, wS);
        if (A != &Au) mmx_weighted_free(A);
    }
    mmx__cotan_op_free(&cot);
    mmx_weighted_free(Lu);
    mmx_mem_free(ctx, sp, valence);
    if (o->iterations == 0) job->rep->cg_converged = 1;
    mmx_mem_free(ctx, sp, fixed);
    mmx_mem_free(ctx, sp, ldiag);
    mmx_mem_free(ctx, sp, diag);
    mmx_mem_free(ctx, sp, xm);
    mmx_mem_free(ctx, sp, lx);
    mmx_mem_free(ctx, sp, b);
    return s;
}
