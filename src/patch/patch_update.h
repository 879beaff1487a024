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

#ifdef __cplusplus
}
#endif
#endif
