/* Closest points on a triangle mesh: a bounding volume hierarchy (a linear BVH: the radix
 * tree over the Morton codes of the triangles' centroids, Karras 2012, leaves of at most 4
 * triangles), queried by branch and bound, nearer child first; the point-triangle distance is
 * Ericson's (Real-Time Collision Detection, 5.1.5), in double precision. The build's steps and
 * the query are bvh_step.h's, shared with the device (closest.cu: mmx__bvh_build_cuda builds
 * the same arrays there; mmx__bvh_to_device copies a host build). Used by the remesher to pull relaxed vertices back onto the input
 * surface. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "core/device.h"
#include "dynamic_internal.h"

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

/* Sorts the n keys ascending (LSD radix sort, 8 bits a pass, a pass skipped where every key
 * has the same digit), tmp as scratch. */
static void sort_keys(uint64_t *keys, uint64_t *tmp, size_t n)
{
    uint64_t *src = keys, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++) count[((src[i] >> shift) & 0xffu) + 1]++;
        if (count[((src[0] >> shift) & 0xffu) + 1] == n) continue; /* one digit: in order */
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++) dst[count[(src[i] >> shift) & 0xffu]++] = src[i];
        uint64_t *x = src;
        src = dst, dst = x;
    }
    if (src != keys) memcpy(keys, src, n * sizeof *keys);
}

/* The box of node `at` and of the nodes under it in the radix tree (kids: the children of
 * internal node i at kids[2i], kids[2i + 1]; leaves from n - 1 on). Recursion depth at most
 * 65 (bvh_step.h, MMX__BVH_STACK). */
static void boxes(mmx__bvh *b, const mmx_index *kids, mmx_index at)
{
    mmx__bvh_node *nd = &b->nodes[at];
    const mmx_index n = b->nt;
    if (at >= n - 1) {
        mmx__bvh_tri_box(b->tri + 9 * (size_t)b->order[at - (n - 1)], nd->lo, nd->hi);
        return;
    }
    const mmx_index l = kids[2 * (size_t)at], r = kids[2 * (size_t)at + 1];
    boxes(b, kids, l);
    boxes(b, kids, r);
    mmx__bvh_box_union(b->nodes[l].lo, b->nodes[l].hi, b->nodes[r].lo, b->nodes[r].hi, nd->lo, nd->hi);
}

mmx_status mmx__bvh_build(mmx_ctx *ctx, const float *pos, mmx_index nverts, const mmx_index *tri,
                          mmx_index nt, mmx__bvh **out)
{
    (void)nverts;
    *out = NULL;
    mmx__bvh *b = calloc(1, sizeof *b);
    if (!b) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_remesh: out of memory (the BVH)");
    b->nt = nt;
    b->nnodes = nt > 0 ? 2 * nt - 1 : 0;
    uint64_t *keys = NULL, *tmp = NULL;
    mmx_index *kids = NULL;
    mmx_status s = mmx__host_alloc(ctx, 9 * (size_t)nt + 1, sizeof *b->tri, (void **)&b->tri);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nt + 1, sizeof *b->order, (void **)&b->order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)b->nnodes + 1, sizeof *b->nodes, (void **)&b->nodes);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nt + 1, sizeof *keys, (void **)&keys);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nt + 1, sizeof *tmp, (void **)&tmp);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)nt + 1, sizeof *kids, (void **)&kids);
    if (s) {
        free(keys), free(tmp), free(kids);
        mmx__bvh_free(b);
        return s;
    }
    if (nt > 0) {
        /* 1. The corners and the centroids' box; the keys (the centroids recomputed), sorted. */
        double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, c[3];
        for (mmx_index t = 0; t < nt; t++) {
            double *T = b->tri + 9 * (size_t)t;
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++) T[3 * j + k] = pos[3 * (size_t)tri[3 * (size_t)t + j] + k];
            mmx__bvh_centroid(T, c);
            for (int k = 0; k < 3; k++) {
                if (c[k] < lo[k]) lo[k] = c[k];
                if (c[k] > hi[k]) hi[k] = c[k];
            }
        }
        for (mmx_index t = 0; t < nt; t++) {
            mmx__bvh_centroid(b->tri + 9 * (size_t)t, c);
            keys[t] = mmx__bvh_key(mmx__bvh_morton(c, lo, hi), t);
        }
        sort_keys(keys, tmp, (size_t)nt);
        for (mmx_index j = 0; j < nt; j++) b->order[j] = (mmx_index)(uint32_t)keys[j];
        /* 2. The links: the internal nodes, then the sorted leaves. */
        for (mmx_index i = 0; i + 1 < nt; i++) {
            mmx_index l, r, first, last;
            mmx__bvh_karras(keys, nt, i, &l, &r, &first, &last);
            kids[2 * (size_t)i] = l, kids[2 * (size_t)i + 1] = r;
            mmx__bvh_node_init(&b->nodes[i], first, last, l, r);
        }
        for (mmx_index j = 0; j < nt; j++) mmx__bvh_node_init(&b->nodes[nt - 1 + j], j, j, -1, -1);
        /* 3. The boxes. */
        boxes(b, kids, 0);
    }
    free(keys), free(tmp), free(kids);
    *out = b;
    return MMX_OK;
}

mmx__bvh_view mmx__bvh_host_view(const mmx__bvh *b)
{
    const mmx__bvh_view v = {b->tri, b->order, b->nodes, b->nt, b->nnodes};
    return v;
}

mmx_index mmx__bvh_closest(const mmx__bvh *b, const double p[3], double q[3], double *d2,
                           long long budget)
{
    if (!b) return -1;
    const mmx__bvh_view v = mmx__bvh_host_view(b);
    return mmx__bvh_closest_view(&v, p, q, d2, budget);
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
