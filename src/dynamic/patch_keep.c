/* Patch sets kept current through rounds of the cavity operator: the origin of each face of
 * a user-cavity round (mmx_cavity_user_face_origin, dynamic.h; the templates' origins are in
 * face_origin.c) and the update after a round of any kind (mmx__keep_patches), which the
 * remesher and the Delaunay loop call after each round. */
#include <stdlib.h>
#include <string.h>
#include "patch_keep.h"
#include "patch/patch_update.h"

#define UFN "mmx_cavity_user_face_origin"

/* Corner k of host face f (either form). */
static mmx_index corner(const mmx_csc *M, mmx_index f, int k)
{
    return M->rowidx[(M->order ? (int64_t)M->order * f : M->colptr[f]) + k];
}

static mmx_index face_size(const mmx_csc *M, mmx_index f)
{
    return M->order ? M->order : M->colptr[f + 1] - M->colptr[f];
}

/* Whether host triangle g of M runs p -> q. */
static int runs(const mmx_csc *M, mmx_index g, mmx_index p, mmx_index q)
{
    if (face_size(M, g) != 3) return 0;
    for (int k = 0; k < 3; k++)
        if (corner(M, g, k) == p && corner(M, g, (k + 1) % 3) == q) return 1;
    return 0;
}

/* The work on host views. */
static mmx_status user_origin(mmx_ctx *ctx, const mmx_csc *B, const mmx_index *cav_ptr,
                              const mmx_index *cav_faces, mmx_index n,
                              const mmx_cavity_seed *sd, const mmx_csc *A, mmx_index *origin)
{
    const mmx_index F0 = B->ncols, V0 = B->nrows, F1 = A->ncols, V1 = A->nrows;
    unsigned char *gone = NULL;
    mmx_index *cav_of = NULL; /* per new vertex (V0 ..) its kept cavity */
    mmx_status s = mmx__host_alloc(ctx, (size_t)F0 + 1, 1, (void **)&gone);
    const mmx_index nnew = V1 > V0 ? V1 - V0 : 0;
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnew + 1, sizeof *cav_of, (void **)&cav_of);
    if (s) goto done;
    memset(gone, 0, (size_t)F0 + 1);
    for (mmx_index v = 0; v < nnew; v++) cav_of[v] = -1;
    for (mmx_index i = 0; i < n && !s; i++) {
        if (sd[i].outcome != MMX_CAVITY_KEPT) continue;
        if (cav_ptr[i] < 0 || cav_ptr[i + 1] < cav_ptr[i]) {
            s = mmx__fail(ctx, MMX_ERR_ARG, UFN ": cav_ptr[%d .. %d] is not ascending", i, i + 1);
            break;
        }
        const mmx_index m = sd[i].vertex;
        if (m < V0 || m >= V1 || cav_of[m - V0] >= 0) {
            s = mmx__fail(ctx, MMX_ERR_ARG, UFN ": kept cavity %d has vertex %d, not a new vertex "
                          "of its own in [%d, %d)", i, m, V0, V1);
            break;
        }
        cav_of[m - V0] = i;
        for (mmx_index j = cav_ptr[i]; j < cav_ptr[i + 1]; j++) {
            const mmx_index f = cav_faces[j];
            if (f < 0 || f >= F0) {
                s = mmx__fail(ctx, MMX_ERR_ARG, UFN ": kept cavity %d names face %d, outside "
                              "[0, %d)", i, f, F0);
                break;
            }
            gone[f] = 1;
        }
    }
    mmx_index o = 0;
    for (mmx_index f = 0; f < F0 && !s; f++) {
        if (gone[f]) continue;
        if (o == F1) {
            s = mmx__fail(ctx, MMX_ERR_ARG, UFN ": the output has %d faces, fewer than the %d "
                          "survivors at least", F1, o + 1);
            break;
        }
        origin[o++] = f;
    }
    /* The fans, after the survivors: each face (p, q, m) from its cavity's face on p -> q. */
    for (mmx_index f = o; f < F1 && !s; f++) {
        const mmx_index m = face_size(A, f) == 3 ? corner(A, f, 2) : -1;
        const mmx_index i = m >= V0 && m < V1 ? cav_of[m - V0] : -1;
        if (i < 0) {
            s = mmx__fail(ctx, MMX_ERR_ARG, UFN ": output face %d (a fan's place) has no kept "
                          "cavity's vertex for third corner: not the round's output", f);
            break;
        }
        const mmx_index p = corner(A, f, 0), q = corner(A, f, 1);
        origin[f] = -1;
        for (mmx_index j = cav_ptr[i]; j < cav_ptr[i + 1] && origin[f] < 0; j++)
            if (runs(B, cav_faces[j], p, q)) origin[f] = cav_faces[j];
        if (origin[f] < 0)
            s = mmx__fail(ctx, MMX_ERR_ARG, UFN ": output face %d runs %d -> %d, which no face of "
                          "cavity %d runs: not the round's output", f, p, q, i);
    }
done:
    free(gone);
    free(cav_of);
    return s;
}

mmx_status mmx_cavity_user_face_origin(mmx_ctx *ctx, const mmx_mesh *before,
                                       const mmx_index *cav_ptr, const mmx_index *cav_faces,
                                       mmx_index n, const mmx_cavity_seed *per_seed,
                                       const mmx_mesh *after, mmx_index *origin)
{
    MMX__NEED_CTX(ctx);
    if (!before || !before->M || !after || !after->M || (n > 0 && (!cav_ptr || !per_seed)) ||
        (!origin && after->M->ncols > 0))
        return mmx__fail(ctx, MMX_ERR_ARG, UFN ": NULL argument");
    if (n < 0) return mmx__fail(ctx, MMX_ERR_ARG, UFN ": negative count %d", n);
    if (n > 0 && cav_ptr[n] > cav_ptr[0] && !cav_faces)
        return mmx__fail(ctx, MMX_ERR_ARG, UFN ": NULL cav_faces");
    const mmx_mesh *hb = NULL, *ha = NULL;
    mmx_status s = mmx__mesh_host_view(ctx, before, &hb);
    if (!s) s = mmx__mesh_host_view(ctx, after, &ha);
    if (!s) s = user_origin(ctx, hb->M, cav_ptr, cav_faces, n, per_seed, ha->M, origin);
    if (ha) mmx__mesh_host_release(after, ha);
    if (hb) mmx__mesh_host_release(before, hb);
    return s;
}

/* The device records' labels (patch_keep.cu), read from the set's owners in place (the cut
 * replaces them only once the labels are made, in stream order), then the cut with them. */
static mmx_status keep_on_device(mmx_ctx *ctx, mmx_patch_set *ps, mmx_cavity_kind kind,
                                 mmx_index nverts_before, mmx_index nfaces_before, mmx_index kept,
                                 const mmx_cavity_seed *sd, mmx_index n, const mmx_mesh *after,
                                 const mmx_adjacency *adj)
{
    const mmx_index F = after->M->ncols;
    mmx_index *label = NULL;
    mmx_status s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, ((size_t)F + 1) * sizeof *label, (void **)&label);
    if (!s) s = mmx__keep_labels_cuda(ctx, kind, nverts_before, nfaces_before, sd, n, kept,
                                      mmx__patch_set_owners(ps), label);
    /* Collapses and removals only drop faces, so no label has more faces than ps's largest
     * patch; splits keep every face and add F - nfaces_before. */
    const int grows = kind == MMX_CAVITY_EDGE_SPLIT || kind == MMX_CAVITY_FACE_SPLIT;
    const mmx_index bound = mmx__patch_set_group_bound(ps, grows ? (int64_t)F - nfaces_before : 0);
    if (!s) s = mmx__patch_set_relabel(ctx, ps, after, label, bound, adj);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, label);
    return s;
}

mmx_status mmx__keep_patches(mmx_ctx *ctx, mmx_patch_set *ps, mmx_cavity_kind kind,
                             mmx_index nverts_before, mmx_index nfaces_before, mmx_index kept,
                             const mmx_cavity_seed *sd, mmx_index n, mmx_space sd_space,
                             const mmx_mesh *after, const mmx_adjacency *adj)
{
    if (!ps || kind == MMX_CAVITY_VERTEX_MOVE) return MMX_OK;
    if (kind == MMX_CAVITY_EDGE_FLIP) return mmx_patch_set_update(ctx, ps, after, NULL, adj);
    if (sd_space == MMX_SPACE_DEVICE)
        return keep_on_device(ctx, ps, kind, nverts_before, nfaces_before, kept, sd, n, after, adj);
    const mmx_index F = after->M->ncols;
    mmx_index *origin = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)F + 1, sizeof *origin, (void **)&origin);
    if (!s) s = mmx_cavity_face_origin(ctx, kind, nfaces_before, sd, n, F, origin);
    if (!s) s = mmx_patch_set_update(ctx, ps, after, origin, adj);
    free(origin);
    return s;
}
