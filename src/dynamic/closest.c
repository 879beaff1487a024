/* Closest points on a triangle mesh, host: a bounding volume hierarchy (median splits of the
 * triangles' centroids along the longest axis of their box, leaves of at most 4 triangles),
 * queried by branch and bound, nearer child first; the point-triangle distance is Ericson's
 * (Real-Time Collision Detection, 5.1.5), in double precision. Used by the remesher to pull
 * relaxed vertices back onto the input surface. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"

#define LEAF 4

typedef struct node {
    double lo[3], hi[3];
    mmx_index left, right; /* children, or -1 -1 for a leaf */
    mmx_index first, count; /* a leaf's triangles: order[first .. first + count) */
} node;

struct mmx__bvh {
    double *tri;        /* nt x 9: the corners, in double */
    mmx_index nt, nnodes;
    mmx_index *order;   /* the triangles, grouped by leaf */
    node *nodes;
};

void mmx__bvh_free(mmx__bvh *b)
{
    if (!b) return;
    free(b->tri);
    free(b->order);
    free(b->nodes);
    free(b);
}

/* The sort key of the current split: a centroid coordinate, the triangle as the tie-break so
 * the order is total and the tree the same on every platform. */
typedef struct ckey {
    double c;
    mmx_index t;
} ckey;

static int ckey_cmp(const void *x, const void *y)
{
    const ckey *a = x, *b = y;
    if (a->c != b->c) return a->c < b->c ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

/* Builds the subtree of order[first .. first + count) as node `at`; returns the next free
 * node. Recursion depth is O(log nt) (median splits). */
static mmx_index build(mmx__bvh *b, ckey *scratch, mmx_index at, mmx_index next, mmx_index first,
                       mmx_index count)
{
    node *nd = &b->nodes[at];
    double clo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, chi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int k = 0; k < 3; k++) nd->lo[k] = DBL_MAX, nd->hi[k] = -DBL_MAX;
    for (mmx_index i = first; i < first + count; i++) {
        const double *T = b->tri + 9 * (size_t)b->order[i];
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 3; j++) {
                if (T[3 * j + k] < nd->lo[k]) nd->lo[k] = T[3 * j + k];
                if (T[3 * j + k] > nd->hi[k]) nd->hi[k] = T[3 * j + k];
            }
            const double c = (T[k] + T[3 + k] + T[6 + k]) / 3.0;
            if (c < clo[k]) clo[k] = c;
            if (c > chi[k]) chi[k] = c;
        }
    }
    nd->left = nd->right = -1;
    nd->first = first;
    nd->count = count;
    if (count <= LEAF) return next;
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
    for (mmx_index i = 0; i < count; i++) {
        const mmx_index t = b->order[first + i];
        const double *T = b->tri + 9 * (size_t)t;
        scratch[i] = (ckey){(T[axis] + T[3 + axis] + T[6 + axis]) / 3.0, t};
    }
    qsort(scratch, (size_t)count, sizeof *scratch, ckey_cmp);
    for (mmx_index i = 0; i < count; i++) b->order[first + i] = scratch[i].t;
    const mmx_index half = count / 2, l = next, r = next + 1;
    nd->left = l;
    nd->right = r;
    nd->count = 0;
    next = build(b, scratch, l, next + 2, first, half);
    return build(b, scratch, r, next, first + half, count - half);
}

mmx_status mmx__bvh_build(mmx_ctx *ctx, const float *pos, mmx_index nverts, const mmx_index *tri,
                          mmx_index nt, mmx__bvh **out)
{
    (void)nverts;
    *out = NULL;
    mmx__bvh *b = calloc(1, sizeof *b);
    if (!b) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_remesh: out of memory (the BVH)");
    b->nt = nt;
    ckey *scratch = NULL;
    const size_t maxnodes = 2 * (size_t)nt + 1;
    mmx_status s = mmx__host_alloc(ctx, 9 * (size_t)nt + 1, sizeof *b->tri, (void **)&b->tri);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nt + 1, sizeof *b->order, (void **)&b->order);
    if (!s) s = mmx__host_alloc(ctx, maxnodes, sizeof *b->nodes, (void **)&b->nodes);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nt + 1, sizeof *scratch, (void **)&scratch);
    if (s) {
        free(scratch);
        mmx__bvh_free(b);
        return s;
    }
    for (mmx_index t = 0; t < nt; t++) {
        b->order[t] = t;
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                b->tri[9 * (size_t)t + 3 * j + k] = pos[3 * (size_t)tri[3 * (size_t)t + j] + k];
    }
    b->nnodes = nt > 0 ? build(b, scratch, 0, 1, 0, nt) : 0;
    free(scratch);
    *out = b;
    return MMX_OK;
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The closest point to p on triangle (a, b, c) into q (Ericson 5.1.5: Voronoi regions). */
static void closest_on_triangle(const double p[3], const double *a, const double *b,
                                const double *c, double q[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    }
    const double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        memcpy(q, a, 3 * sizeof *q);
        return;
    }
    const double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        memcpy(q, b, 3 * sizeof *q);
        return;
    }
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        const double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++) q[k] = a[k] + v * ab[k];
        return;
    }
    const double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        memcpy(q, c, 3 * sizeof *q);
        return;
    }
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        const double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++) q[k] = a[k] + w * ac[k];
        return;
    }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++) q[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    const double den = va + vb + vc;
    if (!(den > 0)) { /* a degenerate triangle: its nearest corner */
        const double *best = a;
        double bd = dot3(ap, ap);
        if (dot3(bp, bp) < bd) best = b, bd = dot3(bp, bp);
        if (dot3(cp, cp) < bd) best = c;
        memcpy(q, best, 3 * sizeof *q);
        return;
    }
    const double v = vb / den, w = vc / den;
    for (int k = 0; k < 3; k++) q[k] = a[k] + ab[k] * v + ac[k] * w;
}

/* The squared distance from p to a node's box. */
static double box_d2(const node *nd, const double p[3])
{
    double d = 0;
    for (int k = 0; k < 3; k++) {
        const double e = p[k] < nd->lo[k] ? nd->lo[k] - p[k] : p[k] > nd->hi[k] ? p[k] - nd->hi[k] : 0;
        d += e * e;
    }
    return d;
}

mmx_index mmx__bvh_closest(const mmx__bvh *b, const double p[3], double q[3], double *d2)
{
    if (!b || b->nnodes == 0) return -1;
    mmx_index stack[128], top = 0, best = -1;
    double bd = DBL_MAX, c[3];
    stack[top++] = 0;
    while (top > 0) {
        const node *nd = &b->nodes[stack[--top]];
        if (box_d2(nd, p) >= bd) continue;
        if (nd->left < 0) {
            for (mmx_index i = nd->first; i < nd->first + nd->count; i++) {
                const mmx_index t = b->order[i];
                const double *T = b->tri + 9 * (size_t)t;
                closest_on_triangle(p, T, T + 3, T + 6, c);
                const double d[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]}, e = dot3(d, d);
                if (e < bd) {
                    bd = e, best = t;
                    memcpy(q, c, sizeof c);
                }
            }
            continue;
        }
        /* The nearer child is searched first: pushed last. The depth is about log2(nt / 4)
         * + 1 (median splits), so the stack holds at most one entry per level plus one. */
        const node *l = &b->nodes[nd->left], *r = &b->nodes[nd->right];
        const int left_first = box_d2(l, p) <= box_d2(r, p);
        stack[top++] = left_first ? nd->right : nd->left;
        stack[top++] = left_first ? nd->left : nd->right;
    }
    if (d2) *d2 = bd;
    return best;
}
