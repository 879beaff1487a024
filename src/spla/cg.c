/* Jacobi-preconditioned conjugate gradients on up to four right-hand sides (spla.h, mmx_cg):
 * the argument checks, the iteration loop for both backends, and the host statement of each
 * phase. The loop lives here once; the backends differ only in how a phase runs (plain loops
 * below, kernels in cg.cu) and where the column state lives (host or device memory), and
 * both take their scalar decisions with the same functions (mmx__cg_start, mmx__cg_alpha,
 * mmx__cg_beta in spla_internal.h).
 *
 * Per column q, with z = D⁻¹ r:
 *   r = b - S x, z = D⁻¹ r, p = z
 *   repeat:  alpha = r·z / p·Sp;  x += alpha p;  r -= alpha Sp;  z = D⁻¹ r
 *            stop when r·r <= rtol² b·b;  beta = r·z (new) / r·z (old);  p = z + beta p
 * Host sums are sequential in double over the rows, one per column. */
#include <stdlib.h>
#include <string.h>
#include "spla_internal.h"

/* ---- the host phases ---------------------------------------------------------------------- */

static void dinv_host(mmx__cg_work *w, const float *diag)
{
    w->state->bad_diag = w->n;
    for (mmx_index i = 0; i < w->n; i++) {
        const float d = diag ? diag[i] : 1.0f;
        if (!(d > 0.0f) || !mmx__finite(d)) {
            if (w->state->bad_diag == w->n) w->state->bad_diag = i;
            w->dinv[i] = 0.0f;
        } else {
            w->dinv[i] = 1.0f / d;
        }
    }
}

static double *col_hist(const mmx__cg_work *w, int q)
{
    return w->hist ? w->hist + (size_t)q * (size_t)w->cap : NULL;
}

static void setup_host(mmx__cg_work *w, const float *b, float *x)
{
    const int k = w->k;
    double bb[MMX_CG_MAX_K] = {0}, rr[MMX_CG_MAX_K] = {0}, rz[MMX_CG_MAX_K] = {0};
    for (int64_t i = 0; i < w->n; i++)
        for (int q = 0; q < k; q++) {
            const int64_t t = i * k + q;
            const float r = b[t] - w->sp[t];
            const float z = w->dinv[i] * r;
            w->r[t] = r;
            w->z[t] = z;
            w->p[t] = z;
            bb[q] += (double)b[t] * b[t];
            rr[q] += (double)r * r;
            rz[q] += (double)r * z;
        }
    const int diag_ok = w->state->bad_diag == w->n;
    for (int q = 0; q < k; q++)
        mmx__cg_start(&w->state->col[q], w->rtol, w->rel0, bb[q], rr[q], rz[q], diag_ok, col_hist(w, q), w->cap);
    for (int q = 0; q < k; q++)
        if (w->state->col[q].zero_x)
            for (int64_t i = 0; i < w->n; i++) x[i * k + q] = 0.0f;
}

static void step_host(mmx__cg_work *w, float *x, int t)
{
    const int k = w->k;
    mmx__cg_col *c = w->state->col;
    double pap[MMX_CG_MAX_K] = {0}, rr[MMX_CG_MAX_K] = {0}, rz[MMX_CG_MAX_K] = {0};
    for (int64_t i = 0; i < w->n; i++)
        for (int q = 0; q < k; q++) pap[q] += (double)w->p[i * k + q] * w->sp[i * k + q];
    for (int q = 0; q < k; q++) mmx__cg_alpha(&c[q], pap[q], t);
    float alpha[MMX_CG_MAX_K], beta[MMX_CG_MAX_K];
    for (int q = 0; q < k; q++) alpha[q] = (float)c[q].alpha;
    for (int64_t i = 0; i < w->n; i++)
        for (int q = 0; q < k; q++) {
            if (!c[q].active) continue;
            const int64_t e = i * k + q;
            x[e] += alpha[q] * w->p[e];
            w->r[e] -= alpha[q] * w->sp[e];
            w->z[e] = w->dinv[i] * w->r[e];
            rr[q] += (double)w->r[e] * w->r[e];
            rz[q] += (double)w->r[e] * w->z[e];
        }
    for (int q = 0; q < k; q++) mmx__cg_beta(&c[q], rr[q], rz[q], t, col_hist(w, q), w->cap);
    for (int q = 0; q < k; q++) beta[q] = (float)c[q].beta;
    for (int64_t i = 0; i < w->n; i++)
        for (int q = 0; q < k; q++)
            if (c[q].active) w->p[i * k + q] = w->z[i * k + q] + beta[q] * w->p[i * k + q];
}

static void true_host(mmx__cg_work *w, const float *b)
{
    double rr[MMX_CG_MAX_K] = {0};
    for (int64_t i = 0; i < w->n; i++)
        for (int q = 0; q < w->k; q++) {
            const float r = b[i * w->k + q] - w->sp[i * w->k + q];
            rr[q] += (double)r * r;
        }
    for (int q = 0; q < w->k; q++) w->state->col[q].true_rr = rr[q];
}

/* ---- the loop ------------------------------------------------------------------------------ */

/* Whether [a, a + n) and [b, b + n) floats share memory. */
static int overlaps(const float *a, const float *b, int64_t n)
{
    if (!a || !b || n == 0) return 0;
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b, len = (uintptr_t)n * sizeof(float);
    return a0 < b0 + len && b0 < a0 + len;
}

/* The host copy of the column state: on the host backend the state itself; on CUDA one copy
 * from the device, which waits for the stream (spla.h: the checks). */
static mmx_status read_state(mmx_ctx *ctx, const mmx__cg_work *w, mmx__cg_state *host)
{
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_CUDA) {
        if (host != w->state) *host = *w->state;
        return MMX_OK;
    }
    return mmx_mem_copy(ctx, host, MMX_SPACE_HOST, w->state, MMX_SPACE_DEVICE, sizeof *host);
}

static void fill_report(const mmx__cg_work *w, const mmx__cg_state *st, int have_true,
                        mmx_cg_report *rep)
{
    if (!rep) return;
    memset(rep, 0, sizeof *rep);
    for (int q = 0; q < w->k; q++) {
        const mmx__cg_col *c = &st->col[q];
        rep->col_iterations[q] = c->iters;
        if (c->iters > rep->iterations) rep->iterations = c->iters;
        rep->converged[q] = c->converged;
        rep->rel_residual[q] = c->bb > 0.0 ? sqrt(c->rr / c->bb) : c->bb == 0.0 ? 0.0 : NAN;
        rep->true_rel_residual[q] = !have_true            ? NAN
                                    : c->zero_x           ? 0.0
                                                          : sqrt(c->true_rr / c->bb);
        /* A column refused at the set-up (the diagonal, b or r not finite) wrote nothing. */
        const int started = st->bad_diag == w->n && !(c->fault == MMX__CG_FAULT_NONFINITE && c->iters == 0);
        if (w->hist && started) {
            const int len = c->iters + 1;
            rep->history_len[q] = len < w->cap ? len : w->cap;
        }
    }
}

/* The error of a stopped solve, if any: the bad diagonal entry (read from diag), a column
 * whose data is not finite, or the first breakdown by (iteration, column). */
static mmx_status state_error(mmx_ctx *ctx, const mmx__cg_work *w, const mmx__cg_state *st,
                              const float *diag)
{
    if (st->bad_diag < w->n) {
        float v = 0.0f;
        mmx_status s = mmx_mem_copy(ctx, &v, MMX_SPACE_HOST, diag + st->bad_diag,
                                    mmx_ctx_space(ctx), sizeof v);
        if (s) return s;
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_cg: the diagonal has d[%d] = %g, not > 0 (a positive definite S "
                         "has a positive diagonal; a stored matrix may lack the entry)",
                         st->bad_diag, (double)v);
    }
    int worst = -1;
    for (int q = 0; q < w->k; q++) {
        const mmx__cg_col *c = &st->col[q];
        if (c->fault == MMX__CG_FAULT_NONFINITE)
            return mmx__fail(ctx, MMX_ERR_ARG,
                             "mmx_cg: column %d: %s is not finite (%g) at iteration %d", q,
                             c->iters == 0 && !mmx__finite(c->bb) ? "||b||^2" : "||r||^2",
                             c->fault_value, c->iters);
        if (c->fault == MMX__CG_FAULT_BREAKDOWN &&
            (worst < 0 || c->fault_iter < st->col[worst].fault_iter))
            worst = q;
    }
    if (worst >= 0)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_cg: breakdown: p·Sp = %g <= 0 at iteration %d, column %d (S is "
                         "not symmetric positive definite)",
                         st->col[worst].fault_value, st->col[worst].fault_iter, worst);
    return MMX_OK;
}

static int any_fault(const mmx__cg_work *w, const mmx__cg_state *st)
{
    if (st->bad_diag < w->n) return 1;
    for (int q = 0; q < w->k; q++)
        if (st->col[q].fault != MMX__CG_FAULT_NONE) return 1;
    return 0;
}

static int any_active(const mmx__cg_work *w, const mmx__cg_state *st)
{
    for (int q = 0; q < w->k; q++)
        if (st->col[q].active) return 1;
    return 0;
}

static void work_free(mmx_ctx *ctx, mmx__cg_work *w, int cuda)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_mem_free(ctx, sp, w->r);
    mmx_mem_free(ctx, sp, w->z);
    mmx_mem_free(ctx, sp, w->p);
    mmx_mem_free(ctx, sp, w->sp);
    mmx_mem_free(ctx, sp, w->dinv);
    if (cuda) {
        mmx_mem_free(ctx, sp, w->partial);
        mmx_mem_free(ctx, sp, w->state);
        mmx_mem_free(ctx, sp, w->hist);
    }
}

static mmx_status check_args(mmx_ctx *ctx, const mmx_linop *S, const float *b, int k,
                             const float *x, const mmx_cg_opts *o)
{
    if (!S) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: the operator S is NULL");
    if (!S->apply) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: the operator's apply is NULL");
    if (S->n < 0) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: the operator has n = %d < 0", S->n);
    if (k < 1 || k > MMX_CG_MAX_K)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: k = %d right-hand sides; 1 <= k <= %d", k,
                         MMX_CG_MAX_K);
    if (S->n > 0 && (!b || !x))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: %s is NULL (n = %d)", !b ? "b" : "x", S->n);
    if (overlaps(b, x, (int64_t)S->n * k))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: b and x overlap (x is written)");
    if (!(o->rtol >= 0.0))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: rtol = %g; it must be >= 0", o->rtol);
    if (o->max_iter < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: max_iter = %d < 0", o->max_iter);
    if (o->check_every < 1)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: check_every = %d; it must be >= 1",
                         o->check_every);
    if (o->history_cap < 0 || (o->history_cap > 0 && !o->history))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg: history_cap = %d with a %s history",
                         o->history_cap, o->history ? "given" : "NULL");
    return MMX_OK;
}

mmx_status mmx_cg(mmx_ctx *ctx, const mmx_linop *S, const float *b, int k, float *x,
                  const mmx_cg_opts *opts, mmx_cg_report *report)
{
    if (!ctx) return MMX_ERR_ARG;
    const mmx_cg_opts o = opts ? *opts : mmx_cg_defaults();
    mmx_status s = check_args(ctx, S, b, k, x, &o);
    if (s) return s;
    const int cuda = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    const mmx_space sp = mmx_ctx_space(ctx);
    const mmx_index n = S->n;
    mmx__cg_state host; /* the state itself on the host; its copy on CUDA */
    memset(&host, 0, sizeof host);
    host.k = k;
    host.bad_diag = n;
    mmx__cg_work w;
    memset(&w, 0, sizeof w);
    w.n = n;
    w.k = k;
    w.rtol = o.rtol;
    w.rel0 = o.rel_initial != 0;
    w.cap = o.history ? o.history_cap : 0;
    if (n == 0) { /* nothing to solve: b = 0 in every column, converged with residual 0 */
        w.hist = w.cap ? o.history : NULL;
        for (int q = 0; q < k; q++)
            mmx__cg_start(&host.col[q], o.rtol, o.rel_initial, 0.0, 0.0, 0.0, 1, col_hist(&w, q), w.cap);
        fill_report(&w, &host, 1, report);
        return MMX_OK;
    }
    const size_t vec = (size_t)n * (size_t)k * sizeof(float);
    s = mmx_mem_alloc(ctx, sp, vec, (void **)&w.r);
    if (!s) s = mmx_mem_alloc(ctx, sp, vec, (void **)&w.z);
    if (!s) s = mmx_mem_alloc(ctx, sp, vec, (void **)&w.p);
    if (!s) s = mmx_mem_alloc(ctx, sp, vec, (void **)&w.sp);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof(float), (void **)&w.dinv);
    if (cuda) {
        if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)MMX__CG_GRID_MAX * 3 * k * sizeof(double),
                                  (void **)&w.partial);
        if (!s) s = mmx_mem_alloc(ctx, sp, sizeof host, (void **)&w.state);
        if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)w.cap * k * sizeof(double), (void **)&w.hist);
        /* The initial state (bad_diag = n: none yet), staged from pageable memory: no wait. */
        if (!s) s = mmx_mem_copy(ctx, w.state, sp, &host, MMX_SPACE_HOST, sizeof host);
    } else {
        w.state = &host;
        w.hist = w.cap ? o.history : NULL;
    }
    if (s) {
        work_free(ctx, &w, cuda);
        return s;
    }
    /* Set-up: D⁻¹, then r = b - S x and the first direction. */
    s = cuda ? mmx__cg_dinv_cuda(ctx, &w, S->diag) : (dinv_host(&w, S->diag), MMX_OK);
    if (!s) s = S->apply(ctx, S->data, x, k, w.sp);
    if (!s) s = cuda ? mmx__cg_setup_cuda(ctx, &w, b, x) : (setup_host(&w, b, x), MMX_OK);
    if (!s) s = read_state(ctx, &w, &host);
    int running = !s && !any_fault(&w, &host) && any_active(&w, &host);
    for (int t = 1; running && t <= o.max_iter; t++) {
        s = S->apply(ctx, S->data, w.p, k, w.sp);
        if (!s) s = cuda ? mmx__cg_step_cuda(ctx, &w, x, t) : (step_host(&w, x, t), MMX_OK);
        /* The host's state is always current; CUDA reads it back every check_every
         * iterations and at the cap, the columns that stopped in between being frozen. */
        const int early = t < o.check_every && (t & (t - 1)) == 0; /* 1, 2, 4, ... */
        if (!s && (!cuda || early || t % o.check_every == 0 || t == o.max_iter))
            s = read_state(ctx, &w, &host);
        running = !s && !any_fault(&w, &host) && any_active(&w, &host);
    }
    int have_true = 0;
    if (!s && !any_fault(&w, &host)) {
        /* The true residual of the x returned, and the final state, in one read-back. */
        s = S->apply(ctx, S->data, x, k, w.sp);
        if (!s) s = cuda ? mmx__cg_true_cuda(ctx, &w, b) : (true_host(&w, b), MMX_OK);
        if (!s) s = read_state(ctx, &w, &host);
        have_true = !s;
    }
    if (!s && cuda && w.cap > 0)
        s = mmx_mem_copy(ctx, o.history, MMX_SPACE_HOST, w.hist, sp,
                         (size_t)w.cap * k * sizeof(double));
    if (!s) {
        /* The report reads the history from the caller's host array; on CUDA w.hist is the
         * device copy, which work_free gives back (it must not see the host pointer). */
        double *const dev_hist = w.hist;
        w.hist = w.cap ? o.history : NULL;
        fill_report(&w, &host, have_true, report);
        w.hist = dev_hist;
        s = state_error(ctx, &w, &host, S->diag);
    }
    work_free(ctx, &w, cuda);
    return s;
}

/* ---- S = A<map> ---------------------------------------------------------------------------- */

typedef struct csc_op {
    const mmx_csc *A;
    mmx_map map;
} csc_op;

/* y = A<map>ᵀ x, which is A<map> x for a symmetric A<map>: the gather, deterministic on CUDA. */
static mmx_status csc_apply(mmx_ctx *ctx, void *data, const float *x, int k, float *y)
{
    const csc_op *op = data;
    return mmx_spmv(ctx, MMX_OP_T, 1.0f, op->A, op->map, x, k, 0.0f, y);
}

mmx_status mmx_cg_csc(mmx_ctx *ctx, const mmx_csc *A, mmx_map map, const float *b, int k,
                      float *x, const mmx_cg_opts *opts, mmx_cg_report *report)
{
    if (!ctx) return MMX_ERR_ARG;
    if (!A) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg_csc: matrix A is NULL");
    if (A->nrows != A->ncols)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cg_csc: A is %d x %d; S must be square",
                         A->nrows, A->ncols);
    mmx_status s = mmx__check_space(ctx, A->space, "mmx_cg_csc: matrix A");
    if (s) return s;
    if (A->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE,
                         "mmx_cg_csc: matrix A is in host memory but the context is on the "
                         "CUDA backend (copy it with mmx_csc_copy)");
    map = mmx__map_resolve(A, map);
    s = mmx__map_check(ctx, A, map, "mmx_cg_csc");
    if (s) return s;
    csc_op op = {A, map};
    mmx_linop S = {A->ncols, csc_apply, &op, NULL};
    float *diag = NULL;
    s = mmx_mem_alloc(ctx, mmx_ctx_space(ctx), (size_t)A->ncols * sizeof(float), (void **)&diag);
    if (!s) s = mmx_csc_diagonal(ctx, A, map, diag);
    S.diag = diag;
    if (!s) s = mmx_cg(ctx, &S, b, k, x, opts, report);
    mmx_mem_free(ctx, mmx_ctx_space(ctx), diag);
    return s;
}
