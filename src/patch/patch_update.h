/* Private declarations of patch_update.c for the modules above the patches (dynamic): the
 * check that a caller's patch set belongs to a mesh, before a run of rounds updates it. */
#ifndef MMX_PATCH_UPDATE_H
#define MMX_PATCH_UPDATE_H

#include "core/core_internal.h"
#include "meshmatrix/patch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MMX_OK when ps is in the context's space and has mesh's face and vertex counts; else
 * MMX_ERR_SPACE or MMX_ERR_ARG, the sentence starting with `fn`. */
mmx_status mmx__patch_set_matches(mmx_ctx *ctx, const mmx_patch_set *ps, const mmx_mesh *mesh,
                                  const char *fn);

/* ps (in the context's space) becomes the set mmx_patch_set_follow makes of mesh with
 * label[0 .. nfaces of mesh) (in the context's space), with ps's S; the handle stays, and on
 * an error ps is left as it was. mmx_patch_set_update's last step, for callers that make the
 * labels where they are (on the device). The labels are taken to be ps's patches (the CUDA
 * build's grouped cut, mmx__patch_build_cuda), and max_group is the caller's bound on the
 * faces of one label (0: none; -1: a label is known to have more than the bound, so the cut
 * sorts; a wrong bound costs time, not the result). Errors and cost: mmx_patch_set_follow's.
 * Synchronises: on CUDA, twice where max_group is within the bound (min(2 S,
 * MMX_PATCH_MAX_FACES)), three times where the groups are checked and hold or max_group is
 * -1, four where checked groups do not hold (mmx__patch_build_cuda). */
mmx_status mmx__patch_set_relabel(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_mesh *mesh,
                                  const mmx_index *label, mmx_index max_group,
                                  const mmx_adjacency *adj);

/* ps's largest patch (owned faces) as a bound for the groups of labels read from its owners:
 * max_group for a round that only keeps or removes faces, plus the faces it added for one
 * that only adds (splits keep every face's id), capped at MMX_INDEX_MAX. No wait. */
mmx_index mmx__patch_set_group_bound(const mmx_patch_set *ps, int64_t added);

/* ps's face owners in place (its space, nfaces entries; NULL for a set without faces), for
 * callers that read the labels of the next update from them without a copy. Valid until ps
 * is updated or freed. No work, no wait. */
const mmx_index *mmx__patch_set_owners(const mmx_patch_set *ps);

#ifdef __cplusplus
}
#endif
#endif
