/* Per-face and per-corner geometry (geom_internal.h states the formulas once for both
 * backends), and mmx_face_normals (geom.h), the per-face Newell normals and areas. The CUDA
 * half is faces.cu: one thread per face. */
#include "geom_internal.h"

mmx_status mmx__geom_faces(mmx_ctx *ctx, const mmx_mesh *mesh, mmx__face_what what, float *out,
                           float *out2)
{
    const mmx_csc *M = mesh->M;
    if (mesh->space == MMX_SPACE_DEVICE) return mmx__geom_faces_cuda(ctx, M, mesh->pos, what, out, out2);
    for (mmx_index f = 0; f < M->ncols; f++) {
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        mmx__geom_face(mesh->pos, M->rowidx + a, a, b - a, f, what, out, out2);
    }
    return MMX_OK;
}

mmx_status mmx_face_normals(mmx_ctx *ctx, const mmx_mesh *mesh, float *normals, float *areas)
{
    MMX__NEED_CTX(ctx);
    mmx_status s = mmx__geom_check(ctx, mesh, 1, "mmx_face_normals");
    if (s || (!normals && !areas)) return s;
    return mmx__geom_faces(ctx, mesh, MMX__FACE_UNIT, normals, areas);
}
