/* The limit surface at one vertex (mmx_subdiv_limit, limit.c; its kernel, limit.cu): the
 * vertex's counter-clockwise ring from the half-edge view, its kind from its sharpness and its
 * edges' (the mesh's tags, the boundary mode, its fans), and the position and tangent masks of
 * that kind (rules.h), the same arithmetic on both backends. */
#ifndef MMX_SUBDIV_LIMIT_VERTEX_H
#define MMX_SUBDIV_LIMIT_VERTEX_H

#include <math.h>
#include "subdiv_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one vertex reads, by value so that a kernel takes it as a parameter; arrays in the
 * context's space. */
typedef struct mmx__limit_in {
    mmx_scheme scheme;
    mmx_boundary boundary;
    mmx_index order, nf;      /* the mesh matrix: reduced of `order`, or colptr (order 0) */
    const mmx_index *colptr, *rowidx;
    const float *pos;
    const mmx_index *mate, *first, *fe;
    const unsigned char *one_fan;
    const float *vsharp, *esharp; /* NULL: none */
    mmx_index nv0;
} mmx__limit_in;

static inline MMX__HD mmx_index mmx__limit_corner_face(const mmx__limit_in *L, mmx_index c,
                                                       mmx_index *a, mmx_index *n)
{
    return mmx__corner_face(L->order, L->colptr, L->nf, c, a, n);
}

/* Vertex v's limit position (out) and normal (nrm, unit, or 0 where the tangents are parallel),
 * ring and weights in the scratch arrays: ring, diag and sharp valence + 2 entries each, w four
 * times that. */
static inline MMX__HD void mmx__limit_vertex(const mmx__limit_in *L, mmx_index v,
                                             mmx_index valence, mmx_index *ring, mmx_index *diag,
                                             mmx_index *sharp, double *w, float *out, float *nrm)
{
    const float *P = L->pos;
    for (int i = 0; i < 3; i++) out[i] = P[3 * (int64_t)v + i], nrm[i] = 0.0f;
    mmx_index c = L->first[v];
    if (c < 0) return; /* in no face: it stays, without a normal */
    /* The counter-clockwise ring: from a corner of v, the next face counter-clockwise is across
     * the arriving edge (the mate of the previous corner runs it the other way, from v). Start
     * where the leaving edge is on the boundary (the leading boundary edge), else at the face of
     * the smallest number, as OpenSubdiv orders a vertex's edges and faces. */
    mmx_index a, n, start = c, best = mmx__limit_corner_face(L, c, &a, &n);
    for (mmx_index k = 0; k < valence; k++) { /* clockwise: across the leaving edge */
        if (L->mate[c] < 0) { start = c; break; }
        c = L->mate[c];
        const mmx_index f = mmx__limit_corner_face(L, c, &a, &n);
        c = mmx__corner_next(a, n, c);
        if (f < best) best = f, start = c;
    }
    int m = 0, faces = 0, boundary = 0;
    c = start;
    for (;;) {
        mmx__limit_corner_face(L, c, &a, &n);
        const mmx_index nx = mmx__corner_next(a, n, c), pv = mmx__corner_prev(a, n, c);
        ring[m] = L->rowidx[nx];
        diag[faces] = n == 4 ? L->rowidx[mmx__corner_next(a, n, nx)] : -1;
        sharp[m++] = L->mate[c] < 0 || (L->esharp && L->esharp[L->fe[c] >> 1] > 0.0f);
        faces++;
        if (L->mate[pv] < 0) { /* the trailing boundary edge */
            ring[m] = L->rowidx[pv];
            sharp[m++] = 1;
            boundary = 1;
            break;
        }
        c = L->mate[pv];
        if (c == start || faces > valence) break;
    }
    int nsharp = 0, c0 = -1, c1 = -1;
    for (int i = 0; i < m; i++)
        if (sharp[i]) nsharp++, c0 = c0 < 0 ? i : c0, c1 = i;
    float vs0 = L->vsharp && v < L->nv0 ? L->vsharp[v] : 0.0f, vs, vs_child;
    if (!L->one_fan[v]) vs0 = MMX__SHARP_INF;
    mmx__rule_vertex_sharpness(vs0, 0, boundary, faces, L->boundary, &vs, &vs_child);
    int kind = mmx__rule_vertex_kind(vs, nsharp);
    if (L->scheme == MMX_SCHEME_BILINEAR) kind = MMX__VERTEX_CORNER;
    if (L->scheme == MMX_SCHEME_CATMULL_CLARK && kind == MMX__VERTEX_SMOOTH && faces == 2)
        kind = MMX__VERTEX_CORNER;
    /* Position. */
    double x[3] = {P[3 * (int64_t)v], P[3 * (int64_t)v + 1], P[3 * (int64_t)v + 2]}, acc[3];
    if (kind == MMX__VERTEX_CREASE) {
        double self, e;
        mmx__rule_limit_crease(&self, &e);
        for (int i = 0; i < 3; i++)
            acc[i] = self * x[i] + e * P[3 * (int64_t)ring[c0] + i] + e * P[3 * (int64_t)ring[c1] + i];
    } else if (kind == MMX__VERTEX_SMOOTH) {
        double self, e, f;
        mmx__rule_limit_smooth(L->scheme, faces, &self, &e, &f);
        for (int i = 0; i < 3; i++) {
            double s = 0.0;
            for (int k = 0; k < m; k++) s += e * P[3 * (int64_t)ring[k] + i];
            for (int k = 0; f != 0.0 && k < faces; k++) s += f * P[3 * (int64_t)diag[k] + i];
            acc[i] = s + self * x[i];
        }
    } else {
        for (int i = 0; i < 3; i++) acc[i] = x[i];
    }
    for (int i = 0; i < 3; i++) out[i] = (float)acc[i];
    /* Tangents and the normal. */
    double *t1e = w, *t2e = w + m, *t1f = w + 2 * m, *t2f = w + 2 * m + faces, t1v, t2v;
    mmx__rule_limit_tangents(L->scheme, kind, faces, m, c0, c1, &t1v, t1e, t1f, &t2v, t2e, t2f);
    double t1[3], t2[3];
    for (int i = 0; i < 3; i++) {
        t1[i] = t1v * x[i], t2[i] = t2v * x[i];
        for (int k = 0; k < m; k++)
            t1[i] += t1e[k] * P[3 * (int64_t)ring[k] + i], t2[i] += t2e[k] * P[3 * (int64_t)ring[k] + i];
        for (int k = 0; k < faces && diag[k] >= 0; k++)
            t1[i] += t1f[k] * P[3 * (int64_t)diag[k] + i], t2[i] += t2f[k] * P[3 * (int64_t)diag[k] + i];
    }
    const double nn[3] = {t1[1] * t2[2] - t1[2] * t2[1], t1[2] * t2[0] - t1[0] * t2[2],
                          t1[0] * t2[1] - t1[1] * t2[0]};
    const double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
    if (len > 0.0)
        for (int i = 0; i < 3; i++) nrm[i] = (float)(nn[i] / len);
}

/* What mmx_subdiv_limit computes once per mesh (its checks, adjacency, half-edge view,
 * sharpness, scratch), so that a plan applies it to every evaluation's positions with the
 * kernel alone: mmx__limit_prepare, then mmx__limit_run per position array. */
typedef struct mmx__limit_state {
    mmx__limit_in L;          /* L.pos is each run's */
    mmx_adjacency *adj;
    mmx__halfedge H;
    mmx__subdiv_sharp sh;
    mmx_index slot, workers, nv;
    mmx_index *idx;           /* scratch: workers x 3 slot */
    double *w;                /* scratch: workers x 4 slot */
} mmx__limit_state;

/* The state of `mesh` (mmx_subdiv_limit's arguments and errors, but for the outputs), which
 * keeps pointers into the mesh (its matrix and tags): the mesh must outlive it. Synchronises as
 * mmx_subdiv_limit's checks do. */
mmx_status mmx__limit_prepare(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                              const mmx_subdiv_options *opts, mmx__limit_state *st);
/* The limit positions and normals (either NULL) of the positions `pos` (the mesh's vertices,
 * nv x 3 in the context's space, not overlapping the outputs): queued on CUDA (one kernel, no
 * wait, no allocation: a graph may capture it), done on the host. Errors: MMX_ERR_NOMEM (host,
 * an output NULL), MMX_ERR_CUDA. */
mmx_status mmx__limit_run(mmx_ctx *ctx, const mmx__limit_state *st, const float *pos, float *out,
                          float *normals);
/* Frees the state's arrays (in stream order) and zeroes it. */
void mmx__limit_state_free(mmx_ctx *ctx, mmx__limit_state *st);

/* The CUDA half of mmx_subdiv_limit (limit.cu): mmx__limit_vertex for the nv vertices by
 * `workers` threads (grid-stride), thread t with the scratch idx + 3 slot t (ring, diag, sharp)
 * and w + 4 slot t; pos and normals (either NULL) get 3 floats per vertex. Queued. */
mmx_status mmx__limit_cuda(mmx_ctx *ctx, mmx__limit_in L, mmx_index nv, const mmx_index *valence,
                           mmx_index slot, mmx_index workers, mmx_index *idx, double *w,
                           float *pos, float *normals);

#ifdef __cplusplus
}
#endif
#endif
