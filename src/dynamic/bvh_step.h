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
#include <stdint.h>
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

/* ---- the build: a linear BVH (Karras 2012, "Maximizing parallelism in the construction of
 * BVHs, octrees and k-d trees"), the per-element steps shared by closest.c (a host loop) and
 * closest.cu (one thread each), so both backends build the same arrays:
 *   1. per triangle t: its centroid (mmx__bvh_centroid) and a 30-bit Morton code of it in the
 *      centroids' box (mmx__bvh_morton); the key morton << 32 | t, sorted ascending. The keys
 *      are distinct (t is), so the sorted order is the same whatever the sort.
 *   2. the binary radix tree over the n sorted keys: internal node i (0 <= i < n - 1, node i;
 *      the root is 0) by mmx__bvh_karras; sorted leaf j is node n - 1 + j (n = 1: node 0 is
 *      the one leaf). A node whose range holds at most MMX__BVH_LEAF triangles is stored as a
 *      leaf (left = right = -1; first, count over order), its own subtree unreachable but
 *      still written (as leaves of their own ranges), so every node's bytes are defined and
 *      the same on both backends; an inner node stores its children and first = the start of
 *      its range, count 0 (mmx__bvh_node_init).
 *   3. the boxes bottom-up: a leaf's from its triangles' corners (mmx__bvh_tri_box, the
 *      sorted order's), an internal node's the union of its two children's (mmx__bvh_box_union,
 *      left then right): exact min/max, the same bits in whatever order the nodes are done.
 * order[j] is the triangle of sorted key j. nnodes = 2 nt - 1. */
#define MMX__BVH_LEAF 4

/* The deepest traversal stack mmx__bvh_closest_view needs. In the radix tree the common
 * prefix length delta of an internal node's keys (0 .. 63: the keys are distinct 64-bit
 * words) grows strictly from a node to an internal child (the child's keys share the bit at
 * which the parent splits), so a root-to-leaf path has at most 64 internal nodes: internal
 * depths 0 .. 63. The traversal pops a node and pushes its two children; the stack then holds
 * at most one deferred sibling per ancestor of the popped node, so popping an internal node of
 * depth d <= 63 leaves at most d entries and pushing its children at most d + 2 <= 65. Hence
 * 65 entries always suffice, whatever the triangles: an overflow is impossible. */
#define MMX__BVH_STACK 65

/* Triangle T's centroid (T: its 9 corner coordinates): the three summed in order, / 3. */
static inline MMX__HD void mmx__bvh_centroid(const double *T, double c[3])
{
    for (int k = 0; k < 3; k++) c[k] = MMX__DDIV(MMX__DADD(MMX__DADD(T[k], T[3 + k]), T[6 + k]), 3.0);
}

/* The 10-bit grid coordinate of x in [lo, lo + ext]: q = floor((x - lo) / ext * 1023)
 * clamped to [0, 1023]; 0 when ext is not > 0 or the quotient is NaN (non-finite input). The
 * truncation of the non-negative product is its floor. A box bound of -0 instead of +0 (the
 * min or max of a reduction may keep either) gives the same q: x - lo and ext have the same
 * values. */
static inline MMX__HD uint32_t mmx__bvh_quantise(double x, double lo, double ext)
{
    if (!(ext > 0)) return 0;
    const double f = MMX__DMUL(MMX__DDIV(MMX__DSUB(x, lo), ext), 1023.0);
    if (!(f > 0)) return 0; /* also NaN */
    if (f >= 1023.0) return 1023;
    return (uint32_t)f;
}

/* Spreads the 10 low bits of v to bits 0, 3, 6, .. 27. */
static inline MMX__HD uint32_t mmx__bvh_spread(uint32_t v)
{
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

/* The 30-bit Morton code of centroid c in the centroids' box [lo, hi]: x's bits highest. */
static inline MMX__HD uint32_t mmx__bvh_morton(const double c[3], const double lo[3], const double hi[3])
{
    uint32_t m = 0;
    for (int k = 0; k < 3; k++)
        m |= mmx__bvh_spread(mmx__bvh_quantise(c[k], lo[k], MMX__DSUB(hi[k], lo[k]))) << (2 - k);
    return m;
}

/* The sort key of triangle t. */
static inline MMX__HD uint64_t mmx__bvh_key(uint32_t morton, mmx_index t)
{
    return (uint64_t)morton << 32 | (uint32_t)t;
}

/* The length of the common prefix of sorted keys i and j; -1 when j is outside [0, n). */
static inline MMX__HD int mmx__bvh_delta(const uint64_t *keys, long long n, long long i, long long j)
{
    if (j < 0 || j >= n) return -1;
    const uint64_t x = keys[i] ^ keys[j]; /* != 0 for i != j: the keys are distinct */
    if (x == 0) return 64;
#ifdef __CUDA_ARCH__
    return __clzll((long long)x);
#elif defined(__GNUC__)
    return __builtin_clzll(x);
#else
    int z = 0;
    while (!(x & (1ull << 63 >> z))) z++;
    return z;
#endif
}

/* Internal node i (0 <= i < n - 1) of the radix tree over n >= 2 distinct sorted keys
 * (Karras's construction): its range [*first, *last] of sorted keys and its children as node
 * numbers (internal node g is node g, sorted leaf j node n - 1 + j). */
static inline MMX__HD void mmx__bvh_karras(const uint64_t *keys, mmx_index n, mmx_index i,
                                           mmx_index *left, mmx_index *right, mmx_index *first,
                                           mmx_index *last)
{
    const long long N = n, I = i;
    const int d = mmx__bvh_delta(keys, N, I, I + 1) > mmx__bvh_delta(keys, N, I, I - 1) ? 1 : -1;
    const int dmin = mmx__bvh_delta(keys, N, I, I - d);
    long long lmax = 2;
    while (mmx__bvh_delta(keys, N, I, I + lmax * d) > dmin) lmax *= 2;
    long long l = 0;
    for (long long t = lmax / 2; t >= 1; t /= 2)
        if (mmx__bvh_delta(keys, N, I, I + (l + t) * d) > dmin) l += t;
    const long long j = I + l * d;
    const int dnode = mmx__bvh_delta(keys, N, I, j);
    long long s = 0, t = l;
    do {
        t = (t + 1) / 2;
        if (mmx__bvh_delta(keys, N, I, I + (s + t) * d) > dnode) s += t;
    } while (t > 1);
    const long long g = I + s * d + (d < 0 ? -1 : 0);
    const long long a = I < j ? I : j, b = I < j ? j : I;
    *first = (mmx_index)a, *last = (mmx_index)b;
    *left = (mmx_index)(a == g ? N - 1 + g : g);
    *right = (mmx_index)(b == g + 1 ? N - 1 + g + 1 : g + 1);
}

/* Node nd's links for the sorted range [first, last] with radix-tree children left, right
 * (ignored for a range of at most MMX__BVH_LEAF: stored as a leaf). The box is left alone. */
static inline MMX__HD void mmx__bvh_node_init(mmx__bvh_node *nd, mmx_index first, mmx_index last,
                                              mmx_index left, mmx_index right)
{
    const int leaf = last - first + 1 <= MMX__BVH_LEAF;
    nd->left = leaf ? -1 : left;
    nd->right = leaf ? -1 : right;
    nd->first = first;
    nd->count = leaf ? last - first + 1 : 0;
}

/* The box of triangle T's corners (in corner order, from DBL_MAX / -DBL_MAX). */
static inline MMX__HD void mmx__bvh_tri_box(const double *T, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = DBL_MAX, hi[k] = -DBL_MAX;
        for (int j = 0; j < 3; j++) {
            if (T[3 * j + k] < lo[k]) lo[k] = T[3 * j + k];
            if (T[3 * j + k] > hi[k]) hi[k] = T[3 * j + k];
        }
    }
}

/* The union of boxes a (the left child's) and b (the right's) into lo, hi: b's bound where it
 * is strictly beyond a's, else a's. */
static inline MMX__HD void mmx__bvh_box_union(const double alo[3], const double ahi[3],
                                              const double blo[3], const double bhi[3],
                                              double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = blo[k] < alo[k] ? blo[k] : alo[k];
        hi[k] = bhi[k] > ahi[k] ? bhi[k] : ahi[k];
    }
}

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
 * (non-finite input).
 *
 * budget > 0 bounds the triangles tested: past it the search gives up and returns -2 (q and
 * *d2 then undefined). Where many long triangles' boxes hold p (the spokes of a fan of n
 * triangles all pass near its centre) no box can be skipped, and a query costs O(n); the
 * budget keeps a caller that can do without an answer (the remesher's projection: the vertex
 * stays) linear. 0: no bound.
 *
 * label (may be NULL: every triangle): a number per triangle; only those with label[t] == want
 * are candidates (the others are tested against the budget but never taken), so a caller can
 * ask for the closest point on one part of the set (the remesher's sliding feature vertices:
 * on their own feature line, slide_step.h). */
static inline MMX__HD mmx_index mmx__bvh_closest_in(const mmx__bvh_view *b, const double p[3],
                                                    double q[3], double *d2, long long budget,
                                                    const mmx_index *label, mmx_index want)
{
    if (!b || b->nnodes == 0) return -1;
    mmx_index stack[MMX__BVH_STACK], top = 0, best = -1;
    double bd = DBL_MAX, c[3];
    long long tested = 0;
    stack[top++] = 0;
    while (top > 0) {
        const mmx__bvh_node *nd = &b->nodes[stack[--top]];
        if (mmx__bvh_box_d2(nd, p) >= bd) continue;
        if (nd->left < 0) {
            tested += nd->count;
            if (budget > 0 && tested > budget) return -2;
            for (mmx_index i = nd->first; i < nd->first + nd->count; i++) {
                const mmx_index t = b->order[i];
                if (label && label[t] != want) continue;
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

/* The closest point on any of b's triangles (mmx__bvh_closest_in without labels). */
static inline MMX__HD mmx_index mmx__bvh_closest_view(const mmx__bvh_view *b, const double p[3],
                                                      double q[3], double *d2, long long budget)
{
    return mmx__bvh_closest_in(b, p, q, d2, budget, (const mmx_index *)0, 0);
}

#ifdef __cplusplus
}
#endif
#endif
