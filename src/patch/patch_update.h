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
 * labels where they are (on the device). Errors and cost: mmx_patch_set_follow's; the labels
 * are taken as ps's owners (the CUDA build's grouped cut, mmx__patch_build_cuda), so on CUDA
 * two waits where no group outgrew the bound (else five). */
mmx_status mmx__patch_set_relabel(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_mesh *mesh,
                                  const mmx_index *label, const mmx_adjacency *adj);

/* ps's face owners in place (its space, nfaces entries; NULL for a set without faces), for
 * callers that read the labels of the next update from them without a copy. Valid until ps
 * is updated or freed. No work, no wait. */
const mmx_index *mmx__patch_set_owners(const mmx_patch_set *ps);

#ifdef __cplusplus
}
#endif
#endif
