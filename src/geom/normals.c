/* Vertex normals (geom.h): the algebraic path (per-face or per-corner values summed per vertex
 * through Mᵀ) and the patch path (the faces' Newell vectors summed around each vertex by the
 * VF patch reduction), both normalised by the same step. */
#include <string.h>
#include "geom_internal.h"
#include "patch/patch_internal.h"

static const char *const weight_names[] = {"area", "angle", "uniform"};

const char *mmx_normal_weight_name(mmx_normal_weight w)
{
    return (int)w >= 0 && (int)w < 3 ? weight_names[w] : "?";
}

mmx_status mmx_normal_weight_parse(mmx_ctx *ctx, const char *name, mmx_normal_weight *w)
{
    for (int i = 0; name && w && i < 3; i++)
        if (strcmp(name, weight_names[i]) == 0) {
            *w = (mmx_normal_weight)i;
            return MMX_OK;
        }
    return mmx__fail(ctx, MMX_ERR_ARG, "unknown normal weighting '%s' (use area, angle or uniform)",
                     name ? name : "(null)");
}

mmx_status mmx_vertex_normals(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_normal_weight weight,
                              float *normals)
{
    mmx_status s = mmx__geom_check(ctx, mesh, 1, "mmx_vertex_normals");
    if (s) return s;
    if ((int)weight < 0 || (int)weight > (int)MMX_NORMAL_UNIFORM)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals: unknown weighting %d", (int)weight);
    const mmx_csc *M = mesh->M;
    if (!normals && M->nrows > 0) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals: normals is NULL");
    const mmx_space sp = mmx_ctx_space(ctx);
    float *fx = NULL, *corner = NULL;
    s = mmx_mem_alloc(ctx, sp, 3 * (size_t)M->ncols * sizeof *fx, (void **)&fx);
    /* Area: the Newell vectors themselves (twice the area times the unit normal); angle and
     * uniform: unit normals, the angle weighting one per corner, as a table over Mᵀ. */
    if (!s) s = mmx__geom_faces(ctx, mesh, weight == MMX_NORMAL_AREA ? MMX__FACE_NEWELL : MMX__FACE_UNIT,
                                fx, NULL);
    if (!s && weight == MMX_NORMAL_ANGLE) {
        s = mmx_mem_alloc(ctx, sp, (size_t)M->nnz * sizeof *corner, (void **)&corner);
        if (!s) s = mmx__geom_faces(ctx, mesh, MMX__CORNER_ANGLE, corner, NULL);
    }
    if (!s) s = mmx__geom_vertex_sum(ctx, M, corner, fx, 3, normals);
    if (!s) s = mmx__geom_normalize(ctx, normals, M->nrows);
    mmx_mem_free(ctx, sp, corner);
    mmx_mem_free(ctx, sp, fx);
    return s;
}

mmx_status mmx_vertex_normals_patch(mmx_ctx *ctx, const mmx_mesh *mesh,
                                    const mmx_patch_set *ps, float *normals)
{
    mmx_status s = mmx__geom_check(ctx, mesh, 1, "mmx_vertex_normals_patch");
    if (s) return s;
    const mmx_csc *M = mesh->M;
    if (!ps || (!normals && M->nrows > 0))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals_patch: NULL patch set or normals");
    if (ps->nverts != M->nrows || ps->nfaces != M->ncols)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_vertex_normals_patch: the patch set has %d vertices and %d faces, "
                         "the mesh %d and %d: not the mesh's set",
                         ps->nverts, ps->nfaces, M->nrows, M->ncols);
    const mmx_space sp = mmx_ctx_space(ctx);
    float *fx = NULL;
    s = mmx_mem_alloc(ctx, sp, 3 * (size_t)M->ncols * sizeof *fx, (void **)&fx);
    if (!s) s = mmx__geom_faces(ctx, mesh, MMX__FACE_NEWELL, fx, NULL);
    /* Without faces there is nothing to reduce (and no x to pass): every normal is zero. */
    if (!s && M->ncols == 0) s = mmx__geom_fill(ctx, normals, 3 * (int64_t)M->nrows, 0.0f);
    else if (!s && M->nrows > 0) s = mmx_patch_reduce(ctx, ps, MMX_QUERY_VF, fx, 3, normals);
    if (!s) s = mmx__geom_normalize(ctx, normals, M->nrows);
    mmx_mem_free(ctx, sp, fx);
    return s;
}
