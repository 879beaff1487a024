/* The mean curvature normal (geom.h): Hn = -(1/2) M^-1 L x, as one mapped SpMV of the
 * cotangent Laplacian (MMX_MAP_BY_ENTRY; op = T, a gather per column, since L is symmetric)
 * and a per-vertex scale by the mass matrix's diagonal. */
#include "geom_internal.h"
#include "mesh/mesh_internal.h" /* the mesh's cache */

mmx_status mmx_mean_curvature_normal(mmx_ctx *ctx, const mmx_mesh *mesh,
                                     const mmx_adjacency *adj, mmx_mass_kind mass, float *hn)
{
    MMX__NEED_CTX(ctx);
    mmx_status s = mmx__geom_check(ctx, mesh, 1, "mmx_mean_curvature_normal");
    if (s) return s;
    const mmx_index n = mesh->M->nrows;
    if (!hn && n > 0) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mean_curvature_normal: hn is NULL");
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_adjacency *own = NULL;
    if (!adj) s = mmx__mesh_adjacency(ctx, mesh, &adj, &own); /* the mesh's cached one (mesh.h) */
    mmx_weighted *L = NULL, *Ms = NULL;
    float *lx = NULL;
    if (!s) s = mmx_cotan_laplacian(ctx, mesh, adj, &L);
    if (!s) s = mmx__geom_mass(ctx, mesh, mass, adj, &Ms);
    if (!s) s = mmx_mem_alloc(ctx, sp, 3 * (size_t)n * sizeof *lx, (void **)&lx);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, L->A, mmx_weighted_map(L), mesh->pos, 3, 0.0f, lx);
    if (!s) s = mmx__geom_scale_rows(ctx, lx, Ms->w, -0.5f, n, hn);
    mmx_mem_free(ctx, sp, lx);
    mmx_weighted_free(Ms);
    mmx_weighted_free(L);
    mmx_adjacency_free(own);
    return s;
}
