/* Vertex normals (geom.h): the algebraic path (per-face or per-corner values summed per vertex
 * through Mᵀ, then normalised). The patch path is normals_patch.c. */
#include <stdlib.h>
#include <string.h>
#include "geom_internal.h"
#include "mesh/mesh_internal.h" /* the mesh's cache */

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

mmx_status mmx_normals_plan_create(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_normals_plan **out)
{
    MMX__NEED_CTX(ctx);
    if (out) *out = NULL;
    mmx_status s = mmx__geom_check(ctx, mesh, 0, "mmx_normals_plan_create");
    if (s) return s;
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_normals_plan_create: out is NULL");
    mmx_normals_plan *p = calloc(1, sizeof *p);
    if (!p) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_normals_plan_create: out of host memory");
    p->M = *mesh->M;
    p->space = mmx_ctx_space(ctx);
    p->ctx = ctx;
    s = mmx_csc_transpose(ctx, mesh->M, &p->Mt);
    if (!s) s = mmx_mem_alloc(ctx, p->space, 3 * (size_t)mesh->M->ncols * sizeof *p->face,
                              (void **)&p->face);
    if (s) {
        mmx_normals_plan_free(p);
        return s;
    }
    *out = p;
    return MMX_OK;
}

void mmx_normals_plan_free(mmx_normals_plan *plan)
{
    if (!plan) return;
    mmx_csc_free(plan->Mt);
    mmx_mem_free(plan->ctx, plan->space, plan->face);
    free(plan);
}

mmx_status mmx_vertex_normals_planned(mmx_ctx *ctx, const mmx_normals_plan *plan,
                                      const float *pos, mmx_normal_weight weight,
                                      float *normals)
{
    if (!ctx) return MMX_ERR_ARG;
    if (!plan) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals_planned: the plan is NULL");
    if (plan->ctx != ctx || plan->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals_planned: the plan was made by "
                         "another context");
    if ((int)weight < 0 || (int)weight > (int)MMX_NORMAL_UNIFORM)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals_planned: unknown weighting %d",
                         (int)weight);
    const mmx_index n = plan->M.nrows;
    if (n == 0) return MMX_OK;
    if (!pos || !normals)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals_planned: %s is NULL",
                         !pos ? "pos" : "normals");
    const size_t bytes = 3 * (size_t)n * sizeof(float);
    if ((const char *)normals < (const char *)pos + bytes && (const char *)pos < (const char *)normals + bytes)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals_planned: normals overlap pos");
    /* Each face's vector once (a face of c corners: O(c)), then one gather per vertex. */
    mmx_csc M = plan->M;
    mmx_mesh view;
    memset(&view, 0, sizeof view);
    view.M = &M, view.pos = (float *)pos, view.space = plan->space;
    const mmx__face_what what = weight == MMX_NORMAL_AREA ? MMX__FACE_NEWELL : MMX__FACE_UNIT;
    mmx_status s = mmx__geom_faces(ctx, &view, what, plan->face, NULL);
    if (s) return s;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__vertex_normals_cuda(ctx, &M, plan->Mt, pos, plan->face, weight, normals);
    for (mmx_index j = 0; j < n; j++) mmx__vertex_normal(&M, plan->Mt, pos, plan->face, weight, j, normals);
    return MMX_OK;
}

static void free_plan(void *plan) { mmx_normals_plan_free(plan); }

mmx_status mmx_vertex_normals(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_normal_weight weight,
                              float *normals)
{
    MMX__NEED_CTX(ctx);
    mmx_status s = mmx__geom_check(ctx, mesh, 1, "mmx_vertex_normals");
    if (s) return s;
    if ((int)weight < 0 || (int)weight > (int)MMX_NORMAL_UNIFORM)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals: unknown weighting %d", (int)weight);
    if (!normals && mesh->M->nrows > 0) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals: normals is NULL");
    /* The plan is the mesh's cached one (mesh.h), made here on the first call. */
    const mmx_normals_plan *plan = mmx__mesh_cache_get(ctx, mesh, MMX__CACHE_NORMALS);
    mmx_normals_plan *own = NULL;
    if (!plan) {
        s = mmx_normals_plan_create(ctx, mesh, &own);
        if (s) return s;
        plan = own;
        if (mmx__mesh_cache_put(ctx, mesh, MMX__CACHE_NORMALS, own, free_plan, mmx__csc_bytes(own->Mt)))
            own = NULL;
    }
    s = mmx_vertex_normals_planned(ctx, plan, mesh->pos, weight, normals);
    mmx_normals_plan_free(own);
    return s;
}
