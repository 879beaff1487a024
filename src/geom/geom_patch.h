/* The per-vertex stencils of the geometry's patch path (normals_patch.*, laplacian_patch.*),
 * on one patch's view (meshmatrix/patch_view.h, set up with MMX_PV_KEPT_ROWS: the blocks read
 * in place, each owned vertex's VV and VF rows kept with the set) and the patch's local copies
 * of the positions (and face vectors): written once, run by the host loops over the patches
 * and by the CUDA patch kernels (meshmatrix/patch_kernel.cuh). Each neighbour is read from the
 * local copies in the kept row's order (the star's: the vertex's faces by local index), so the
 * sums are the same bits on every run and on both backends; no atomics. */
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

/* An owned vertex's area-weighted normal (g: its global number): the Newell vectors (sn, per
 * local face) of its kept VF row's n faces (MMX_PV_KEPT_ROWS: the star's faces in its order)
 * summed in that order, normalised as mmx__geom_normalize does (0 for a zero sum). */
static inline MMX__HD void mmx__gp_normal(const float *sn, const uint16_t *row, mmx_index n,
                                          int64_t g, float *normals)
{
    float s[3] = {0.0f, 0.0f, 0.0f};
    for (mmx_index i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) s[d] += sn[3 * (int64_t)row[i] + d];
    const float len = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    float *r = normals + 3 * g;
    for (int d = 0; d < 3; d++) r[d] = len > 0.0f ? s[d] / len : 0.0f;
}

/* One uniform Laplacian step at owned local vertex v (g: its global number): s = the sum of
 * the local positions of its kept VV row's n entries (the star's VV entries in its order),
 * and the update (OpenMesh's order: the mean, minus x, damped)
 *   x'_v = x_v + lambda (s / n - x_v),
 * x_v kept bit for bit for a fixed vertex (fixed: NULL or one flag per global vertex) or
 * one without neighbours. Written to out at g. */
static inline MMX__HD void mmx__gp_laplacian(const float *sx, const uint16_t *row, mmx_index n,
                                             mmx_index v, int64_t g, const unsigned char *fixed,
                                             float lambda, float *out)
{
    float s[3] = {0.0f, 0.0f, 0.0f};
    for (mmx_index i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) s[d] += sx[3 * (int64_t)row[i] + d];
    const float c = mmx__smooth_scale_of((float)n, 0, mmx__smooth_fixed(fixed, g));
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
 * written. One patch kernel on CUDA (queued, no wait but on the set's first kept-row use).
 * Errors: as mmx_patch_set_blocks with MMX_PV_KEPT_ROWS (MMX_ERR_MESH on faces not
 * consistently oriented), MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__patch_laplacian_step(mmx_ctx *ctx, const mmx_patch_set *ps, const float *x,
                                     const unsigned char *fixed, float lambda, float *out);

#ifdef __cplusplus
}
#endif
#endif
