/* The queries of the partitioned mesh: each rank answers its owned rows on the local mesh
 * (their faces are all local: ring 1), in global numbers; rank 0 places the rows at their global
 * numbers. The edge queries map the local edges to the global numbering (edges.c). */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

/* The kind of a query's rows (source) and entries (target): 0 vertex, 1 edge, 2 face. */
static const int src_of[MMX_QUERY_COUNT] = {0, 0, 0, 1, 1, 2, 2, 2};
static const int dst_of[MMX_QUERY_COUNT] = {0, 1, 2, 0, 2, 0, 1, 2};

mmx_status mmx_dist_query(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_query_kind kind,
                          int64_t *nrows, mmx_index **rowptr, mmx_index **colidx)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_query: dm is NULL");
    mmx_dist *d = dm->d;
    const int R = d->size, me = d->rank;
    mmx_status s = MMX_OK;
    if (!nrows || !rowptr || !colidx)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_query: NULL output");
    else if ((unsigned)kind >= MMX_QUERY_COUNT)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_query: unknown query kind %d", (int)kind);
    if (rowptr) *rowptr = NULL;
    if (colidx) *colidx = NULL;
    if (nrows) *nrows = 0;
    s = mmx_dist_agree(ctx, d, s);
    if (s) return s;
    mmx_csr *Q = NULL;
    mmx_index *ent = NULL, *all_ent = NULL, *prow = NULL, *pcol = NULL;
    mmx_index *hrow = NULL, *hcol = NULL;
    int64_t *head = NULL, *all_head = NULL, *cnt = NULL, *at = NULL;
    mmx__dist_counters *kept = dm->cnt;
    const int src = src_of[kind], dst = dst_of[kind];
    if ((src == 1 || dst == 1) && !kept->eg) {
        /* The local edges' global numbers, from the local mesh's adjacency on the host (on CUDA
         * its host copy: the device's adjacency numbers the edges the same way, mesh.h), and
         * an edge owned where its larger end is; made once, kept with dm. */
        mmx_ctx *hc = dm->dev ? dm->dev->hctx : ctx;
        mmx_adjacency *A = NULL;
        unsigned char *eown = NULL;
        int64_t *eg = NULL, gedges = 0;
        s = mmx_adjacency_compute(hc, dm->dev ? dm->dev->hlocal : dm->local, &A);
        if (s && hc != ctx) s = mmx__fail(ctx, s, "%s", mmx_ctx_error(hc));
        if (!s) s = mmx__host_alloc(ctx, (size_t)A->nedges, 1, (void **)&eown);
        for (mmx_index e = 0; !s && e < A->nedges; e++) eown[e] = dm->ov[A->ev[2 * e + 1]];
        s = mmx_dist_agree(ctx, d, s);
        if (!s) s = mmx__dist_edge_numbers(ctx, dm, A, &eg, &gedges);
        if (!s && gedges > INT32_MAX)
            s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_dist_query: %lld edges pass 32-bit indices",
                          (long long)gedges);
        if (s) {
            mmx_adjacency_free(A);
            free(eown), free(eg);
            return s;
        }
        kept->adj = A, kept->eown = eown, kept->eg = eg, kept->gedges = gedges;
    }
    const mmx_adjacency *A = kept->adj;
    const unsigned char *eown = kept->eown;
    const int64_t *eg = kept->eg, gedges = kept->gedges;
    const unsigned char *own = src == 0 ? dm->ov : src == 1 ? eown : dm->of;
    const int64_t *g = src == 0 ? dm->gv : src == 1 ? eg : dm->gf;
    const int64_t *gt = dst == 0 ? dm->gv : dst == 1 ? eg : dm->gf;
    const mmx_index nloc = src == 0 ? mmx_mesh_nverts(dm->local)
                           : src == 1 ? A->nedges : mmx_mesh_nfaces(dm->local);
    mmx_index nown = src == 0 ? dm->nov : src == 2 ? dm->nof : 0;
    for (mmx_index e = 0; src == 1 && e < nloc; e++) nown += eown[e];
    const int64_t ntotal = src == 0 ? dm->gverts : src == 1 ? gedges : dm->gfaces;
    s = mmx_query(ctx, dm->local, dm->dev ? NULL : A, kind, &Q);
    /* On CUDA the local answer is read back (rows: its row pointers, when general, and its
     * entries). */
    const mmx_index *qrow = Q ? Q->rowptr : NULL, *qcol = Q ? Q->colidx : NULL;
    if (!s && Q->space == MMX_SPACE_DEVICE) {
        const size_t nr = Q->rowptr ? ((size_t)Q->nrows + 1) * sizeof *hrow : 0;
        const size_t nz = (size_t)Q->nnz * sizeof *hcol;
        s = mmx__host_alloc(ctx, nr / sizeof *hrow, sizeof *hrow, (void **)&hrow);
        if (!s) s = mmx__host_alloc(ctx, (size_t)Q->nnz, sizeof *hcol, (void **)&hcol);
        if (!s && nr) s = mmx_mem_copy(ctx, hrow, MMX_SPACE_HOST, Q->rowptr, MMX_SPACE_DEVICE, nr);
        if (!s) s = mmx_mem_copy(ctx, hcol, MMX_SPACE_HOST, Q->colidx, MMX_SPACE_DEVICE, nz);
        qrow = nr ? hrow : NULL, qcol = hcol;
    }
    int64_t nent = 0;
    if (!s) {
        for (mmx_index r = 0; r < nloc; r++)
            if (own[r]) nent += Q->order ? Q->order : qrow[r + 1] - qrow[r];
        s = mmx__host_alloc(ctx, 2 * (size_t)nown, sizeof *head, (void **)&head);
    }
    if (!s) s = mmx__host_alloc(ctx, (size_t)nent, sizeof *ent, (void **)&ent);
    if (!s) {
        int64_t i = 0, e = 0;
        for (mmx_index r = 0; r < nloc; r++) {
            if (!own[r]) continue;
            const mmx_index a = Q->order ? Q->order * r : qrow[r];
            const mmx_index b = Q->order ? a + Q->order : qrow[r + 1];
            head[2 * i] = g[r], head[2 * i + 1] = b - a, i++;
            for (mmx_index k = a; k < b; k++) ent[e++] = (mmx_index)gt[qcol[k]];
        }
    }
    if (!s && me == 0) s = mmx__host_alloc(ctx, (size_t)R, sizeof *cnt, (void **)&cnt);
    s = mmx_dist_agree(ctx, d, s);
    int64_t total = 0, etotal = 0;
    /* The row heads (global number, length), then the entries. */
    if (!s) s = mmx__dist_gather_i64(ctx, d, 16 * (int64_t)nown, cnt, 0);
    if (!s && me == 0) {
        for (int q = 0; q < R; q++) total += cnt[q];
        s = mmx__host_alloc(ctx, (size_t)total, 1, (void **)&all_head);
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_gatherv(ctx, d, head, 16 * (int64_t)nown, all_head, cnt, 0);
    if (!s) s = mmx__dist_gather_i64(ctx, d, 4 * nent, cnt, 0);
    if (!s && me == 0) {
        for (int q = 0; q < R; q++) etotal += cnt[q];
        s = mmx__host_alloc(ctx, (size_t)etotal, 1, (void **)&all_ent);
        etotal /= 4, total /= 16;
        if (!s && (total != ntotal || etotal > INT32_MAX))
            s = mmx__fail(ctx, total != ntotal ? MMX_ERR_INTERNAL : MMX_ERR_OVERFLOW,
                          "mmx_dist_query: %lld rows gathered of %lld, %lld entries",
                          (long long)total, (long long)ntotal, (long long)etotal);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ntotal + 1, sizeof *prow, (void **)&prow);
        if (!s) s = mmx__host_alloc(ctx, (size_t)etotal, sizeof *pcol, (void **)&pcol);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ntotal, sizeof *at, (void **)&at);
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_gatherv(ctx, d, ent, 4 * nent, all_ent, cnt, 0);
    dm->cnt->bytes += 16 * (int64_t)nown + 4 * nent;
    if (!s && me == 0) {
        /* at[row] = where its entries start in the gathered list; then in row order. */
        memset(prow, 0, ((size_t)ntotal + 1) * sizeof *prow);
        for (int64_t i = 0, e = 0; i < total; i++) {
            const int64_t r = all_head[2 * i];
            at[r] = e, prow[r + 1] = (mmx_index)all_head[2 * i + 1], e += all_head[2 * i + 1];
        }
        for (int64_t r = 0; r < ntotal; r++) prow[r + 1] += prow[r];
        for (int64_t r = 0; r < ntotal; r++)
            memcpy(pcol + prow[r], all_ent + at[r], (size_t)(prow[r + 1] - prow[r]) * sizeof *pcol);
        *nrows = ntotal, *rowptr = prow, *colidx = pcol;
        prow = pcol = NULL;
    }
    mmx_csr_free(Q);
    free(ent), free(all_ent), free(prow), free(pcol), free(hrow), free(hcol);
    free(head), free(all_head), free(cnt), free(at);
    return s;
}
