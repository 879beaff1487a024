/* The topology a round of edge flips reads: face lists, the adjacency, and per edge its two
 * faces by the direction they run it (from the adjacency's FE: corner -> 2e + d). */
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"

void mmx__flip_topo_free(mmx__flip_topo *t)
{
    free(t->start);
    free(t->verts);
    free(t->ef);
    free(t->hf);
    free(t->vf_ptr);
    free(t->vf);
    mmx_adjacency_free(t->adj);
    memset(t, 0, sizeof *t);
}

mmx_status mmx__flip_topo_build(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who,
                                mmx__flip_topo *t)
{
    memset(t, 0, sizeof *t);
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                         "%s: the cavity operator runs on the host backend for now", who);
    if (mesh->space != MMX_SPACE_HOST)
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s: the mesh lives on the device", who);
    mmx_status s = mmx_mesh_faces(ctx, mesh, &t->start, &t->verts);
    if (s) return s;
    t->nverts = mesh->M->nrows;
    t->nfaces = mesh->M->ncols;
    for (mmx_index f = 0; f < t->nfaces; f++)
        if (t->start[f + 1] - t->start[f] != 3) {
            const int order = (int)(t->start[f + 1] - t->start[f]);
            mmx__flip_topo_free(t);
            return mmx__fail(ctx, MMX_ERR_MESH,
                             "%s: face %d has %d vertices: the cavity operator takes triangle "
                             "meshes only", who, (int)f, order);
        }
    s = mmx_adjacency_compute(ctx, mesh, &t->adj);
    if (!s) {
        t->nedges = t->adj->nedges;
        s = mmx__host_alloc(ctx, 2 * (size_t)t->nedges + 1, sizeof *t->ef, (void **)&t->ef);
    }
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)t->nedges + 1, sizeof *t->hf, (void **)&t->hf);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, sizeof *t->vf_ptr, (void **)&t->vf_ptr);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)t->nfaces + 1, sizeof *t->vf, (void **)&t->vf);
    if (s) {
        mmx__flip_topo_free(t);
        return s;
    }
    const mmx_index *fe = t->adj->fe, *sides = t->adj->sides;
    for (size_t i = 0; i < 2 * (size_t)t->nedges; i++) t->ef[i] = -1;
    /* Storage order is face order for triangles: corner k belongs to face k / 3. */
    for (mmx_index k = 0; k < 3 * t->nfaces; k++) {
        const mmx_index e = fe[k] / 2;
        if (sides[e] == 2) t->ef[fe[k]] = k / 3;
    }
    /* Two faces running the edge the same way leave one direction empty: not flippable. */
    for (mmx_index e = 0; e < t->nedges; e++)
        if (t->ef[2 * (size_t)e] < 0 || t->ef[2 * (size_t)e + 1] < 0)
            t->ef[2 * (size_t)e] = t->ef[2 * (size_t)e + 1] = -1;
    /* hf: ef, and the one face of each boundary edge in the slot of its direction. */
    memcpy(t->hf, t->ef, 2 * (size_t)t->nedges * sizeof *t->hf);
    for (mmx_index k = 0; k < 3 * t->nfaces; k++)
        if (sides[fe[k] / 2] == 1) t->hf[fe[k]] = k / 3;
    /* The faces at each vertex, by a counting sort of the corners (faces ascending). */
    memset(t->vf_ptr, 0, ((size_t)t->nverts + 1) * sizeof *t->vf_ptr);
    for (mmx_index k = 0; k < 3 * t->nfaces; k++) t->vf_ptr[t->verts[k] + 1]++;
    for (mmx_index v = 0; v < t->nverts; v++) t->vf_ptr[v + 1] += t->vf_ptr[v];
    for (mmx_index k = 0; k < 3 * t->nfaces; k++) t->vf[t->vf_ptr[t->verts[k]]++] = k / 3;
    for (mmx_index v = t->nverts; v > 0; v--) t->vf_ptr[v] = t->vf_ptr[v - 1];
    t->vf_ptr[0] = 0;
    return MMX_OK;
}

/* The vertex of triangle f after v. */
static mmx_index after(const mmx__flip_topo *t, mmx_index f, mmx_index v)
{
    const mmx_index *p = t->verts + 3 * (size_t)f;
    return p[0] == v ? p[1] : p[1] == v ? p[2] : p[0];
}

int mmx__flip_quad(const mmx__flip_topo *t, mmx_index e, mmx_index q[4])
{
    const mmx_index f0 = t->ef[2 * (size_t)e], f1 = t->ef[2 * (size_t)e + 1];
    if (f0 < 0 || f1 < 0) return 0;
    q[0] = t->adj->ev[2 * (size_t)e];
    q[1] = t->adj->ev[2 * (size_t)e + 1];
    q[2] = after(t, f0, q[1]); /* f0 runs a -> b -> c */
    q[3] = after(t, f1, q[0]); /* f1 runs b -> a -> d */
    return 1;
}

int mmx__flip_has_edge(const mmx__flip_topo *t, mmx_index u, mmx_index v)
{
    const mmx_index lo = u < v ? u : v, hi = u < v ? v : u;
    const mmx_index e = mmx__edge_find(t->adj->edge_ptr, t->adj->ev, lo, hi);
    return e < t->adj->edge_ptr[hi + 1] && t->adj->ev[2 * (size_t)e] == lo;
}
