/* The cotangent and uniform Laplacians (geom.h), the fast path: the pattern is the
 * adjacency's E (from M·Mᵀ) with the diagonal added; each edge's cotangent weight gathers the
 * half cotangents of its faces' opposite corners through the EF query and the FE array, each
 * column of L computed by one thread (mmx__lap_column, geom_internal.h, shared by both
 * backends), so no two threads add into one value. The CUDA half is laplacian.cu. The
 * reference, the valued product M <TAIL> Mᵀ, is operator.c's mmx__laplacian_product. */
#include <stdlib.h>
#include "geom_internal.h"
#include "mesh/mesh_internal.h" /* the mesh's cache */

/* Fills W, allocated for the pattern (E and the diagonal), from the current positions: the
 * corners' half cotangents (cotan), then each column of L, by one thread each. */
static mmx_status fill(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                       const mmx_csr *ef, int cotan, mmx_weighted *W)
{
    const mmx_csc *M = mesh->M;
    const mmx_space sp = mmx_ctx_space(ctx);
    const mmx_index n = M->nrows;
    float *cot = NULL;
    mmx_status s = MMX_OK;
    if (cotan) s = mmx_mem_alloc(ctx, sp, (size_t)M->nnz * sizeof *cot, (void **)&cot);
    if (!s && cotan) s = mmx__geom_faces(ctx, mesh, MMX__CORNER_COT, cot, NULL);
    if (!s) {
        mmx__lap_in in = {*adj->E, adj->edge_ptr, adj->ev, adj->fe, *M, cot,
                          ef ? ef->rowptr : NULL, ef ? ef->colidx : NULL, ef ? ef->order : 0};
        mmx_csc *L = W->A;
        if (sp == MMX_SPACE_DEVICE) {
            s = mmx__geom_laplacian_fill_cuda(ctx, &in, L, W->w);
        } else {
            for (mmx_index j = 0; j < n; j++) mmx__lap_column(&in, j, L->colptr, L->rowidx, L->val, W->w);
            L->colptr[n] = L->nnz;
        }
    }
    mmx_mem_free(ctx, sp, cot);
    return s;
}

/* Builds L; with keep_ef (cotan only) the EF rows it read are handed to the caller, who
 * refreshes the weights later with fill (mmx__cotan_op_update). */
static mmx_status laplacian(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj_in,
                            int cotan, mmx_weighted **out, mmx_csr **keep_ef)
{
    const char *what = cotan ? "mmx_cotan_laplacian" : "mmx_uniform_laplacian";
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "%s: out is NULL", what);
    *out = NULL;
    mmx_status s = mmx__geom_check(ctx, mesh, cotan, what);
    if (s) return s;
    const mmx_csc *M = mesh->M;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_adjacency *own = NULL;
    const mmx_adjacency *adj = adj_in;
    if (adj && (adj->space != sp || adj->nverts != M->nrows || adj->nfaces != M->ncols))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: the adjacency is not the mesh's (or not in the "
                         "context's space)", what);
    if (!adj) s = mmx__mesh_adjacency(ctx, mesh, &adj, &own); /* the mesh's cached one (mesh.h) */
    if (!s && cotan) s = mmx__geom_triangles(ctx, mesh, adj, what);
    const mmx_index n = M->nrows;
    const int64_t nnz = s ? 0 : (int64_t)adj->E->nnz + n;
    if (!s && nnz > MMX_INDEX_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "%s: %lld entries do not fit 32-bit indices", what,
                      (long long)nnz);
    mmx_csr *ef = NULL;
    if (!s && cotan) s = mmx_query(ctx, mesh, adj, MMX_QUERY_EF, &ef);
    mmx_weighted *W = NULL;
    if (!s && !(W = calloc(1, sizeof *W)))
        s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a Laplacian");
    if (!s) {
        W->space = sp;
        W->ctx = ctx;
        s = mmx__csc_alloc(ctx, sp, n, n, (mmx_index)nnz, 0, &W->A);
    }
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)nnz * sizeof *W->w, (void **)&W->w);
    if (!s) s = fill(ctx, mesh, adj, ef, cotan, W);
    if (!s) {
        /* The properties are known without reading the arrays: positional values, and the
         * longest column is E's plus its diagonal. */
        mmx_csc *L = W->A;
        L->positional = 1;
        L->maxcol = n > 0 ? adj->E->maxcol + 1 : 0;
        L->minval = nnz > 0 ? 1 : 0;
        L->maxval = L->maxcol;
    }
    if (!s && keep_ef) *keep_ef = ef, ef = NULL;
    mmx_csr_free(ef);
    mmx_adjacency_free(own);
    if (s) {
        mmx_weighted_free(W);
        return s;
    }
    *out = W;
    return MMX_OK;
}

mmx_status mmx__cotan_op_update(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                mmx__cotan_op *op)
{
    if (!op->L) return laplacian(ctx, mesh, adj, 1, &op->L, &op->ef);
    return fill(ctx, mesh, adj, op->ef, 1, op->L);
}

void mmx__cotan_op_free(mmx__cotan_op *op)
{
    mmx_weighted_free(op->L);
    mmx_csr_free(op->ef);
    op->L = NULL, op->ef = NULL;
}

mmx_status mmx_cotan_laplacian(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                               mmx_weighted **out)
{
    MMX__NEED_CTX(ctx);
    return laplacian(ctx, mesh, adj, 1, out, NULL);
}

mmx_status mmx_uniform_laplacian(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                 mmx_weighted **out)
{
    MMX__NEED_CTX(ctx);
    return laplacian(ctx, mesh, adj, 0, out, NULL);
}
