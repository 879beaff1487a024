/* mmx_patch_query (patch.h): the eight queries computed patch by patch from the FE and EV
 * blocks (patch_block.h), the rows of its owned elements written in global indices. A query
 * whose rows have one length (EV; FV and FE of one face order) is one pass. The others take
 * two: the row lengths, counted from the blocks without building any list, a scan into row
 * offsets, then the rows, for which each patch builds the lists it walks. A mesh whose faces
 * are not consistently oriented was recorded when the set was built: the vertex queries are
 * refused before any work. The host runs the per-patch steps in a loop; the CUDA backend
 * (patch_query.cu) one block per patch. */
#include <string.h>
#include "patch_block.h"

/* Setup, load and the lists `needs` asks for (1 edge lists, 2 vertex lists), on the host. */
void mmx__pl_host_lists(mmx__plocal *L, int vf)
{
    const mmx_index n = vf ? L->nv : L->ne;
    mmx_index *off = vf ? L->vf_off : L->ef_off;
    uint16_t *list = vf ? L->vf : L->ef;
    if (vf) L->starts = 0;
    else L->pairs = 0;
    memset(L->cnt, 0, (size_t)n * sizeof *L->cnt);
    for (mmx_index l = 0; l < L->nf; l++) mmx__pl_count_face(L, l, vf);
    off[0] = 0;
    for (mmx_index i = 0; i < n; i++) off[i + 1] = off[i] + L->cnt[i];
    memset(L->cnt, 0, (size_t)n * sizeof *L->cnt);
    for (mmx_index l = 0; l < L->nf; l++) mmx__pl_fill_face(L, l, vf);
    for (mmx_index i = 0; i < n; i++) mmx__pl_sort(list + off[i], off[i + 1] - off[i], L->rank);
}

/* Setup, load and what `needs` asks for (MMX__PL_*), on the host. */
void mmx__patch_local_host(const mmx_patch_set *ps, mmx_index p, void *w, int needs,
                           mmx__plocal *L)
{
    mmx__pl_setup(ps, p, w, L);
    const mmx_index items = mmx__pl_load_items(L);
    for (mmx_index i = 0; i < items; i++) mmx__pl_load_item_of(ps, p, L, i, needs);
    if (needs & (MMX__PL_EDGE_LISTS | MMX__PL_VERT_LISTS | MMX__PL_EDGE_PAIRS))
        for (mmx_index l = 0; l < L->nf; l++) mmx__pl_rank_face(L, l);
    if ((needs & MMX__PL_EDGE_PAIRS) && !(needs & MMX__PL_EDGE_LISTS)) {
        L->pairs = 1;
        memset(L->ef_off, 0, (size_t)L->ne * sizeof *L->ef_off);
        for (mmx_index l = 0; l < L->nf; l++) mmx__pl_pair_face(L, l);
        int many = 0;
        for (mmx_index e = 0; e < L->ne && (needs & MMX__PL_LISTS_IF_MANY); e++) many |= L->ef_off[e] > 2;
        if (many) needs |= MMX__PL_EDGE_LISTS;
    }
    if (L->pairs && (needs & MMX__PL_VERT_STARTS) && !(needs & MMX__PL_VERT_LISTS)) {
        L->starts = 1;
        memset(L->vf_off, 0, (size_t)L->nv * sizeof *L->vf_off);
        memset(L->cnt, 0xff, (size_t)L->nv * sizeof *L->cnt);
        for (mmx_index l = 0; l < L->nf; l++) mmx__pl_start_corners(L, l);
    }
    for (int vf = 0; vf < 2; vf++)
        if (needs & (1 << vf)) mmx__pl_host_lists(L, vf);
}

/* The counting setup for the row lengths of `kind`, on the host (mmx__patch_count_block). */
static void count_host(const mmx_patch_set *ps, mmx_index p, void *w, mmx_query_kind kind,
                       mmx__plocal *L)
{
    const int needs = mmx__pl_len_needs(kind);
    mmx__pl_setup(ps, p, w, L);
    const mmx_index items = mmx__pl_load_items(L);
    for (mmx_index i = 0; i < items; i++) mmx__pl_load_item_of(ps, p, L, i, needs);
    if (needs & MMX__PL_EDGE_LISTS) {
        memset(L->ef_off, 0, (size_t)L->ne * sizeof *L->ef_off);
        for (mmx_index l = 0; l < L->nf; l++) mmx__pl_count_sides(L, l);
    }
    if (needs & MMX__PL_VERT_LISTS) {
        memset(L->vf_off, 0, (size_t)L->nv * sizeof *L->vf_off);
        for (mmx_index l = 0; l < L->nf; l++) mmx__pl_count_corners(L, kind, l);
    }
}

/* The source and target counts of a query on the set's mesh. */
static mmx_index count_of(const mmx_patch_set *ps, int what)
{
    return what == 0 ? ps->nverts : what == 1 ? ps->nedges : ps->nfaces;
}

static const int source_kind[MMX_QUERY_COUNT] = {0, 0, 0, 1, 1, 2, 2, 2};
static const int target_kind[MMX_QUERY_COUNT] = {0, 1, 2, 0, 2, 0, 1, 2};

mmx_status mmx__patch_refuse_orientation(mmx_ctx *ctx, const mmx_patch_set *ps, const char *what,
                                        mmx_query_kind kind)
{
    return mmx__fail(ctx, MMX_ERR_MESH,
                     "%s %s: edge %d {%d, %d} has two faces that run it the same way: the faces "
                     "are not consistently oriented",
                     what, mmx_query_name(kind), ps->bad_edge, ps->bad_ends[0], ps->bad_ends[1]);
}

/* The checks both entry points make before any work: the kind, the set's space, and for the
 * vertex kinds the faces' orientation (the fans walk faces by it). */
static mmx_status check_query(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                              const char *who)
{
    if ((int)kind < 0 || kind >= MMX_QUERY_COUNT)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown query kind %d", who, (int)kind);
    if (ps->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s: the patch set is not in the context's space", who);
    if (kind <= MMX_QUERY_VF && ps->bad_edge >= 0)
        return mmx__patch_refuse_orientation(ctx, ps, "patch query", kind);
    return MMX_OK;
}

/* The result's reduced-form order: every row of one length (query.h), else 0. */
static mmx_index result_order(const mmx_patch_set *ps, mmx_query_kind kind)
{
    return kind == MMX_QUERY_EV ? 2 : (kind == MMX_QUERY_FV || kind == MMX_QUERY_FE) ? ps->order : 0;
}

/* Pass 1 on the host: row lengths into len (global rows), counted. */
static mmx_status lengths_host(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                               mmx_index *len)
{
    void *w = NULL;
    mmx_status s = mmx__host_alloc(ctx, ps->max_scratch + 16, 1, &w);
    if (s) return s;
    for (mmx_index p = 0; p < ps->npatches; p++) {
        mmx__plocal L;
        if (mmx__pl_direct(kind)) mmx__pl_setup_direct(ps, p, &L);
        else count_host(ps, p, w, kind, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        for (mmx_index i = 0; i < n; i++) len[mmx__pl_global(&L, kind, i)] = mmx__pl_counted_len(&L, kind, i);
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
        if (mmx__pl_direct(kind)) mmx__pl_setup_direct(ps, p, &L);
        else mmx__patch_local_host(ps, p, w, needs, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        int redo = 0;
        for (int pass = 0; pass < 1 + redo; pass++) {
            if (pass) mmx__pl_host_lists(&L, 1); /* a vertex of several fans (mmx__pl_row) */
            for (mmx_index i = 0; i < n; i++) {
                const mmx_index g = mmx__pl_global(&L, kind, i);
                mmx__psink sink = mmx__pl_row_sink(colidx, rowptr, order, g);
                redo |= !mmx__pl_row(&L, kind, i, &sink);
            }
        }
    }
    free(w);
    return MMX_OK;
}

mmx_status mmx_patch_query(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                           mmx_csr **out)
{
    MMX__NEED_CTX(ctx);
    if (!ps || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_query: NULL argument");
    *out = NULL;
    mmx_status s = check_query(ctx, ps, kind, "mmx_patch_query");
    if (s) return s;
    const mmx_space sp = ps->space;
    const int dev = sp == MMX_SPACE_DEVICE;
    const mmx_index nrows = count_of(ps, source_kind[kind]);
    const mmx_index order = result_order(ps, kind);
    mmx_csr *A = NULL;
    mmx_index *rowptr = NULL, *colidx = NULL, *len = NULL;
    mmx__readback rb;
    memset(&rb, 0, sizeof rb);
    s = mmx__host_alloc(ctx, 1, sizeof *A, (void **)&A);
    if (s) return s;
    memset(A, 0, sizeof *A);
    A->nrows = nrows, A->ncols = count_of(ps, target_kind[kind]);
    A->order = order, A->space = sp, A->ctx = ctx;
    int64_t total = (int64_t)order * nrows;
    if (!order) {
        s = mmx_mem_alloc(ctx, sp, ((size_t)nrows + 1) * sizeof *rowptr, (void **)&rowptr);
        if (!s) s = mmx_mem_alloc(ctx, sp, ((size_t)nrows + 1) * sizeof *len, (void **)&len);
        if (!s) s = mmx__mem_zero(ctx, len, ((size_t)nrows + 1) * sizeof *len);
        if (!s && !dev) {
            s = lengths_host(ctx, ps, kind, len);
            total = 0;
            for (mmx_index i = 0; !s && i < nrows; i++) rowptr[i] = (mmx_index)total, total += len[i];
            if (!s && total <= MMX_INDEX_MAX) rowptr[nrows] = (mmx_index)total;
        } else if (!s) {
            /* One wait: the total. */
            int64_t *sum = NULL;
            /* rowptr[0] too, which a scan of no rows leaves unwritten. */
            s = mmx__mem_zero(ctx, rowptr, sizeof *rowptr);
            if (!s) s = mmx__readback_open(ctx, &rb);
            if (!s) s = mmx__readback_slot(&rb, sizeof *sum, (void **)&sum);
            if (!s) s = mmx__patch_query_lengths_cuda(ctx, ps, kind, len);
            if (!s) s = mmx__reduce_sum(ctx, len, nrows, sum);
            if (!s) s = mmx__scan_offsets(ctx, len, nrows, rowptr);
            if (!s) s = mmx__readback_wait(&rb);
            if (!s) total = *(const int64_t *)mmx__readback_host(&rb, sum);
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

mmx_status mmx_patch_query_run(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                               mmx_csr *out)
{
    MMX__NEED_CTX(ctx);
    if (!ps || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_query_run: NULL argument");
    const mmx_status s = check_query(ctx, ps, kind, "mmx_patch_query_run");
    if (s) return s;
    if (out->space != ps->space)
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_patch_query_run: the result is not in the "
                         "context's space");
    const mmx_index nrows = count_of(ps, source_kind[kind]), ncols = count_of(ps, target_kind[kind]);
    const mmx_index order = result_order(ps, kind);
    if (out->nrows != nrows || out->ncols != ncols || out->order != order ||
        (order && out->nnz != (int64_t)order * nrows) || (!order && !out->rowptr) ||
        (out->nnz > 0 && !out->colidx))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_query_run: the result (%d x %d, order %d, %lld "
                         "entries) is not a result of query %s of this set's mesh (%d x %d, order %d)",
                         (int)out->nrows, (int)out->ncols, (int)out->order, (long long)out->nnz,
                         mmx_query_name(kind), (int)nrows, (int)ncols, (int)order);
    if (out->nnz == 0) return MMX_OK;
    return ps->space == MMX_SPACE_DEVICE
               ? mmx__patch_query_fill_cuda(ctx, ps, kind, order ? NULL : out->rowptr, order, (mmx_index *)out->colidx)
               : fill_host(ctx, ps, kind, order ? NULL : out->rowptr, order, (mmx_index *)out->colidx);
}
