/* mmx_patch_set_update (patch.h): a set kept current through a round of edits, as the cut
 * with labels (mmx_patch_set_follow) of the round's output, the labels read through each
 * output face's origin. On the host only the patches the round touched are rebuilt
 * (patch_incr.c); on CUDA the labels are made on the host (the origin is a host array) and
 * the whole cut runs on the device, the faces grouped by their old owners without a sort
 * (mmx__patch_build_cuda's hints: the old patch count, a bound on each label's faces). */
#include <stdlib.h>
#include <string.h>
#include "patch_internal.h"
#include "patch_update.h"
#include "patch_host.h"
#include "mesh/mesh_internal.h"

#define FN "mmx_patch_set_update"

/* The update counters (patch.h, mmx_patch_stats) of a set that had `before` patches, its
 * arrays just rebuilt whole: carried over from `was`, one more call, every patch dirty. */
static void count_whole(mmx_patch_stats *st, const mmx_patch_stats *was, mmx_index before)
{
    st->updates = was->updates + 1;
    st->updates_incremental = was->updates_incremental;
    st->update_patches = was->update_patches + before;
    st->update_dirty = was->update_dirty + before;
}

/* The follow cut of mesh with labels into a temporary set, whose arrays then replace ps's. */
mmx_status mmx__patch_set_relabel(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_mesh *mesh,
                                  const mmx_index *label, mmx_index max_group,
                                  const mmx_adjacency *adj)
{
    const mmx_patch_options o = {ps->max_faces};
    mmx_patch_set *next = NULL;
    /* The labels are ps's owners: the CUDA build groups them without sorting. */
    mmx_status s = mmx__patch_set_follow_hint(ctx, mesh, label, max_group < 0 ? 0 : ps->npatches,
                                              max_group < 0 ? 0 : max_group, adj, &o, &next);
    if (s) return s;
    count_whole(&next->stats, &ps->stats, ps->npatches);
    mmx_patch_set tmp = *ps;
    *ps = *next;
    *next = tmp;
    mmx_patch_set_free(next);
    return MMX_OK;
}

/* The host update: incremental (patch_incr.c) where the round allows it, else the follow cut
 * with the labels read through the origins. */
static mmx_status update_host(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_mesh *mesh,
                              const mmx_index *origin, const mmx_adjacency *adj)
{
    mmx_adjacency *own = NULL;
    const mmx_mesh *hm = NULL;
    mmx_index *label = NULL;
    int done = 0;
    mmx_status s = MMX_OK;
    if (!adj) s = mmx__mesh_adjacency(ctx, mesh, &adj, &own); /* the mesh's cached one (mesh.h) */
    if (!s) s = mmx__mesh_host_view(ctx, mesh, &hm);
    if (!s) {
        const mmx_adjacency *A = adj;
        if (A->space != mesh->space || A->nverts != mesh->M->nrows || A->nfaces != mesh->M->ncols)
            s = mmx__fail(ctx, MMX_ERR_ARG, FN ": the adjacency is not the mesh's");
        if (!s) s = mmx__patch_update_host(ctx, ps, hm->M, hm->pos, A->fe, A->ev, A->nedges,
                                           origin, &done);
        if (!s && done) {
            ps->bad_ends[0] = ps->bad_ends[1] = -1;
            if (ps->bad_edge >= 0)
                memcpy(ps->bad_ends, A->ev + 2 * (size_t)ps->bad_edge, sizeof ps->bad_ends);
        }
        if (!s && !done) {
            const mmx_index F = mesh->M->ncols;
            s = mmx__host_alloc(ctx, (size_t)F + 1, sizeof *label, (void **)&label);
            for (mmx_index f = 0; f < F && !s; f++) label[f] = ps->face_patch[origin ? origin[f] : f];
            if (!s) s = mmx__patch_set_relabel(ctx, ps, mesh, label, 0, A);
        }
    }
    if (hm) mmx__mesh_host_release(mesh, hm);
    mmx_adjacency_free(own);
    free(label);
    return s;
}

mmx_status mmx_patch_set_update(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_mesh *mesh,
                                const mmx_index *origin, const mmx_adjacency *adj)
{
    MMX__NEED_CTX(ctx);
    if (!ps || !mesh || !mesh->M) return mmx__fail(ctx, MMX_ERR_ARG, FN ": NULL argument");
    const mmx_space space = mmx_ctx_space(ctx);
    if (ps->space != space || mesh->space != space)
        return mmx__fail(ctx, MMX_ERR_SPACE, FN ": the %s is not in the context's space",
                         ps->space != space ? "patch set" : "mesh");
    const mmx_index F = mesh->M->ncols;
    if (!origin && F != ps->nfaces)
        return mmx__fail(ctx, MMX_ERR_ARG, FN ": no origin, but the mesh has %d faces where the "
                         "set has %d", F, ps->nfaces);
    if (!origin && ps->nverts != mesh->M->nrows)
        return mmx__fail(ctx, MMX_ERR_ARG, FN ": no origin, but the mesh has %d vertices where "
                         "the set has %d", mesh->M->nrows, ps->nverts);
    for (mmx_index f = 0; origin && f < F; f++)
        if (origin[f] < 0 || origin[f] >= ps->nfaces)
            return mmx__fail(ctx, MMX_ERR_ARG, FN ": face %d comes from face %d, outside [0, %d)",
                             f, origin[f], ps->nfaces);
    if (space == MMX_SPACE_HOST) return update_host(ctx, ps, mesh, origin, adj);
    mmx_status s = MMX_OK;
    if (!origin) {
        /* Every face keeps its id, so the owners are the labels as they stand (follow reads
         * them before the arrays are swapped), each group a patch. */
        s = mmx__patch_set_relabel(ctx, ps, mesh, ps->face_patch, mmx__patch_set_group_bound(ps, 0),
                                   adj);
    } else {
        mmx_index *hfp = NULL, *label = NULL, *dlabel = NULL, *cnt = NULL, maxg = 0;
        s = mmx__host_alloc(ctx, (size_t)F + 1, sizeof *label, (void **)&label);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ps->nfaces + 1, sizeof *hfp, (void **)&hfp);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ps->npatches + 1, sizeof *cnt, (void **)&cnt);
        if (!s && ps->nfaces > 0)
            s = mmx_mem_copy(ctx, hfp, MMX_SPACE_HOST, ps->face_patch, space,
                             (size_t)ps->nfaces * sizeof *hfp);
        if (!s) memset(cnt, 0, ((size_t)ps->npatches + 1) * sizeof *cnt);
        for (mmx_index f = 0; f < F && !s; f++) { /* the labels, and their largest group */
            label[f] = hfp[origin[f]];
            if (++cnt[label[f]] > maxg) maxg = cnt[label[f]];
        }
        if (!s && F > 0) {
            s = mmx_mem_alloc(ctx, space, (size_t)F * sizeof *dlabel, (void **)&dlabel);
            if (!s) s = mmx_mem_copy(ctx, dlabel, space, label, MMX_SPACE_HOST, (size_t)F * sizeof *dlabel);
        }
        if (!s) s = mmx__patch_set_relabel(ctx, ps, mesh, dlabel,
                                           maxg > mmx__patch_follow_bound(ps->max_faces) ? -1 : maxg, adj);
        mmx_mem_free(ctx, space, dlabel);
        free(label);
        free(hfp);
        free(cnt);
    }
    return s;
}

const mmx_index *mmx__patch_set_owners(const mmx_patch_set *ps)
{
    return ps->face_patch;
}

mmx_index mmx__patch_set_group_bound(const mmx_patch_set *ps, int64_t added)
{
    const int64_t b = (int64_t)ps->stats.max_faces + (added > 0 ? added : 0);
    return b < MMX_INDEX_MAX ? (mmx_index)b : MMX_INDEX_MAX;
}

mmx_status mmx__patch_set_matches(mmx_ctx *ctx, const mmx_patch_set *ps, const mmx_mesh *mesh,
                                  const char *fn)
{
    if (ps->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s: the patch set is not in the context's space", fn);
    if (ps->nfaces != mesh->M->ncols || ps->nverts != mesh->M->nrows)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: the patch set has %d faces and %d vertices, the "
                         "mesh %d and %d: it is not the mesh's set", fn, ps->nfaces, ps->nverts,
                         mesh->M->ncols, mesh->M->nrows);
    return MMX_OK;
}
