/* Adjacency by algebra (thesis 4.1, 4.2, 5.2): E and F from two implicit products M·Mᵀ, and
 * the arrays read off them.
 *
 *   E = M <CYCLE_BOTH p=1, MAP, SUM> Mᵀ: E(i,j) counts the faces in which i and j follow each
 *       other, so its pattern is the vertex graph and its values the sides of each edge.
 *   F = M <CYCLE p=1, K, MIN> Mᵀ: F(i,j) is the face that runs the half-edge i -> j.
 *
 * Edges are numbered by E's upper triangle in column order: edge_ptr is the exclusive scan of
 * the number of rows i < j in each column j (rows are ascending), and the edge {i, j}, i < j,
 * is edge_ptr[j] + the position of i in column j. A face corner v followed by w finds its
 * edge by a binary search of min(v, w) in column max(v, w). Valence is M·1, the row counts.
 *
 * The flow (products, sizes, allocation) is here for both backends; the two stages that read E
 * and M run on the host below, or on the device in adjacency.cu. */
#include <string.h>
#include "mesh_internal.h"
#include "spla/spla_internal.h"

/* The host's stages: edge_ptr from E (the rows i < j in each column j), then the arrays and
 * counts. */
static mmx_status fill_host(mmx_ctx *ctx, const mmx_csc *M, mmx_adjacency *adj,
                            mmx__adjacency_counts *n)
{
    const mmx_csc *E = adj->E;
    adj->edge_ptr[0] = 0;
    for (mmx_index j = 0; j < E->nrows; j++) {
        mmx_index a = E->colptr[j];
        adj->edge_ptr[j + 1] =
            adj->edge_ptr[j] + (mmx__lower_bound(E->rowidx, a, E->colptr[j + 1], j) - a);
    }
    n->nedges = adj->edge_ptr[adj->nverts];
    if (adj->nverts > 0) {
        memset(adj->boundary, 0, (size_t)adj->nverts);
        memset(adj->valence, 0, (size_t)adj->nverts * sizeof *adj->valence);
    }
    /* Edges: the upper triangle of E, column by column. */
    for (mmx_index j = 0; j < adj->nverts; j++) {
        mmx_index e = adj->edge_ptr[j];
        for (mmx_index q = E->colptr[j]; q < E->colptr[j + 1] && E->rowidx[q] < j; q++, e++) {
            mmx_index i = E->rowidx[q];
            adj->ev[2 * e] = i;
            adj->ev[2 * e + 1] = j;
            adj->sides[e] = E->val[q];
            if (E->val[q] == 1) {
                n->boundary_edges++;
                adj->boundary[i] = adj->boundary[j] = 1;
            } else if (E->val[q] >= 3) {
                n->nonmanifold_edges++;
            }
        }
    }
    /* Corners: valence (M·1) and the directed edge each corner runs to the next one. */
    for (mmx_index k = 0; k < M->ncols; k++) {
        mmx_index s = M->order ? M->order * k : M->colptr[k];
        mmx_index c = M->order ? M->order : M->colptr[k + 1] - s;
        if (k == 0) n->first_order = c;
        else if (c != n->first_order) n->mixed_orders = 1;
        for (mmx_index t = 0; t < c; t++) {
            mmx_index v = M->rowidx[s + t], w = M->rowidx[s + (t + 1 == c ? 0 : t + 1)];
            if (v == w) /* only a matrix assembled by hand (a view) can hold this */
                return mmx__fail(ctx, MMX_ERR_ARG,
                                 "adjacency: face %d has vertex %d twice in a row", k, v);
            mmx_index lo = v < w ? v : w, hi = v < w ? w : v;
            mmx_index a = E->colptr[hi], b = E->colptr[hi + 1];
            mmx_index q = mmx__lower_bound(E->rowidx, a, b, lo);
            if (q == b || E->rowidx[q] != lo)
                return mmx__fail(ctx, MMX_ERR_INTERNAL,
                                 "adjacency: face %d runs %d -> %d, which E does not hold", k, v, w);
            adj->fe[s + t] = 2 * (adj->edge_ptr[hi] + (q - a)) + (v < w ? 0 : 1);
            adj->valence[v]++;
        }
    }
    for (mmx_index v = 0; v < adj->nverts; v++) {
        n->boundary_verts += adj->boundary[v];
        if (adj->valence[v] > n->max_valence) n->max_valence = adj->valence[v];
    }
    return MMX_OK;
}

/* The host fields from the counts read back. */
static mmx_status settle(mmx_ctx *ctx, mmx_adjacency *adj, const mmx__adjacency_counts *n)
{
    if (n->fault)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "adjacency: a face runs an edge that E does not hold (a vertex twice in "
                         "a row, which only a matrix assembled by hand can have)");
    adj->nedges = n->nedges;
    adj->boundary_edges = n->boundary_edges;
    adj->nonmanifold_edges = n->nonmanifold_edges;
    adj->boundary_verts = n->boundary_verts;
    adj->max_valence = n->max_valence;
    adj->face_order = n->mixed_orders ? 0 : n->first_order;
    return MMX_OK;
}

void mmx_adjacency_free(mmx_adjacency *adj)
{
    if (!adj) return;
    if (adj->view) { /* the arrays are another adjacency's */
        free(adj);
        return;
    }
    /* Device arrays go back to the pool of the context that computed them, in its stream's
     * order: no wait, even with work that reads them still queued. */
    mmx_csc_free(adj->E);
    mmx_csc_free(adj->F);
    mmx_mem_free(adj->ctx, adj->space, adj->edge_ptr);
    mmx_mem_free(adj->ctx, adj->space, adj->ev);
    mmx_mem_free(adj->ctx, adj->space, adj->sides);
    mmx_mem_free(adj->ctx, adj->space, adj->fe);
    mmx_mem_free(adj->ctx, adj->space, adj->valence);
    mmx_mem_free(adj->ctx, adj->space, adj->boundary);
    free(adj);
}

mmx_status mmx_adjacency_compute(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_adjacency **out)
{
    MMX__NEED_CTX(ctx);
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_adjacency_compute: out is NULL");
    *out = NULL;
    if (!mesh || !mesh->M) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_adjacency_compute: mesh is NULL");
    const mmx_csc *M = mesh->M;
    mmx_status s = mmx__check_space(ctx, M->space, "mmx_adjacency_compute: mesh");
    if (!s && M->space != mmx_ctx_space(ctx))
        s = mmx__fail(ctx, MMX_ERR_SPACE,
                      "mmx_adjacency_compute: the mesh is in host memory but the context is on the "
                      "CUDA backend");
    if (s) return s;
    const int cuda = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    mmx_adjacency *adj = calloc(1, sizeof *adj);
    if (!adj) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for an adjacency");
    adj->space = M->space;
    adj->ctx = ctx;
    adj->nverts = M->nrows;
    adj->nfaces = M->ncols;
    const mmx_gemm_map emap = {{MMX_REL_CYCLE_BOTH, 1, NULL, 0}, MMX_COLL_MAP, MMX_MONOID_SUM};
    const mmx_gemm_map fmap = {{MMX_REL_CYCLE, 1, NULL, 0}, MMX_COLL_K, MMX_MONOID_MIN};
    const size_t ix = sizeof(mmx_index), nnz = (size_t)M->nnz;
    /* One wait for every size and count: the arrays are sized by bounds (nedges <= nnz(M),
     * as every edge is run by a corner), the products queued with theirs (spla_internal.h),
     * and the sizes and counts come back together. */
    mmx__readback rb;
    mmx__product_report *erep = NULL, *frep = NULL;
    mmx__adjacency_counts *counts = NULL;
    s = mmx__readback_open(ctx, &rb);
    if (s) goto fail;
    s = mmx__mesh_product_queue(ctx, M, emap, &rb, &adj->E, &erep);
    if (!s) s = mmx__mesh_product_queue(ctx, M, fmap, &rb, &adj->F, &frep);
    if (!s) s = mmx__readback_slot(&rb, sizeof *counts, (void **)&counts);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, ((size_t)adj->nverts + 1) * ix, (void **)&adj->edge_ptr);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, 2 * nnz * ix, (void **)&adj->ev);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, nnz * ix, (void **)&adj->sides);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, nnz * ix, (void **)&adj->fe);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, (size_t)adj->nverts * ix, (void **)&adj->valence);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, (size_t)adj->nverts, (void **)&adj->boundary);
    if (!s) s = cuda ? mmx__adjacency_fill_cuda(ctx, M, adj, counts) : fill_host(ctx, M, adj, counts);
    if (!s) s = mmx__readback_wait(&rb);
    if (!s) s = mmx__mesh_product_settle(ctx, adj->E, &rb, erep);
    if (!s) s = mmx__mesh_product_settle(ctx, adj->F, &rb, frep);
    if (!s) s = settle(ctx, adj, mmx__readback_host(&rb, counts));
    mmx__readback_close(&rb);
    if (s) goto fail;
    *out = adj;
    return MMX_OK;
fail:
    mmx_adjacency_free(adj);
    return s;
}
