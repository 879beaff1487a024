/* The whole mesh on rank 0 from the parts (mmx_dist_mesh_gather): each rank sends its owned
 * faces (global number, order, the global numbers of the corners in cyclic order) and the
 * positions of its owned vertices (in the order of rank 0's gids, mmx__dist_gather_lists);
 * rank 0 puts each face at its number and each position at its vertex, and builds the mesh. */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

mmx_status mmx_dist_mesh_gather(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_gather: dm is NULL");
    mmx_dist *d = dm->d;
    const int R = d->size, me = d->rank;
    mmx_status s = out ? MMX_OK : mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_gather: out is NULL");
    if (out) *out = NULL;
    s = mmx_dist_agree(ctx, d, s);
    if (s) return s;
    /* On CUDA the local mesh's host copy, and the result made on the host context. */
    mmx_ctx *hc = dm->dev ? dm->dev->hctx : ctx;
    const mmx_mesh *m = dm->dev ? dm->dev->hlocal : dm->local;
    const mmx_index nlv = mmx_mesh_nverts(m), nlf = mmx_mesh_nfaces(m);
    const int64_t V = dm->gverts, F = dm->gfaces, C = dm->gnnz;
    mmx_index *start = NULL, *verts = NULL, *wstart = NULL, *wverts = NULL;
    int64_t *rec = NULL, *all = NULL, *cnt = NULL, *at = NULL;
    float *pos = NULL, *allpos = NULL, *wpos = NULL;
    int64_t haspos = m->pos != NULL || nlv == 0, nrec = 0, total = 0; /* an empty part vetoes nothing */
    s = mmx_mesh_faces(hc, m, &start, &verts);
    s = mmx__dist_host_status(ctx, hc, s);
    if (!s && me == 0 && (V > INT32_MAX || F > INT32_MAX || C > INT32_MAX))
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_dist_mesh_gather: the whole mesh (%lld vertices, "
                      "%lld faces, %lld corners) passes 32-bit indices", (long long)V,
                      (long long)F, (long long)C);
    if (!s) {
        for (mmx_index f = 0; f < nlf; f++)
            if (dm->of[f]) nrec += 2 + (start[f + 1] - start[f]);
        s = mmx__host_alloc(ctx, (size_t)nrec, sizeof *rec, (void **)&rec);
    }
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)dm->nov, sizeof *pos, (void **)&pos);
    if (!s && me == 0) s = mmx__host_alloc(ctx, (size_t)R, sizeof *cnt, (void **)&cnt);
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_allreduce_i64(ctx, d, &haspos, 1, MMX__DIST_MIN);
    if (s) goto out;
    for (mmx_index f = 0, k = 0; f < nlf; f++) {
        if (!dm->of[f]) continue;
        rec[k++] = dm->gf[f], rec[k++] = start[f + 1] - start[f];
        for (mmx_index c = start[f]; c < start[f + 1]; c++) rec[k++] = dm->gv[verts[c]];
    }
    for (mmx_index v = 0, k = 0; haspos && v < nlv; v++)
        if (dm->ov[v]) memcpy(pos + 3 * (size_t)k++, m->pos + 3 * (size_t)v, 3 * sizeof *pos);
    s = mmx__dist_gather_i64(ctx, d, 8 * nrec, cnt, 0);
    if (!s && me == 0) {
        for (int q = 0; q < R; q++) total += cnt[q];
        s = mmx__host_alloc(ctx, (size_t)total, 1, (void **)&all);
        total /= 8;
        /* the faces' records: 2 a face and its corners, no more and no fewer */
        if (!s && total != 2 * F + C)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_mesh_gather: %lld numbers gathered for "
                          "%lld faces and %lld corners", (long long)total, (long long)F, (long long)C);
        if (!s) s = mmx__host_alloc(ctx, (size_t)F + 1, sizeof *wstart, (void **)&wstart);
        if (!s) s = mmx__host_alloc(ctx, (size_t)C, sizeof *wverts, (void **)&wverts);
        if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *at, (void **)&at);
        if (!s && haspos) s = mmx__host_alloc(ctx, 3 * (size_t)V, sizeof *allpos, (void **)&allpos);
        if (!s && haspos) s = mmx__host_alloc(ctx, 3 * (size_t)V, sizeof *wpos, (void **)&wpos);
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_gatherv(ctx, d, rec, 8 * nrec, all, cnt, 0);
    for (int q = 0; me == 0 && q < R; q++) cnt[q] = 12 * dm->gcount[q];
    if (!s && haspos) s = mmx__dist_gatherv(ctx, d, pos, 12 * (int64_t)dm->nov, allpos, cnt, 0);
    dm->cnt->bytes += 8 * nrec + (haspos ? 12 * (int64_t)dm->nov : 0);
    if (!s && me == 0) {
        /* at[f]: where face f's record starts; then the faces in their order */
        memset(wstart, 0, ((size_t)F + 1) * sizeof *wstart);
        for (int64_t f = 0; f < F; f++) at[f] = -1;
        for (int64_t i = 0; !s && i < total; i += 2 + all[i + 1]) {
            /* part files are checked one by one: two that own the same face are found here */
            if (at[all[i]] >= 0)
                s = mmx__fail(ctx, MMX_ERR_MESH, "mmx_dist_mesh_gather: face %lld owned by two "
                              "ranks (parts of different sets)", (long long)all[i]);
            at[all[i]] = i, wstart[all[i] + 1] = (mmx_index)all[i + 1];
        }
        for (int64_t f = 0; f < F; f++) wstart[f + 1] += wstart[f];
        for (int64_t f = 0; !s && f < F; f++)
            for (mmx_index c = wstart[f]; c < wstart[f + 1]; c++)
                wverts[c] = (mmx_index)all[at[f] + 2 + (c - wstart[f])];
        for (int64_t i = 0; haspos && i < V; i++)
            memcpy(wpos + 3 * (size_t)dm->gids[i], allpos + 3 * (size_t)i, 3 * sizeof *wpos);
        if (!s) {
            s = mmx_mesh_from_faces(hc, (mmx_index)V, (mmx_index)F, wstart, wverts, wpos, out);
            s = mmx__dist_host_status(ctx, hc, s);
        }
    }
    s = mmx_dist_agree(ctx, d, s);
    if (s && out && *out) mmx_mesh_free(*out), *out = NULL;
out:
    free(start), free(verts), free(wstart), free(wverts), free(rec), free(all), free(cnt), free(at);
    free(pos), free(allpos), free(wpos);
    return s;
}
