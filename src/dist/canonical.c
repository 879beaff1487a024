/* The canonical renumbering: vertices numbered by first use in face order. Two meshes that are
 * the same up to vertex numbering (and vertices in no face) become the same arrays. */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

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
out:
    free(start), free(verts), free(map), free(pos);
    mmx_mesh_tags_free(T);
    if (s) mmx_mesh_free(m);
    else *out = m;
    return s;
}
