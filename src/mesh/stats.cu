/* The device half of the mesh statistics (stats.c states them; mesh_internal.h declares these
 * entry points): the host's loops as kernels over the half-edge view, every count and "first"
 * a fold that does not depend on the order of its terms (integer atomics, minima of packed
 * records), so the numbers are the host's.
 *
 * Components and boundary loops are the classes of a union-find: every union links the root
 * of larger number under the smaller by a compare-and-swap on the root's parent, so parents
 * only decrease and no cycle forms; a find halves its path with plain stores of ancestors. The
 * classes, and so their count, do not depend on the order of the unions.
 *
 * The box: the host keeps the first used vertex's coordinate and replaces it by a strictly
 * smaller (larger) one, so its result is the extreme value taken by the vertex of smallest
 * number (0 and -0 compare equal), and NaN when that first coordinate is NaN (a NaN later is
 * never smaller). The device takes the minimum of (the value's order with -0 as 0, vertex)
 * over the other values and reads the winning vertex's coordinate. */
#include <cstring>
#include <cuda/std/functional>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "face_steps.h"
#include "halfedge.h"

namespace {

/* What the kernels fold into, read back at once. */
struct Out {
    unsigned int hist[MMX_STATS_ORDERS];
    int min_order, max_order;
    unsigned int inconsistent;
    unsigned long long inconsistent_key; /* lo << 32 | hi of the smallest */
    unsigned int nonmanifold, first_nonmanifold;
    unsigned int components, loops, used, first_used;
    unsigned long long lo[3], hi[3];     /* (order, vertex) records of the box */
    float box[6];                        /* the box's coordinates (finish) */
    unsigned int candidates;             /* faces whose hash another face has */
    unsigned int degenerate, first_degenerate;
};

/* The box's order: the host compares with <, so -0 and 0 are one value. */
__device__ __forceinline__ unsigned int ordered(float f)
{
    return mmx__float_order(f == 0.0f ? 0.0f : f);
}

__device__ __forceinline__ mmx_index uf_find(mmx_index *p, mmx_index x)
{
    volatile mmx_index *vp = p;
    mmx_index y = vp[x];
    while (y != x) {
        const mmx_index z = vp[y];
        if (z != y) vp[x] = z; /* halving: z is an ancestor of x */
        x = y;
        y = z;
    }
    return x;
}

/* 1 when the classes of a and b were apart. */
__device__ __forceinline__ int uf_union(mmx_index *p, mmx_index a, mmx_index b)
{
    for (;;) {
        a = uf_find(p, a), b = uf_find(p, b);
        if (a == b) return 0;
        const mmx_index lo = a < b ? a : b, hi = a < b ? b : a;
        if (atomicCAS(&p[hi], hi, lo) == hi) return 1;
    }
}

__global__ void face_orders(const mmx_index *colptr, mmx_index nf, Out *o)
{
    const long long f = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (f >= nf) return;
    const mmx_index n = colptr[f + 1] - colptr[f];
    atomicAdd(&o->hist[n < MMX_STATS_ORDERS - 1 ? n : MMX_STATS_ORDERS - 1], 1u);
    atomicMin(&o->min_order, (int)n);
    atomicMax(&o->max_order, (int)n);
}

/* Per corner the inconsistent edges; per vertex its fan flag (before the edges' marks). */
__global__ void corners(const mmx__halfedge H, const mmx_index *ev, unsigned char *nm, Out *o)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < H.nnz) {
        const mmx_index m = H.mate[i];
        if (m > i && H.fe[m] == H.fe[i]) {
            const mmx_index e = H.fe[i] >> 1;
            atomicAdd(&o->inconsistent, 1u);
            atomicMin(&o->inconsistent_key, (unsigned long long)(uint32_t)ev[2 * (size_t)e] << 32 |
                                                (uint32_t)ev[2 * (size_t)e + 1]);
        }
    }
    if (i < H.nv) nm[i] = !H.one_fan[i];
}

/* Per edge: the ends of an edge of three sides or more marked non-manifold (every writer
 * writes 1), and the ends joined into one component. */
__global__ void edges(const mmx__halfedge H, const mmx_index *ev, unsigned char *nm,
                      mmx_index *comp)
{
    const long long e = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (e >= H.ne) return;
    const mmx_index a = ev[2 * (size_t)e], b = ev[2 * (size_t)e + 1];
    if (H.sides[e] >= 3) nm[a] = nm[b] = 1;
    uf_union(comp, a, b);
}

/* stats.c's join_at_end: boundary edge e joined to the one where the walk from c stops. */
__device__ void join_at_end(const mmx__halfedge &H, mmx_index *p, mmx_index c, int leave,
                            mmx_index e)
{
    mmx_index n, h;
    mmx__he_walk(&H, c, leave, H.valence[H.M[c]] + 1, &n, &h);
    if (h >= 0 && H.sides[H.fe[h] >> 1] == 1) uf_union(p, e, H.fe[h] >> 1);
}

__global__ void loops(const mmx__halfedge H, mmx_index *p)
{
    const long long c = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (c >= H.nnz) return;
    const mmx_index e = H.fe[c] >> 1;
    if (H.sides[e] != 1) return;
    mmx_index a, k;
    mmx__corner_face(H.order, H.colptr, H.nf, (mmx_index)c, &a, &k);
    join_at_end(H, p, (mmx_index)c, 0, e);
    join_at_end(H, p, mmx__corner_next(a, k, (mmx_index)c), 1, e);
}

/* Per vertex: non-manifold, used, a component's root, the box; per edge: a loop's root. */
__global__ void tally(const mmx__halfedge H, const unsigned char *nm, mmx_index *comp,
                      mmx_index *loop, const float *pos, Out *o)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int nmv = 0, used = 0, roots = 0, lroots = 0;
    if (i < H.nv) {
        const mmx_index v = (mmx_index)i;
        if (nm[v]) {
            nmv = 1;
            atomicMin(&o->first_nonmanifold, (unsigned int)v);
        }
        if (H.valence[v] > 0) {
            used = 1;
            roots = uf_find(comp, v) == v;
            atomicMin(&o->first_used, (unsigned int)v);
            for (int d = 0; pos && d < 3; d++) {
                const float x = pos[3 * (size_t)v + d];
                if (isnan(x)) continue;
                const unsigned long long k = (unsigned long long)ordered(x) << 32;
                atomicMin(&o->lo[d], k | (uint32_t)v);
                atomicMax(&o->hi[d], k | (0xffffffffu - (uint32_t)v));
            }
        }
    }
    if (loop && i < H.ne && H.sides[i] == 1) lroots = uf_find(loop, (mmx_index)i) == i;
    nmv = mmx__block_reduce(nmv, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && nmv) atomicAdd(&o->nonmanifold, nmv);
    used = mmx__block_reduce(used, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && used) atomicAdd(&o->used, used);
    roots = mmx__block_reduce(roots, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && roots) atomicAdd(&o->components, roots);
    lroots = mmx__block_reduce(lroots, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && lroots) atomicAdd(&o->loops, lroots);
}

/* The box's coordinates: the first used vertex's where it is NaN, else the winners'. */
__global__ void finish_box(const float *pos, Out *o)
{
    if (!pos || o->used == 0) return;
    const unsigned int f = o->first_used;
    for (int d = 0; d < 3; d++) {
        const float x = pos[3 * (size_t)f + d];
        o->box[d] = isnan(x) ? x : pos[3 * (size_t)(uint32_t)o->lo[d] + d];
        o->box[3 + d] = isnan(x) ? x : pos[3 * (size_t)(0xffffffffu - (uint32_t)o->hi[d]) + d];
    }
}

__device__ __forceinline__ const mmx_index *face_of(const mmx_csc &M, mmx_index f, mmx_index *n)
{
    const mmx_index a = M.order ? M.order * f : M.colptr[f];
    *n = M.order ? M.order : M.colptr[f + 1] - a;
    return M.rowidx + a;
}

__global__ void hashes(const mmx_csc M, unsigned long long *hash, mmx_index *face)
{
    const long long f = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (f >= M.ncols) return;
    mmx_index n;
    const mmx_index *v = face_of(M, (mmx_index)f, &n);
    hash[f] = mmx__face_set_hash(v, n);
    face[f] = (mmx_index)f;
}

__global__ void candidates(const unsigned long long *hk, mmx_index nf, Out *o)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int c = i < nf && ((i > 0 && hk[i] == hk[i - 1]) || (i + 1 < nf && hk[i] == hk[i + 1]));
    c = mmx__block_reduce(c, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && c) atomicAdd(&o->candidates, c);
}

__global__ void degenerate(const mmx_csc M, const float *pos, Out *o)
{
    const long long f = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int c = 0;
    if (f < M.ncols) {
        mmx_index n;
        const mmx_index *v = face_of(M, (mmx_index)f, &n);
        c = mmx__face_degenerate(pos, v, n);
        if (c) atomicMin(&o->first_degenerate, (unsigned int)f);
    }
    c = mmx__block_reduce(c, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && c) atomicAdd(&o->degenerate, c);
}

/* A zeroed Out with its minima at their largest. */
Out fresh()
{
    Out o;
    memset(&o, 0, sizeof o);
    o.min_order = 0x7fffffff;
    o.inconsistent_key = ~0ull;
    o.first_nonmanifold = o.first_used = o.first_degenerate = ~0u;
    for (int d = 0; d < 3; d++) o.lo[d] = ~0ull;
    return o;
}

/* The repeated faces from the sorted hashes: only when some face shares its hash does the
 * host compare sets (mmx__repeated_scan, on host copies). */
mmx_status repeated(mmx_ctx *ctx, const mmx_mesh *mesh, const unsigned long long *hk,
                    const mmx_index *fk, mmx_mesh_stats *st)
{
    const size_t nf = (size_t)mesh->M->ncols;
    uint64_t *h = nullptr;
    mmx_index *f = nullptr;
    const mmx_mesh *hm = nullptr;
    mmx_status s = mmx__host_alloc(ctx, nf, sizeof *h, (void **)&h);
    if (!s) s = mmx__host_alloc(ctx, nf, sizeof *f, (void **)&f);
    if (!s) s = mmx__dev_copy(ctx, h, MMX_SPACE_HOST, hk, MMX_SPACE_DEVICE, nf * sizeof *h);
    if (!s) s = mmx__dev_copy(ctx, f, MMX_SPACE_HOST, fk, MMX_SPACE_DEVICE, nf * sizeof *f);
    if (!s) s = mmx__mesh_host_view(ctx, mesh, &hm);
    mmx__repeated rep;
    if (!s) s = mmx__repeated_scan(ctx, hm->M, h, f, &rep);
    if (!s) {
        st->repeated_faces = rep.count;
        st->repeated_face[0] = rep.first, st->repeated_face[1] = rep.second;
        st->repeated_orientation = rep.relation;
    }
    if (hm) mmx__mesh_host_release(mesh, hm);
    free(h);
    free(f);
    return s;
}

} // namespace

extern "C" mmx_status mmx__mesh_stats_counts_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                                  const mmx_adjacency *adj,
                                                  const struct mmx__halfedge *Hp,
                                                  mmx_mesh_stats *st, mmx_index *used)
{
    cudaStream_t cs = (cudaStream_t)ctx->stream;
    const mmx__halfedge &H = *Hp;
    const mmx_csc &M = *mesh->M;
    const mmx_index nv = H.nv, ne = H.ne, nf = M.ncols;
    const size_t f1 = (size_t)nf + 1;
    /* One block: the fold record, the flags, both union-finds, the hash sort's buffers. */
    char *block = nullptr;
    Out *o = nullptr;
    unsigned char *nm = nullptr;
    mmx_index *comp = nullptr, *loop = nullptr, *face[2] = {nullptr, nullptr};
    unsigned long long *hash[2] = {nullptr, nullptr};
    mmx_status s = MMX_OK;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        o = c.take<Out>(1);
        hash[0] = c.take<unsigned long long>(f1);
        hash[1] = c.take<unsigned long long>(f1);
        comp = c.take<mmx_index>((size_t)nv + 1);
        loop = c.take<mmx_index>((size_t)ne + 1);
        face[0] = c.take<mmx_index>(f1);
        face[1] = c.take<mmx_index>(f1);
        nm = c.take<unsigned char>((size_t)nv + 1);
        if (pass == 0) s = mmx__dev_alloc(ctx, c.used, (void **)&block);
        if (s) return s;
    }
    const Out init = fresh();
    s = mmx__dev_copy(ctx, o, MMX_SPACE_DEVICE, &init, MMX_SPACE_HOST, sizeof init);
#define LAUNCH(name, items, ...) MMX__LAUNCH_ON(s, ctx, cs, name, items, __VA_ARGS__)
    if (!M.order) LAUNCH(face_orders, nf, M.colptr, nf, o);
    LAUNCH(mmx__iota<mmx_index>, nv, nv, comp);
    LAUNCH(corners, H.nnz > nv ? H.nnz : nv, H, adj->ev, nm, o);
    LAUNCH(edges, ne, H, adj->ev, nm, comp);
    if (adj->boundary_edges > 0) {
        LAUNCH(mmx__iota<mmx_index>, ne, ne, loop);
        LAUNCH(loops, H.nnz, H, loop);
    }
    LAUNCH(tally, nv > ne ? nv : ne, H, nm, comp, adj->boundary_edges > 0 ? loop : nullptr,
           mesh->pos, o);
    LAUNCH(finish_box, 1, mesh->pos, o);
    int cur = 0;
    if (nf >= 2) {
        LAUNCH(hashes, nf, M, hash[0], face[0]);
        if (!s) s = mmx__sort_pairs(ctx, hash, face, nf, 64, &cur);
        LAUNCH(candidates, nf, hash[cur], nf, o);
    }
#undef LAUNCH
    Out h;
    if (!s) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, o, MMX_SPACE_DEVICE, sizeof h);
    if (!s) {
        if (M.order) {
            if (nf > 0) {
                st->min_order = st->max_order = st->uniform_order = M.order;
                st->order_hist[M.order < MMX_STATS_ORDERS - 1 ? M.order : MMX_STATS_ORDERS - 1] = nf;
            }
        } else if (nf > 0) {
            for (int k = 0; k < MMX_STATS_ORDERS; k++) st->order_hist[k] = (mmx_index)h.hist[k];
            st->min_order = h.min_order, st->max_order = h.max_order;
            st->uniform_order = h.min_order == h.max_order ? h.min_order : 0;
        }
        st->inconsistent_edges = (mmx_index)h.inconsistent;
        if (h.inconsistent) {
            st->inconsistent_edge[0] = (mmx_index)(h.inconsistent_key >> 32);
            st->inconsistent_edge[1] = (mmx_index)(uint32_t)h.inconsistent_key;
        }
        st->nonmanifold_verts = (mmx_index)h.nonmanifold;
        if (h.nonmanifold) st->first_nonmanifold_vert = (mmx_index)h.first_nonmanifold;
        st->components = (mmx_index)h.components;
        st->boundary_loops = adj->boundary_edges > 0 ? (mmx_index)h.loops : 0;
        st->isolated_verts = nv - (mmx_index)h.used;
        if (mesh->pos && h.used > 0)
            for (int d = 0; d < 3; d++) st->bbox_min[d] = h.box[d], st->bbox_max[d] = h.box[3 + d];
        *used = (mmx_index)h.used;
    }
    if (!s && h.candidates > 0) s = repeated(ctx, mesh, hash[cur], face[cur], st);
    mmx__dev_free(ctx, block);
    return s;
}

extern "C" mmx_status mmx__mesh_degenerate_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                                mmx_index *count, mmx_index *first)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    *count = 0, *first = -1;
    Out *o = nullptr;
    mmx_status s = mmx__dev_alloc(ctx, sizeof *o, (void **)&o);
    const Out init = fresh();
    if (!s) s = mmx__dev_copy(ctx, o, MMX_SPACE_DEVICE, &init, MMX_SPACE_HOST, sizeof init);
    MMX__LAUNCH(degenerate, mesh->M->ncols, *mesh->M, mesh->pos, o);
    Out h;
    if (!s) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, o, MMX_SPACE_DEVICE, sizeof h);
    if (!s && h.degenerate) *count = (mmx_index)h.degenerate, *first = (mmx_index)h.first_degenerate;
    mmx__dev_free(ctx, o);
    return s;
}
