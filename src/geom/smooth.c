/* Smoothing (geom.h, mmx_smooth): the entry point (checks, the boundary mask, the time) and the
 * explicit Laplacian steps, x' = x + lambda D^-1 L x, in two paths: the assembled one (one
 * by-entry SpMV of L per step, op = T: a gather per vertex, deterministic on CUDA, equal to
 * L x since L is symmetric) and the patch one (one patch kernel per step, RXMesh's way, no
 * matrix at all: laplacian_patch.c). Taubin's lambda|mu smoothing alternates two
 * such steps. Bilateral filtering and mean curvature flow are bilateral.c and mcf.c; the CUDA
 * halves of the per-vertex steps are smooth.cu. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "geom_internal.h"
#include "mesh/mesh_internal.h"   /* the mesh's cache */
#include "geom_patch.h"
#include "patch/patch_internal.h" /* the patch set's sizes */

static const char *const method_names[] = {"laplacian", "cotan", "taubin", "bilateral", "mcf"};
#define NMETHODS 5

const char *mmx_smooth_method_name(mmx_smooth_method m)
{
    return (int)m >= 0 && (int)m < NMETHODS ? method_names[m] : "?";
}

mmx_status mmx_smooth_method_parse(mmx_ctx *ctx, const char *name, mmx_smooth_method *m)
{
    for (int i = 0; name && m && i < NMETHODS; i++)
        if (strcmp(name, method_names[i]) == 0) {
            *m = (mmx_smooth_method)i;
            return MMX_OK;
        }
    return mmx__fail(ctx, MMX_ERR_ARG,
                     "unknown smoothing method '%s' (use laplacian, cotan, taubin, bilateral or mcf)",
                     name ? name : "(null)");
}

mmx_smooth_options mmx_smooth_defaults(mmx_smooth_method method)
{
    mmx_smooth_options o;
    memset(&o, 0, sizeof o);
    o.method = method;
    o.path = MMX_SMOOTH_ASSEMBLED;
    o.iterations = method == MMX_SMOOTH_MCF ? 1 : 10;
    o.mass = MMX_MASS_BARYCENTRIC;
    o.cg_rtol = 1e-5;
    o.cg_max_iter = 1000;
    return o;
}

/* ---- the per-vertex steps (host statements; smooth.cu has the CUDA halves) ------------------ */

mmx_status mmx__smooth_scale(mmx_ctx *ctx, mmx_index n, const float *d, int neg,
                             const unsigned char *fixed, float *scale)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__smooth_scale_cuda(ctx, n, d, neg, fixed, scale);
    for (mmx_index v = 0; v < n; v++) scale[v] = mmx__smooth_scale_of(d[v], neg, mmx__smooth_fixed(fixed, v));
    return MMX_OK;
}

mmx_status mmx__smooth_lap_step(mmx_ctx *ctx, const mmx_csc *L, const float *w, const float *x,
                                const float *scale, float lambda, float *out)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__smooth_lap_step_cuda(ctx, L, w, x, scale, lambda, out);
    for (mmx_index j = 0; j < L->ncols; j++) mmx__smooth_lap_vertex(L, w, x, scale, lambda, j, out);
    return MMX_OK;
}

mmx_status mmx__smooth_mask(mmx_ctx *ctx, mmx_index n, const mmx_index *valence,
                            const unsigned char *boundary, unsigned char *mask)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__smooth_mask_cuda(ctx, n, valence, boundary, mask);
    for (mmx_index v = 0; v < n; v++) mask[v] = (boundary && boundary[v]) || valence[v] == 0;
    return MMX_OK;
}

mmx_status mmx__mcf_per_vertex(mmx_ctx *ctx, mmx__mcf_op op, mmx_index n, int k, const float *x,
                               const float *A, const float *lx, float h,
                               const unsigned char *fixed, float *y)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__mcf_per_vertex_cuda(ctx, op, n, k, x, A, lx, h, fixed, y);
    for (mmx_index v = 0; v < n; v++) mmx__mcf_vertex(op, k, x, A, lx, h, fixed, v, y);
    return MMX_OK;
}

mmx_status mmx__mcf_apply(mmx_ctx *ctx, const mmx_csc *L, const float *wL, const float *A, float h,
                          const unsigned char *fixed, const float *x, int k, float *y)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__mcf_apply_cuda(ctx, L, wL, A, h, fixed, x, k, y);
    for (mmx_index j = 0; j < L->ncols; j++) mmx__mcf_apply_vertex(L, wL, A, h, fixed, x, k, j, y);
    return MMX_OK;
}

mmx_status mmx__mcf_assemble(mmx_ctx *ctx, const mmx_csc *L, const float *wL, const float *A,
                             float h, const unsigned char *fixed, float *wS)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__mcf_assemble_cuda(ctx, L, wL, A, h, fixed, wS);
    for (mmx_index j = 0; j < L->ncols; j++) mmx__mcf_column(L, wL, A, h, fixed, j, wS);
    return MMX_OK;
}

/* ---- explicit Laplacian steps ----------------------------------------------------------------- */

/* The uniform Laplacian and its diagonal D' = diag(L) (minus the edge counts): topology only,
 * so kept in the mesh's cache (mesh.h) for the next call. */
typedef struct uniform_op {
    mmx_weighted *L;
    float *d;
    mmx_space space;
    mmx_ctx *ctx;
} uniform_op;

static void uniform_op_free(void *p)
{
    uniform_op *u = p;
    if (!u) return;
    mmx_mem_free(u->ctx, u->space, u->d);
    mmx_weighted_free(u->L);
    free(u);
}

/* The mesh's uniform operator: the cache's, or made here and kept there (*own NULL), or,
 * where the cache does not serve the call, made for the caller to free (*own). */
static mmx_status uniform_op_get(mmx_ctx *ctx, mmx__smooth_job *job, const uniform_op **out,
                                 uniform_op **own)
{
    *own = NULL;
    *out = mmx__mesh_cache_get(ctx, &job->view, MMX__CACHE_UNIFORM_L);
    if (*out) return MMX_OK;
    const mmx_index n = job->view.M->nrows;
    uniform_op *u = calloc(1, sizeof *u);
    if (!u) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_smooth: out of host memory");
    u->space = mmx_ctx_space(ctx);
    u->ctx = ctx;
    mmx_status s = mmx_uniform_laplacian(ctx, &job->view, job->adj, &u->L);
    if (!s) s = mmx_mem_alloc(ctx, u->space, (size_t)n * sizeof *u->d, (void **)&u->d);
    if (!s) s = mmx_csc_diagonal(ctx, u->L->A, mmx_weighted_map(u->L), u->d);
    if (s) {
        uniform_op_free(u);
        return s;
    }
    const size_t bytes = mmx__csc_bytes(u->L->A) + (size_t)u->L->A->nnz * sizeof(float) +
                         (size_t)n * sizeof(float);
    if (!mmx__mesh_cache_put(ctx, &job->view, MMX__CACHE_UNIFORM_L, u, uniform_op_free, bytes))
        *own = u;
    *out = u;
    return MMX_OK;
}

/* LAPLACIAN, COTAN, TAUBIN on the assembled path. The uniform L does not depend on the
 * positions: the mesh's cache keeps it with its diagonal (uniform_op_get); the cotangent one
 * is rebuilt every step, from the current positions. Each step is one kernel (the product
 * and the update fused, mmx__smooth_lap_vertex) from one buffer into the other; the positions
 * end in job->x (one copy after an odd number of steps). No allocation and no wait inside the
 * loop of the uniform Laplacian. */
static mmx_status explicit_assembled(mmx_ctx *ctx, mmx__smooth_job *job)
{
    const mmx_smooth_method m = job->opts->method;
    const mmx_index n = job->view.M->nrows;
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t bytes = 3 * (size_t)n * sizeof(float);
    float *lx = NULL, *d = NULL, *scale = NULL;
    const mmx_weighted *L = NULL;     /* the Laplacian of the step */
    const uniform_op *uni = NULL;     /* the uniform L and its diagonal */
    uniform_op *uni_own = NULL;
    mmx__cotan_op cot = {NULL, NULL}; /* the cotangent L: its weights refreshed each step */
    mmx_status s = mmx_mem_alloc(ctx, sp, bytes, (void **)&lx);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof *scale, (void **)&scale);
    if (!s && m == MMX_SMOOTH_COTAN) s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof *d, (void **)&d);
    if (!s && m != MMX_SMOOTH_COTAN) s = uniform_op_get(ctx, job, &uni, &uni_own);
    if (!s && uni) {
        L = uni->L;
        s = mmx__smooth_scale(ctx, n, uni->d, 1, job->fixed, scale);
    }
    const int steps = m == MMX_SMOOTH_TAUBIN ? 2 : 1;
    /* Every step writes every vertex. Step i goes to job->x when an even number of steps
     * follows it, so the last lands there with no copy; the first reads the input where it is
     * (job->src: the mesh's positions, which mmx_smooth then did not copy). In place with an
     * odd number of steps, the first would write what it reads: it reads a copy. */
    const int64_t total = (int64_t)job->opts->iterations * steps;
    const float *cur = job->src ? job->src : job->x;
    if (!s && total % 2 == 1 && cur == job->x && n > 0) {
        s = mmx_mem_copy(ctx, lx, sp, job->x, sp, bytes);
        cur = lx;
    }
    int64_t i = 0;
    if (job->hook) s = job->hook(ctx, s, NULL, job->hook_arg);
    for (int it = 0; !s && it < job->opts->iterations; it++) {
        for (int half = 0; !s && half < steps; half++, i++) {
            if (m == MMX_SMOOTH_COTAN) {
                /* The view's positions must be the current ones. */
                job->view.pos = (float *)cur;
                s = mmx__cotan_op_update(ctx, &job->view, job->adj, &cot);
                L = s ? NULL : cot.L;
                if (!s) s = mmx_csc_diagonal(ctx, L->A, mmx_weighted_map(L), d);
                if (!s) s = mmx__smooth_scale(ctx, n, d, 1, job->fixed, scale);
            }
            const float lambda = half ? job->mu : job->step;
            float *next = (total - 1 - i) % 2 == 0 ? job->x : lx;
            if (!s) s = mmx__smooth_lap_step(ctx, L->A, L->w, cur, scale, lambda, next);
            if (!s) cur = next;
        }
        /* cur is job->x or lx here, never job->src (a step was made): the hook may write it. */
        if (job->hook) s = job->hook(ctx, s, (float *)cur, job->hook_arg);
        if (!s) job->rep->iterations = it + 1;
        if (!s) mmx__progress(ctx, "smooth iteration", it + 1, job->opts->iterations);
    }
    /* No step made (none asked, or the first failed): the input itself. */
    if (cur == job->src && cur != job->x && n > 0) {
        const mmx_status c = mmx_mem_copy(ctx, job->x, sp, cur, sp, bytes);
        if (!s) s = c;
    }
    job->view.pos = job->x;
    uniform_op_free(uni_own);
    mmx__cotan_op_free(&cot);
    mmx_mem_free(ctx, sp, scale);
    mmx_mem_free(ctx, sp, d);
    mmx_mem_free(ctx, sp, lx);
    return s;
}

/* LAPLACIAN and TAUBIN on the patches: each step one patch kernel (laplacian_patch.c, through
 * meshmatrix/patch_kernel.cuh) in which every patch copies its vertices into shared memory
 * once and moves its owned vertices by the mean of their VV neighbours, counted and summed in
 * the star's order (patch_view.h: VV's entries in a fixed order of their own). Stars and fans
 * need consistently oriented faces (the others are refused, naming the edge); then every edge has at most two faces, running it in opposite senses, and a VV row
 * lists each edge at its vertex exactly once (an edge of two faces as the w of the face that
 * runs it outwards, a boundary edge as the first w or the last u of its fan), also at a
 * vertex where several fans meet. So the count is the number of edges and the sum that of the
 * Laplacian's row: the paths agree on every mesh the patch path takes. The steps go from one
 * buffer into the other (a step reads its neighbours' old positions), the last into job->x;
 * no allocation and no wait inside the loop. */
static void free_patches(void *ps) { mmx_patch_set_free(ps); }

static mmx_status explicit_patch(mmx_ctx *ctx, mmx__smooth_job *job)
{
    const mmx_index n = job->view.M->nrows;
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t bytes = 3 * (size_t)n * sizeof(float);
    mmx_patch_set *own = NULL;
    const mmx_patch_set *ps = job->opts->patches;
    mmx_status s = MMX_OK;
    if (ps && (ps->nverts != n || ps->nfaces != job->view.M->ncols || ps->space != sp))
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_smooth: the patch set has %d vertices and %d faces, the mesh %d and "
                         "%d (or it is in another space): not the mesh's set",
                         ps->nverts, ps->nfaces, n, job->view.M->ncols);
    /* Without a set of the caller's, the mesh's default set: from its cache (mesh.h), or
     * built here and kept there. */
    if (!ps) ps = mmx__mesh_cache_get(ctx, &job->view, MMX__CACHE_PATCHES);
    if (!ps) {
        s = mmx_patch_set_create(ctx, &job->view, job->adj, NULL, &own);
        mmx_patch_stats st;
        if (!s && !mmx_patch_set_stats(ctx, own, &st) &&
            mmx__mesh_cache_put(ctx, &job->view, MMX__CACHE_PATCHES, own, free_patches, (size_t)st.bytes))
            ps = own, own = NULL;
        else
            ps = own;
    }
    /* The other buffer starts as a copy, so that the vertices in no face (no patch moves
     * them) keep their positions in both. With an odd number of steps the first one reads
     * the copy and writes job->x. */
    const int steps = job->opts->method == MMX_SMOOTH_TAUBIN ? 2 : 1;
    const int64_t total = (int64_t)job->opts->iterations * steps;
    float *tmp = NULL;
    if (!s && total > 0 && n > 0) s = mmx_mem_alloc(ctx, sp, bytes, (void **)&tmp);
    if (!s && tmp) s = mmx_mem_copy(ctx, tmp, sp, job->x, sp, bytes);
    const float *cur = total % 2 == 1 ? tmp : job->x;
    int64_t i = 0;
    for (int it = 0; !s && it < job->opts->iterations; it++) {
        for (int half = 0; !s && half < steps; half++, i++) {
            const float lambda = half ? job->mu : job->step;
            float *next = (total - 1 - i) % 2 == 0 ? job->x : tmp;
            if (n > 0) s = mmx__patch_laplacian_step(ctx, ps, cur, job->fixed, lambda, next);
            cur = next;
        }
        if (!s) job->rep->iterations = it + 1;
        if (!s) mmx__progress(ctx, "smooth iteration", it + 1, job->opts->iterations);
    }
    mmx_mem_free(ctx, sp, tmp);
    mmx_patch_set_free(own);
    return s;
}

/* ---- the entry point -------------------------------------------------------------------------- */

static mmx_status check_options(mmx_ctx *ctx, const mmx_smooth_options *o)
{
    const char *w = "mmx_smooth";
    if ((int)o->method < 0 || (int)o->method >= NMETHODS)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown method %d", w, (int)o->method);
    const int lap = o->method == MMX_SMOOTH_LAPLACIAN || o->method == MMX_SMOOTH_TAUBIN;
    if (!(o->path == MMX_SMOOTH_ASSEMBLED || (o->path == MMX_SMOOTH_PATCH && lap) ||
          (o->path == MMX_SMOOTH_MATRIX_FREE && o->method == MMX_SMOOTH_MCF)))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: the %s method has no path %d (patch: laplacian and "
                         "taubin; matrix-free: mcf)", w, mmx_smooth_method_name(o->method), (int)o->path);
    if (o->iterations < 0) return mmx__fail(ctx, MMX_ERR_ARG, "%s: iterations = %d < 0", w, o->iterations);
    if (!(o->step >= 0.0f) || !isfinite(o->step))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: step = %g is not a finite value >= 0", w, (double)o->step);
    if (!(o->mu <= 0.0f) || !isfinite(o->mu))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: mu = %g must be < 0 (or 0 for the default)", w,
                         (double)o->mu);
    /* An explicit step x + t D^-1 L x multiplies the mesh's highest frequencies by up to
     * |1 - 2t|: above 1 in size for t > 1 or t < -1 (D^-1 L's eigenvalues lie in [-2, 0]),
     * so every further step grows them until the positions overflow. */
    const int explicit_step = lap || o->method == MMX_SMOOTH_COTAN;
    if (explicit_step && o->step > 1.0f)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: step = %g: the %s method's explicit steps diverge "
                         "for a step above 1 (use a step in (0, 1])", w, (double)o->step,
                         mmx_smooth_method_name(o->method));
    if (o->method == MMX_SMOOTH_TAUBIN && o->mu < -1.0f)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: mu = %g: taubin's inflating steps diverge for a mu "
                         "below -1 (use a mu in [-1, 0), its size above the step's)", w, (double)o->mu);
    if (!(o->sigma_c >= 0.0f) || !(o->sigma_s >= 0.0f) || !isfinite(o->sigma_c) || !isfinite(o->sigma_s))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: sigma_c = %g and sigma_s = %g must be finite and >= 0",
                         w, (double)o->sigma_c, (double)o->sigma_s);
    if (!(o->cg_rtol >= 0.0) || o->cg_max_iter < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: cg_rtol = %g, cg_max_iter = %d: both must be >= 0",
                         w, o->cg_rtol, o->cg_max_iter);
    if ((int)o->mass < 0 || (int)o->mass > (int)MMX_MASS_VORONOI)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown mass kind %d", w, (int)o->mass);
    return MMX_OK;
}

mmx_status mmx_smooth(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_smooth_options *opts,
                      float *out, mmx_smooth_report *report)
{
    return mmx__smooth_with(ctx, mesh, opts, out, report, NULL, NULL);
}

mmx_status mmx__smooth_with(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_smooth_options *opts,
                            float *out, mmx_smooth_report *report, mmx__smooth_hook hook,
                            void *arg)
{
    MMX__NEED_CTX(ctx);
    mmx_status s = mmx__geom_check(ctx, mesh, 1, "mmx_smooth");
    if (s) return s;
    const mmx_smooth_options o = opts ? *opts : mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    if ((s = check_options(ctx, &o))) return s;
    if (hook && (o.path != MMX_SMOOTH_ASSEMBLED || o.method == MMX_SMOOTH_BILATERAL ||
                 o.method == MMX_SMOOTH_MCF))
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_smooth: a step between iterations is "
                         "taken by the explicit methods on the assembled path only");
    const mmx_index n = mesh->M->nrows;
    if (!out && n > 0) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_smooth: out is NULL");
    const size_t bytes = 3 * (size_t)n * sizeof(float);
    if (out != mesh->pos && n > 0 && (const char *)out < (const char *)mesh->pos + bytes &&
        (const char *)mesh->pos < (const char *)out + bytes)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_smooth: out overlaps the mesh's positions without "
                         "being them");
    if (mmx__mesh_pos_readonly(mesh, out))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_smooth: in place on positions wrapped read-only "
                         "(mmx_mesh_wrap_arrays with writable 0): smooth into an array of your own");
    mmx_smooth_report rep;
    memset(&rep, 0, sizeof rep);
    rep.cg_converged = 1;
    mmx_timer *timer = NULL;
    if (report) s = mmx_timer_create(ctx, &timer);
    if (!s && timer) s = mmx_timer_start(timer);
    const mmx_space sp = mmx_ctx_space(ctx);
    /* The explicit steps on the assembled path read the input where it is (explicit_assembled);
     * the other paths work in out. */
    const int direct = o.path == MMX_SMOOTH_ASSEMBLED &&
                       (o.method == MMX_SMOOTH_LAPLACIAN || o.method == MMX_SMOOTH_TAUBIN ||
                        o.method == MMX_SMOOTH_COTAN);
    if (!s && out != mesh->pos && n > 0 && !direct) s = mmx_mem_copy(ctx, out, sp, mesh->pos, sp, bytes);
    /* The adjacency: the mesh's cached one (mesh.h), or adj_own where the cache does not
     * serve this call. */
    const mmx_adjacency *adj = NULL;
    mmx_adjacency *adj_own = NULL;
    if (!s) s = mmx__mesh_adjacency(ctx, mesh, &adj, &adj_own);
    mmx__smooth_job job;
    memset(&job, 0, sizeof job);
    job.view = *mesh;
    job.view.pos = out;
    job.adj = adj;
    job.fixed = !s && o.fix_boundary ? adj->boundary : NULL;
    job.opts = &o;
    job.step = o.step > 0.0f ? o.step : 0.5f;
    job.mu = o.mu < 0.0f ? o.mu : -0.53f;
    job.x = out;
    job.src = direct ? mesh->pos : NULL;
    job.rep = &rep;
    job.hook = hook;
    job.hook_arg = arg;
    if (!s) rep.fixed = o.fix_boundary ? adj->boundary_verts : 0;
    if (!s && (o.method == MMX_SMOOTH_COTAN || o.method == MMX_SMOOTH_MCF))
        s = mmx__geom_triangles(ctx, mesh, adj, "mmx_smooth");
    if (!s) {
        switch (o.method) {
        case MMX_SMOOTH_BILATERAL: s = mmx__smooth_bilateral(ctx, &job); break;
        case MMX_SMOOTH_MCF: s = mmx__smooth_mcf(ctx, &job); break;
        default:
            s = o.path == MMX_SMOOTH_PATCH ? explicit_patch(ctx, &job) : explicit_assembled(ctx, &job);
            break;
        }
    }
    if (o.method != MMX_SMOOTH_MCF) {
        rep.step = o.method == MMX_SMOOTH_BILATERAL ? 0.0 : job.step;
        rep.mu = o.method == MMX_SMOOTH_TAUBIN ? job.mu : 0.0;
        rep.cg_converged = 0;
    }
    /* Never success with positions that are not finite: coordinates whose sums overflow (near
     * FLT_MAX) do that on every method. One pass and one read-back at the end, none per step. */
    int64_t bad = -1;
    if (!s && n > 0) s = mmx__first_beyond(ctx, out, 3 * (int64_t)n, FLT_MAX, &bad);
    if (!s && bad >= 0)
        s = mmx__fail(ctx, MMX_ERR_MESH, "mmx_smooth: %s smoothing made vertex %lld's position "
                      "not finite: the coordinates are too large for float arithmetic (sums of "
                      "them pass 3.4e38)%s; scale the mesh down", mmx_smooth_method_name(o.method),
                      (long long)(bad / 3),
                      o.method == MMX_SMOOTH_MCF ? ", or the step h is too large" : "");
    if (!s && timer) s = mmx_timer_stop(timer, &rep.ms);
    mmx_timer_free(timer);
    mmx_adjacency_free(adj_own);
    if (report) *report = rep;
    return s;
}
