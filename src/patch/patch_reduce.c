/* mmx_patch_reduce (patch.h): y_i = the sum of x over row i of query VV, VF or EF, computed
 * patch by patch without writing the rows: the same walk as mmx_patch_query (patch_block.h),
 * each neighbour added in float as the walk meets it, so the sum is the SpMV of the query's
 * matrix of ones, row by row, left to right. The CUDA half is patch_reduce.cu. */
#include <string.h>
#include "patch_block.h"

mmx_status mmx_patch_reduce(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                            const float *x, int k, float *y)
{
    MMX__NEED_CTX(ctx);
    if (!ctx || !ps || !x || !y) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_reduce: NULL argument");
    if (kind != MMX_QUERY_VV && kind != MMX_QUERY_VF && kind != MMX_QUERY_EF)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_reduce: query %s is not VV, VF or EF",
                         mmx_query_name(kind));
    if (k < 1 || k > 4)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_reduce: %d components, not 1 .. 4", k);
    if (ps->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_patch_reduce: the patch set is not in the context's space");
    /* The fans of VV and VF walk faces by orientation: on a mesh whose faces do not agree
     * they would sum a wrong neighbourhood, so the set's build-time record refuses them (as
     * mmx_patch_query refuses the vertex queries). EF does not walk. */
    if (kind != MMX_QUERY_EF && ps->bad_edge >= 0)
        return mmx__patch_refuse_orientation(ctx, ps, "patch reduce", kind);
    const mmx_index nrows = kind == MMX_QUERY_EF ? ps->nedges : ps->nverts;
    /* Rows of vertices in no face stay zero. */
    mmx_status s = mmx__mem_zero(ctx, y, (size_t)nrows * (size_t)k * sizeof *y);
    if (s) return s;
    if (ps->space == MMX_SPACE_DEVICE) return mmx__patch_reduce_cuda(ctx, ps, kind, x, k, y);
    void *w = NULL;
    s = mmx__host_alloc(ctx, ps->max_scratch + 16, 1, &w);
    if (s) return s;
    const int needs = mmx__pl_needs(kind);
    for (mmx_index p = 0; p < ps->npatches; p++) {
        mmx__plocal L;
        mmx__patch_local_host(ps, p, w, needs, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        int redo = 0;
        for (int pass = 0; pass < 1 + redo; pass++) {
            if (pass) mmx__pl_host_lists(&L, 1); /* a vertex of several fans (mmx__pl_row) */
            for (mmx_index i = 0; i < n; i++) {
                mmx__psink sink = mmx__pl_sum_sink(x, k);
                redo |= !mmx__pl_row(&L, kind, i, &sink);
                const mmx_index g = mmx__pl_global(&L, kind, i);
                for (int c = 0; c < k; c++) y[(size_t)g * (size_t)k + (size_t)c] = sink.acc[c];
            }
        }
    }
    free(w);
    return MMX_OK;
}
