/* The edge split and edge collapse templates of the cavity operator (dynamic.h states their
 * rules): each builds a seed's cavity and checks it, and fills the kept ones into a new mesh.
 * A split adds a vertex and faces after the existing ones; a collapse removes a vertex and
 * faces and compacts the numbering, survivors in order. Also the triangle checks all the
 * templates share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "sc_step.h"

/* The triangle checks are flip_step.h's, the code the CUDA flips run too. */
void mmx__point(const float *pos, mmx_index v, double p[3])
{
    mmx__hd_point(pos, v, p);
}

void mmx__tri_normal(const double P[3], const double Q[3], const double R[3], double n[3])
{
    mmx__hd_tri_normal(P, Q, R, n);
}

int mmx__bad_triangle(const double P[3], const double Q[3], const double R[3], const double N[3])
{
    return mmx__hd_bad_triangle(P, Q, R, N);
}

mmx__sc_view mmx__sc_host_view(const mmx__flip_topo *t)
{
    const mmx__sc_view v = {t->view, t->hf, t->adj->sides, t->adj->boundary, t->adj->E->colptr,
                            t->adj->E->rowidx, t->vf_ptr, t->vf};
    return v;
}

int mmx__split_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e, mmx_cavity_seed *sd,
                      mmx_index *ring, mmx_index *nring)
{
    const mmx__sc_view v = mmx__sc_host_view(t);
    return mmx__sc_split_cavity(&v, pos, e, sd, ring, nring);
}

int mmx__collapse_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e,
                         mmx_cavity_seed *sd, mmx_index *ring, mmx_index *nring)
{
    return mmx__collapse_cavity_at(t, pos, e, NULL, sd, ring, nring);
}

int mmx__collapse_cavity_at(const mmx__flip_topo *t, const float *pos, mmx_index e,
                            const float *place, mmx_cavity_seed *sd, mmx_index *ring,
                            mmx_index *nring)
{
    const mmx__sc_view v = mmx__sc_host_view(t);
    return mmx__sc_collapse_cavity(&v, pos, e, place, sd, ring, nring);
}

mmx_status mmx__split_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                           const mmx_index *seeds, mmx_cavity_seed *sd, const mmx_index *kept,
                           mmx_index nkept, mmx_mesh **out)
{
    mmx_index extra = 0;
    for (mmx_index i = 0; i < nkept; i++) extra += sd[kept[i]].faces[1] >= 0 ? 2 : 1;
    const mmx_index nv = t->nverts + nkept, nf = t->nfaces + extra;
    mmx_index *start = NULL, *verts = NULL;
    float *p = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof *start, (void **)&start);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)nf + 1, sizeof *verts, (void **)&verts);
    if (!s && pos) s = mmx__host_alloc(ctx, 3 * (size_t)nv + 1, sizeof *p, (void **)&p);
    if (!s) {
        for (mmx_index f = 0; f <= nf; f++) start[f] = 3 * f;
        memcpy(verts, t->verts, 3 * (size_t)t->nfaces * sizeof *verts);
        if (pos) memcpy(p, pos, 3 * (size_t)t->nverts * sizeof *p);
        mmx_index next = t->nfaces;
        for (mmx_index i = 0; i < nkept; i++) {
            mmx_cavity_seed *x = &sd[kept[i]];
            const mmx_index e = seeds[kept[i]], m = t->nverts + i;
            const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
            x->vertex = m;
            if (pos)
                for (int k = 0; k < 3; k++) p[3 * (size_t)m + k] = mmx__sc_mid(pos, a, b, k);
            mmx__sc_fill_split(&t->view, e, x, m, next, verts);
            next += x->faces[1] >= 0 ? 2 : 1;
        }
        s = mmx_mesh_from_faces(ctx, nv, nf, start, verts, p, out);
    }
    free(start);
    free(verts);
    free(p);
    return s;
}

mmx_status mmx__collapse_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                              const mmx_index *seeds, const float *place, mmx_cavity_seed *sd,
                              const mmx_index *kept, mmx_index nkept, mmx_mesh **out)
{
    mmx_index *to = NULL, *vid = NULL;
    unsigned char *keepf = NULL;
    float *p = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, sizeof *to, (void **)&to);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, sizeof *vid, (void **)&vid);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, 1, (void **)&keepf);
    if (!s && pos) s = mmx__host_alloc(ctx, 3 * (size_t)t->nverts + 1, sizeof *p, (void **)&p);
    if (!s) {
        /* Each kept seed merges b into a (to[b] = a) at its place; its faces go. */
        for (mmx_index v = 0; v < t->nverts; v++) to[v] = v;
        memset(keepf, 1, (size_t)t->nfaces);
        if (pos) memcpy(p, pos, 3 * (size_t)t->nverts * sizeof *p);
        mmx_index gone = 0;
        for (mmx_index i = 0; i < nkept; i++) {
            const mmx_cavity_seed *x = &sd[kept[i]];
            const mmx_index e = seeds[kept[i]];
            const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
            to[b] = a;
            keepf[x->faces[0]] = 0;
            gone += 1 + (x->faces[1] >= 0);
            if (x->faces[1] >= 0) keepf[x->faces[1]] = 0;
            if (pos)
                for (int k = 0; k < 3; k++)
                    p[3 * (size_t)a + k] = place ? place[3 * (size_t)kept[i] + k]
                                                 : mmx__sc_mid(pos, a, b, k);
        }
        const mmx__compact c = {keepf, to, p, t->nverts - nkept, t->nfaces - gone, 0, 0};
        s = mmx__round_compact(ctx, MMX_SPACE_HOST, t->verts, t->nverts, t->nfaces, &c, out,
                               vid);
        for (mmx_index i = 0; !s && i < nkept; i++)
            sd[kept[i]].vertex = vid[t->adj->ev[2 * (size_t)seeds[kept[i]]]];
    }
    free(to);
    free(vid);
    free(keepf);
    free(p);
    return s;
}
