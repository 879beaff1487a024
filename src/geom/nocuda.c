/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * geom_internal.h as stubs. Only a CUDA context or a device mesh leads to them, and such a
 * build cannot make either, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include "geom_internal.h"

mmx_status mmx__geom_faces_cuda(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                mmx__face_what what, float *out, float *out2)
{
    (void)M, (void)pos, (void)what, (void)out, (void)out2;
    return mmx__no_cuda(ctx, "mmx__geom_faces_cuda");
}

mmx_status mmx__geom_corners_to_mt_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                        const float *corner, float *out)
{
    (void)M, (void)Mt, (void)corner, (void)out;
    return mmx__no_cuda(ctx, "mmx__geom_corners_to_mt_cuda");
}

mmx_status mmx__geom_fill_cuda(mmx_ctx *ctx, float *x, int64_t n, float value)
{
    (void)x, (void)n, (void)value;
    return mmx__no_cuda(ctx, "mmx__geom_fill_cuda");
}

mmx_status mmx__geom_normalize_cuda(mmx_ctx *ctx, float *x, mmx_index n)
{
    (void)x, (void)n;
    return mmx__no_cuda(ctx, "mmx__geom_normalize_cuda");
}

mmx_status mmx__geom_scale_rows_cuda(mmx_ctx *ctx, const float *x, const float *m, float scale,
                                     mmx_index n, float *y)
{
    (void)x, (void)m, (void)scale, (void)n, (void)y;
    return mmx__no_cuda(ctx, "mmx__geom_scale_rows_cuda");
}

mmx_status mmx__geom_laplacian_fill_cuda(mmx_ctx *ctx, const mmx__lap_in *in, mmx_csc *L,
                                         float *w)
{
    (void)in, (void)L, (void)w;
    return mmx__no_cuda(ctx, "mmx__geom_laplacian_fill_cuda");
}

mmx_status mmx__geom_iota_cuda(mmx_ctx *ctx, mmx_index *out, mmx_index n)
{
    (void)out, (void)n;
    return mmx__no_cuda(ctx, "mmx__geom_iota_cuda");
}

mmx_status mmx__smooth_scale_cuda(mmx_ctx *ctx, mmx_index n, const float *d, int neg,
                                  const unsigned char *fixed, float *scale)
{
    (void)n, (void)d, (void)neg, (void)fixed, (void)scale;
    return mmx__no_cuda(ctx, "mmx__smooth_scale_cuda");
}

mmx_status mmx__smooth_mask_cuda(mmx_ctx *ctx, mmx_index n, const mmx_index *valence,
                                 const unsigned char *boundary, unsigned char *mask)
{
    (void)n, (void)valence, (void)boundary, (void)mask;
    return mmx__no_cuda(ctx, "mmx__smooth_mask_cuda");
}

mmx_status mmx__mcf_per_vertex_cuda(mmx_ctx *ctx, mmx__mcf_op op, mmx_index n, int k,
                                    const float *x, const float *A, const float *lx, float h,
                                    const unsigned char *fixed, float *y)
{
    (void)op, (void)n, (void)k, (void)x, (void)A, (void)lx, (void)h, (void)fixed, (void)y;
    return mmx__no_cuda(ctx, "mmx__mcf_per_vertex_cuda");
}

mmx_status mmx__mcf_assemble_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *wL,
                                  const float *A, float h, const unsigned char *fixed, float *wS)
{
    (void)L, (void)wL, (void)A, (void)h, (void)fixed, (void)wS;
    return mmx__no_cuda(ctx, "mmx__mcf_assemble_cuda");
}

mmx_status mmx__bilateral_step_cuda(mmx_ctx *ctx, const mmx_csr *vv, const float *x,
                                    const float *nrm, float sc, float ss,
                                    const unsigned char *fixed, float *out)
{
    (void)vv, (void)x, (void)nrm, (void)sc, (void)ss, (void)fixed, (void)out;
    return mmx__no_cuda(ctx, "mmx__bilateral_step_cuda");
}

mmx_status mmx__vertex_normals_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                    const float *pos, const float *F, mmx_normal_weight weight,
                                    float *normals)
{
    (void)M, (void)Mt, (void)pos, (void)F, (void)weight, (void)normals;
    return mmx__no_cuda(ctx, "mmx__vertex_normals_cuda");
}

mmx_status mmx__smooth_lap_step_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *w,
                                     const float *x, const float *scale, float lambda,
                                     float *out)
{
    (void)L, (void)w, (void)x, (void)scale, (void)lambda, (void)out;
    return mmx__no_cuda(ctx, "mmx__smooth_lap_step_cuda");
}

mmx_status mmx__vertex_areas_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                  const float *pos, const float *share, mmx_mass_kind kind,
                                  float *areas)
{
    (void)M, (void)Mt, (void)pos, (void)share, (void)kind, (void)areas;
    return mmx__no_cuda(ctx, "mmx__vertex_areas_cuda");
}

mmx_status mmx__mcf_apply_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *wL, const float *A,
                               float h, const unsigned char *fixed, const float *x, int k,
                               float *y)
{
    (void)L, (void)wL, (void)A, (void)h, (void)fixed, (void)x, (void)k, (void)y;
    return mmx__no_cuda(ctx, "mmx__mcf_apply_cuda");
}
