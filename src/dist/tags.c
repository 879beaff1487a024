/* Tags through a vertex map: the local meshes' creases and corners (dist_mesh.c), and the
 * gathered or renumbered results' (dist_subdiv.c, canonical.c). */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t edge_key(mmx_index a, mmx_index b)
{
    const uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
    return (uint64_t)lo << 32 | hi;
}

mmx_status mmx__dist_edges(mmx_ctx *ctx, mmx_index nfaces, const mmx_index *start,
                           const mmx_index *verts, uint64_t **keys, size_t *n)
{
    uint64_t *k = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)start[nfaces], sizeof *k, (void **)&k);
    if (s) return s;
    size_t m = 0;
    for (mmx_index f = 0; f < nfaces; f++)
        for (mmx_index c = start[f]; c < start[f + 1]; c++) {
            const mmx_index nx = c + 1 < start[f + 1] ? c + 1 : start[f];
            k[m++] = edge_key(verts[c], verts[nx]);
        }
    qsort(k, m, sizeof *k, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (!u || k[i] != k[u - 1]) k[u++] = k[i];
    *keys = k, *n = u;
    return MMX_OK;
}

int mmx__dist_has_edge(const uint64_t *keys, size_t n, mmx_index a, mmx_index b)
{
    const uint64_t key = edge_key(a, b);
    return bsearch(&key, keys, n, sizeof *keys, cmp_u64) != NULL;
}

mmx_status mmx__dist_map_tags(mmx_ctx *ctx, const mmx_mesh_tags *T, const int64_t *map,
                              const int64_t *fmap, mmx_mesh *to)
{
    if (!T) return MMX_OK;
    mmx_index *start = NULL, *verts = NULL;
    uint64_t *keys = NULL;
    size_t nk = 0;
    mmx_mesh_tags L;
    memset(&L, 0, sizeof L);
    mmx_status s = MMX_OK;
    if (T->ncreases > 0) {
        s = mmx_mesh_faces(ctx, to, &start, &verts);
        if (!s) s = mmx__dist_edges(ctx, mmx_mesh_nfaces(to), start, verts, &keys, &nk);
    }
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)T->ncreases, sizeof *L.crease_verts, (void **)&L.crease_verts);
    if (!s) s = mmx__host_alloc(ctx, (size_t)T->ncreases, sizeof *L.crease_sharpness, (void **)&L.crease_sharpness);
    if (!s) s = mmx__host_alloc(ctx, (size_t)T->ncorners, sizeof *L.corner_verts, (void **)&L.corner_verts);
    if (!s) s = mmx__host_alloc(ctx, (size_t)T->ncorners, sizeof *L.corner_sharpness, (void **)&L.corner_sharpness);
    if (!s) s = mmx__host_alloc(ctx, (size_t)T->nholes, sizeof *L.holes, (void **)&L.holes);
    if (s) goto out;
    for (mmx_index i = 0; i < T->nholes; i++) {
        const int64_t f = fmap ? fmap[T->holes[i]] : T->holes[i];
        if (f >= 0) L.holes[L.nholes++] = (mmx_index)f;
    }
    for (mmx_index i = 0; i < T->ncreases; i++) {
        const int64_t a = map[T->crease_verts[2 * i]], b = map[T->crease_verts[2 * i + 1]];
        if (a < 0 || b < 0 || !mmx__dist_has_edge(keys, nk, (mmx_index)a, (mmx_index)b)) continue;
        L.crease_verts[2 * L.ncreases] = (mmx_index)a;
        L.crease_verts[2 * L.ncreases + 1] = (mmx_index)b;
        L.crease_sharpness[L.ncreases++] = T->crease_sharpness[i];
    }
    for (mmx_index i = 0; i < T->ncorners; i++) {
        const int64_t a = map[T->corner_verts[i]];
        if (a < 0) continue;
        L.corner_verts[L.ncorners] = (mmx_index)a;
        L.corner_sharpness[L.ncorners++] = T->corner_sharpness[i];
    }
    L.interpolate_boundary = T->interpolate_boundary;
    L.fvar_interpolate_boundary = T->fvar_interpolate_boundary;
    L.fvar_propagate_corners = T->fvar_propagate_corners;
    L.crease_method = T->crease_method;
    L.smooth_triangles = T->smooth_triangles;
    s = mmx_mesh_set_tags(ctx, to, &L);
out:
    free(start), free(verts), free(keys);
    free(L.crease_verts), free(L.crease_sharpness), free(L.corner_verts), free(L.corner_sharpness);
    free(L.holes);
    return s;
}
