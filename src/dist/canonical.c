/* The canonical renumbering: vertices numbered by first use in face order. Two meshes that are
 * the same up to vertex numbering (and vertices in no face) become the same arrays. */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

/* The texture coordinates numbered by first use in corner order (values no corner uses
 * dropped), onto m. */
static mmx_status canonical_uv(mmx_ctx *ctx, const mmx_mesh_uv *uv, int64_t nnz, mmx_mesh *m)
{
    if (uv->space != MMX_SPACE_HOST)
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_dist_canonical: texture coordinates in device memory");
    int64_t *map = NULL;
    mmx_mesh_uv *c = calloc(1, sizeof *c);
    mmx_status s = c ? MMX_OK : mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_dist_canonical: out of host memory");
    if (!s) s = mmx__host_alloc(ctx, (size_t)uv->nvalues + 1, sizeof *map, (void **)&map);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *c->index, (void **)&c->index);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)uv->nvalues + 1, sizeof *c->values, (void **)&c->values);
    if (!s) {
        for (mmx_index v = 0; v < uv->nvalues; v++) map[v] = -1;
        for (int64_t q = 0; q < nnz; q++) {
            const mmx_index v = uv->index[q];
            if (map[v] < 0) {
                memcpy(c->values + 2 * (size_t)c->nvalues, uv->values + 2 * (size_t)v, 2 * sizeof *c->values);
                map[v] = c->nvalues++;
            }
            c->index[q] = (mmx_index)map[v];
        }
        c->space = MMX_SPACE_HOST;
        m->uv = c;
        c = NULL;
    }
    mmx_mesh_uv_free(c);
    free(map);
    return s;
}

mmx_status mmx_dist_canonical(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_canonical: NULL argument");
    *out = NULL;
    if (mesh->space != MMX_SPACE_HOST || mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_dist_canonical: a host mesh on a host context");
    const mmx_index V = mmx_mesh_nverts(mesh), F = mmx_mesh_nfaces(mesh);
    mmx_index *start = NULL, *verts = NULL;
    int64_t *map = NULL;
    float *pos = NULL;
    mmx_mesh_tags *T = NULL;
    mmx_mesh *m = NULL;
    mmx_status s = mmx_mesh_faces(ctx, mesh, &start, &verts);
    if (!s) s = mmx__host_alloc(ctx, (size_t)V, sizeof *map, (void **)&map);
    if (!s && mesh->pos) s = mmx__host_alloc(ctx, 3 * (size_t)V, sizeof *pos, (void **)&pos);
    if (!s && mesh->tags) s = mmx_mesh_tags_parse(ctx, mesh, &T);
    if (s) goto out;
    for (mmx_index v = 0; v < V; v++) map[v] = -1;
    mmx_index n = 0;
    for (mmx_index c = 0; c < start[F]; c++) {
        const mmx_index v = verts[c];
        if (map[v] < 0) {
            if (pos) memcpy(pos + 3 * (size_t)n, mesh->pos + 3 * (size_t)v, 3 * sizeof *pos);
            map[v] = n++;
        }
        verts[c] = (mmx_index)map[v];
    }
    s = mmx_mesh_from_faces(ctx, n, F, start, verts, pos, &m);
    if (!s && T) s = mmx__dist_map_tags(ctx, T, map, NULL, m);
    if (!s && mesh->uv) s = canonical_uv(ctx, mesh->uv, start[F], m);
out:
    free(start), free(verts), free(map), free(pos);
    mmx_mesh_tags_free(T);
    if (s) mmx_mesh_free(m);
    else *out = m;
    return s;
}
