/* The per-vertex steps the geometry operations share: per-face or per-corner values summed
 * per vertex through Mᵀ (a mapped SpMV with op = T, a gather per vertex on both backends: the
 * references of operator.c),
 * the corner tables moved into Mᵀ's entry order, and the small per-row finishes (fill,
 * normalise, scale). The CUDA halves are per_vertex.cu. */
#include <math.h>
#include "geom_internal.h"

mmx_status mmx__geom_fill(mmx_ctx *ctx, float *x, int64_t n, float value)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) return mmx__geom_fill_cuda(ctx, x, n, value);
    for (int64_t i = 0; i < n; i++) x[i] = value;
    return MMX_OK;
}

mmx_status mmx__geom_normalize(mmx_ctx *ctx, float *x, mmx_index n)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) return mmx__geom_normalize_cuda(ctx, x, n);
    for (mmx_index v = 0; v < n; v++) {
        float *r = x + 3 * (int64_t)v;
        const float len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        for (int d = 0; d < 3; d++) r[d] = len > 0.0f ? r[d] / len : 0.0f;
    }
    return MMX_OK;
}

mmx_status mmx__geom_scale_rows(mmx_ctx *ctx, const float *x, const float *m, float scale,
                                mmx_index n, float *y)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__geom_scale_rows_cuda(ctx, x, m, scale, n, y);
    for (mmx_index v = 0; v < n; v++)
        for (int d = 0; d < 3; d++)
            y[3 * (int64_t)v + d] = m[v] != 0.0f ? scale * x[3 * (int64_t)v + d] / m[v] : 0.0f;
    return MMX_OK;
}

mmx_status mmx__geom_corners_to_mt(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                   const float *corner, float *out)
{
    if (Mt->space == MMX_SPACE_DEVICE) return mmx__geom_corners_to_mt_cuda(ctx, M, Mt, corner, out);
    for (mmx_index q = 0; q < Mt->nnz; q++) {
        const mmx_index f = Mt->rowidx[q];
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        out[q] = corner[a + Mt->val[q] - 1];
    }
    return MMX_OK;
}

mmx_status mmx__geom_vertex_sum(mmx_ctx *ctx, const mmx_csc *M, const float *corner,
                                const float *x, int k, float *y)
{
    /* Mᵀ's columns are the vertices, each listing its faces in ascending order: op = T
     * gathers them per vertex (one thread per vertex on CUDA, no atomics), where op = N on M
     * would scatter. */
    mmx_csc *Mt = NULL;
    float *table = NULL;
    mmx_status s = mmx_csc_transpose(ctx, M, &Mt);
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_map map = mmx_map_const(1.0f);
    if (!s && corner) {
        s = mmx_mem_alloc(ctx, sp, (size_t)Mt->nnz * sizeof *table, (void **)&table);
        if (!s) s = mmx__geom_corners_to_mt(ctx, M, Mt, corner, table);
        map = mmx_map_table(MMX_MAP_BY_ENTRY, table, Mt->nnz);
    }
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, Mt, map, x, k, 0.0f, y);
    mmx_mem_free(ctx, sp, table);
    mmx_csc_free(Mt);
    return s;
}
