/* mmx_subdiv_limit: the limit surface at a mesh's vertices (OpenSubdiv's limit masks, rules.h),
 * computed on the host from the mesh's half-edge view: each vertex's ring in counter-clockwise
 * order, its kind from its sharpness and its edges' (the mesh's tags, the boundary mode, its
 * fans), and the position and tangent masks of that kind. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "subdiv_internal.h"
#include "mesh/mesh_internal.h"

/* What the loops read, on the host. */
typedef struct limit_in {
    mmx_scheme scheme;
    mmx_boundary boundary;
    const mmx_csc *M;   /* the host view's */
    const float *pos;
    mmx_index *mate, *first, *fe;
    unsigned char *one_fan;
    float *vsharp, *esharp; /* NULL: none */
    mmx_index nv0;
} limit_in;

static mmx_index corner_face(const limit_in *L, mmx_index c, mmx_index *a, mmx_index *n)
{
    return mmx__corner_face(L->M->order, L->M->colptr, L->M->ncols, c, a, n);
}

/* Vertex v's limit position (out) and normal (nrm, unit, or 0 where the tangents are parallel),
 * ring and weights in the scratch arrays (room for the vertex's valence + 1). */
static void limit_vertex(const limit_in *L, mmx_index v, mmx_index valence, mmx_index *ring,
                         mmx_index *diag, int *sharp, double *w, float *out, float *nrm)
{
    const float *P = L->pos;
    for (int i = 0; i < 3; i++) out[i] = P[3 * (int64_t)v + i], nrm[i] = 0.0f;
    mmx_index c = L->first[v];
    if (c < 0) return; /* in no face: it stays, without a normal */
    /* The counter-clockwise ring: from a corner of v, the next face counter-clockwise is across
     * the arriving edge (the mate of the previous corner runs it the other way, from v). Start
     * where the leaving edge is on the boundary (the leading boundary edge), else at the face of
     * the smallest number, as OpenSubdiv orders a vertex's edges and faces. */
    mmx_index a, n, start = c, best = corner_face(L, c, &a, &n);
    for (mmx_index k = 0; k < valence; k++) { /* clockwise: across the leaving edge */
        if (L->mate[c] < 0) { start = c; break; }
        c = L->mate[c];
        const mmx_index f = corner_face(L, c, &a, &n);
        c = mmx__corner_next(a, n, c);
        if (f < best) best = f, start = c;
    }
    int m = 0, faces = 0, boundary = 0;
    c = start;
    for (;;) {
        corner_face(L, c, &a, &n);
        const mmx_index nx = mmx__corner_next(a, n, c), pv = mmx__corner_prev(a, n, c);
        ring[m] = L->M->rowidx[nx];
        diag[faces] = n == 4 ? L->M->rowidx[mmx__corner_next(a, n, nx)] : -1;
        sharp[m++] = L->mate[c] < 0 || (L->esharp && L->esharp[L->fe[c] >> 1] > 0.0f);
        faces++;
        if (L->mate[pv] < 0) { /* the trailing boundary edge */
            ring[m] = L->M->rowidx[pv];
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

mmx_status mmx_subdiv_limit(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                            const mmx_subdiv_options *opts, float *pos, float *normals)
{
    MMX__NEED_CTX(ctx);
    const char *who = "mmx_subdiv_limit";
    if (scheme == MMX_SCHEME_SQRT3)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: sqrt3 has no limit masks here "
                         "(OpenSubdiv has no sqrt3)", who);
    if (!pos && !normals) return mmx__fail(ctx, MMX_ERR_ARG, "%s: pos and normals are NULL", who);
    mmx_subdiv_options o;
    mmx_adjacency *adj = NULL;
    mmx__subdiv_sharp sh;
    double ms = 0;
    mmx_status s = mmx__subdiv_prepare(ctx, who, scheme, mesh, 0, opts, 0, &o, &adj, &ms, &sh);
    if (s) return s;
    if (!s && adj->nonmanifold_edges > 0)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: the limit masks of an edge of three faces or "
                      "more are not implemented", who);
    const mmx_index order = mesh->M->ncols ? adj->face_order : (mmx__scheme_quads(scheme) ? 4 : 3);
    if (!s && scheme == MMX_SCHEME_CATMULL_CLARK && order != 4)
        s = mmx__fail(ctx, MMX_ERR_MESH, "%s: Catmull-Clark's limit masks need quads (a refined "
                      "mesh), and this mesh has other faces", who);
    const size_t nv = (size_t)adj->nverts, nnz = (size_t)mesh->M->nnz, ne = (size_t)adj->nedges;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx__halfedge H;
    memset(&H, 0, sizeof H);
    limit_in L;
    memset(&L, 0, sizeof L);
    L.scheme = scheme, L.boundary = sh.boundary, L.nv0 = sh.nv0;
    const mmx_mesh *hv = NULL;
    float *hpos = NULL, *hnrm = NULL;
    mmx_index *valence = NULL, *scratch = NULL;
    int *sharp = NULL;
    double *w = NULL;
    if (!s) s = mmx__halfedge_build(ctx, mesh, adj, &H);
    if (!s) s = mmx__mesh_host_view(ctx, mesh, &hv);
    const struct { void **at; size_t n, size; const void *from; } part[] = {
        {(void **)&L.mate, nnz, sizeof(mmx_index), H.mate},
        {(void **)&L.first, nv, sizeof(mmx_index), H.first},
        {(void **)&L.fe, nnz, sizeof(mmx_index), adj->fe},
        {(void **)&L.one_fan, nv, 1, H.one_fan},
        {(void **)&valence, nv, sizeof(mmx_index), adj->valence},
        {(void **)&L.vsharp, sh.vsharp ? (size_t)sh.nv0 : 0, sizeof(float), sh.vsharp},
        {(void **)&L.esharp, sh.esharp ? ne : 0, sizeof(float), sh.esharp},
    };
    for (size_t k = 0; !s && k < sizeof part / sizeof part[0]; k++) {
        if (!part[k].n) continue;
        s = mmx__host_alloc(ctx, part[k].n, part[k].size, part[k].at);
        if (!s) s = mmx_mem_copy(ctx, *part[k].at, MMX_SPACE_HOST, part[k].from, sp, part[k].n * part[k].size);
    }
    /* An edge run the same way by both its faces breaks the counter-clockwise rings. */
    for (size_t c = 0; !s && c < nnz; c++)
        if (L.mate[c] >= 0 && L.fe[L.mate[c]] == L.fe[c])
            s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: the limit of an edge that both its faces "
                          "run the same way is not implemented (corner %zu)", who, c);
    mmx_index maxval = adj->max_valence;
    if (!s) s = mmx__host_alloc(ctx, 2 * ((size_t)maxval + 2), sizeof *scratch, (void **)&scratch);
    if (!s) s = mmx__host_alloc(ctx, (size_t)maxval + 2, sizeof *sharp, (void **)&sharp);
    if (!s) s = mmx__host_alloc(ctx, 4 * ((size_t)maxval + 2), sizeof *w, (void **)&w);
    if (!s) s = mmx__host_alloc(ctx, 3 * nv + 1, sizeof *hpos, (void **)&hpos);
    if (!s) s = mmx__host_alloc(ctx, 3 * nv + 1, sizeof *hnrm, (void **)&hnrm);
    if (!s) {
        L.M = hv->M, L.pos = hv->pos;
        for (mmx_index v = 0; v < (mmx_index)nv; v++)
            limit_vertex(&L, v, valence[v], scratch, scratch + maxval + 2, sharp, w,
                         hpos + 3 * (int64_t)v, hnrm + 3 * (int64_t)v);
    }
    if (!s && pos) s = mmx_mem_copy(ctx, pos, sp, hpos, MMX_SPACE_HOST, 3 * nv * sizeof *hpos);
    if (!s && normals) s = mmx_mem_copy(ctx, normals, sp, hnrm, MMX_SPACE_HOST, 3 * nv * sizeof *hnrm);
    /* The copies above are queued from host arrays freed here: wait for them (CUDA). */
    if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    if (hv) mmx__mesh_host_release(mesh, hv);
    mmx__halfedge_free(&H);
    mmx_adjacency_free(adj);
    mmx__subdiv_sharp_free(&sh);
    free(L.mate), free(L.first), free(L.fe), free(L.one_fan), free(L.vsharp), free(L.esharp);
    free(valence), free(scratch), free(sharp), free(w), free(hpos), free(hnrm);
    return s;
}
