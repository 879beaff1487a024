/* Delaunay edge flips by the cavity operator: each round proposes every interior edge whose
 * opposite angles sum to more than pi (plus MMX_DELAUNAY_TOL) as an EDGE_FLIP seed; the round
 * keeps a maximal independent set of them by priority and flips those. On a plane each flip
 * lowers the triangulation's potential, so the rounds end; on a surface the round cap is the
 * guard. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"

#define MMX__PI 3.14159265358979323846

/* The angle at c of the triangle (a, b, c), in double precision (atan2 of |cross| and dot,
 * accurate near 0 and pi where acos is not). */
static double angle_at(const float *pos, mmx_index a, mmx_index b, mmx_index c)
{
    const float *A = pos + 3 * (size_t)a, *B = pos + 3 * (size_t)b, *C = pos + 3 * (size_t)c;
    const double u[3] = {(double)A[0] - C[0], (double)A[1] - C[1], (double)A[2] - C[2]};
    const double v[3] = {(double)B[0] - C[0], (double)B[1] - C[1], (double)B[2] - C[2]};
    const double x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    return atan2(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]),
                 u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
}

int mmx_delaunay_violates(const float *pos, mmx_index a, mmx_index b, mmx_index c, mmx_index d)
{
    return angle_at(pos, a, b, c) + angle_at(pos, a, b, d) > MMX__PI + MMX_DELAUNAY_TOL;
}

/* The interior edges over the bound, in edge order, into a malloc'd array. */
static mmx_status violators(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                            mmx_index **seeds, mmx_index *n)
{
    mmx_index count = 0, q[4];
    for (mmx_index e = 0; e < t->nedges; e++)
        count += mmx__flip_quad(t, e, q) && mmx_delaunay_violates(pos, q[0], q[1], q[2], q[3]);
    mmx_status s = mmx__host_alloc(ctx, (size_t)count, sizeof **seeds, (void **)seeds);
    if (s) return s;
    *n = 0;
    for (mmx_index e = 0; e < t->nedges; e++)
        if (mmx__flip_quad(t, e, q) && mmx_delaunay_violates(pos, q[0], q[1], q[2], q[3]))
            (*seeds)[(*n)++] = e;
    return MMX_OK;
}

mmx_status mmx_delaunay_round(mmx_ctx *ctx, const mmx_mesh *mesh, uint32_t round, mmx_mesh **out,
                              mmx_cavity_counts *counts)
{
    if (!mesh || !mesh->M || !out)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_delaunay_round: NULL argument");
    *out = NULL;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_HOST && !mesh->pos)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_delaunay_round: the mesh has no positions");
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_delaunay_round", &t);
    if (s) return s;
    mmx_index *seeds = NULL, n = 0;
    s = violators(ctx, &t, mesh->pos, &seeds, &n);
    if (!s) s = mmx__cavity_round_topo(ctx, mesh, &t, MMX_CAVITY_EDGE_FLIP, seeds, n, round, out, counts, NULL);
    free(seeds);
    mmx__flip_topo_free(&t);
    return s;
}

mmx_status mmx_delaunay_flip(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out,
                             mmx_delaunay_report *report)
{
    if (!mesh || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_delaunay_flip: NULL argument");
    *out = NULL;
    mmx_delaunay_report r;
    memset(&r, 0, sizeof r);
    mmx_mesh *cur = NULL;
    mmx_status s = MMX_OK;
    int capped = 1;
    for (int k = 0; k < MMX_DELAUNAY_MAX_ROUNDS; k++) {
        mmx_mesh *next = NULL;
        mmx_cavity_counts c;
        s = mmx_delaunay_round(ctx, cur ? cur : mesh, (uint32_t)k, &next, &c);
        if (s) break;
        mmx_mesh_free(cur);
        cur = next;
        if (c.kept == 0) { /* nothing flippable is left: what is over the bound stays */
            r.remaining = c.proposed;
            capped = 0;
            break;
        }
        r.flips_per_round[r.rounds] = c.kept;
        r.proposed_per_round[r.rounds] = c.proposed;
        r.rounds++;
        r.flips += c.kept;
    }
    if (!s && capped) { /* the cap stopped it: count what is left */
        mmx__flip_topo t;
        mmx_index *seeds = NULL;
        s = mmx__flip_topo_build(ctx, cur, "mmx_delaunay_flip", &t);
        if (!s) {
            s = violators(ctx, &t, cur->pos, &seeds, &r.remaining);
            free(seeds);
            mmx__flip_topo_free(&t);
        }
    }
    if (s) {
        mmx_mesh_free(cur);
        return s;
    }
    *out = cur;
    if (report) *report = r;
    return MMX_OK;
}
