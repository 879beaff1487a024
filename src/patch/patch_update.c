/* mmx_patch_set_update (patch.h): a set kept current through a round of edits, as the cut
 * with labels (mmx_patch_set_follow) of the round's output, the labels read through each
 * output face's origin. The labels are made on the host (the origin is a host array); the
 * build runs on the context's backend. */
#include <stdlib.h>
#include <string.h>
#include "patch_internal.h"
#include "patch_update.h"

#define FN "mmx_patch_set_update"

/* label[f] = face_patch[origin[f]] on the host, the origins checked. */
static mmx_status labels(mmx_ctx *ctx, const mmx_index *face_patch, mmx_index nfaces_before,
                         const mmx_index *origin, mmx_index nfaces, mmx_index *label)
{
    for (mmx_index f = 0; f < nfaces; f++) {
        const mmx_index o = origin[f];
        if (o < 0 || o >= nfaces_before)
            return mmx__fail(ctx, MMX_ERR_ARG, FN ": face %d comes from face %d, outside [0, %d)",
                             f, o, nfaces_before);
        label[f] = face_patch[o];
    }
    return MMX_OK;
}

/* The follow cut of mesh with labels into a temporary set, whose arrays then replace ps's. */
mmx_status mmx__patch_set_relabel(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_mesh *mesh,
                                  const mmx_index *label, const mmx_adjacency *adj)
{
    const mmx_patch_options o = {ps->max_faces};
    mmx_patch_set *next = NULL;
    mmx_status s = mmx_patch_set_follow(ctx, mesh, label, adj, &o, &next);
    if (s) return s;
    mmx_patch_set tmp = *ps;
    *ps = *next;
    *next = tmp;
    mmx_patch_set_free(next);
    return MMX_OK;
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
    mmx_status s = MMX_OK;
    if (!origin) {
        /* Every face keeps its id, so the owners are the labels as they stand (follow reads
         * them before the arrays are swapped). */
        s = mmx__patch_set_relabel(ctx, ps, mesh, ps->face_patch, adj);
    } else {
        mmx_index *hfp = NULL, *label = NULL, *dlabel = NULL;
        const int dev = space == MMX_SPACE_DEVICE;
        s = mmx__host_alloc(ctx, (size_t)F + 1, sizeof *label, (void **)&label);
        if (!s && dev) {
            s = mmx__host_alloc(ctx, (size_t)ps->nfaces + 1, sizeof *hfp, (void **)&hfp);
            if (!s && ps->nfaces > 0)
                s = mmx_mem_copy(ctx, hfp, MMX_SPACE_HOST, ps->face_patch, space,
                                 (size_t)ps->nfaces * sizeof *hfp);
        }
        if (!s) s = labels(ctx, dev ? hfp : ps->face_patch, ps->nfaces, origin, F, label);
        if (!s && dev && F > 0) {
            s = mmx_mem_alloc(ctx, space, (size_t)F * sizeof *dlabel, (void **)&dlabel);
            if (!s) s = mmx_mem_copy(ctx, dlabel, space, label, MMX_SPACE_HOST, (size_t)F * sizeof *dlabel);
        }
        if (!s) s = mmx__patch_set_relabel(ctx, ps, mesh, dev ? dlabel : label, adj);
        mmx_mem_free(ctx, space, dlabel);
        free(label);
        free(hfp);
    }
    return s;
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
