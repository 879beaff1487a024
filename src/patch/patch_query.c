/* mmx_patch_query (patch.h): the eight queries computed patch by patch. Each patch builds
 * its local edge and vertex face lists from its FE and EV blocks (patch_block.h) and writes
 * the rows of its owned elements in global indices. Two passes: the row lengths (and, for the
 * vertex queries, the check of orientation), a scan into row offsets, then the rows. The host
 * runs the per-patch steps in a loop; the CUDA backend (patch_query.cu) one block per patch. */
#include <string.h>
#include "patch_block.h"

/* Setup, load and the lists `needs` asks for (1 edge lists, 2 vertex lists), on the host. */
void mmx__patch_local_host(const mmx_patch_set *ps, mmx_index p, void *w, int needs,
                           mmx__plocal *L)
{
    mmx__pl_setup(ps, p, w, L);
    const mmx_index items = mmx__pl_load_items(L);
    for (mmx_index i = 0; i < items; i++) mmx__pl_load_item(ps, p, L, i);
    for (int vf = 0; vf < 2; vf++) {
        if (!(needs & (1 << vf))) continue;
        const mmx_index n = vf ? L->nv : L->ne;
        mmx_index *off = vf ? L->vf_off : L->ef_off;
        uint16_t *list = vf ? L->vf : L->ef;
        memset(L->cnt, 0, (size_t)n * sizeof *L->cnt);
        for (mmx_index l = 0; l < L->nf; l++) mmx__pl_count_face(L, l, vf);
        off[0] = 0;
        for (mmx_index i = 0; i < n; i++) off[i + 1] = off[i] + L->cnt[i];
        memset(L->cnt, 0, (size_t)n * sizeof *L->cnt);
        for (mmx_index l = 0; l < L->nf; l++) mmx__pl_fill_face(L, l, vf);
        for (mmx_index i = 0; i < n; i++) mmx__pl_sort(list + off[i], off[i + 1] - off[i], L->gf);
    }
}

/* The source and target counts of a query on the set's mesh. */
static mmx_index count_of(const mmx_patch_set *ps, int what)
{
    return what == 0 ? ps->nverts : what == 1 ? ps->nedges : ps->nfaces;
}

static const int source_kind[MMX_QUERY_COUNT] = {0, 0, 0, 1, 1, 2, 2, 2};
static const int target_kind[MMX_QUERY_COUNT] = {0, 1, 2, 0, 2, 0, 1, 2};

mmx_status mmx__patch_edge_ends(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index e, mmx_index ends[2])
{
    mmx_index p = 0, off = 0, v0 = 0;
    uint16_t loc = 0, ev[2] = {0, 0};
    const mmx_space sp = ps->space, H = MMX_SPACE_HOST;
    mmx_status s = mmx_mem_copy(ctx, &p, H, ps->edge_patch + e, sp, sizeof p);
    if (!s) s = mmx_mem_copy(ctx, &loc, H, ps->edge_local + e, sp, sizeof loc);
    if (!s) s = mmx_mem_copy(ctx, &off, H, ps->edge_off + p, sp, sizeof off);
    if (!s) s = mmx_mem_copy(ctx, &v0, H, ps->vert_off + p, sp, sizeof v0);
    if (!s) s = mmx_mem_copy(ctx, ev, H, ps->ev + 2 * ((size_t)off + loc), sp, sizeof ev);
    if (!s) s = mmx_mem_copy(ctx, &ends[0], H, ps->l2g_v + v0 + ev[0], sp, sizeof *ends);
    if (!s) s = mmx_mem_copy(ctx, &ends[1], H, ps->l2g_v + v0 + ev[1], sp, sizeof *ends);
    return s;
}

/* Pass 1 on the host: row lengths into len (global rows), the smallest inconsistent edge
 * (vertex queries) into *bad (-1: none). */
static mmx_status lengths_host(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                               mmx_index *len, mmx_index *bad)
{
    void *w = NULL;
    mmx_status s = mmx__host_alloc(ctx, ps->max_scratch + 16, 1, &w);
    if (s) return s;
    *bad = -1;
    const int needs = mmx__pl_needs(kind), vertex = kind <= MMX_QUERY_VF;
    for (mmx_index p = 0; p < ps->npatches; p++) {
        mmx__plocal L;
        mmx__patch_local_host(ps, p, w, needs, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        for (mmx_index i = 0; i < n; i++) len[mmx__pl_global(&L, kind, i)] = mmx__pl_row_len(&L, kind, i);
        if (vertex)
            for (mmx_index e = 0; e < L.oe; e++)
                if (mmx__pl_inconsistent(&L, e) && (*bad < 0 || L.ge[e] < *bad)) *bad = L.ge[e];
    }
    free(w);
    return MMX_OK;
}

/* Pass 2 on the host: the rows, at rowptr (or order * row in the reduced form). */
static mmx_status fill_host(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                            const mmx_index *rowptr, mmx_index order, mmx_index *colidx)
{
    void *w = NULL;
    mmx_status s = mmx__host_alloc(ctx, ps->max_scratch + 16, 1, &w);
    if (s) return s;
    const int needs = mmx__pl_needs(kind);
    for (mmx_index p = 0; p < ps->npatches; p++) {
        mmx__plocal L;
        mmx__patch_local_host(ps, p, w, needs, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        for (mmx_index i = 0; i < n; i++) {
            const mmx_index g = mmx__pl_global(&L, kind, i);
            mmx__psink sink = {colidx + (rowptr ? rowptr[g] : (int64_t)order * g), 0, NULL, 0, {0, 0, 0, 0}};
            mmx__pl_row(&L, kind, i, &sink);
        }
    }
    free(w);
    return MMX_OK;
}

mmx_status mmx_patch_query(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                           mmx_csr **out)
{
    MMX__NEED_CTX(ctx);
    if (!ctx || !ps || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_query: NULL argument");
    *out = NULL;
    if ((int)kind < 0 || kind >= MMX_QUERY_COUNT)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_query: unknown query kind %d", (int)kind);
    if (ps->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_patch_query: the patch set is not in the context's space");
    const mmx_space sp = ps->space;
    const int dev = sp == MMX_SPACE_DEVICE;
    const mmx_index nrows = count_of(ps, source_kind[kind]);
    /* The reduced form where every row has one length (query.h). */
    const mmx_index order = kind == MMX_QUERY_EV ? 2
                            : (kind == MMX_QUERY_FV || kind == MMX_QUERY_FE) ? ps->order : 0;
    mmx_csr *A = NULL;
    mmx_index *rowptr = NULL, *colidx = NULL, *len = NULL;
    mmx__readback rb;
    memset(&rb, 0, sizeof rb);
    mmx_status s = mmx__host_alloc(ctx, 1, sizeof *A, (void **)&A);
    if (s) return s;
    memset(A, 0, sizeof *A);
    A->nrows = nrows, A->ncols = count_of(ps, target_kind[kind]);
    A->order = order, A->space = sp, A->ctx = ctx;
    int64_t total = (int64_t)order * nrows;
    if (!order) {
        mmx_index bad = -1;
        s = mmx_mem_alloc(ctx, sp, ((size_t)nrows + 1) * sizeof *rowptr, (void **)&rowptr);
        if (!s) s = mmx_mem_alloc(ctx, sp, ((size_t)nrows + 1) * sizeof *len, (void **)&len);
        if (!s) s = mmx__mem_zero(ctx, len, ((size_t)nrows + 1) * sizeof *len);
        if (!s && !dev) {
            s = lengths_host(ctx, ps, kind, len, &bad);
            total = 0;
            for (mmx_index i = 0; !s && i < nrows; i++) rowptr[i] = (mmx_index)total, total += len[i];
            if (!s && total <= MMX_INDEX_MAX) rowptr[nrows] = (mmx_index)total;
        } else if (!s) {
            /* One wait: the inconsistent edge and the total, read together. */
            unsigned int *fault = NULL;
            int64_t *sum = NULL;
            /* rowptr[0] too, which a scan of no rows leaves unwritten. */
            s = mmx__mem_zero(ctx, rowptr, sizeof *rowptr);
            if (!s) s = mmx__readback_open(ctx, &rb);
            if (!s) s = mmx__readback_slot(&rb, sizeof *fault, (void **)&fault);
            if (!s) s = mmx__readback_slot(&rb, sizeof *sum, (void **)&sum);
            if (!s) s = mmx__patch_query_lengths_cuda(ctx, ps, kind, len, fault);
            if (!s) s = mmx__reduce_sum(ctx, len, nrows, sum);
            if (!s) s = mmx__scan_offsets(ctx, len, nrows, rowptr);
            if (!s) s = mmx__readback_wait(&rb);
            if (!s) {
                const unsigned int key = *(const unsigned int *)mmx__readback_host(&rb, fault);
                bad = key ? MMX__PATCH_FAULT_EDGE(key) : -1;
                total = *(const int64_t *)mmx__readback_host(&rb, sum);
            }
        }
        if (!s && bad >= 0) {
            mmx_index ends[2] = {-1, -1};
            s = mmx__patch_edge_ends(ctx, ps, bad, ends);
            if (!s)
                s = mmx__fail(ctx, MMX_ERR_MESH,
                              "patch query %s: edge %d {%d, %d} has two faces that run it the same "
                              "way: the faces are not consistently oriented",
                              mmx_query_name(kind), bad, ends[0], ends[1]);
        }
    }
    if (!s && total > MMX_INDEX_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "patch query %s: %lld entries do not fit 32-bit indices",
                      mmx_query_name(kind), (long long)total);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)total * sizeof *colidx, (void **)&colidx);
    if (!s) A->nnz = (mmx_index)total;
    if (!s && total > 0) { /* no entries: no array to write into (colidx is NULL) */
        s = dev ? mmx__patch_query_fill_cuda(ctx, ps, kind, order ? NULL : rowptr, order, colidx)
                : fill_host(ctx, ps, kind, order ? NULL : rowptr, order, colidx);
    }
    mmx__readback_close(&rb);
    mmx_mem_free(ctx, sp, len);
    A->rowptr = rowptr, A->colidx = colidx;
    if (s) {
        mmx_csr_free(A);
        return s;
    }
    *out = A;
    return MMX_OK;
}
