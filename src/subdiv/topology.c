/* The refined mesh matrix of one level (thesis Tables 4.1, 4.2, Figure 4.16): every face writes
 * its children, read off its corners' edges (FE) or, for sqrt3, off F, into the reduced matrix
 * of order 4 (Catmull-Clark) or 3. The rule per face is mmx__subdiv_children, which the
 * kernel in topology.cu runs too. */
#include "subdiv_internal.h"

mmx_status mmx__subdiv_topology(mmx_ctx *ctx, const mmx__subdiv_ops *ops, mmx_index nverts_out,
                                mmx_csc **out)
{
    const mmx_csc *M = ops->M;
    const int cc = mmx__scheme_quads(ops->scheme);
    const mmx_index order = cc ? 4 : 3;
    /* Catmull-Clark: one quad per corner; Loop: 4 triangles per face; sqrt3: 3. The caller
     * checked that these counts fit. */
    const mmx_index nf = cc ? M->nnz : (ops->scheme == MMX_SCHEME_LOOP ? 4 : 3) * M->ncols;
    mmx__subdiv_topo tp;
    tp.scheme = ops->scheme;
    tp.M = *M;
    tp.F = *ops->adj->F;
    tp.fe = ops->adj->fe;
    mmx_csc *C = NULL;
    mmx_status s = mmx__csc_alloc(ctx, M->space, nverts_out, nf, order * nf, order, &C);
    if (s) return s;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) {
        s = mmx__subdiv_topology_cuda(ctx, tp, M->nrows, C->rowidx);
    } else {
        for (mmx_index k = 0; k < M->ncols && !s; k++)
            if (mmx__subdiv_children(&tp, k, M->nrows, M->ncols, C->rowidx))
                s = mmx__fail(ctx, MMX_ERR_INTERNAL,
                              "subdivision: face %d has an edge without a face across", k);
    }
    if (!s) s = mmx__csc_props(ctx, C);
    if (s) {
        mmx_csc_free(C);
        return s;
    }
    *out = C;
    return MMX_OK;
}

mmx_status mmx__subdiv_mesh_alloc(mmx_ctx *ctx, mmx_index nverts, mmx_mesh **out)
{
    mmx_mesh *m = calloc(1, sizeof *m);
    if (!m) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    m->space = mmx_ctx_space(ctx);
    m->ctx = ctx;
    mmx_status s = mmx_mem_alloc(ctx, m->space, (size_t)nverts * 3 * sizeof(float),
                                 (void **)&m->pos);
    if (s) {
        free(m);
        return s;
    }
    mmx__mesh_cache_attach(m);
    *out = m;
    return MMX_OK;
}
