/* The reduced mesh matrix (thesis 5.1): for meshes of one face order c only the row indices
 * remain, face f being entries [c*f, c*(f+1)). Detection and conversion both ways. */
#include <string.h>
#include "mesh_internal.h"
#include "spla/spla_internal.h"

/* The first face whose order differs from face 0's, or nfaces if none; host colptr. */
static mmx_index first_other_order(const mmx_index *colptr, mmx_index nfaces)
{
    mmx_index c = colptr[1] - colptr[0];
    for (mmx_index f = 1; f < nfaces; f++)
        if (colptr[f + 1] - colptr[f] != c) return f;
    return nfaces;
}

/* colptr on the host: the mesh's own array, or a copy from the device (freed by the caller
 * when it differs from the original). */
static mmx_status host_colptr(mmx_ctx *ctx, const mmx_csc *M, mmx_index **out)
{
    if (M->space == MMX_SPACE_HOST) {
        *out = M->colptr;
        return MMX_OK;
    }
    size_t bytes = ((size_t)M->ncols + 1) * sizeof(mmx_index);
    mmx_status s = mmx__host_alloc(ctx, (size_t)M->ncols + 1, sizeof(mmx_index), (void **)out);
    if (!s) s = mmx_mem_copy(ctx, *out, MMX_SPACE_HOST, M->colptr, M->space, bytes);
    if (s) {
        free(*out);
        *out = NULL;
    }
    return s;
}

mmx_status mmx_mesh_uniform_order(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index *order)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !order) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_uniform_order: NULL argument");
    const mmx_csc *M = mesh->M;
    *order = 0;
    if (M->order || M->ncols == 0) {
        *order = M->order;
        return MMX_OK;
    }
    mmx_index *cp;
    mmx_status s = host_colptr(ctx, M, &cp);
    if (s) return s;
    if (first_other_order(cp, M->ncols) == M->ncols) *order = cp[1] - cp[0];
    if (cp != M->colptr) free(cp);
    return MMX_OK;
}

/* In-place changes allocate and free the matrix's arrays: on the device, only through the
 * context that owns them, whose pool they come from and whose stream orders their use. */
static mmx_status check_owner(mmx_ctx *ctx, const mmx_csc *M, const char *who)
{
    if (M->space == MMX_SPACE_DEVICE && M->ctx && M->ctx != ctx)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: the mesh's device arrays belong to another "
                         "context; change it through the context that made it", who);
    return MMX_OK;
}

mmx_status mmx_mesh_reduce(mmx_ctx *ctx, mmx_mesh *mesh)
{
    MMX__NEED_CTX(ctx);
    if (!mesh) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_reduce: mesh is NULL");
    mmx_csc *M = mesh->M;
    if (M->order) return MMX_OK;
    mmx_status s = check_owner(ctx, M, "mmx_mesh_reduce");
    if (s) return s;
    if (M->ncols == 0)
        return mmx__fail(ctx, MMX_ERR_MESH, "a mesh without faces has no face order to reduce to");
    mmx_index *cp;
    s = host_colptr(ctx, M, &cp);
    if (s) return s;
    mmx_index c = cp[1] - cp[0];
    mmx_index f = first_other_order(cp, M->ncols);
    mmx_index cf = f < M->ncols ? cp[f + 1] - cp[f] : 0;
    if (cp != M->colptr) free(cp);
    if (f < M->ncols)
        return mmx__fail(ctx, MMX_ERR_MESH,
                         "the reduced form needs one face order: face 0 has order %d, face %d has order %d",
                         c, f, cf);
    /* Row indices already lie face after face; only the redundant arrays go (in stream order,
     * after any queued work that still reads them), and what the cache made from them. */
    mmx_mesh_release_cache(mesh);
    mmx_mem_free(ctx, M->space, M->colptr);
    mmx_mem_free(ctx, M->space, M->val);
    M->colptr = NULL;
    M->val = NULL;
    M->order = c;
    return MMX_OK;
}

mmx_status mmx_mesh_expand(mmx_ctx *ctx, mmx_mesh *mesh)
{
    MMX__NEED_CTX(ctx);
    if (!mesh) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_expand: mesh is NULL");
    mmx_csc *M = mesh->M;
    if (!M->order) return MMX_OK;
    mmx_status s = check_owner(ctx, M, "mmx_mesh_expand");
    if (s) return s;
    const size_t ix = sizeof(mmx_index);
    mmx_index *colptr = NULL, *val = NULL;
    s = mmx_mem_alloc(ctx, M->space, ((size_t)M->ncols + 1) * ix, (void **)&colptr);
    if (!s) s = mmx_mem_alloc(ctx, M->space, (size_t)M->nnz * ix, (void **)&val);
    if (s) {
        mmx_mem_free(ctx, M->space, colptr);
        return s;
    }
    mmx_index c = M->order;
    mmx_mesh_release_cache(mesh); /* its entries are the reduced form's */
    M->colptr = colptr;
    M->val = val;
    s = mmx__csc_fill_uniform_colptr(ctx, M, c);
    if (!s) s = mmx__csc_fill_positions(ctx, M);
    if (s) {
        /* Back to the reduced form the mesh had, so it stays consistent. */
        mmx_mem_free(ctx, M->space, colptr);
        mmx_mem_free(ctx, M->space, val);
        M->colptr = NULL;
        M->val = NULL;
        return s;
    }
    M->order = 0;
    return MMX_OK;
}
