/* Face lists of a mesh, in host memory, from either form and either space. */
#include "mesh_internal.h"

mmx_status mmx_mesh_faces(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index **start, mmx_index **verts)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !start || !verts) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_faces: NULL argument");
    *start = *verts = NULL;
    const mmx_csc *M = mesh->M;
    mmx_index *st = NULL, *vs = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)M->ncols + 1, sizeof *st, (void **)&st);
    if (!s) s = mmx__host_alloc(ctx, (size_t)M->nnz, sizeof *vs, (void **)&vs);
    if (!s) s = mmx_mem_copy(ctx, vs, MMX_SPACE_HOST, M->rowidx, M->space, (size_t)M->nnz * sizeof *vs);
    if (!s && !M->order)
        s = mmx_mem_copy(ctx, st, MMX_SPACE_HOST, M->colptr, M->space, ((size_t)M->ncols + 1) * sizeof *st);
    if (s) {
        free(st);
        free(vs);
        return s;
    }
    for (mmx_index f = 0; M->order && f <= M->ncols; f++) st[f] = M->order * f;
    *start = st;
    *verts = vs;
    return MMX_OK;
}

void mmx_faces_free(mmx_faces *faces)
{
    if (!faces) return;
    free(faces->start);
    free(faces->verts);
    free(faces->pos);
    free(faces->uv);
    free(faces->uv_index);
    free(faces->tags);
    free(faces);
}
