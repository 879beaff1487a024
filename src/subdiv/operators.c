/* The operators one subdivision level multiplies with (thesis 4.1.2, 4.2.2, 4.3.2): E and F
 * from the adjacency, EV and FE read off it, the identity for eq. 4.30, and each scheme's
 * weights as map tables. The tables are filled on the host below or by operators.cu. */
#include <string.h>
#include "subdiv_internal.h"

/* EV as a view of adj->ev: column e holds the two ends of edge e, so EVᵀ·p sums each edge's
 * ends. The reduced form of order 2 needs no colptr and no values. */
static mmx_csc ev_view(const mmx_adjacency *adj)
{
    mmx_csc EV;
    memset(&EV, 0, sizeof EV);
    EV.nrows = adj->nverts;
    EV.ncols = adj->nedges;
    EV.nnz = 2 * adj->nedges;
    EV.rowidx = adj->ev;
    EV.order = 2;
    EV.space = adj->space;
    if (adj->nedges) EV.maxcol = 2, EV.minval = 1, EV.maxval = 2, EV.positional = 1;
    return EV;
}

/* FE: M's columns with each corner's edge (adj->fe / 2) as its row. A face's edges are
 * distinct (its vertices are), so FE is a valid matrix, positional like M. */
static mmx_status fe_build(mmx_ctx *ctx, const mmx_csc *M, const mmx_adjacency *adj,
                           mmx_csc **out)
{
    mmx_csc *FE = NULL;
    const int cuda = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    mmx_status s = mmx__csc_alloc(ctx, M->space, adj->nedges, M->ncols, M->nnz, M->order, &FE);
    if (s) return s;
    if (!M->order)
        s = mmx_mem_copy(ctx, FE->colptr, FE->space, M->colptr, M->space,
                         ((size_t)M->ncols + 1) * sizeof(mmx_index));
    if (!s && cuda) {
        s = mmx__subdiv_fe_rows_cuda(ctx, adj->fe, M->nnz, FE->rowidx);
    } else if (!s) {
        for (mmx_index q = 0; q < M->nnz; q++) FE->rowidx[q] = adj->fe[q] >> 1;
    }
    if (!s && !M->order) s = mmx__csc_fill_positions(ctx, FE);
    if (!s) s = mmx__csc_props(ctx, FE);
    if (s) {
        mmx_csc_free(FE);
        return s;
    }
    *out = FE;
    return MMX_OK;
}

/* I, n x n, reduced of order 1: column v holds row v. */
static mmx_status identity_build(mmx_ctx *ctx, mmx_index n, mmx_csc **out)
{
    mmx_csc *I = NULL;
    mmx_status s = mmx__csc_alloc(ctx, mmx_ctx_space(ctx), n, n, n, 1, &I);
    if (s) return s;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) {
        s = mmx__subdiv_iota_cuda(ctx, n, I->rowidx);
    } else {
        for (mmx_index v = 0; v < n; v++) I->rowidx[v] = v;
    }
    if (!s) s = mmx__csc_props(ctx, I);
    if (s) {
        mmx_csc_free(I);
        return s;
    }
    *out = I;
    return MMX_OK;
}

/* The small fixed tables, made on the host and copied to the context's space: E's boundary
 * edge selector and the face map (sqrt3: 1/3 by position; Catmull-Clark and bilinear: 1/c by
 * order c up to the longest face). */
static mmx_status small_tables(mmx_ctx *ctx, mmx__subdiv_ops *ops)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const float boundary_edge[2] = {1.0f, 0.0f}; /* E's value: 1 face, 2 faces */
    mmx_status s = mmx_mem_alloc(ctx, sp, sizeof boundary_edge, (void **)&ops->boundary_edge);
    if (!s) s = mmx_mem_copy(ctx, ops->boundary_edge, sp, boundary_edge, MMX_SPACE_HOST,
                             sizeof boundary_edge);
    mmx_index len = ops->scheme == MMX_SCHEME_SQRT3 ? 3
                  : mmx__scheme_quads(ops->scheme) ? ops->M->maxcol + 1 : 0;
    if (s || len == 0) return s;
    float *w = NULL;
    s = mmx__host_alloc(ctx, (size_t)len, sizeof *w, (void **)&w);
    if (s) return s;
    for (mmx_index c = 0; c < len; c++)
        w[c] = mmx__rule_face_weight(ops->scheme == MMX_SCHEME_SQRT3 ? 3 : c);
    s = mmx_mem_alloc(ctx, sp, (size_t)len * sizeof *w, (void **)&ops->face_w);
    if (!s) s = mmx_mem_copy(ctx, ops->face_w, sp, w, MMX_SPACE_HOST, (size_t)len * sizeof *w);
    if (!s) ops->len_face_w = len;
    free(w);
    return s;
}

/* The per-vertex and per-edge weights on the host. */
static void tables_host(mmx__subdiv_ops *ops)
{
    const mmx_adjacency *adj = ops->adj;
    for (mmx_index v = 0; v < adj->nverts; v++)
        mmx__subdiv_vertex_tables(ops->scheme, &ops->sharp, ops->level, adj->valence,
                                  adj->boundary, v, ops->w_self, ops->w_ring, ops->w_crease);
    for (mmx_index e = 0; e < adj->nedges; e++)
        mmx__subdiv_edge_tables(ops->scheme, adj->sides, e, ops->w_ends, ops->w_faces);
}

void mmx__subdiv_ops_free(mmx__subdiv_ops *ops)
{
    if (!ops) return;
    /* The tables were allocated through the adjacency's context (the level's), in its space. */
    const mmx_space sp = ops->adj ? ops->adj->space : MMX_SPACE_HOST;
    mmx_ctx *ctx = ops->adj ? ops->adj->ctx : NULL;
    mmx_csc_free(ops->FE);
    mmx_csc_free(ops->I);
    mmx_mem_free(ctx, sp, ops->w_self);
    mmx_mem_free(ctx, sp, ops->w_ring);
    mmx_mem_free(ctx, sp, ops->w_crease);
    mmx_mem_free(ctx, sp, ops->w_ends);
    mmx_mem_free(ctx, sp, ops->w_faces);
    mmx_mem_free(ctx, sp, ops->boundary_edge);
    mmx_mem_free(ctx, sp, ops->face_w);
    mmx_mem_free(ctx, sp, ops->sel);
    mmx_mem_free(ctx, sp, ops->E_num_val);
    memset(ops, 0, sizeof *ops);
}

mmx_status mmx__subdiv_ops_build(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sharp,
                                 int level, const mmx_mesh *mesh, mmx_adjacency *adj,
                                 mmx__crease_level *creases, mmx__subdiv_ops *ops)
{
    memset(ops, 0, sizeof *ops);
    ops->scheme = scheme;
    ops->sharp = *sharp;
    ops->level = level;
    ops->M = mesh->M;
    ops->adj = adj;
    ops->EV = ev_view(adj);
    const mmx_space sp = adj->space;
    const size_t nv = (size_t)adj->nverts, ne = (size_t)adj->nedges;
    mmx_status s = fe_build(ctx, mesh->M, adj, &ops->FE);
    if (!s) s = identity_build(ctx, adj->nverts, &ops->I);
    if (!s) s = small_tables(ctx, ops);
    if (!s) s = mmx_mem_alloc(ctx, sp, nv * sizeof(float), (void **)&ops->w_self);
    if (!s) s = mmx_mem_alloc(ctx, sp, nv * sizeof(float), (void **)&ops->w_ring);
    if (!s) s = mmx_mem_alloc(ctx, sp, nv * sizeof(float), (void **)&ops->w_crease);
    if (!s) s = mmx_mem_alloc(ctx, sp, ne * sizeof(float), (void **)&ops->w_ends);
    if (!s) s = mmx_mem_alloc(ctx, sp, ne * sizeof(float), (void **)&ops->w_faces);
    if (!s && creases) s = mmx__crease_tables(ctx, ops, creases);
    else if (!s && mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) s = mmx__subdiv_tables_cuda(ctx, ops);
    else if (!s) tables_host(ops);
    if (s) mmx__subdiv_ops_free(ops);
    return s;
}

mmx_status mmx__subdiv_crease_sum(mmx_ctx *ctx, const mmx__subdiv_ops *ops, const float *p,
                                  float *bp)
{
    if (ops->sel)
        return mmx_spmv(ctx, MMX_OP_T, 1.0f, &ops->E_num,
                        mmx_map_table(MMX_MAP_BY_VALUE, ops->sel, ops->E_num.nnz), p, 3, 0.0f, bp);
    return mmx_spmv(ctx, MMX_OP_T, 1.0f, ops->adj->E,
                    mmx_map_table(MMX_MAP_BY_VALUE, ops->boundary_edge, 2), p, 3, 0.0f, bp);
}
