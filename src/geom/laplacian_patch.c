/* One uniform Laplacian step on the patches (geom_patch.h, mmx__patch_laplacian_step): each
 * patch copies its vertices' positions (owned and ribbon) once into its work space and moves
 * its owned vertices from there along their kept VV rows (mmx__gp_laplacian), on the host in
 * a loop over the patches, on CUDA as one patch kernel (laplacian_patch.cu, through
 * meshmatrix/patch_kernel.cuh with MMX_PV_KEPT_ROWS: no per-call set-up of the patches). The
 * smoothing's patch path (smooth.c) is a sequence of these. */
#include "geom_patch.h"

mmx_status mmx__patch_laplacian_step(mmx_ctx *ctx, const mmx_patch_set *ps, const float *x,
                                     const unsigned char *fixed, float lambda, float *out)
{
    mmx_patch_blocks b;
    mmx_status s = mmx_patch_set_blocks(ctx, ps, MMX_PV_KEPT_ROWS, &b);
    if (s || b.npatches == 0) return s;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__patch_laplacian_cuda(ctx, ps, x, fixed, lambda, out);
    float *sx = NULL;
    s = mmx__host_alloc(ctx, 3 * (size_t)b.max_verts + 1, sizeof *sx, (void **)&sx);
    if (s) return s;
    for (mmx_index p = 0; p < b.npatches; p++) {
        mmx_patch_view V;
        mmx_pv_setup_kept(&b, p, &V);
        for (mmx_index l = 0; l < mmx_pv_verts(&V); l++) mmx__gp_load_vertex(&V, x, l, sx);
        for (mmx_index v = 0; v < mmx_pv_owned_verts(&V); v++) {
            mmx_index n;
            const uint16_t *row = mmx_pv_kept_vv(&V, v, &n);
            mmx__gp_laplacian(sx, row, n, v, mmx_pv_gv(&V, v), fixed, lambda, out);
        }
    }
    free(sx);
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
