/* Vertex areas and the mass matrix (geom.h): the barycentric share (area over order, per
 * face, from a per-face table) or the mixed Voronoi area (per corner) summed per vertex
 * through Mᵀ, one gather per vertex (mmx__vertex_area). The CUDA half (areas.cu): that
 * gather, and the diagonal pattern's numbering. */
#include "geom_internal.h"

mmx_status mmx__geom_diag_pattern(mmx_ctx *ctx, mmx_index n, mmx_csc **out)
{
    /* The reduced form of order 1: column v holds entry v, row v. */
    mmx_csc *D = NULL;
    mmx_status s = mmx__csc_alloc(ctx, mmx_ctx_space(ctx), n, n, n, 1, &D);
    if (!s && D->space == MMX_SPACE_DEVICE) s = mmx__geom_iota_cuda(ctx, D->rowidx, n);
    else if (!s)
        for (mmx_index v = 0; v < n; v++) D->rowidx[v] = v;
    if (!s) s = mmx__csc_props(ctx, D); /* the reduced form: set on the host, no wait */
    if (s) {
        mmx_csc_free(D);
        return s;
    }
    *out = D;
    return MMX_OK;
}

static mmx_status vertex_areas(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind,
                               const mmx_adjacency *adj, float *areas, const char *what)
{
    mmx_status s = mmx__geom_check(ctx, mesh, 1, what);
    if (s) return s;
    if (kind != MMX_MASS_BARYCENTRIC && kind != MMX_MASS_VORONOI)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown mass kind %d", what, (int)kind);
    const mmx_csc *M = mesh->M;
    if (!areas && M->nrows > 0) return mmx__fail(ctx, MMX_ERR_ARG, "%s: areas is NULL", what);
    if (kind == MMX_MASS_VORONOI) s = mmx__geom_triangles(ctx, mesh, adj, what);
    if (s) return s;
    /* The barycentric shares once per face (a face of c corners: O(c)), then one gather per
     * vertex over its faces (Mᵀ's column); the Voronoi areas (triangles) computed in it. */
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_csc *Mt = NULL;
    float *share = NULL;
    s = mmx_csc_transpose(ctx, M, &Mt);
    if (!s && kind == MMX_MASS_BARYCENTRIC)
        s = mmx_mem_alloc(ctx, sp, (size_t)M->ncols * sizeof *share, (void **)&share);
    if (!s && share) s = mmx__geom_faces(ctx, mesh, MMX__FACE_SHARE, share, NULL);
    if (!s && mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        s = mmx__vertex_areas_cuda(ctx, M, Mt, mesh->pos, share, kind, areas);
    else if (!s)
        for (mmx_index j = 0; j < M->nrows; j++)
            areas[j] = mmx__vertex_area(M, Mt, mesh->pos, share, kind, j);
    mmx_mem_free(ctx, sp, share);
    mmx_csc_free(Mt);
    return s;
}

mmx_status mmx_vertex_areas(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind, float *areas)
{
    MMX__NEED_CTX(ctx);
    return vertex_areas(ctx, mesh, kind, NULL, areas, "mmx_vertex_areas");
}

/* mmx_mass_matrix, with the adjacency when the caller has one (its face order spares the
 * triangle check a read of colptr). */
mmx_status mmx__geom_mass(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind,
                          const mmx_adjacency *adj, mmx_weighted **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mass_matrix: out is NULL");
    *out = NULL;
    mmx_status s = mmx__geom_check(ctx, mesh, 1, "mmx_mass_matrix");
    if (s) return s;
    const mmx_index n = mesh->M->nrows;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_weighted *W = calloc(1, sizeof *W);
    if (!W) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mass matrix");
    W->space = sp;
    W->ctx = ctx;
    s = mmx__geom_diag_pattern(ctx, n, &W->A);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof *W->w, (void **)&W->w);
    if (!s) s = vertex_areas(ctx, mesh, kind, adj, W->w, "mmx_mass_matrix");
    if (s) {
        mmx_weighted_free(W);
        return s;
    }
    *out = W;
    return MMX_OK;
}

mmx_status mmx_mass_matrix(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind,
                           mmx_weighted **out)
{
    MMX__NEED_CTX(ctx);
    return mmx__geom_mass(ctx, mesh, kind, NULL, out);
}
