/* Closest points on a triangle mesh: a bounding volume hierarchy (median splits of the
 * triangles' centroids along the longest axis of their box, leaves of at most 4 triangles),
 * built on the host, queried by branch and bound, nearer child first; the point-triangle
 * distance is Ericson's (Real-Time Collision Detection, 5.1.5), in double precision. The query
 * is bvh_step.h's, shared with the device (closest.cu), which gets the arrays from
 * mmx__bvh_to_device. Used by the remesher to pull relaxed vertices back onto the input
 * surface. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/device.h"
#include "dynamic_internal.h"

#define LEAF 4

struct mmx__bvh {
    double *tri;        /* nt x 9: the corners, in double */
    mmx_index nt, nnodes;
    mmx_index *order;   /* the triangles, grouped by leaf */
    mmx__bvh_node *nodes; /* bvh_step.h: box, children (-1 -1 for a leaf), a leaf's triangles */
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
    mmx__bvh_node *nd = &b->nodes[at];
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

mmx__bvh_view mmx__bvh_host_view(const mmx__bvh *b)
{
    const mmx__bvh_view v = {b->tri, b->order, b->nodes, b->nt, b->nnodes};
    return v;
}

mmx_index mmx__bvh_closest(const mmx__bvh *b, const double p[3], double q[3], double *d2)
{
    if (!b) return -1;
    const mmx__bvh_view v = mmx__bvh_host_view(b);
    return mmx__bvh_closest_view(&v, p, q, d2);
}

mmx_status mmx__bvh_to_device(mmx_ctx *ctx, const mmx__bvh *b, mmx__bvh_view *dev, void **block)
{
    /* One block: the corners (doubles), the nodes (64 bytes each), then the order, so every
     * part is 8-byte aligned. */
    const size_t tri_bytes = 9 * (size_t)b->nt * sizeof *b->tri;
    const size_t node_bytes = (size_t)b->nnodes * sizeof *b->nodes;
    const size_t order_bytes = (size_t)b->nt * sizeof *b->order;
    *block = NULL;
    *dev = (mmx__bvh_view){NULL, NULL, NULL, b->nt, b->nnodes};
    if (b->nnodes == 0) return MMX_OK; /* no triangles: nothing to copy, every query gives -1 */
    unsigned char *d = NULL;
    mmx_status s = mmx__dev_alloc(ctx, tri_bytes + node_bytes + order_bytes, (void **)&d);
    if (!s) s = mmx__dev_copy(ctx, d, MMX_SPACE_DEVICE, b->tri, MMX_SPACE_HOST, tri_bytes);
    if (!s) s = mmx__dev_copy(ctx, d + tri_bytes, MMX_SPACE_DEVICE, b->nodes, MMX_SPACE_HOST, node_bytes);
    if (!s) s = mmx__dev_copy(ctx, d + tri_bytes + node_bytes, MMX_SPACE_DEVICE, b->order,
                              MMX_SPACE_HOST, order_bytes);
    if (s) {
        mmx__dev_free(ctx, d);
        return s;
    }
    dev->tri = (const double *)d;
    dev->nodes = (const mmx__bvh_node *)(d + tri_bytes);
    dev->order = (const mmx_index *)(d + tri_bytes + node_bytes);
    *block = d;
    return MMX_OK;
}
