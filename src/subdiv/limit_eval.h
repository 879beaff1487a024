/* The limit table's patches (limit_eval.c builds them, limit_eval.c and limit_eval.cu evaluate
 * them): the arrays one point reads, and the evaluation of one point, shared by the host loop
 * and the kernel so that both backends run the same arithmetic. */
#ifndef MMX_SUBDIV_LIMIT_EVAL_H
#define MMX_SUBDIV_LIMIT_EVAL_H

#include "core/core_internal.h"
#include "core/hd.h"
#include "meshmatrix/subdiv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Unrolls the next loop in device code (constant tables then fold into the arithmetic
 * instead of living in local memory); nothing on the host, where the pragma is unknown. */
#ifdef __CUDA_ARCH__
#define MMX__UNROLL _Pragma("unroll")
#else
#define MMX__UNROLL
#endif

/* Control points per patch: the bicubic B-spline's 4 x 4 (Catmull-Clark), the box spline's 12
 * (Loop). An interpolated patch uses the first 4 (3) as its corners' vertices. */
#define MMX__LIMIT_NCV 16

/* A patch's kind (regular[q]): 0 interpolated; MMX__LIMIT_REGULAR a B-spline (Loop:
 * box-spline) patch, with MMX__LIMIT_PHANTOM_EDGE(k) for each boundary edge k (corner k to
 * k + 1), whose row (Catmull-Clark: or column) of control points beyond it is reflected from the
 * points next to it (Catmull-Clark: 2 p1 - p2; Loop: mmx__loop_phantoms), and for Loop
 * MMX__LIMIT_PHANTOM_VERTEX(k) for a corner k on the boundary whose two edges in the face are
 * inner (its two control points beyond the boundary reflected likewise). */
#define MMX__LIMIT_REGULAR 1
#define MMX__LIMIT_PHANTOM_EDGE(k) (2 << (k))
#define MMX__LIMIT_PHANTOM_VERTEX(k) (16 << (k))
/* A Gregory end cap (regular[q] == MMX__LIMIT_GREGORY): cv[16 q] is its number r among them,
 * its points at greg[60 r ..] (x, y, z each). Catmull-Clark: 20 points, corner k's at 5 k + (0
 * the corner P, 1 the edge point towards corner k + 1, 2 towards corner k - 1, 3 and 4 the face
 * points beside them), OpenSubdiv's Far::PatchDescriptor::GREGORY_BASIS order. Loop: 18 points,
 * the same 5 per corner (the quartic's: edge points a quarter of the way along its edges) and
 * then the middle point of edge k (corner k to k + 1) at 15 + k, GREGORY_TRIANGLE's order. */
#define MMX__LIMIT_GREGORY 128

/* By value, so that a kernel takes it as a parameter; arrays in the table's space. The
 * patches form a quadtree per ptex face (limit_eval.c's build): node p < nptex is ptex face
 * p's root, and each node is refined or a patch.
 *   child[g]      the first of node g's four children (limit_eval_point's order), or, for a
 *                 patch, -1 - its number q (patches numbered apart: a refined node carries
 *                 only its child index)
 *   regular[q]    patch q's kind: 0 interpolated, MMX__LIMIT_REGULAR (with phantom edges) a
 *                 B-spline (Loop: box-spline), MMX__LIMIT_GREGORY an end cap
 *   cv[16 q + k]  a B-spline's control points (Catmull-Clark: grid point (i, j), i along u, at
 *                 k = 4 j + i; Loop: the 12 of MMX__LOOP_BOX_SPLINE), numbers in pos; an
 *                 interpolated patch's corners, numbers in lim; a Gregory patch's number
 *   pos           every level's control points (x, y, z each)
 *   lim           the limits of the last level's vertices (for the interpolated patches)
 *   greg          the Gregory patches' points, 60 floats each */
typedef struct mmx__limit_patches {
    int loop;
    mmx_index nptex;
    const mmx_index *child;
    const mmx_index *cv;
    const unsigned char *regular;
    const float *pos, *lim;
    const float *greg;
} mmx__limit_patches;

/* The uniform cubic B-spline's four basis functions at t and their first and second
 * derivatives. */
static inline MMX__HD void mmx__bspline3(float t, float *b, float *d, float *dd)
{
    const float s = 1.0f - t, t2 = t * t, t3 = t2 * t;
    b[0] = s * s * s / 6.0f;
    b[1] = (3.0f * t3 - 6.0f * t2 + 4.0f) / 6.0f;
    b[2] = (-3.0f * t3 + 3.0f * t2 + 3.0f * t + 1.0f) / 6.0f;
    b[3] = t3 / 6.0f;
    d[0] = -0.5f * s * s;
    d[1] = 0.5f * (3.0f * t2 - 4.0f * t);
    d[2] = 0.5f * (-3.0f * t2 + 2.0f * t + 1.0f);
    d[3] = 0.5f * t2;
    dd[0] = s;
    dd[1] = 3.0f * t - 2.0f;
    dd[2] = 1.0f - 3.0f * t;
    dd[3] = t;
}

/* The cubic Bernstein polynomials at t and their first and second derivatives. */
static inline MMX__HD void mmx__bezier3(float t, float *b, float *d, float *dd)
{
    const float s = 1.0f - t;
    b[0] = s * s * s, b[1] = 3.0f * t * s * s, b[2] = 3.0f * t * t * s, b[3] = t * t * t;
    d[0] = -3.0f * s * s, d[1] = 3.0f * s * s - 6.0f * t * s, d[2] = 6.0f * t * s - 3.0f * t * t;
    d[3] = 3.0f * t * t;
    dd[0] = 6.0f * s, dd[1] = 18.0f * t - 12.0f, dd[2] = 6.0f - 18.0f * t, dd[3] = 6.0f * t;
}

/* The blend t = a / (a + b) of two weights linear in (u, v) (a = a[0] + a[1] u + a[2] v, b
 * likewise) and its derivatives t, t_u, t_v, t_uu, t_uv, t_vv; t0 (derivatives 0) where a + b
 * vanishes. t_x = N_x / s^2 with s = a + b, N_x = a_x b - a b_x, and t_xy = (N_xy s - 2 N_x s_y)
 * / s^3 with N_xy = a_x b_y - a_y b_x. */
static inline MMX__HD void mmx__blend(const float *wa, const float *wb, float u, float v,
                                      float t0, float t[6])
{
    const float a = wa[0] + wa[1] * u + wa[2] * v, b = wb[0] + wb[1] * u + wb[2] * v, s = a + b;
    t[0] = t0, t[1] = t[2] = t[3] = t[4] = t[5] = 0.0f;
    if (!(s > 0.0f)) return;
    const float au = wa[1], av = wa[2], bu_ = wb[1], bv_ = wb[2];
    const float su = au + bu_, sv = av + bv_;
    const float Nu = au * b - a * bu_, Nv = av * b - a * bv_, Nuv = au * bv_ - av * bu_;
    const float s2 = s * s, s3 = s2 * s;
    t[0] = a / s, t[1] = Nu / s2, t[2] = Nv / s2;
    t[3] = -2.0f * Nu * su / s3;
    t[4] = (Nuv * s - 2.0f * Nu * sv) / s3;
    t[5] = -2.0f * Nv * sv / s3;
}

/* Adds the blended pair of a Gregory patch's inner point to L: the Bezier weight W (and its
 * derivatives, as L's rows) times t A + (1 - t) B, t = mmx__blend's, by the product rule. */
static inline MMX__HD void mmx__blend_add(const float W[6], const float t[6], const float *A,
                                          const float *B, int nq, float L[6][3])
{
    const float Wt[6] = {W[0] * t[0], W[1] * t[0] + W[0] * t[1], W[2] * t[0] + W[0] * t[2],
                         W[3] * t[0] + 2.0f * W[1] * t[1] + W[0] * t[3],
                         W[4] * t[0] + W[1] * t[2] + W[2] * t[1] + W[0] * t[4],
                         W[5] * t[0] + 2.0f * W[2] * t[2] + W[0] * t[5]};
    for (int r = 0; r < nq; r++)
        for (int c = 0; c < 3; c++) L[r][c] += Wt[r] * A[c] + (W[r] - Wt[r]) * B[c];
}

/* A Gregory patch (its 20 points q, MMX__LIMIT_GREGORY's order) at (u, v): L[q][c] as in
 * mmx__limit_eval_point (position, d/du, d/dv, d2/du2, d2/dudv, d2/dv2; the first nq of them,
 * the others 0). A bicubic Bezier patch
 * whose four inner points are rational blends of two face points each: near corner k, the
 * face point beside the edge the point approaches wins (weights linear in u, v, meeting at the
 * corner, where the inner point's basis function vanishes: an even blend is taken there).
 * The derivatives are the blend's exact ones (OpenSubdiv's default differentiates the Bezier
 * patch with the blend frozen at (u, v), so its derivatives differ by the blend's terms). */
static inline MMX__HD void mmx__gregory_eval(const float *q, float u, float v, int nq,
                                             float L[6][3])
{
    /* The boundary Bezier points: grid (i, j) at 4 j + i, -1 the inner ones. */
    const signed char bnd[16] = {0, 1, 7, 5, 2, -1, -1, 6, 16, -1, -1, 12, 15, 17, 11, 10};
    /* Inner point m = 0 to 3, at grid (1,1), (2,1), (2,2), (1,2) (k = 5, 6, 10, 9): its two
     * face points A, B and the weights a, b of the blend a A + b B over a + b, each
     * a0 + a1 u + a2 v. */
    const signed char inner[4][2] = {{3, 4}, {8, 9}, {13, 14}, {18, 19}};
    const float wa[4][3] = {{0, 1, 0}, {0, 0, 1}, {1, -1, 0}, {1, 0, -1}};
    const float wb[4][3] = {{0, 0, 1}, {1, -1, 0}, {1, 0, -1}, {0, 1, 0}};
    float bu[3][4], bv[3][4];
    mmx__bezier3(u, bu[0], bu[1], bu[2]);
    mmx__bezier3(v, bv[0], bv[1], bv[2]);
    for (int i = 0; i < 6; i++) L[i][0] = L[i][1] = L[i][2] = 0.0f;
    MMX__UNROLL
    for (int k = 0; k < 16; k++) {
        const int i = k & 3, j = k >> 2;
        /* The tensor weight W and its derivatives: W, W_u, W_v, W_uu, W_uv, W_vv. */
        const float W[6] = {bu[0][i] * bv[0][j], bu[1][i] * bv[0][j], bu[0][i] * bv[1][j],
                            bu[2][i] * bv[0][j], bu[1][i] * bv[1][j], bu[0][i] * bv[2][j]};
        if (bnd[k] >= 0) {
            const float *x = q + 3 * bnd[k];
            for (int r = 0; r < nq; r++)
                for (int c = 0; c < 3; c++) L[r][c] += W[r] * x[c];
            continue;
        }
        const int m = k == 5 ? 0 : k == 6 ? 1 : k == 10 ? 2 : 3; /* at[m] == k */
        float t[6];
        mmx__blend(wa[m], wb[m], u, v, 0.5f, t);
        mmx__blend_add(W, t, q + 3 * inner[m][0], q + 3 * inner[m][1], nq, L);
    }
}

/* Loop's Gregory patch (its 18 points q, MMX__LIMIT_GREGORY's triangle order) at (u, v), L as
 * mmx__gregory_eval's: the quartic Bezier triangle (Bernstein polynomials 24 / (i! j! k!) u^i
 * v^j w^k, w = 1 - u - v) whose three inner points blend two face points each, the one beside
 * the edge the point approaches winning: at corner 0 Fp by u / (u + v), at corner 1 by
 * v / (v + w), at corner 2 by w / (w + u) (Fp where the weights vanish, as OpenSubdiv takes it).
 * Derivatives are the blend's exact ones, as mmx__gregory_eval's. */
static inline MMX__HD void mmx__gregory_tri_eval(const float *q, float u, float v, int nq,
                                                 float L[6][3])
{
    /* Bezier point b at (i, j) = (bi[b], bj[b]) (k = 4 - i - j), rows of j: its point, or
     * -1 - m for inner point m (its face points 5 m + 3 and 5 m + 4). */
    const signed char bi[15] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 0, 1, 2, 0, 1, 0};
    const signed char bj[15] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4};
    const signed char at[15] = {0, 1, 15, 7, 5, 2, -1, -2, 6, 17, -3, 16, 11, 12, 10};
    const float wa[3][3] = {{0, 1, 0}, {0, 0, 1}, {1, -1, -1}};
    const float wb[3][3] = {{0, 0, 1}, {1, -1, -1}, {0, 1, 0}};
    const float fact[5] = {1, 1, 2, 6, 24};
    const float w = 1.0f - u - v;
    /* Powers 0 to 4 of u, v, w (row 0) and their first and second derivatives (rows 1, 2). */
    float pu[3][5], pv[3][5], pw[3][5];
    pu[0][0] = pv[0][0] = pw[0][0] = 1.0f;
    MMX__UNROLL
    for (int e = 1; e < 5; e++)
        pu[0][e] = pu[0][e - 1] * u, pv[0][e] = pv[0][e - 1] * v, pw[0][e] = pw[0][e - 1] * w;
    MMX__UNROLL
    for (int e = 0; e < 5; e++) {
        pu[1][e] = e >= 1 ? (float)e * pu[0][e - 1] : 0.0f;
        pv[1][e] = e >= 1 ? (float)e * pv[0][e - 1] : 0.0f;
        pw[1][e] = e >= 1 ? (float)e * pw[0][e - 1] : 0.0f;
        pu[2][e] = e >= 2 ? (float)(e * (e - 1)) * pu[0][e - 2] : 0.0f;
        pv[2][e] = e >= 2 ? (float)(e * (e - 1)) * pv[0][e - 2] : 0.0f;
        pw[2][e] = e >= 2 ? (float)(e * (e - 1)) * pw[0][e - 2] : 0.0f;
    }
    for (int r = 0; r < 6; r++) L[r][0] = L[r][1] = L[r][2] = 0.0f;
    MMX__UNROLL
    for (int b = 0; b < 15; b++) {
        const int i = bi[b], j = bj[b], k = 4 - i - j;
        const float c = 24.0f / (fact[i] * fact[j] * fact[k]);
        const float U0 = pu[0][i], U1 = pu[1][i], U2 = pu[2][i];
        const float V0 = pv[0][j], V1 = pv[1][j], V2 = pv[2][j];
        const float W0 = pw[0][k], W1 = pw[1][k], W2 = pw[2][k];
        const float W[6] = {c * U0 * V0 * W0, c * (U1 * V0 * W0 - U0 * V0 * W1),
                            c * (U0 * V1 * W0 - U0 * V0 * W1),
                            c * (U2 * V0 * W0 - 2.0f * U1 * V0 * W1 + U0 * V0 * W2),
                            c * (U1 * V1 * W0 - U1 * V0 * W1 - U0 * V1 * W1 + U0 * V0 * W2),
                            c * (U0 * V2 * W0 - 2.0f * U0 * V1 * W1 + U0 * V0 * W2)};
        if (at[b] >= 0) {
            const float *x = q + 3 * at[b];
            for (int r = 0; r < nq; r++)
                for (int d = 0; d < 3; d++) L[r][d] += W[r] * x[d];
            continue;
        }
        const int m = -1 - at[b];
        float t[6];
        mmx__blend(wa[m], wb[m], u, v, 1.0f, t);
        mmx__blend_add(W, t, q + 3 * (5 * m + 3), q + 3 * (5 * m + 4), nq, L);
    }
}

/* Loop's box spline beside the boundary (OpenSubdiv's boundary box-spline patches): the
 * weights w[12] (MMX__LOOP_BOX_SPLINE's order) of the control points beyond the boundary
 * folded into the others, each such point x being a + b - c of three present ones (the fourth
 * corner of the lattice's parallelogram a, b, c: along the boundary edge's direction, or, where
 * that point is beyond the boundary too, straight across the corner). */
static inline MMX__HD void mmx__loop_phantoms(int kind, float *w)
{
    const int e0 = kind & MMX__LIMIT_PHANTOM_EDGE(0), e1 = kind & MMX__LIMIT_PHANTOM_EDGE(1);
    const int e2 = kind & MMX__LIMIT_PHANTOM_EDGE(2);
    /* Rules x = a + b - c: edge 0's row, edge 1's, edge 2's, then the corners'. */
#define MMX__PH(x, a, b, c)                                                                    \
    do {                                                                                       \
        const float t_ = w[x];                                                                 \
        w[a] += t_, w[b] += t_, w[c] -= t_, w[x] = 0.0f;                                       \
    } while (0)
    if (e0) {
        if (e2) MMX__PH(4, 0, 0, 2); else MMX__PH(4, 0, 5, 9);
        MMX__PH(3, 0, 1, 2);
        if (e1) MMX__PH(8, 1, 1, 2); else MMX__PH(8, 1, 7, 6);
    }
    if (e1) {
        if (e0) MMX__PH(7, 1, 1, 0); else MMX__PH(7, 1, 8, 3);
        MMX__PH(6, 1, 2, 0);
        if (e2) MMX__PH(11, 2, 2, 0); else MMX__PH(11, 2, 10, 9);
    }
    if (e2) {
        if (e1) MMX__PH(10, 2, 2, 1); else MMX__PH(10, 2, 11, 6);
        MMX__PH(9, 2, 0, 1);
        if (e0) MMX__PH(5, 0, 0, 1); else MMX__PH(5, 0, 4, 3);
    }
    if (kind & MMX__LIMIT_PHANTOM_VERTEX(0)) {
        MMX__PH(5, 0, 9, 2);
        MMX__PH(4, 0, 3, 1);
    }
    if (kind & MMX__LIMIT_PHANTOM_VERTEX(1)) {
        MMX__PH(8, 1, 3, 0);
        MMX__PH(7, 1, 6, 2);
    }
    if (kind & MMX__LIMIT_PHANTOM_VERTEX(2)) {
        MMX__PH(11, 2, 6, 1);
        MMX__PH(10, 2, 9, 0);
    }
#undef MMX__PH
}

/* Loop's regular patch, the quartic box spline over a triangle of valence-6 corners: the
 * weights (times 12) of its 12 control points in the monomials u^a v^b, a + b <= 4, ordered
 * 1; u, v; u^2, uv, v^2; u^3 .. v^3; u^4 .. v^4. Control point k sits at lattice position
 * (i, j) = v0 + i (v1 - v0) + j (v2 - v0) of the triangle (v0, v1, v2): the corners (0,0),
 * (1,0), (0,1), then around v0 (1,-1), (0,-1), (-1,0), around v1 (1,1), (2,0), (2,-1), around
 * v2 (-1,1), (-1,2), (0,2) (limit_eval.c gathers them in that order). Fitted to the library's
 * own limit positions at the level-4 vertices of a regular lattice, where every coefficient
 * came out an integer (exactly: the fit's residue was float rounding), and held to them by
 * test_limit_eval. */
#define MMX__LOOP_BOX_SPLINE                                                                    \
    {{6, 0, 0, -12, -12, -12, 8, 12, 12, 8, -1, -2, 0, -2, -1},                                \
     {1, 4, 2, 6, 6, 0, -4, -6, -12, -4, -1, -2, 0, 4, 2},                                     \
     {1, 2, 4, 0, 6, 6, -4, -12, -6, -4, 2, 4, 0, -2, -1},                                     \
     {1, 2, -2, 0, -6, 0, -4, 0, 6, 2, 2, 4, 0, -2, -1},                                       \
     {1, -2, -4, 0, 6, 6, 2, 0, -6, -4, -1, -2, 0, 2, 1},                                      \
     {1, -4, -2, 6, 6, 0, -4, -6, 0, 2, 1, 2, 0, -2, -1},                                      \
     {0, 0, 0, 0, 0, 0, 2, 6, 6, 2, -1, -2, 0, -2, -1},                                        \
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0},                                            \
     {0, 0, 0, 0, 0, 0, 2, 0, 0, 0, -1, -2, 0, 0, 0},                                          \
     {1, -2, 2, 0, -6, 0, 2, 6, 0, -4, -1, -2, 0, 4, 2},                                       \
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, -2, -1},                                          \
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1}}

/* The 15 monomials of degree <= 4 at (u, v) in the order above, and their first and second
 * derivatives: m[q][k], q = value, d/du, d/dv, d2/du2, d2/dudv, d2/dv2. */
static inline MMX__HD void mmx__quartic_monomials(float u, float v, float m[6][15])
{
    float up[5], vp[5];
    up[0] = vp[0] = 1.0f;
    for (int i = 1; i < 5; i++) up[i] = up[i - 1] * u, vp[i] = vp[i - 1] * v;
    int k = 0;
    for (int d = 0; d <= 4; d++)
        for (int a = d; a >= 0; a--, k++) {
            const int b = d - a;
            m[0][k] = up[a] * vp[b];
            m[1][k] = a ? (float)a * up[a - 1] * vp[b] : 0.0f;
            m[2][k] = b ? (float)b * up[a] * vp[b - 1] : 0.0f;
            m[3][k] = a > 1 ? (float)(a * (a - 1)) * up[a - 2] * vp[b] : 0.0f;
            m[4][k] = a && b ? (float)(a * b) * up[a - 1] * vp[b - 1] : 0.0f;
            m[5][k] = b > 1 ? (float)(b * (b - 1)) * up[a] * vp[b - 2] : 0.0f;
        }
}

/* Whether (u, v) lies in the ptex face's domain (NaN fails every comparison). */
static inline MMX__HD int mmx__limit_in_domain(int loop, float u, float v)
{
    if (!(u >= 0.0f && u <= 1.0f && v >= 0.0f && v <= 1.0f)) return 0;
    return !loop || u + v <= 1.0f;
}

/* The outputs a call asks for: 1 (positions), 3 (and first derivatives) or 6 (all). */
static inline MMX__HD int mmx__limit_nq(const void *du, const void *dv, const void *duu,
                                        const void *duv, const void *dvv)
{
    return duu || duv || dvv ? 6 : du || dv ? 3 : 1;
}

/* Point (p, u, v): out[3 nq] = position, d/du, d/dv, d2/du2, d2/dudv, d2/dv2 (3 each), the first
 * nq of them (each computed the same whatever nq, so host and CUDA agree). Returns 0,
 * or 1 when p is out of range or (u, v) outside the domain (out untouched). The point descends
 * the levels: at each, the child holding it and its coordinates there (each step doubles them,
 * so it is exact in floating point), J accumulating d(child u, v)/d(ptex u, v). */
static inline MMX__HD int mmx__limit_eval_point(const mmx__limit_patches *T, mmx_index p,
                                                float u, float v, int nq, float *out)
{
    if (p < 0 || p >= T->nptex || !mmx__limit_in_domain(T->loop, u, v)) return 1;
    mmx_index g = p;
    float J[4] = {1.0f, 0.0f, 0.0f, 1.0f}; /* rows (u', v'), columns (u, v) */
    for (mmx_index first = T->child[g]; first >= 0; first = T->child[g]) {
        float a[4], nu, nv;
        int k;
        if (T->loop) {
            /* Children: the middle (e0, e1, e2), then at corner s (v_s, e_s, e_s-1). */
            if (u >= 0.5f) {
                k = 2, nu = 2.0f * v, nv = 2.0f - 2.0f * u - 2.0f * v;
                a[0] = 0.0f, a[1] = 2.0f, a[2] = -2.0f, a[3] = -2.0f;
            } else if (v >= 0.5f) {
                k = 3, nu = 2.0f - 2.0f * u - 2.0f * v, nv = 2.0f * u;
                a[0] = -2.0f, a[1] = -2.0f, a[2] = 2.0f, a[3] = 0.0f;
            } else if (u + v <= 0.5f) {
                k = 1, nu = 2.0f * u, nv = 2.0f * v;
                a[0] = 2.0f, a[1] = 0.0f, a[2] = 0.0f, a[3] = 2.0f;
            } else {
                k = 0, nu = 2.0f * u + 2.0f * v - 1.0f, nv = 1.0f - 2.0f * u;
                a[0] = 2.0f, a[1] = 2.0f, a[2] = -2.0f, a[3] = 0.0f;
            }
        } else {
            /* Child s of a quad is (v_s, e leaving, centre, e arriving): its u runs along the
             * edge leaving v_s, its v along the edge arriving. */
            if (u < 0.5f && v < 0.5f) {
                k = 0, nu = 2.0f * u, nv = 2.0f * v;
                a[0] = 2.0f, a[1] = 0.0f, a[2] = 0.0f, a[3] = 2.0f;
            } else if (v < 0.5f) {
                k = 1, nu = 2.0f * v, nv = 2.0f - 2.0f * u;
                a[0] = 0.0f, a[1] = 2.0f, a[2] = -2.0f, a[3] = 0.0f;
            } else if (u >= 0.5f) {
                k = 2, nu = 2.0f - 2.0f * u, nv = 2.0f - 2.0f * v;
                a[0] = -2.0f, a[1] = 0.0f, a[2] = 0.0f, a[3] = -2.0f;
            } else {
                k = 3, nu = 2.0f - 2.0f * v, nv = 2.0f * u;
                a[0] = 0.0f, a[1] = -2.0f, a[2] = 2.0f, a[3] = 0.0f;
            }
        }
        g = first + k;
        const float j0 = a[0] * J[0] + a[1] * J[2], j1 = a[0] * J[1] + a[1] * J[3];
        const float j2 = a[2] * J[0] + a[3] * J[2], j3 = a[2] * J[1] + a[3] * J[3];
        J[0] = j0, J[1] = j1, J[2] = j2, J[3] = j3;
        u = nu < 0.0f ? 0.0f : nu > 1.0f ? 1.0f : nu;
        v = nv < 0.0f ? 0.0f : nv > 1.0f ? 1.0f : nv;
    }
    /* The patch in its own (u, v): position, first and second derivatives (L[0..5]). */
    float L[6][3];
    const mmx_index pa = -1 - T->child[g]; /* the patch */
    const mmx_index *cv = T->cv + (int64_t)MMX__LIMIT_NCV * pa;
    const int kind = T->regular[pa];
    for (int i = 0; i < 6; i++) L[i][0] = L[i][1] = L[i][2] = 0.0f;
    if (kind == MMX__LIMIT_GREGORY) {
        if (T->loop) mmx__gregory_tri_eval(T->greg + 60 * (int64_t)cv[0], u, v, nq, L);
        else mmx__gregory_eval(T->greg + 60 * (int64_t)cv[0], u, v, nq, L);
    } else if (kind && T->loop) {
        const float box[12][15] = MMX__LOOP_BOX_SPLINE;
        float m[6][15], w[6][12];
        mmx__quartic_monomials(u, v, m);
        MMX__UNROLL
        for (int k = 0; k < 12; k++)
            for (int q = 0; q < nq; q++) {
                float s = 0.0f;
                MMX__UNROLL
                for (int i = 0; i < 15; i++) s += box[k][i] * m[q][i];
                w[q][k] = s * (1.0f / 12.0f);
            }
        if (kind != MMX__LIMIT_REGULAR)
            for (int q = 0; q < nq; q++) mmx__loop_phantoms(kind, w[q]);
        MMX__UNROLL
        for (int k = 0; k < 12; k++) {
            const float *x = T->pos + 3 * (int64_t)cv[k];
            for (int q = 0; q < nq; q++)
                for (int c = 0; c < 3; c++) L[q][c] += w[q][k] * x[c];
        }
    } else if (kind) {
        float bu[3][4], bv[3][4];
        mmx__bspline3(u, bu[0], bu[1], bu[2]);
        mmx__bspline3(v, bv[0], bv[1], bv[2]);
        /* A boundary edge's reflected control points, folded into the basis: edge 0 is the
         * row j = 0 (v's low end), 1 the column i = 3, 2 the row j = 3, 3 the column i = 0. */
        for (int q = 0; q < 3; q++) {
            if (kind & MMX__LIMIT_PHANTOM_EDGE(0))
                bv[q][1] += 2.0f * bv[q][0], bv[q][2] -= bv[q][0], bv[q][0] = 0.0f;
            if (kind & MMX__LIMIT_PHANTOM_EDGE(2))
                bv[q][2] += 2.0f * bv[q][3], bv[q][1] -= bv[q][3], bv[q][3] = 0.0f;
            if (kind & MMX__LIMIT_PHANTOM_EDGE(3))
                bu[q][1] += 2.0f * bu[q][0], bu[q][2] -= bu[q][0], bu[q][0] = 0.0f;
            if (kind & MMX__LIMIT_PHANTOM_EDGE(1))
                bu[q][2] += 2.0f * bu[q][3], bu[q][1] -= bu[q][3], bu[q][3] = 0.0f;
        }
        MMX__UNROLL
        for (int j = 0; j < 4; j++)
            MMX__UNROLL
            for (int i = 0; i < 4; i++) {
                const float *x = T->pos + 3 * (int64_t)cv[4 * j + i];
                const float w[6] = {bu[0][i] * bv[0][j], bu[1][i] * bv[0][j], bu[0][i] * bv[1][j],
                                    bu[2][i] * bv[0][j], bu[1][i] * bv[1][j], bu[0][i] * bv[2][j]};
                for (int q = 0; q < nq; q++)
                    for (int c = 0; c < 3; c++) L[q][c] += w[q] * x[c];
            }
    } else if (T->loop) {
        const float *x0 = T->lim + 3 * (int64_t)cv[0], *x1 = T->lim + 3 * (int64_t)cv[1];
        const float *x2 = T->lim + 3 * (int64_t)cv[2];
        for (int c = 0; c < 3; c++) {
            L[0][c] = (1.0f - u - v) * x0[c] + u * x1[c] + v * x2[c];
            L[1][c] = x1[c] - x0[c];
            L[2][c] = x2[c] - x0[c];
        }
    } else {
        const float *x0 = T->lim + 3 * (int64_t)cv[0], *x1 = T->lim + 3 * (int64_t)cv[1];
        const float *x2 = T->lim + 3 * (int64_t)cv[2], *x3 = T->lim + 3 * (int64_t)cv[3];
        for (int c = 0; c < 3; c++) {
            const float e0 = x1[c] - x0[c], e3 = x2[c] - x3[c];
            const float f0 = x3[c] - x0[c], f1 = x2[c] - x1[c];
            L[0][c] = (1.0f - v) * (x0[c] + u * e0) + v * (x3[c] + u * e3);
            L[1][c] = (1.0f - v) * e0 + v * e3;
            L[2][c] = (1.0f - u) * f0 + u * f1;
            L[4][c] = f1 - f0;
        }
    }
    /* Back to the ptex face's (u, v) by the chain rule: first derivatives D J, second ones
     * J^T H J. */
    for (int c = 0; c < 3; c++) {
        const float pu = L[1][c], pv = L[2][c], huu = L[3][c], huv = L[4][c], hvv = L[5][c];
        out[c] = L[0][c];
        if (nq < 3) continue;
        out[3 + c] = pu * J[0] + pv * J[2];
        out[6 + c] = pu * J[1] + pv * J[3];
        if (nq < 6) continue;
        out[9 + c] = huu * J[0] * J[0] + 2.0f * huv * J[0] * J[2] + hvv * J[2] * J[2];
        out[12 + c] = huu * J[0] * J[1] + huv * (J[0] * J[3] + J[1] * J[2]) + hvv * J[2] * J[3];
        out[15 + c] = huu * J[1] * J[1] + 2.0f * huv * J[1] * J[3] + hvv * J[3] * J[3];
    }
    return 0;
}

/* The table's patches (arrays in its space) and their bytes (every array the points may
 * read), for bench/limit_eval.c's floor and kernel timing. */
const mmx__limit_patches *mmx__limit_table_patches(const mmx_limit_table *t, size_t *bytes);

/* The table's patches by kind, and the faces refined to build it (for bench/limit_table.c). */
typedef struct mmx__limit_table_stats {
    int64_t bspline, gregory, interpolated, refined;
} mmx__limit_table_stats;
void mmx__limit_table_count(const mmx_limit_table *t, mmx__limit_table_stats *st);

/* The kernel's half of mmx_limit_table_eval (limit_eval.cu): one thread per point, device
 * arrays; *bad (device, one entry) gets the smallest bad point's index (it starts at n). */
mmx_status mmx__limit_eval_cuda(mmx_ctx *ctx, mmx__limit_patches T, mmx_index n,
                                const mmx_index *face, const float *u, const float *v, float *P,
                                float *du, float *dv, float *duu, float *duv, float *dvv,
                                mmx_index *bad);

#ifdef __cplusplus
}
#endif
#endif
