/* The per-corner linear texture rule of one parent face (uv.c's per-corner way: Loop's linear
 * mode, and a texture mesh that a mesh matrix cannot hold), stated once for the host loop
 * (uv.c) and the CUDA kernel (uv.cu), so the host tests check what the device runs.
 *
 * OpenSubdiv's linear face-varying masks: a child corner takes its parent's corner coordinate,
 * the mean of the two at an edge's ends in that face (1/2, 1/2), or the face's mean (1/n
 * each, summed in corner order). The children are laid out as the rules' (rules.h):
 * Catmull-Clark and bilinear a quad per corner (v, e leaving, f, e arriving), corners
 * 4 a .. 4 a + 3 for the parent's corner a; Loop four triangles per triangle, corners
 * 12 f .. 12 f + 11.
 *
 * The coordinates are then numbered by value (equal bits, one coordinate), so both backends
 * must compute the same bits: every product and sum is rounded on its own (__fmul_rn and
 * __fadd_rn on the device, which nvcc does not fuse into one FMA; plain C on the host, which
 * the C11 build does not contract). */
#ifndef MMX_SUBDIV_UV_FACE_H
#define MMX_SUBDIV_UV_FACE_H

#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline MMX__HD float mmx__uv_mul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

static inline MMX__HD float mmx__uv_add(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

/* The mean of the coordinates at a and b (2 floats each) into out. */
static inline MMX__HD void mmx__uv_mid(const float *a, const float *b, float *out)
{
    out[0] = mmx__uv_add(mmx__uv_mul(0.5f, a[0]), mmx__uv_mul(0.5f, b[0]));
    out[1] = mmx__uv_add(mmx__uv_mul(0.5f, a[1]), mmx__uv_mul(0.5f, b[1]));
}

/* The children's per-corner coordinates of parent face f, whose n corners start at corner a
 * of par (2 floats a corner), written into child (the level's whole array). quads: Catmull-
 * Clark's or bilinear's children, else Loop's (n = 3). */
static inline MMX__HD void mmx__uv_face(int quads, int64_t f, int64_t a, mmx_index n,
                                        const float *par, float *child)
{
    if (quads) {
        mmx_index q[4];
        mmx__rule_cc_child(0, 1, 2, 3, q);
        float fp[2] = {0.0f, 0.0f};
        const float w = mmx__rule_face_weight(n);
        for (mmx_index s = 0; s < n; s++) {
            fp[0] = mmx__uv_add(fp[0], mmx__uv_mul(w, par[2 * (a + s)]));
            fp[1] = mmx__uv_add(fp[1], mmx__uv_mul(w, par[2 * (a + s) + 1]));
        }
        for (mmx_index s = 0; s < n; s++) {
            const mmx_index sn = s + 1 == n ? 0 : s + 1, sp = s == 0 ? n - 1 : s - 1;
            float pts[4][2];
            pts[0][0] = par[2 * (a + s)], pts[0][1] = par[2 * (a + s) + 1];
            mmx__uv_mid(par + 2 * (a + s), par + 2 * (a + sn), pts[1]);
            pts[2][0] = fp[0], pts[2][1] = fp[1];
            mmx__uv_mid(par + 2 * (a + sp), par + 2 * (a + s), pts[3]);
            for (int k = 0; k < 4; k++)
                child[2 * (4 * (a + s) + k)] = pts[q[k]][0], child[2 * (4 * (a + s) + k) + 1] = pts[q[k]][1];
        }
        return;
    }
    mmx_index t[12];
    const mmx_index v[3] = {0, 1, 2}, e[3] = {3, 4, 5};
    mmx__rule_loop_children(v, e, t);
    float pts[6][2];
    for (int s = 0; s < 3; s++) {
        pts[s][0] = par[2 * (a + s)], pts[s][1] = par[2 * (a + s) + 1];
        mmx__uv_mid(par + 2 * (a + s), par + 2 * (a + (s + 1) % 3), pts[3 + s]);
    }
    for (int k = 0; k < 12; k++)
        child[2 * (12 * f + k)] = pts[t[k]][0], child[2 * (12 * f + k) + 1] = pts[t[k]][1];
}

/* The key that numbers a coordinate by value: its two floats' bits, u high. */
static inline MMX__HD uint64_t mmx__uv_key(const float *c)
{
    union {
        float f;
        uint32_t u;
    } u, v;
    u.f = c[0], v.f = c[1];
    return (uint64_t)u.u << 32 | v.u;
}

#ifdef __cplusplus
}
#endif
#endif
