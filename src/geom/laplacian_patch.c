/* One uniform Laplacian step on the patches (geom_patch.h, mmx__patch_laplacian_step): each
 * patch copies its vertices' positions (owned and ribbon) once into its work space and
 * moves its owned vertices from there (mmx__gp_laplacian), on the host in a loop over the
 * patches, on CUDA as one patch kernel (laplacian_patch.cu, through
 * meshmatrix/patch_kernel.cuh). The smoothing's patch path (smooth.c) is a sequence of these. */
#include "geom_patch.h"

mmx_status mmx__patch_laplacian_step(mmx_ctx *ctx, const mmx_patch_set *ps, const float *x,
                                     const unsigned char *fixed, float lambda, float *out)
{
    mmx_patch_blocks b;
    mmx_status s = mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_STARS, &b);
    if (s || b.npatches == 0) return s;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__patch_laplacian_cuda(ctx, ps, x, fixed, lambda, out);
    /* The work space and, after it, the local positions. */
    const size_t xs = 3 * (size_t)b.max_verts * sizeof(float);
    unsigned char *w = NULL;
    s = mmx__host_alloc(ctx, b.work_bytes + xs, 1, (void **)&w);
    if (s) return s;
    float *sx = (float *)(w + b.work_bytes);
    for (mmx_index p = 0; p < b.npatches; p++) {
        mmx_patch_view V;
        mmx_pv_build_host(&b, p, w, MMX_PV_VERTEX_STARS, &V);
        for (mmx_index l = 0; l < mmx_pv_verts(&V); l++) mmx__gp_load_vertex(&V, x, l, sx);
        for (mmx_index v = 0; v < mmx_pv_owned_verts(&V); v++)
            mmx__gp_laplacian(&V, sx, fixed, lambda, v, out);
    }
    free(w);
    return MMX_OK;
}

#ifndef MMX_HAVE_CUDA
mmx_status mmx__patch_laplacian_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, const float *x,
                                     const unsigned char *fixed, float lambda, float *out)
{
    (void)ps, (void)x, (void)fixed, (void)lambda, (void)out;
    return mmx__no_cuda(ctx, "mmx__patch_laplacian_cuda");
}
#endif
