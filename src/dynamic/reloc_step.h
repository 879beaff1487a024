/* The per-seed steps of the face split and vertex relocation templates (dynamic.h states their
 * rules), written once for the host rounds (templates.c) and the CUDA kernels (reloc.cu), as
 * flip_step.h and sc_step.h do for the edge templates: a face split's validity, its centroid and
 * its fill, and a move's validity. Double precision through flip_step.h's MMX__D* (never fused on
 * the device; division and sqrt are correctly rounded on both), in the host's operation order,
 * so both backends compute the same bits and make the same edits. */
#ifndef MMX_DYNAMIC_RELOC_STEP_H
#define MMX_DYNAMIC_RELOC_STEP_H

#include "sc_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- face split ------------------------------------------------------------------------------ */

/* Coordinate k of the centroid of face f (corners f[0..3)) as a fill stores it:
 * (float)(((A + B) + C) / 3) in double. */
static inline MMX__HD float mmx__fs_centroid(const float *pos, const mmx_index *f, int k)
{
    const double a = (double)pos[3 * (size_t)f[0] + k], b = (double)pos[3 * (size_t)f[1] + k],
                 c = (double)pos[3 * (size_t)f[2] + k];
    return (float)(MMX__DADD(MMX__DADD(a, b), c) / 3.0);
}

/* 1 when splitting face `face` at its centroid (as stored) makes no new face (P_k, P_k+1, M)
 * degenerate or folded against the face's own normal; 1 without positions. */
static inline MMX__HD int mmx__fs_valid(const mmx__flip_view *t, const float *pos, mmx_index face)
{
    if (!pos) return 1;
    const mmx_index *f = t->verts + 3 * (size_t)face;
    double P[3][3], M[3], n[3];
    for (int k = 0; k < 3; k++) M[k] = (double)mmx__fs_centroid(pos, f, k);
    for (int k = 0; k < 3; k++) mmx__hd_point(pos, f[k], P[k]);
    mmx__hd_tri_normal(P[0], P[1], P[2], n);
    for (int k = 0; k < 3; k++)
        if (mmx__hd_bad_triangle(P[k], P[(k + 1) % 3], M, n)) return 0;
    return 1;
}

/* The fill of kept face `face` (a, b, c) of the input's face list `in` with new vertex m and new
 * faces g0, g0 + 1: (a, b, m) in place in `out` (a copy of `in`), (b, c, m) at g0, (c, a, m) at
 * g0 + 1; with positions (pos, opos: the input's and the output's), m at the centroid. */
static inline MMX__HD void mmx__fs_fill(const mmx_index *in, const float *pos, mmx_index face,
                                        mmx_index m, mmx_index g0, mmx_index *out, float *opos)
{
    const mmx_index *f = in + 3 * (size_t)face;
    const mmx_index a = f[0], b = f[1], c = f[2];
    if (pos)
        for (int k = 0; k < 3; k++) opos[3 * (size_t)m + k] = mmx__fs_centroid(pos, f, k);
    mmx_index *o = out + 3 * (size_t)face, *g = out + 3 * (size_t)g0;
    o[0] = a, o[1] = b, o[2] = m;
    g[0] = b, g[1] = c, g[2] = m;
    g[3] = c, g[4] = a, g[5] = m;
}

/* ---- vertex relocation ----------------------------------------------------------------------- */

/* 1 when moving v to `to` keeps every face at v non-degenerate and unfolded (against its own old
 * normal), and, with min_quality > 0, each of quality (mmx__hd_tri_quality) at least min_quality
 * or no worse than before; 0 for a vertex in no face or a target that is not finite. Reads the
 * view's face list and faces at each vertex (any order: every face must pass). */
static inline MMX__HD int mmx__mv_valid(const mmx__sc_view *t, const float *pos, mmx_index v,
                                        const float *to, double min_quality)
{
    if (t->vf_ptr[v] == t->vf_ptr[v + 1]) return 0;
    if (!isfinite(to[0]) || !isfinite(to[1]) || !isfinite(to[2])) return 0;
    const double T[3] = {to[0], to[1], to[2]};
    for (mmx_index k = t->vf_ptr[v]; k < t->vf_ptr[v + 1]; k++) {
        const mmx_index *f = t->f.verts + 3 * (size_t)t->vf[k];
        double P[3][3], Q[3][3], n[3];
        for (int j = 0; j < 3; j++) {
            mmx__hd_point(pos, f[j], P[j]);
            for (int x = 0; x < 3; x++) Q[j][x] = f[j] == v ? T[x] : P[j][x];
        }
        mmx__hd_tri_normal(P[0], P[1], P[2], n);
        if (mmx__hd_bad_triangle(Q[0], Q[1], Q[2], n)) return 0;
        if (min_quality > 0) {
            const double q = mmx__hd_tri_quality(Q[0], Q[1], Q[2]);
            if (q < min_quality && q < mmx__hd_tri_quality(P[0], P[1], P[2])) return 0;
        }
    }
    return 1;
}

#ifdef __cplusplus
}
#endif

#endif
