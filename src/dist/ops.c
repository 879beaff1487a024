/* Operations on the partitioned mesh that are local with a halo: vertex normals and the
 * explicit smoothing steps. Each computes on the local mesh, where the owned vertices' values
 * are exact (their faces, or their rings, are all local), then exchanges the halo. On CUDA the
 * local mesh and the arrays are on the device and the library's CUDA paths compute. */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"
#include "geom/geom_internal.h" /* mmx__smooth_with */

int mmx_dist_rings(const char *op)
{
    if (!op) return -1;
    if (!strcmp(op, "normals") || !strcmp(op, "smooth:laplacian") || !strcmp(op, "smooth:cotan") ||
        !strcmp(op, "smooth:bilateral") || !strcmp(op, "query"))
        return 1;
    if (!strcmp(op, "smooth:taubin")) return 2;
    if (!strncmp(op, "subdiv:", 7)) {
        const int sqrt3 = !strncmp(op + 7, "sqrt3:", 6);
        const char *n = op + (sqrt3 ? 13 : 7);
        char *end = NULL;
        const long l = strtol(n, &end, 10);
        if (end == n || *end || l < 0 || l > 64) return -1;
        return mmx__dist_subdiv_rings(sqrt3 ? MMX_SCHEME_SQRT3 : MMX_SCHEME_LOOP, (int)l);
    }
    return -1;
}

int mmx__dist_subdiv_rings(mmx_scheme scheme, int levels)
{
    /* dist.h's mmx_dist_subdivide says why: Loop, Catmull-Clark and bilinear one ring for any
     * number of levels; sqrt3 one for a level, two up to four, three for more. */
    if (scheme != MMX_SCHEME_SQRT3 || levels <= 1) return 1;
    return levels <= 4 ? 2 : 3;
}

static mmx_status need_rings(mmx_ctx *ctx, const mmx_dist_mesh *dm, int rings, const char *what)
{
    if (dm->rings >= rings) return MMX_OK;
    return mmx__fail(ctx, MMX_ERR_ARG, "%s needs %d ghost ring%s, the partitioned mesh has %d "
                     "(mmx_dist_rings)", what, rings, rings == 1 ? "" : "s", dm->rings);
}

mmx_status mmx_dist_vertex_normals(mmx_ctx *ctx, const mmx_dist_mesh *dm,
                                   mmx_normal_weight weight, float *normals)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_vertex_normals: dm is NULL");
    mmx_status s = need_rings(ctx, dm, 1, "mmx_dist_vertex_normals");
    /* A rank whose part is empty (fewer faces than ranks) holds no vertex: nothing to compute,
     * and its arrays may be NULL (a device allocation of 0 bytes is), but it joins the
     * collectives. */
    if (!s && mmx_mesh_nverts(dm->local) > 0) s = mmx_vertex_normals(ctx, dm->local, weight, normals);
    s = mmx_dist_agree(ctx, dm->d, s);
    if (!s) s = mmx_dist_exchange(ctx, dm, normals, 3);
    return s;
}

/* The smoothers' step between iterations (mmx__smooth_with's hook): the status agreed (with
 * the last exchange's local failure), then, from the second call on (the first follows the
 * set-up), the halo exchanged into x, its own failure kept for the next agreement: so every
 * rank makes the same calls and none waits alone in a collective. */
typedef struct exchange_hook {
    const mmx_dist_mesh *dm;
    mmx_status pending;
    int calls;
    mmx__dist_xbuf b;
} exchange_hook;

static mmx_status exchange_step(mmx_ctx *ctx, mmx_status s, float *x, void *arg)
{
    exchange_hook *h = arg;
    const int setup = h->calls++ == 0;
    s = mmx_dist_agree(ctx, h->dm->d, s ? s : h->pending);
    h->pending = MMX_OK;
    if (s || setup) return s;
    h->pending = mmx__dist_exchange_queued(ctx, h->dm, x, &h->b);
    return MMX_OK;
}

mmx_status mmx_dist_smooth(mmx_ctx *ctx, const mmx_dist_mesh *dm, const mmx_smooth_options *opts,
                           float *out, mmx_smooth_report *report)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_smooth: dm is NULL");
    const double t0 = mmx__dist_now_ms();
    mmx_smooth_options o = opts ? *opts : mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    mmx_smooth_report rep, one;
    memset(&rep, 0, sizeof rep);
    const mmx_mesh *L = dm->local;
    const int empty = mmx_mesh_nverts(L) == 0; /* an empty part: see mmx_dist_vertex_normals */
    mmx_status s = MMX_OK;
    if (!empty && (!out || !L->pos))
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_smooth: %s", !out ? "out is NULL" : "the mesh has no positions");
    else if (o.method == MMX_SMOOTH_MCF)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_dist_smooth: mcf (a global solve) does not run "
                      "over ranks yet");
    else if (o.path != MMX_SMOOTH_ASSEMBLED)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_dist_smooth: the assembled path only");
    else if ((unsigned)o.method > MMX_SMOOTH_MCF)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_smooth: unknown method %d", (int)o.method);
    else
        s = need_rings(ctx, dm, o.method == MMX_SMOOTH_TAUBIN ? 2 : 1, "mmx_dist_smooth");
    if (!s && o.iterations < 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_smooth: iterations %d < 0", o.iterations);
    s = mmx_dist_agree(ctx, dm->d, s);
    if (s) return s;
    const int n = o.iterations;
    const size_t bytes = 3 * (size_t)mmx_mesh_nverts(L) * sizeof *out;
    if (!empty && out != L->pos && dm->dev)
        s = mmx_mem_copy(ctx, out, MMX_SPACE_DEVICE, L->pos, MMX_SPACE_DEVICE, bytes);
    else if (!empty && out != L->pos)
        memmove(out, L->pos, bytes);
    s = mmx_dist_agree(ctx, dm->d, s);
    if (s) return s;
    /* A view of the local mesh with the current positions: it shares the local mesh's cache
     * (mesh.h), so the adjacency and the Laplacian are made once for all the steps. */
    mmx_mesh view = *L;
    view.pos = out;
    if (o.method == MMX_SMOOTH_BILATERAL) {
        /* One call per iteration (the bilateral steps take no hook), the exchange after each. */
        o.iterations = 1;
        for (int it = 0; it < n && !s; it++) {
            if (empty) {
                memset(&one, 0, sizeof one);
                one.iterations = 1, one.step = o.step, one.mu = o.mu;
            } else
                s = mmx_smooth(ctx, &view, &o, out, &one);
            s = mmx_dist_agree(ctx, dm->d, s);
            if (!s) s = mmx_dist_exchange(ctx, dm, out, 3);
            if (!s) {
                rep.iterations += one.iterations, rep.step = one.step, rep.mu = one.mu;
                rep.fixed = one.fixed;
            }
        }
    } else {
        /* One call for all the iterations with the exchange between them (exchange_step):
         * one agreement per iteration and, on the device with NCCL, no wait. */
        exchange_hook h = {dm, MMX_OK, 0, {0, MMX_SPACE_HOST, NULL, NULL, NULL}};
        mmx_status b = mmx__dist_xbuf_create(ctx, dm, 3, &h.b);
        if (empty) {
            memset(&one, 0, sizeof one);
            one.step = o.step, one.mu = o.mu;
            s = exchange_step(ctx, b, NULL, &h);
            for (int it = 0; it < n && !s; it++) {
                s = exchange_step(ctx, MMX_OK, NULL, &h);
                if (!s) one.iterations = it + 1;
            }
        } else {
            s = b ? b : mmx__smooth_with(ctx, &view, &o, out, &one, exchange_step, &h);
            /* Failed before its set-up (the hook never called): the set-up's agreement here,
             * so that every rank makes the same ones. */
            if (h.calls == 0) s = exchange_step(ctx, s, NULL, &h);
        }
        s = mmx_dist_agree(ctx, dm->d, s ? s : h.pending);
        const mmx_status t = mmx__dist_exchange_times(ctx, dm);
        if (!s) s = t;
        mmx__dist_xbuf_free(ctx, &h.b);
        if (!s) rep.iterations = one.iterations, rep.step = one.step, rep.mu = one.mu, rep.fixed = one.fixed;
    }
    if (n == 0) rep.step = o.step, rep.mu = o.mu;
    rep.ms = mmx__dist_now_ms() - t0;
    if (report) *report = rep;
    return s;
}
