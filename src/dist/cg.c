/* Conjugate gradients on the partitioned mesh's vertex data: a halo exchange before each
 * application of S, and the dot products over the owned rows summed over the ranks (in rank
 * order, so every rank takes the same steps). The statement of mmx_cg (spla.h), Jacobi
 * preconditioned, per column; it cannot be mmx_cg itself, whose dot products are local. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

/* The device side of a solve on CUDA: x and y of S's application in device memory (the
 * vectors and the dot products stay on the host, in the host path's order: the same steps on
 * both backends). NULL members on the host backend. */
typedef struct dev_io {
    float *x, *y;
} dev_io;

/* y = S x after the halo exchange of x (S's apply is exact on the owned rows); on CUDA x goes
 * to the device, is exchanged there, and comes back with its ghosts, y with it. */
static mmx_status apply(mmx_ctx *ctx, const mmx_dist_mesh *dm, const mmx_linop *S, float *x,
                        int k, float *y, const dev_io *io)
{
    if (!io->x) {
        mmx_status s = mmx_dist_exchange(ctx, dm, x, k);
        if (!s) s = S->apply(ctx, S->data, x, k, y);
        return mmx_dist_agree(ctx, dm->d, s);
    }
    const size_t bytes = (size_t)S->n * (size_t)k * sizeof *x;
    mmx_status s = mmx_mem_copy(ctx, io->x, MMX_SPACE_DEVICE, x, MMX_SPACE_HOST, bytes);
    s = mmx_dist_agree(ctx, dm->d, s);
    if (!s) s = mmx_dist_exchange(ctx, dm, io->x, k);
    if (!s) s = S->apply(ctx, S->data, io->x, k, io->y);
    if (!s) s = mmx_mem_copy(ctx, x, MMX_SPACE_HOST, io->x, MMX_SPACE_DEVICE, bytes);
    if (!s) s = mmx_mem_copy(ctx, y, MMX_SPACE_HOST, io->y, MMX_SPACE_DEVICE, bytes);
    return mmx_dist_agree(ctx, dm->d, s);
}

/* Per column q: sum over owned rows of a_q b_q (and, when c, of c_q d_q into out[k + q]). */
static mmx_status dots(mmx_ctx *ctx, const mmx_dist_mesh *dm, int k, const float *a,
                       const float *b, const float *c, const float *e, double *out)
{
    const mmx_index n = mmx_mesh_nverts(dm->local);
    for (int q = 0; q < 2 * k; q++) out[q] = 0;
    for (mmx_index i = 0; i < n; i++) {
        if (!dm->ov[i]) continue;
        for (int q = 0; q < k; q++) {
            const size_t at = (size_t)i * (size_t)k + (size_t)q;
            out[q] += (double)a[at] * (double)b[at];
            if (c) out[k + q] += (double)c[at] * (double)e[at];
        }
    }
    return mmx__dist_sum_f64(ctx, dm->d, out, c ? 2 * k : k);
}

mmx_status mmx_dist_cg(mmx_ctx *ctx, const mmx_dist_mesh *dm, const mmx_linop *S, const float *b,
                       int k, float *x, const mmx_cg_opts *opts, mmx_cg_report *report)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_cg: dm is NULL");
    const mmx_cg_opts o = opts ? *opts : mmx_cg_defaults();
    const mmx_index n = mmx_mesh_nverts(dm->local);
    mmx_cg_report rep;
    memset(&rep, 0, sizeof rep);
    mmx_status s = MMX_OK;
    if (!S || !S->apply || S->n != n)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_cg: S %s", !S || !S->apply ? "or its apply is NULL"
                      : "is not of the local mesh's size (local_verts)");
    else if (!b || !x || k < 1 || k > MMX_CG_MAX_K)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_cg: %s", !b || !x ? "b or x is NULL" : "k out of 1..4");
    else if (!(o.rtol >= 0) || o.max_iter < 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_cg: rtol %g or max_iter %d out of range", o.rtol, o.max_iter);
    else if (o.history)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_dist_cg: no residual history over ranks");
    const size_t nk = (size_t)n * (size_t)k;
    /* On CUDA, b, x and S->diag are device arrays: the solve runs on host copies (uout: the
     * caller's x, written at the end), S applied on the device. */
    dev_io io = {NULL, NULL};
    float *hb = NULL, *hx = NULL, *hdiag = NULL, *uout = NULL;
    const float *diag = S ? S->diag : NULL;
    if (!s && dm->dev) {
        const size_t bytes = nk * sizeof *x;
        s = mmx__host_alloc(ctx, nk, sizeof *hb, (void **)&hb);
        if (!s) s = mmx__host_alloc(ctx, nk, sizeof *hx, (void **)&hx);
        if (!s && diag) s = mmx__host_alloc(ctx, (size_t)n, sizeof *hdiag, (void **)&hdiag);
        if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, (void **)&io.x);
        if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, (void **)&io.y);
        if (!s) s = mmx_mem_copy(ctx, hb, MMX_SPACE_HOST, b, MMX_SPACE_DEVICE, bytes);
        if (!s) s = mmx_mem_copy(ctx, hx, MMX_SPACE_HOST, x, MMX_SPACE_DEVICE, bytes);
        if (!s && diag) s = mmx_mem_copy(ctx, hdiag, MMX_SPACE_HOST, diag, MMX_SPACE_DEVICE, (size_t)n * sizeof *diag);
        uout = x, b = hb, x = hx, diag = hdiag;
    }
    for (mmx_index i = 0; !s && diag && i < n; i++)
        if (!(diag[i] > 0) || !isfinite(diag[i]))
            s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_cg: d[%d] = %g (local vertex %d)", i,
                          (double)diag[i], i);
    float *r = NULL, *z = NULL, *p = NULL, *Sp = NULL, *xb = NULL;
    if (!s) s = mmx__host_alloc(ctx, nk, sizeof *r, (void **)&r);
    if (!s) s = mmx__host_alloc(ctx, nk, sizeof *z, (void **)&z);
    if (!s) s = mmx__host_alloc(ctx, nk, sizeof *p, (void **)&p);
    if (!s) s = mmx__host_alloc(ctx, nk, sizeof *Sp, (void **)&Sp);
    if (!s) s = mmx__host_alloc(ctx, nk, sizeof *xb, (void **)&xb);
    s = mmx_dist_agree(ctx, dm->d, s);
    if (s) goto out;
    double bb[2 * MMX_CG_MAX_K], rz[2 * MMX_CG_MAX_K], t[2 * MMX_CG_MAX_K], r0[MMX_CG_MAX_K];
    int active[MMX_CG_MAX_K];
    memcpy(xb, x, nk * sizeof *x);
    s = apply(ctx, dm, S, xb, k, Sp, &io);
    if (s) goto out;
    for (size_t i = 0; i < nk; i++) r[i] = b[i] - Sp[i];
    for (size_t i = 0; i < nk; i++) z[i] = diag ? r[i] / diag[i / (size_t)k] : r[i];
    memcpy(p, z, nk * sizeof *p);
    if (!s) s = dots(ctx, dm, k, b, b, r, r, bb);
    if (!s) s = dots(ctx, dm, k, r, z, NULL, NULL, rz);
    if (s) goto out;
    for (int q = 0; q < k; q++) {
        if (!isfinite(bb[q]) || !isfinite(bb[k + q])) {
            s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_cg: b or the initial residual of column %d is not finite", q);
            goto out;
        }
        r0[q] = sqrt(bb[k + q]);
        const double ref = o.rel_initial ? r0[q] : sqrt(bb[q]);
        rep.rel_residual[q] = bb[q] > 0 ? r0[q] / sqrt(bb[q]) : 0;
        active[q] = bb[q] > 0 && r0[q] > o.rtol * ref;
        rep.converged[q] = !active[q];
        if (bb[q] == 0)
            for (mmx_index i = 0; i < n; i++) x[(size_t)i * (size_t)k + (size_t)q] = 0;
    }
    for (int it = 1; it <= o.max_iter; it++) {
        int any = 0;
        for (int q = 0; q < k; q++) any |= active[q];
        if (!any) break;
        s = apply(ctx, dm, S, p, k, Sp, &io);
        if (!s) s = dots(ctx, dm, k, p, Sp, NULL, NULL, t);
        if (s) goto out;
        double alpha[MMX_CG_MAX_K];
        for (int q = 0; q < k; q++) {
            alpha[q] = 0;
            if (!active[q]) continue;
            if (!(t[q] > 0)) {
                s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_cg: p.Sp = %g <= 0 at iteration %d, column %d",
                              t[q], it, q);
                goto out;
            }
            alpha[q] = rz[q] / t[q];
        }
        for (size_t i = 0; i < nk; i++) {
            const int q = (int)(i % (size_t)k);
            if (!active[q]) continue;
            x[i] += (float)(alpha[q] * p[i]);
            r[i] -= (float)(alpha[q] * Sp[i]);
            z[i] = diag ? r[i] / diag[i / (size_t)k] : r[i];
        }
        double nz[2 * MMX_CG_MAX_K];
        s = dots(ctx, dm, k, r, z, r, r, nz);
        if (s) goto out;
        for (int q = 0; q < k; q++) {
            if (!active[q]) continue;
            rep.col_iterations[q] = it;
            rep.iterations = it > rep.iterations ? it : rep.iterations;
            const double rn = sqrt(nz[k + q]), ref = o.rel_initial ? r0[q] : sqrt(bb[q]);
            rep.rel_residual[q] = rn / sqrt(bb[q]);
            if (rn <= o.rtol * ref) active[q] = 0, rep.converged[q] = 1;
            const double beta = nz[q] / rz[q];
            rz[q] = nz[q];
            if (active[q])
                for (mmx_index i = 0; i < n; i++) {
                    const size_t at = (size_t)i * (size_t)k + (size_t)q;
                    p[at] = (float)(z[at] + beta * p[at]);
                }
        }
    }
    /* The true residual, and every local row of x exact (the halo). */
    s = apply(ctx, dm, S, x, k, Sp, &io);
    if (s) goto out;
    for (size_t i = 0; i < nk; i++) r[i] = b[i] - Sp[i];
    s = dots(ctx, dm, k, r, r, NULL, NULL, t);
    for (int q = 0; !s && q < k; q++) rep.true_rel_residual[q] = bb[q] > 0 ? sqrt(t[q] / bb[q]) : 0;
    if (!s && uout) s = mmx_mem_copy(ctx, uout, MMX_SPACE_DEVICE, x, MMX_SPACE_HOST, nk * sizeof *x);
    if (!s && uout) s = mmx_ctx_sync(ctx); /* hx is freed below */
out:
    free(r), free(z), free(p), free(Sp), free(xb), free(hb), free(hx), free(hdiag);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, io.x);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, io.y);
    if (report) *report = rep;
    return s;
}
