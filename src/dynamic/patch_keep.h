/* Private declarations of patch_keep.c: the patch set a run of rounds keeps current
 * (mmx_remesh's opts->patches, mmx_delaunay_flip_patches), updated after each round. */
#ifndef MMX_PATCH_KEEP_H
#define MMX_PATCH_KEEP_H

#include "dynamic_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Updates ps (NULL: nothing to do) from the set of a round's input (nverts_before vertices,
 * nfaces_before faces) to that of its output `after`, the round being of `kind`, `kept` of
 * its seeds kept, with per-seed records sd[0..n) in sd_space: VERTEX_MOVE changes nothing,
 * EDGE_FLIP keeps the face ids (mmx_patch_set_update without origin); for the others the
 * labels come from sd by mmx_cavity_face_origin on the host, or by mmx__keep_labels_cuda on
 * the device (sd in device memory). adj: after's adjacency, or NULL. Errors: those of the
 * calls named, MMX_ERR_NOMEM, MMX_ERR_CUDA. Synchronises: on the host, no; on the device
 * (the labels queued, the cut's sizes read: mmx__patch_set_relabel) twice for flips,
 * collapses and removals (no label can outgrow the old largest patch), and for splits where
 * the old largest patch plus the faces added stays within the bound, else three times (the
 * labels' groups checked first), four where a group did outgrow it. */
mmx_status mmx__keep_patches(mmx_ctx *ctx, mmx_patch_set *ps, mmx_cavity_kind kind,
                             mmx_index nverts_before, mmx_index nfaces_before, mmx_index kept,
                             const mmx_cavity_seed *sd, mmx_index n, mmx_space sd_space,
                             const mmx_mesh *after, const mmx_adjacency *adj);

/* The labels on the device (patch_keep.cu): label[f] (device, the output's faces) = fp[the
 * input face that output face f comes from] (fp: device, the old owners, nfaces entries),
 * for a round of EDGE_SPLIT, FACE_SPLIT, EDGE_COLLAPSE or VERTEX_REMOVE on nverts vertices
 * and nfaces faces that kept `kept` of its n seeds, sd (device) its records. Queued; no wait.
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__keep_labels_cuda(mmx_ctx *ctx, mmx_cavity_kind kind, mmx_index nverts,
                                 mmx_index nfaces, const mmx_cavity_seed *sd, mmx_index n,
                                 mmx_index kept, const mmx_index *fp, mmx_index *label);

#ifdef __cplusplus
}
#endif
#endif
