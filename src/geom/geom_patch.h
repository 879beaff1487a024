/* The per-vertex stencils of the geometry's patch path (normals_patch.*, laplacian_patch.*),
 * on one patch's view (meshmatrix/patch_view.h, built with MMX_PV_VERTEX_STARS) and the
 * patch's local copies of the positions (and face vectors): written once, run by the host
 * loops over the patches and by the CUDA patch kernels (meshmatrix/patch_kernel.cuh). Each
 * neighbour is read from the local copies in the star's order (fixed: the vertex's faces by
 * local index), so the sums are the same bits on every run; no atomics. */
#ifndef MMX_GEOM_PATCH_H
#define MMX_GEOM_PATCH_H

#include "geom_internal.h"
#include "meshmatrix/patch_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Local vertex l's position from the global array (the load, one vertex per item). */
static inline MMX__HD void mmx__gp_load_vertex(const mmx_patch_view *V, const float *x,
                                               mmx_index l, float *sx)
{
    const int64_t g = mmx_pv_gv(V, l);
    for (int d = 0; d < 3; d++) sx[3 * (int64_t)l + d] = x[3 * g + d];
}

/* Newell's vector of local face l from the local positions (mmx__newell's arithmetic, from
 * the face's first corner). */
static inline MMX__HD void mmx__gp_face_newell(const mmx_patch_view *V, const float *sx,
                                               mmx_index l, float *N)
{
    mmx_index a, n;
    mmx_pv_face(V, l, &a, &n);
    N[0] = N[1] = N[2] = 0.0f;
    const float *p0 = sx + 3 * (int64_t)mmx_pv_corner_vert(V, a);
    float u[3], w[3], c[3];
    mmx__v3_sub(sx + 3 * (int64_t)mmx_pv_corner_vert(V, a + 1), p0, u);
    for (mmx_index k = a + 2; k < a + n; k++) {
        mmx__v3_sub(sx + 3 * (int64_t)mmx_pv_corner_vert(V, k), p0, w);
        mmx__v3_cross(u, w, c);
        N[0] += c[0], N[1] += c[1], N[2] += c[2];
        u[0] = w[0], u[1] = w[1], u[2] = w[2];
    }
}

/* Owned local vertex v's area-weighted normal: its faces' Newell vectors (sn, per local face)
 * summed in the star's order, normalised as mmx__geom_normalize does (0 for a zero sum). */
static inline MMX__HD void mmx__gp_normal(const mmx_patch_view *V, const float *sn, mmx_index v,
                                          float *normals)
{
    float s[3] = {0.0f, 0.0f, 0.0f};
    mmx_pv_star it;
    mmx_pv_nbr nb;
    mmx_pv_star_begin(V, v, &it);
    while (mmx_pv_star_next(V, &it, &nb))
        if (nb.face >= 0)
            for (int d = 0; d < 3; d++) s[d] += sn[3 * (int64_t)nb.face + d];
    const float len = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    float *r = normals + 3 * (int64_t)mmx_pv_gv(V, v);
    for (int d = 0; d < 3; d++) r[d] = len > 0.0f ? s[d] / len : 0.0f;
}

/* One uniform Laplacian step at owned local vertex v: s = the sum of its VV neighbours' local
 * positions (VV's row, in the star's order), n = their number, and the update (OpenMesh's order: the mean,
 * minus x, damped)
 *   x'_v = x_v + lambda (s / n - x_v),
 * x_v kept bit for bit for a fixed vertex (fixed: NULL or one flag per global vertex) or
 * one without neighbours. Written to out at v's global number. */
static inline MMX__HD void mmx__gp_laplacian(const mmx_patch_view *V, const float *sx,
                                             const unsigned char *fixed, float lambda,
                                             mmx_index v, float *out)
{
    float s[3] = {0.0f, 0.0f, 0.0f}, cnt = 0.0f;
    mmx_pv_star it;
    mmx_pv_nbr nb;
    mmx_pv_star_begin(V, v, &it);
    while (mmx_pv_star_next(V, &it, &nb)) {
        for (int d = 0; d < 3; d++) s[d] += sx[3 * (int64_t)nb.vert + d];
        cnt += 1.0f;
    }
    const int64_t g = mmx_pv_gv(V, v);
    const float c = mmx__smooth_scale_of(cnt, 0, mmx__smooth_fixed(fixed, g));
    for (int d = 0; d < 3; d++) {
        const float xv = sx[3 * (int64_t)v + d];
        out[3 * g + d] = c == 0.0f ? xv : xv + lambda * (c * s[d] - xv);
    }
}

/* The CUDA halves (normals_patch.cu, laplacian_patch.cu): one patch kernel each, queued;
 * arguments checked by the callers (normals_patch.c, laplacian_patch.c). */
mmx_status mmx__patch_normals_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, const float *pos,
                                   float *normals);
mmx_status mmx__patch_laplacian_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, const float *x,
                                     const unsigned char *fixed, float lambda, float *out);

/* One uniform Laplacian step on the patches, x to out (both n x 3 in the context's space,
 * distinct): every vertex of a face moved by mmx__gp_laplacian, the others (in no face) not
 * written. One patch kernel on CUDA (queued, no wait). Errors: as mmx_patch_set_blocks with
 * MMX_PV_VERTEX_STARS (MMX_ERR_MESH on faces not consistently oriented), MMX_ERR_NOMEM,
 * MMX_ERR_CUDA. */
mmx_status mmx__patch_laplacian_step(mmx_ctx *ctx, const mmx_patch_set *ps, const float *x,
                                     const unsigned char *fixed, float lambda, float *out);

#ifdef __cplusplus
}
#endif
#endif
