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

/* Stage 1, host: edge_ptr[j + 1] - edge_ptr[j] = the rows i < j in column j of E. */
static void edge_ptr_host(const mmx_csc *E, mmx_index *edge_ptr)
{
    edge_ptr[0] = 0;
    for (mmx_index j = 0; j < E->nrows; j++) {
        mmx_index a = E->colptr[j];
        edge_ptr[j + 1] = edge_ptr[j] + (mmx__lower_bound(E->rowidx, a, E->colptr[j + 1], j) - a);
    }
}

/* Stage 2, host: the arrays and counts, given edge_ptr and room for everything. */
static mmx_status fill_host(mmx_ctx *ctx, const mmx_csc *M, mmx_adjacency *adj)
{
    const mmx_csc *E = adj->E;
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
                adj->boundary_edges++;
                adj->boundary[i] = adj->boundary[j] = 1;
            } else if (E->val[q] >= 3) {
                adj->nonmanifold_edges++;
            }
        }
    }
    /* Corners: valence (M·1) and the directed edge each corner runs to the next one. */
    for (mmx_index k = 0; k < M->ncols; k++) {
        mmx_index s = M->order ? M->order * k : M->colptr[k];
        mmx_index n = M->order ? M->order : M->colptr[k + 1] - s;
        for (mmx_index t = 0; t < n; t++) {
            mmx_index v = M->rowidx[s + t], w = M->rowidx[s + (t + 1 == n ? 0 : t + 1)];
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
        adj->boundary_verts += adj->boundary[v];
        if (adj->valence[v] > adj->max_valence) adj->max_valence = adj->valence[v];
    }
    return MMX_OK;
}

void mmx_adjacency_free(mmx_adjacency *adj)
{
    if (!adj) return;
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
    const size_t ix = sizeof(mmx_index);
    s = mmx_mesh_product(ctx, M, emap, &adj->E);
    if (!s) s = mmx_mesh_product(ctx, M, fmap, &adj->F);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, ((size_t)adj->nverts + 1) * ix, (void **)&adj->edge_ptr);
    if (s) goto fail;
    if (cuda) {
        /* nedges sizes the next arrays: the copy into host memory waits for the scan. */
        s = mmx__adjacency_edge_ptr_cuda(ctx, adj->E, adj->edge_ptr);
        if (!s) s = mmx_mem_copy(ctx, &adj->nedges, MMX_SPACE_HOST, adj->edge_ptr + adj->nverts,
                                 adj->space, ix);
    } else {
        edge_ptr_host(adj->E, adj->edge_ptr);
        adj->nedges = adj->edge_ptr[adj->nverts];
    }
    if (s) goto fail;
    /* nedges <= nnz(E) / 2, so 2 * nedges fits. */
    s = mmx_mem_alloc(ctx, adj->space, 2 * (size_t)adj->nedges * ix, (void **)&adj->ev);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, (size_t)adj->nedges * ix, (void **)&adj->sides);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, (size_t)M->nnz * ix, (void **)&adj->fe);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, (size_t)adj->nverts * ix, (void **)&adj->valence);
    if (!s) s = mmx_mem_alloc(ctx, adj->space, (size_t)adj->nverts, (void **)&adj->boundary);
    if (s) goto fail;
    s = cuda ? mmx__adjacency_fill_cuda(ctx, M, adj) : fill_host(ctx, M, adj);
    if (s) goto fail;
    *out = adj;
    return MMX_OK;
fail:
    mmx_adjacency_free(adj);
    return s;
}
