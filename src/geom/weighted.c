/* The geometry module's shared checks (the mesh, its faces being triangles) and the
 * float-valued matrix it returns (mmx_weighted, geom.h). */
#include <stdio.h>
#include <stdlib.h>
#include "geom_internal.h"

void mmx_weighted_free(mmx_weighted *W)
{
    if (!W) return;
    mmx_csc_free(W->A);
    mmx_mem_free(W->ctx, W->space, W->w); /* device: after the queued work */
    free(W);
}

mmx_status mmx__geom_check(mmx_ctx *ctx, const mmx_mesh *mesh, int needs_pos, const char *what)
{
    if (!ctx) return MMX_ERR_ARG;
    if (!mesh || !mesh->M) return mmx__fail(ctx, MMX_ERR_ARG, "%s: the mesh is NULL", what);
    if (needs_pos && !mesh->pos && mesh->M->nrows > 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: the mesh has no positions", what);
    mmx_status s = mmx__check_space(ctx, mesh->space, what);
    if (s) return s;
    if (mesh->space != mmx_ctx_space(ctx) || mesh->M->space != mesh->space)
        return mmx__fail(ctx, MMX_ERR_SPACE,
                         "%s: the mesh is not in the context's memory space (copy it with "
                         "mmx_mesh_copy)", what);
    return MMX_OK;
}

mmx_status mmx__geom_triangles(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                               const char *what)
{
    const mmx_csc *M = mesh->M;
    if (M->ncols == 0 || M->order == 3) return MMX_OK;
    mmx_index order = 0;
    if (adj) {
        order = adj->face_order;
    } else {
        mmx_status s = mmx_mesh_uniform_order(ctx, mesh, &order);
        if (s) return s;
    }
    if (order == 3) return MMX_OK;
    /* Name the first face that is not a triangle: the face lists on the host, a wait on CUDA
     * that only this refusal pays. */
    mmx_index *start = NULL, *verts = NULL;
    mmx_status s = mmx_mesh_faces(ctx, mesh, &start, &verts);
    if (s) return s;
    mmx_index f = 0;
    while (f < M->ncols && start[f + 1] - start[f] == 3) f++;
    const mmx_index c = f < M->ncols ? start[f + 1] - start[f] : 0;
    free(start);
    free(verts);
    return mmx__fail(ctx, MMX_ERR_MESH, "%s: face %d has order %d: triangle meshes only "
                     "(mmx_mesh_triangulate splits the faces)", what, f, c);
}
