/* Private declarations of patch_keep.c: the patch set a run of rounds keeps current
 * (mmx_remesh's opts->patches, mmx_delaunay_flip_patches), updated after each round. */
#ifndef MMX_PATCH_KEEP_H
#define MMX_PATCH_KEEP_H

#include "dynamic_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Updates ps (NULL: nothing to do) from the set of a round's input (nfaces_before faces) to
 * that of its output `after`, the round being of `kind` with per-seed records sd[0..n) in
 * sd_space (device memory on CUDA: copied to the host here): VERTEX_MOVE changes nothing,
 * EDGE_FLIP keeps the face ids (mmx_patch_set_update without origin), the others go through
 * mmx_cavity_face_origin. adj: after's adjacency, or NULL. Errors: those of the calls named.
 * Synchronises: as mmx_patch_set_update, and the copy of sd from the device. */
mmx_status mmx__keep_patches(mmx_ctx *ctx, mmx_patch_set *ps, mmx_cavity_kind kind,
                             mmx_index nfaces_before, const mmx_cavity_seed *sd, mmx_index n,
                             mmx_space sd_space, const mmx_mesh *after, const mmx_adjacency *adj);

#ifdef __cplusplus
}
#endif
#endif
