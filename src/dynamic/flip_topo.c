/* The topology a round of edge flips reads: face lists, the adjacency, and per edge its two
 * faces by the direction they run it (from the adjacency's FE: corner -> 2e + d). */
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "spla/spla_internal.h" /* mmx__csc_alloc */

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
                             "meshes only (mmx_mesh_triangulate splits the faces)", who, (int)f, order);
        }
    s = mmx_adjacency_compute(ctx, mesh, &t->adj);
    if (!s) {
        t->nedges = t->adj->nedges;
        s = mmx__host_alloc(ctx, 2 * (size_t)t->nedges + 1, sizeof *t->ef, (void **)&t->ef);
    }
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)t->nedges + 1, sizeof *t->hf, (void **)&t->hf);
    /* The faces at each vertex, ascending: the columns of Mᵀ (its arrays taken over). */
    mmx_csc *T = NULL;
    if (!s) s = mmx_csc_transpose(ctx, mesh->M, &T);
    if (!s) {
        t->vf_ptr = T->colptr;
        t->vf = T->rowidx;
        T->colptr = T->rowidx = NULL;
        mmx_csc_free(T);
    }
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
    t->view = (mmx__flip_view){t->nverts, t->nfaces, t->nedges, t->verts, t->adj->edge_ptr,
                               t->adj->ev, t->ef};
    return MMX_OK;
}

int mmx__flip_quad(const mmx__flip_topo *t, mmx_index e, mmx_index q[4])
{
    return mmx__fv_quad(&t->view, e, q);
}

int mmx__flip_has_edge(const mmx__flip_topo *t, mmx_index u, mmx_index v)
{
    return mmx__fv_has_edge(&t->view, u, v);
}

/* ---- the device topology ------------------------------------------------------------------ */

void mmx__flip_dev_free(mmx_ctx *ctx, mmx__flip_dev *t)
{
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, t->ef);
    mmx_adjacency_free(t->adj);
    memset(t, 0, sizeof *t);
}

void mmx__sc_dev_free(mmx_ctx *ctx, mmx__sc_dev *t)
{
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, t->hf);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, t->vf_ptr);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, t->vf);
    mmx__flip_dev_free(ctx, &t->f);
    memset(t, 0, sizeof *t);
}

/* The first face of a device mesh that is not a triangle, named (an error path: the host
 * copy of its face lists). */
static mmx_status not_triangles(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who)
{
    mmx_index *start = NULL, *verts = NULL;
    mmx_status s = mmx_mesh_faces(ctx, mesh, &start, &verts);
    if (s) return s;
    mmx_index f = 0;
    while (f < mesh->M->ncols && start[f + 1] - start[f] == 3) f++;
    const int order = f < mesh->M->ncols ? (int)(start[f + 1] - start[f]) : 3;
    free(start);
    free(verts);
    return mmx__fail(ctx, MMX_ERR_MESH, "%s: face %d has %d vertices: the cavity operator takes "
                     "triangle meshes only (mmx_mesh_triangulate splits the faces)", who, (int)f, order);
}

mmx_status mmx__flip_dev_build(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who,
                               mmx__flip_dev *t)
{
    memset(t, 0, sizeof *t);
    if (mesh->space != MMX_SPACE_DEVICE)
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s: the mesh lives on the host and the context "
                         "is a CUDA one (copy it with mmx_mesh_copy)", who);
    mmx_status s = mmx_adjacency_compute(ctx, mesh, &t->adj); /* its one wait: the sizes */
    if (s) return s;
    const mmx_index nf = mesh->M->ncols;
    if (nf > 0 && t->adj->face_order != 3) {
        s = not_triangles(ctx, mesh, who);
        mmx__flip_dev_free(ctx, t);
        return s;
    }
    s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (2 * (size_t)t->adj->nedges + 1) * sizeof *t->ef,
                      (void **)&t->ef);
    if (!s) s = mmx__flip_ef_cuda(ctx, t->adj, nf, t->ef);
    if (s) {
        mmx__flip_dev_free(ctx, t);
        return s;
    }
    t->view = (mmx__flip_view){mesh->M->nrows, nf, t->adj->nedges, mesh->M->rowidx,
                               t->adj->edge_ptr, t->adj->ev, t->ef};
    return MMX_OK;
}

mmx_status mmx__dev_tri_mesh(mmx_ctx *ctx, mmx_index nv, mmx_index nf, int with_pos,
                             mmx_mesh **out)
{
    *out = NULL;
    mmx_mesh *m = calloc(1, sizeof *m);
    if (!m) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    m->space = MMX_SPACE_DEVICE;
    m->ctx = ctx;
    mmx__mesh_cache_attach(m);
    mmx_status s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, nv, nf, 3 * nf, 3, &m->M);
    if (!s) { /* the reduced form's properties (spla.h) */
        m->M->maxcol = nf > 0 ? 3 : 0;
        m->M->minval = nf > 0 ? 1 : 0;
        m->M->maxval = nf > 0 ? 3 : 0;
        m->M->positional = 1;
    }
    /* A few bytes more, so that a mesh without vertices still has positions. */
    if (!s && with_pos)
        s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (size_t)nv * 3 * sizeof(float) + 4,
                          (void **)&m->pos);
    if (s) {
        mmx_mesh_free(m);
        return s;
    }
    *out = m;
    return MMX_OK;
}

mmx_status mmx__flip_dev_mesh(mmx_ctx *ctx, const mmx_mesh *src, mmx_mesh **out)
{
    const mmx_index nv = src->M->nrows, nf = src->M->ncols;
    mmx_status s = mmx__dev_tri_mesh(ctx, nv, nf, src->pos != NULL, out);
    if (!s && src->pos)
        s = mmx_mem_copy(ctx, (*out)->pos, MMX_SPACE_DEVICE, src->pos, MMX_SPACE_DEVICE,
                         (size_t)nv * 3 * sizeof(float));
    if (s && *out) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
    return s;
}
