/* The closest-point hierarchy on the device (host statement: closest.c). mmx__bvh_build_cuda
 * builds closest.c's linear BVH with bvh_step.h's steps, one thread per element: the corners
 * and centroids, the centroids' box (a CUB reduction of exact min/max), the Morton keys, CUB's
 * radix sort, the radix tree's internal nodes (Karras), then the boxes bottom-up by the usual
 * climb (the second child to finish a node boxes it, an atomic counter per node deciding
 * which; the box is the union of the left and the right child's in that order, so its bits do
 * not depend on which thread comes second). The arrays are the host build's, byte for byte.
 * mmx__bvh_closest_cuda: one thread per query point runs bvh_step.h's mmx__bvh_closest_view,
 * the host's code, so q and the triangle are the host's bits. Queued on the context's
 * stream. */
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "core/cub.cuh"
#include "core/device.h"
#include "core/launch.cuh"
#include "dynamic_internal.h"

namespace {

/* A box of centroids. */
struct cbox {
    double lo[3], hi[3];
};

/* Their union, a NaN bound (a non-finite centroid) giving way to the other's: exact min and
 * max of the finite ones whatever the grouping (up to the sign of a zero, which the codes do
 * not see: bvh_step.h's mmx__bvh_quantise). */
struct cbox_union {
    __device__ cbox operator()(const cbox &a, const cbox &b) const
    {
        cbox r;
        for (int k = 0; k < 3; k++) {
            r.lo[k] = a.lo[k] != a.lo[k] || b.lo[k] < a.lo[k] ? b.lo[k] : a.lo[k];
            r.hi[k] = a.hi[k] != a.hi[k] || b.hi[k] > a.hi[k] ? b.hi[k] : a.hi[k];
        }
        return r;
    }
};

/* Per triangle: its corners in double (as closest.c's), its centroid as a box. */
__global__ void corners(const float *pos, const mmx_index *tri, mmx_index nt, double *T, cbox *c)
{
    const long long t = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (t >= nt) return;
    double *X = T + 9 * t;
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) X[3 * j + k] = pos[3 * (long long)tri[3 * t + j] + k];
    cbox b;
    mmx__bvh_centroid(X, b.lo);
    for (int k = 0; k < 3; k++) b.hi[k] = b.lo[k];
    c[t] = b;
}

/* Per triangle: its key in the centroids' box *box. */
__global__ void keys_of(const double *T, mmx_index nt, const cbox *box, uint64_t *keys)
{
    const long long t = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (t >= nt) return;
    double c[3];
    mmx__bvh_centroid(T + 9 * t, c);
    keys[t] = mmx__bvh_key(mmx__bvh_morton(c, box->lo, box->hi), (mmx_index)t);
}

/* Per internal node i < n - 1: its links, its radix-tree children (kids) and their parent. */
__global__ void inner(const uint64_t *keys, mmx_index n, mmx__bvh_node *nodes, mmx_index *kids,
                      mmx_index *parent)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= n - 1) return;
    mmx_index l, r, first, last;
    mmx__bvh_karras(keys, n, (mmx_index)i, &l, &r, &first, &last);
    mmx__bvh_node_init(&nodes[i], first, last, l, r);
    kids[2 * i] = l, kids[2 * i + 1] = r;
    parent[l] = (mmx_index)i, parent[r] = (mmx_index)i;
}

/* Per sorted leaf j: order[j], node n - 1 + j with its triangle's box, then the climb: at each
 * internal node above, the first of its two children to arrive stops, the second boxes it. */
__global__ void leaves(const uint64_t *keys, mmx_index n, const double *T, mmx_index *order,
                       mmx__bvh_node *nodes, const mmx_index *kids, const mmx_index *parent,
                       unsigned *arrived)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= n) return;
    const mmx_index t = (mmx_index)(uint32_t)keys[j];
    order[j] = t;
    long long at = n - 1 + j;
    mmx__bvh_node *nd = &nodes[at];
    mmx__bvh_node_init(nd, (mmx_index)j, (mmx_index)j, -1, -1);
    mmx__bvh_tri_box(T + 9 * (long long)t, nd->lo, nd->hi);
    while (at != 0) {
        const mmx_index p = parent[at];
        __threadfence(); /* this node's box before the count that lets the sibling read it */
        if (atomicAdd(&arrived[p], 1u) == 0) return;
        __threadfence();
        const mmx__bvh_node *L = &nodes[kids[2 * (long long)p]], *R = &nodes[kids[2 * (long long)p + 1]];
        double alo[3], ahi[3], blo[3], bhi[3]; /* through L2: the sibling's box */
        for (int k = 0; k < 3; k++) {
            alo[k] = __ldcg(&L->lo[k]), ahi[k] = __ldcg(&L->hi[k]);
            blo[k] = __ldcg(&R->lo[k]), bhi[k] = __ldcg(&R->hi[k]);
        }
        mmx__bvh_box_union(alo, ahi, blo, bhi, nodes[p].lo, nodes[p].hi);
        at = p;
    }
}

__global__ void closest(mmx__bvh_view b, const double *p, mmx_index n, double *q, mmx_index *tri)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= n) return;
    const double P[3] = {p[3 * i], p[3 * i + 1], p[3 * i + 2]};
    double Q[3];
    const mmx_index t = mmx__bvh_closest_view(&b, P, Q, NULL, 0);
    if (t >= 0)
        for (int k = 0; k < 3; k++) q[3 * i + k] = Q[k];
    if (tri) tri[i] = t;
}

} // namespace

extern "C" mmx_status mmx__bvh_closest_cuda(mmx_ctx *ctx, const mmx__bvh_view *dev,
                                            const double *p, mmx_index n, double *q,
                                            mmx_index *tri)
{
    if (n <= 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    closest<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(*dev, p, n, q, tri);
    return mmx__cuda(ctx, cudaGetLastError(), "closest launch");
}

extern "C" mmx_status mmx__bvh_build_cuda(mmx_ctx *ctx, const float *pos, mmx_index nverts,
                                          const mmx_index *tri, mmx_index nt, mmx__bvh_view *dev,
                                          void **block)
{
    (void)nverts;
    const mmx_index n = nt;
    *block = NULL;
    *dev = mmx__bvh_view{NULL, NULL, NULL, n, n > 0 ? 2 * n - 1 : 0};
    if (n <= 0) return MMX_OK; /* no triangles: every query gives -1 */
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const size_t N = (size_t)n, nn = 2 * N - 1;
    const size_t tri_bytes = 9 * N * sizeof(double), node_bytes = nn * sizeof(mmx__bvh_node);
    const size_t order_bytes = N * sizeof(mmx_index);
    unsigned char *d = NULL;
    cbox *cb = NULL, *box = NULL;
    uint64_t *keys[2] = {NULL, NULL};
    mmx_index *kids = NULL, *parent = NULL;
    unsigned *arrived = NULL;
    mmx_status s = mmx__dev_alloc(ctx, tri_bytes + node_bytes + order_bytes, (void **)&d);
    if (!s) s = mmx__dev_alloc(ctx, N * sizeof *cb, (void **)&cb);
    if (!s) s = mmx__dev_alloc(ctx, sizeof *box, (void **)&box);
    if (!s) s = mmx__dev_alloc(ctx, N * sizeof(uint64_t), (void **)&keys[0]);
    if (!s) s = mmx__dev_alloc(ctx, N * sizeof(uint64_t), (void **)&keys[1]);
    if (!s) s = mmx__dev_alloc(ctx, 2 * N * sizeof *kids, (void **)&kids);
    if (!s) s = mmx__dev_alloc(ctx, nn * sizeof *parent, (void **)&parent);
    if (!s) s = mmx__dev_alloc(ctx, N * sizeof *arrived, (void **)&arrived);
    double *T = (double *)d;
    mmx__bvh_node *nodes = d ? (mmx__bvh_node *)(d + tri_bytes) : nullptr;
    mmx_index *order = d ? (mmx_index *)(d + tri_bytes + node_bytes) : nullptr;
    if (!s) {
        corners<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(pos, tri, n, T, cb);
        s = mmx__cuda(ctx, cudaGetLastError(), "corners launch");
    }
    if (!s) {
        const double big = DBL_MAX;
        const cbox init = {{big, big, big}, {-big, -big, -big}};
        s = mmx__cub_run(ctx, "cub::DeviceReduce::Reduce", [&](void *tmp, size_t &bytes) {
            return cub::DeviceReduce::Reduce(tmp, bytes, cb, box, n, cbox_union(), init, st);
        });
    }
    if (!s) {
        keys_of<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(T, n, box, keys[0]);
        s = mmx__cuda(ctx, cudaGetLastError(), "keys launch");
    }
    int cur = 0;
    if (!s) {
        /* The Morton code in bits 32 .. 61, the triangle below bit 31. */
        cub::DoubleBuffer<uint64_t> k(keys[0], keys[1]);
        s = mmx__cub_run(ctx, "cub::DeviceRadixSort::SortKeys", [&](void *tmp, size_t &bytes) {
            return cub::DeviceRadixSort::SortKeys(tmp, bytes, k, n, 0, 62, st);
        });
        cur = k.selector;
    }
    if (!s && n > 1) {
        inner<<<mmx__grid(n - 1), MMX__BLOCK, 0, st>>>(keys[cur], n, nodes, kids, parent);
        s = mmx__cuda(ctx, cudaGetLastError(), "inner launch");
    }
    if (!s) s = mmx__cuda(ctx, cudaMemsetAsync(arrived, 0, N * sizeof *arrived, st), "cudaMemsetAsync");
    if (!s) {
        leaves<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(keys[cur], n, T, order, nodes, kids, parent,
                                                    arrived);
        s = mmx__cuda(ctx, cudaGetLastError(), "leaves launch");
    }
    mmx__dev_free(ctx, cb);
    mmx__dev_free(ctx, box);
    mmx__dev_free(ctx, keys[0]);
    mmx__dev_free(ctx, keys[1]);
    mmx__dev_free(ctx, kids);
    mmx__dev_free(ctx, parent);
    mmx__dev_free(ctx, arrived);
    if (s) {
        mmx__dev_free(ctx, d);
        *dev = mmx__bvh_view{NULL, NULL, NULL, n, 2 * n - 1};
        return s;
    }
    dev->tri = T;
    dev->nodes = nodes;
    dev->order = order;
    *block = d;
    return MMX_OK;
}
