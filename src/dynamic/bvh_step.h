/* The closest-point query of the remesher's bounding volume hierarchy (closest.c builds it),
 * written once for the host (mmx__bvh_closest) and the CUDA kernel (closest.cu), as
 * flip_step.h does for the flip round: the point-triangle distance (Ericson, Real-Time
 * Collision Detection, 5.1.5: Voronoi regions), the point-box distance and the branch and
 * bound traversal, nearer child first. So the host tests exercise the very code the device
 * runs.
 *
 * Identical bits on both backends: only +, -, * and / in double precision, each correctly
 * rounded by IEEE 754 on the CPU and the GPU, through MMX__DMUL, MMX__DADD, MMX__DSUB and
 * MMX__DDIV (the _rn intrinsics in device code, which nvcc never fuses into an FMA; the host C
 * is compiled with -ffp-contract=off), in the order the host code has always used; the
 * comparisons and the traversal are the same code. No libm call. */
#ifndef MMX_DYNAMIC_BVH_STEP_H
#define MMX_DYNAMIC_BVH_STEP_H

#include <float.h>
#include "flip_step.h" /* MMX__HD, MMX__DMUL, MMX__DADD, MMX__DSUB, mmx__hd_dot */

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MMX__DDIV
#ifdef __CUDA_ARCH__
#define MMX__DDIV(a, b) __ddiv_rn((a), (b))
#else
#define MMX__DDIV(a, b) ((a) / (b))
#endif
#endif

/* A node: its box, its children (-1 -1 for a leaf) and a leaf's triangles
 * order[first .. first + count) (count 0 for an inner node). 64 bytes, the same layout in host
 * and device code. */
typedef struct mmx__bvh_node {
    double lo[3], hi[3];
    mmx_index left, right;
    mmx_index first, count;
} mmx__bvh_node;

/* A built hierarchy as plain pointers in one memory space (mmx__bvh_host_view, or the device
 * copy of mmx__bvh_to_device): tri (nt x 9 doubles: the corners of triangle t at
 * tri[9t .. 9t + 9)), order (nt: the triangles grouped by leaf), nodes (nnodes; the root is
 * node 0; nnodes = 0 when nt = 0). */
typedef struct mmx__bvh_view {
    const double *tri;
    const mmx_index *order;
    const mmx__bvh_node *nodes;
    mmx_index nt, nnodes;
} mmx__bvh_view;

/* The deepest traversal stack mmx__bvh_closest_view needs. The tree is built by median splits
 * (a node of n > 4 triangles has children of floor(n / 2) and ceil(n / 2)), so a root of
 * nt < 2^31 triangles has depth at most ceil(log2(nt / 4)) <= 29. Visiting an inner node pops
 * it and pushes its two children, so the stack holds the far children of the nodes on the
 * current path plus one: at most depth + 1 <= 30 entries, under 64 for any mmx_index count. */
#define MMX__BVH_STACK 64

/* The closest point to p on triangle (a, b, c) into q. */
static inline MMX__HD void mmx__bvh_closest_on_triangle(const double p[3], const double *a,
                                                        const double *b, const double *c,
                                                        double q[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = MMX__DSUB(b[k], a[k]), ac[k] = MMX__DSUB(c[k], a[k]), ap[k] = MMX__DSUB(p[k], a[k]);
        bp[k] = MMX__DSUB(p[k], b[k]), cp[k] = MMX__DSUB(p[k], c[k]);
    }
    const double d1 = mmx__hd_dot(ab, ap), d2 = mmx__hd_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) { /* the region of a */
        for (int k = 0; k < 3; k++) q[k] = a[k];
        return;
    }
    const double d3 = mmx__hd_dot(ab, bp), d4 = mmx__hd_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) { /* of b */
        for (int k = 0; k < 3; k++) q[k] = b[k];
        return;
    }
    const double vc = MMX__DSUB(MMX__DMUL(d1, d4), MMX__DMUL(d3, d2));
    if (vc <= 0 && d1 >= 0 && d3 <= 0) { /* of edge ab */
        const double v = MMX__DDIV(d1, MMX__DSUB(d1, d3));
        for (int k = 0; k < 3; k++) q[k] = MMX__DADD(a[k], MMX__DMUL(v, ab[k]));
        return;
    }
    const double d5 = mmx__hd_dot(ab, cp), d6 = mmx__hd_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) { /* of c */
        for (int k = 0; k < 3; k++) q[k] = c[k];
        return;
    }
    const double vb = MMX__DSUB(MMX__DMUL(d5, d2), MMX__DMUL(d1, d6));
    if (vb <= 0 && d2 >= 0 && d6 <= 0) { /* of edge ac */
        const double w = MMX__DDIV(d2, MMX__DSUB(d2, d6));
        for (int k = 0; k < 3; k++) q[k] = MMX__DADD(a[k], MMX__DMUL(w, ac[k]));
        return;
    }
    const double va = MMX__DSUB(MMX__DMUL(d3, d6), MMX__DMUL(d5, d4));
    const double d43 = MMX__DSUB(d4, d3), d56 = MMX__DSUB(d5, d6);
    if (va <= 0 && d43 >= 0 && d56 >= 0) { /* of edge bc */
        const double w = MMX__DDIV(d43, MMX__DADD(d43, d56));
        for (int k = 0; k < 3; k++) q[k] = MMX__DADD(b[k], MMX__DMUL(w, MMX__DSUB(c[k], b[k])));
        return;
    }
    const double den = MMX__DADD(MMX__DADD(va, vb), vc);
    if (!(den > 0)) { /* a degenerate triangle: its nearest corner (the first on ties) */
        const double *best = a;
        double bd = mmx__hd_dot(ap, ap);
        if (mmx__hd_dot(bp, bp) < bd) best = b, bd = mmx__hd_dot(bp, bp);
        if (mmx__hd_dot(cp, cp) < bd) best = c;
        for (int k = 0; k < 3; k++) q[k] = best[k];
        return;
    }
    const double v = MMX__DDIV(vb, den), w = MMX__DDIV(vc, den); /* the interior */
    for (int k = 0; k < 3; k++) q[k] = MMX__DADD(MMX__DADD(a[k], MMX__DMUL(ab[k], v)), MMX__DMUL(ac[k], w));
}

/* The squared distance from p to a node's box (0 inside). */
static inline MMX__HD double mmx__bvh_box_d2(const mmx__bvh_node *nd, const double p[3])
{
    double d = 0;
    for (int k = 0; k < 3; k++) {
        const double e = p[k] < nd->lo[k]   ? MMX__DSUB(nd->lo[k], p[k])
                         : p[k] > nd->hi[k] ? MMX__DSUB(p[k], nd->hi[k])
                                            : 0;
        d = MMX__DADD(d, MMX__DMUL(e, e));
    }
    return d;
}

/* The closest point to p on b's triangles into q, its triangle as the return value, the
 * squared distance in *d2 (may be NULL). Branch and bound from the root: a node is skipped
 * when its box is no nearer than the best so far, the nearer child (the left on a tie) is
 * searched first, and a triangle replaces the best only when strictly nearer, so a tie keeps
 * the triangle met first in this fixed order. Returns -1 with q and *d2 untouched when b has
 * no nodes; -1 with q untouched and *d2 = DBL_MAX when no triangle is nearer than DBL_MAX
 * (non-finite input). */
static inline MMX__HD mmx_index mmx__bvh_closest_view(const mmx__bvh_view *b, const double p[3],
                                                      double q[3], double *d2)
{
    if (!b || b->nnodes == 0) return -1;
    mmx_index stack[MMX__BVH_STACK], top = 0, best = -1;
    double bd = DBL_MAX, c[3];
    stack[top++] = 0;
    while (top > 0) {
        const mmx__bvh_node *nd = &b->nodes[stack[--top]];
        if (mmx__bvh_box_d2(nd, p) >= bd) continue;
        if (nd->left < 0) {
            for (mmx_index i = nd->first; i < nd->first + nd->count; i++) {
                const mmx_index t = b->order[i];
                const double *T = b->tri + 9 * (size_t)t;
                mmx__bvh_closest_on_triangle(p, T, T + 3, T + 6, c);
                const double d[3] = {MMX__DSUB(c[0], p[0]), MMX__DSUB(c[1], p[1]),
                                     MMX__DSUB(c[2], p[2])};
                const double e = mmx__hd_dot(d, d);
                if (e < bd) {
                    bd = e, best = t;
                    for (int k = 0; k < 3; k++) q[k] = c[k];
                }
            }
            continue;
        }
        /* The nearer child is searched first: pushed last (the bound: MMX__BVH_STACK). */
        const mmx__bvh_node *l = &b->nodes[nd->left], *r = &b->nodes[nd->right];
        const int left_first = mmx__bvh_box_d2(l, p) <= mmx__bvh_box_d2(r, p);
        stack[top++] = left_first ? nd->right : nd->left;
        stack[top++] = left_first ? nd->left : nd->right;
    }
    if (d2) *d2 = bd;
    return best;
}

#ifdef __cplusplus
}
#endif
#endif
