/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * spla_internal.h as stubs. Only a CUDA context or a device matrix leads to them, and such a
 * build cannot make either, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include "spla_internal.h"

mmx_status mmx__csc_props_cuda(mmx_ctx *ctx, mmx_csc *A)
{
    (void)A;
    return mmx__no_cuda(ctx, "mmx__csc_props_cuda");
}

mmx_status mmx__csc_check_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_fault *fault)
{
    (void)A, (void)fault;
    return mmx__no_cuda(ctx, "mmx__csc_check_cuda");
}

mmx_status mmx__spmv_cuda(mmx_ctx *ctx, mmx__spmv_variant v, mmx_op op, float alpha,
                          const mmx_csc *A, mmx_map map, const float *x, int k, float beta,
                          float *y)
{
    (void)v, (void)op, (void)alpha, (void)A, (void)map, (void)x, (void)k, (void)beta, (void)y;
    return mmx__no_cuda(ctx, "mmx__spmv_cuda");
}

mmx_status mmx__csc_transpose_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx_csc **out)
{
    (void)A, (void)out;
    return mmx__no_cuda(ctx, "mmx__csc_transpose_cuda");
}

mmx_status mmx__spgemm_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B, mmx_gemm_map map,
                            mmx_csc **out)
{
    (void)A, (void)B, (void)map, (void)out;
    return mmx__no_cuda(ctx, "mmx__spgemm_cuda");
}

mmx_status mmx__mesh_product_cuda(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map,
                                  mmx__readback *rb, mmx_csc **out, mmx__product_report **report)
{
    (void)M, (void)map, (void)rb;
    *out = NULL;
    *report = NULL;
    return mmx__no_cuda(ctx, "mmx__mesh_product_cuda");
}

mmx_status mmx__perm_check_cuda(mmx_ctx *ctx, const mmx_index *p, mmx_index n,
                                mmx__perm_fault *fault)
{
    (void)p, (void)n, (void)fault;
    return mmx__no_cuda(ctx, "mmx__perm_check_cuda");
}

mmx_status mmx__csc_permute_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_index *pinv,
                                 const mmx_index *q, mmx_csc *C)
{
    (void)A, (void)pinv, (void)q, (void)C;
    return mmx__no_cuda(ctx, "mmx__csc_permute_cuda");
}

mmx_status mmx__cg_dinv_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *diag)
{
    (void)w, (void)diag;
    return mmx__no_cuda(ctx, "mmx__cg_dinv_cuda");
}

mmx_status mmx__cg_setup_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *b, float *x)
{
    (void)w, (void)b, (void)x;
    return mmx__no_cuda(ctx, "mmx__cg_setup_cuda");
}

mmx_status mmx__cg_step_cuda(mmx_ctx *ctx, mmx__cg_work *w, float *x, int t)
{
    (void)w, (void)x, (void)t;
    return mmx__no_cuda(ctx, "mmx__cg_step_cuda");
}

mmx_status mmx__cg_true_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *b)
{
    (void)w, (void)b;
    return mmx__no_cuda(ctx, "mmx__cg_true_cuda");
}

mmx_status mmx__spgemm_valued_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                                   mmx_vgemm_map map, mmx_csc **out)
{
    (void)A, (void)B, (void)map, (void)out;
    return mmx__no_cuda(ctx, "mmx__spgemm_valued_cuda");
}

mmx_status mmx__spgemm_masked_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                                   mmx_vgemm_map map, mmx_csc *C)
{
    (void)A, (void)B, (void)map, (void)C;
    return mmx__no_cuda(ctx, "mmx__spgemm_masked_cuda");
}


mmx_status mmx__csc_rows_cuda(mmx_ctx *ctx, const mmx_csc *A, int with_col, mmx__csc_rows *rows)
{
    (void)A, (void)with_col, (void)rows;
    return mmx__no_cuda(ctx, "mmx__csc_rows_cuda");
}

mmx_status mmx__csc_select_cols_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx__col_select *sel,
                                     mmx_csc **out, mmx_index *row_new, mmx_index *row_old)
{
    (void)A, (void)sel, (void)out, (void)row_new, (void)row_old;
    return mmx__no_cuda(ctx, "mmx__csc_select_cols_cuda");
}
