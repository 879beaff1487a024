/* meshmatrix/patch_kernel.cuh: users' CUDA kernels on the patches (C++17, nvcc), RXMesh's
 * programming model: one CUDA block per patch, the patch's relations built in the block's
 * shared memory from its compact FE/EV blocks, and a functor of the user's called by every
 * thread of the block with a handle to the patch.
 *
 *     struct my_op {                       // or [=] __device__ (mmx::patch &p) {...}
 *         const float *x; float *y;        //   (a lambda needs nvcc --extended-lambda)
 *         __device__ void operator()(mmx::patch &p) const {
 *             p.for_each_owned_vertex([&](mmx_index v, mmx_index gv) {
 *                 float s = 0.0f;
 *                 p.vv(v, [&](mmx_index u, mmx_index gu) { s += x[gu]; });
 *                 y[gv] = s;
 *             });
 *         }
 *     };
 *     mmx_status s = mmx::patch_launch(ctx, ps, MMX_PV_VERTEX_FANS, mmx::patch_shared{}, my_op{x, y});
 *
 * The handle p gives:
 * - the patch's local elements: vertices 0 .. p.verts() (the first p.owned_verts() owned, the
 *   rest its ribbon), edges and faces likewise; global numbers p.gv(l), p.ge(l), p.gf(l);
 * - block-wide loops, each element on one thread: for_each_vertex / _edge / _face (every local
 *   element, ribbon included: for loading attributes into shared memory) and
 *   for_each_owned_vertex / _edge / _face (each calls f(local, global));
 * - per-element relations, walked by the calling thread, each neighbour as f(local, global)
 *   in mmx_query's order (query.h): for an owned vertex v, vv, ve and vf (fan: all three at
 *   once, f(const mmx_pv_nbr &), see patch_view.h; star: the same entries in a cheaper fixed
 *   order of its own, for sums that need a fixed order but not mmx_query's); for a face l,
 *   fv and fe (any local face), ff (an owned face); for an owned edge e, ev and ef. A ribbon
 *   vertex's or edge's relations are incomplete (its other faces belong to other patches):
 *   walk owned ones only.
 * - p.sync(): a barrier of the block (every thread must reach it: call it outside per-thread
 *   conditions); p.shared(): the user's shared bytes (patch_shared below), 16-byte aligned,
 *   after the library's work space; p.index(): the patch's number.
 *
 * What a kernel may touch. Read the mesh's and one's own arrays freely. Write per owned
 * element only: each element is owned by exactly one patch, so every element of the mesh is
 * written exactly once and no two blocks race; never write through a ribbon index (another
 * block owns that element and may be reading it) and never write an array that another
 * block reads in the same launch (double-buffer a stencil: read x, write y). Do not write the
 * library's work space (the lists the relations come from). The shared bytes belong to the
 * current patch: fill them, p.sync(), then read them (the launch puts a barrier between two
 * patches of one block). The order of every relation is fixed, so a sum over a row in that
 * order gives the same bits on every run, whichever thread ran it; no float atomics needed.
 *
 * The relations that need lists say so at launch (lists: 0 for FV, FE, EV only;
 * MMX_PV_EDGE_FACES for EF and FF as well; MMX_PV_VERTEX_FANS for everything;
 * MMX_PV_VERTEX_STARS for FV, FE, EV and star only): building them is most of a patch's
 * set-up, the stars' least. A stencil run many times takes MMX_PV_KEPT_ROWS instead: FV, FE,
 * EV and p.kept_vv / p.kept_vf (the stars' VV and VF entries, kept with the set after the
 * first launch), with no set-up at all (the library's normals and Laplacian steps do). The host twin of all of this is patch_view.h (C), the same
 * per-patch code in a loop. */
#ifndef MESHMATRIX_PATCH_KERNEL_CUH
#define MESHMATRIX_PATCH_KERNEL_CUH

#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>
#include "patch_view.h"

namespace mmx {

/* Threads per block of a patch kernel that builds lists; of one on the kept rows
 * (MMX_PV_KEPT_ROWS: no set-up, and about a hundred vertices a patch, so fewer idle threads). */
constexpr int patch_threads = 256;
constexpr int patch_threads_kept = 128;

/* The user's shared memory per patch: fixed bytes plus bytes per local vertex, edge and face
 * (sized for the set's largest counts; each part rounded up to 16 bytes). */
struct patch_shared {
    size_t per_vertex = 0, per_edge = 0, per_face = 0, fixed = 0;
};

namespace detail {

inline size_t round16(size_t n) { return (n + 15) / 16 * 16; }

/* off[i] = cnt[0] + ... + cnt[i - 1] for i <= n over the block: each thread scans a run of
 * consecutive counts, the runs' sums are scanned. Ends with a barrier. */
__device__ inline void block_offsets(const mmx_index *cnt, mmx_index n, mmx_index *off)
{
    using Scan = cub::BlockScan<mmx_index, patch_threads>;
    __shared__ typename Scan::TempStorage tmp;
    const mmx_index chunk = (n + patch_threads - 1) / patch_threads;
    const mmx_index lo = (mmx_index)threadIdx.x * chunk;
    const mmx_index hi = lo + chunk < n ? lo + chunk : n;
    mmx_index sum = 0, pre = 0, total = 0;
    for (mmx_index i = lo; i < hi; i++) sum += cnt[i];
    Scan(tmp).ExclusiveSum(sum, pre, total);
    for (mmx_index i = lo; i < hi; i++) {
        off[i] = pre;
        pre += cnt[i];
    }
    if (threadIdx.x == 0) off[n] = total;
    __syncthreads();
}

/* The block's build of patch p's view in w: patch_view.h's steps, a barrier between steps,
 * as mmx_pv_build_host runs them in loops. Ends with a barrier. */
__device__ inline void build_view(const mmx_patch_blocks &b, mmx_index p, void *w, int lists,
                                  mmx_patch_view *V)
{
    mmx_pv_setup(&b, p, w, lists, V);
    const mmx_index items = mmx_pv_load_items(V);
    for (mmx_index i = threadIdx.x; i < items; i += blockDim.x) mmx_pv_load(&b, V, i);
    __syncthreads();
    for (int vert = 0; vert < 2; vert++) {
        if (!mmx_pv_list_wanted(V, vert)) continue;
        const mmx_index n = mmx_pv_list_len(V, vert), z = mmx_pv_zero_items(V, vert);
        for (mmx_index i = threadIdx.x; i < z; i += blockDim.x) mmx_pv_zero(V, vert, 1, i);
        __syncthreads();
        for (mmx_index l = threadIdx.x; l < V->nf; l += blockDim.x) mmx_pv_count_face(V, vert, l);
        __syncthreads();
        block_offsets(V->cnt, n, vert ? V->vf_off : V->ef_off);
        for (mmx_index i = threadIdx.x; i < n; i += blockDim.x) mmx_pv_zero(V, vert, 0, i);
        __syncthreads();
        for (mmx_index l = threadIdx.x; l < V->nf; l += blockDim.x) mmx_pv_fill_face(V, vert, l);
        __syncthreads();
        for (mmx_index i = threadIdx.x; i < n; i += blockDim.x) mmx_pv_sort_list(V, vert, i);
        __syncthreads();
    }
}

} // namespace detail

/* A patch as a kernel sees it (see the top of this file). Every thread of the block holds the
 * same handle. */
class patch {
  public:
    __device__ patch(const mmx_patch_view &v, unsigned char *user) : V(v), user_(user) {}

    __device__ mmx_index index() const { return mmx_pv_patch(&V); }
    __device__ mmx_index verts() const { return mmx_pv_verts(&V); }
    __device__ mmx_index edges() const { return mmx_pv_edges(&V); }
    __device__ mmx_index faces() const { return mmx_pv_faces(&V); }
    __device__ mmx_index owned_verts() const { return mmx_pv_owned_verts(&V); }
    __device__ mmx_index owned_edges() const { return mmx_pv_owned_edges(&V); }
    __device__ mmx_index owned_faces() const { return mmx_pv_owned_faces(&V); }
    __device__ mmx_index gv(mmx_index l) const { return mmx_pv_gv(&V, l); }
    __device__ mmx_index ge(mmx_index l) const { return mmx_pv_ge(&V, l); }
    __device__ mmx_index gf(mmx_index l) const { return mmx_pv_gf(&V, l); }
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned char *shared() const { return user_; }
    __device__ const mmx_patch_view &view() const { return V; }

    /* Block-wide loops: f(local, global) once per element, spread over the threads. */
    template <class F> __device__ void for_each_vertex(F f) const { each(verts(), f, &patch::gv); }
    template <class F> __device__ void for_each_edge(F f) const { each(edges(), f, &patch::ge); }
    template <class F> __device__ void for_each_face(F f) const { each(faces(), f, &patch::gf); }
    template <class F> __device__ void for_each_owned_vertex(F f) const { each(owned_verts(), f, &patch::gv); }
    template <class F> __device__ void for_each_owned_edge(F f) const { each(owned_edges(), f, &patch::ge); }
    template <class F> __device__ void for_each_owned_face(F f) const { each(owned_faces(), f, &patch::gf); }

    /* Owned vertex v's fan entries, f(const mmx_pv_nbr &) (MMX_PV_VERTEX_FANS). */
    template <class F> __device__ void fan(mmx_index v, F f) const
    {
        mmx_pv_fan it;
        mmx_pv_nbr nb;
        mmx_pv_fan_begin(&V, v, &it);
        while (mmx_pv_fan_next(&V, &it, &nb)) f(nb);
    }
    /* Owned vertex v's star entries, f(const mmx_pv_nbr &) (MMX_PV_VERTEX_STARS): the fan's
     * entries in a fixed order of their own (patch_view.h's mmx_pv_star_begin). */
    template <class F> __device__ void star(mmx_index v, F f) const
    {
        mmx_pv_star it;
        mmx_pv_nbr nb;
        mmx_pv_star_begin(&V, v, &it);
        while (mmx_pv_star_next(&V, &it, &nb)) f(nb);
    }
    /* Owned vertex v's kept rows (MMX_PV_KEPT_ROWS), f(local, global) per entry: VV (each
     * edge at v once) and VF, in the stars' order. */
    template <class F> __device__ void kept_vv(mmx_index v, F f) const
    {
        mmx_index n;
        const uint16_t *r = mmx_pv_kept_vv(&V, v, &n);
        for (mmx_index i = 0; i < n; i++) f((mmx_index)r[i], gv(r[i]));
    }
    template <class F> __device__ void kept_vf(mmx_index v, F f) const
    {
        mmx_index n;
        const uint16_t *r = mmx_pv_kept_vf(&V, v, &n);
        for (mmx_index i = 0; i < n; i++) f((mmx_index)r[i], gf(r[i]));
    }
    template <class F> __device__ void vv(mmx_index v, F f) const
    {
        fan(v, [&](const mmx_pv_nbr &nb) { f(nb.vert, gv(nb.vert)); });
    }
    template <class F> __device__ void ve(mmx_index v, F f) const
    {
        fan(v, [&](const mmx_pv_nbr &nb) { f(nb.edge, ge(nb.edge)); });
    }
    template <class F> __device__ void vf(mmx_index v, F f) const
    {
        fan(v, [&](const mmx_pv_nbr &nb) {
            if (nb.face >= 0) f(nb.face, gf(nb.face));
        });
    }
    /* Face l's vertices and edges in corner order (no lists needed). */
    template <class F> __device__ void fv(mmx_index l, F f) const
    {
        mmx_index a, n;
        mmx_pv_face(&V, l, &a, &n);
        for (mmx_index c = a; c < a + n; c++) {
            const mmx_index u = mmx_pv_corner_vert(&V, c);
            f(u, gv(u));
        }
    }
    template <class F> __device__ void fe(mmx_index l, F f) const
    {
        mmx_index a, n;
        mmx_pv_face(&V, l, &a, &n);
        for (mmx_index c = a; c < a + n; c++) {
            const mmx_index e = mmx_pv_corner_edge(&V, c);
            f(e, ge(e));
        }
    }
    /* Owned face l's neighbours across its edges, edge by edge in corner order, each edge's
     * other faces by global number (MMX_PV_EDGE_FACES). */
    template <class F> __device__ void ff(mmx_index l, F f) const
    {
        fe(l, [&](mmx_index e, mmx_index) { ef(e, [&](mmx_index g, mmx_index gg) { if (g != l) f(g, gg); }); });
    }
    /* Edge e's ends (the smaller global vertex first) and, owned, its faces by global number
     * (MMX_PV_EDGE_FACES). */
    template <class F> __device__ void ev(mmx_index e, F f) const
    {
        for (int k = 0; k < 2; k++) {
            const mmx_index u = mmx_pv_edge_vert(&V, e, k);
            f(u, gv(u));
        }
    }
    template <class F> __device__ void ef(mmx_index e, F f) const
    {
        mmx_index n;
        const uint16_t *F_ = mmx_pv_edge_faces(&V, e, &n);
        for (mmx_index i = 0; i < n; i++) f((mmx_index)F_[i], gf(F_[i]));
    }

  private:
    template <class F, class G> __device__ void each(mmx_index n, F f, G g) const
    {
        for (mmx_index i = threadIdx.x; i < n; i += blockDim.x) f(i, (this->*g)(i));
    }
    mmx_patch_view V;
    unsigned char *user_;
};

namespace detail {

template <class F, bool KEPT>
__global__ void __launch_bounds__(KEPT ? patch_threads_kept : patch_threads)
    patch_kernel(const mmx_patch_blocks b, int lists, unsigned char *gscratch, size_t per_block,
                 F f)
{
    extern __shared__ __align__(16) unsigned char mmx_patch_smem[];
    unsigned char *w = gscratch ? gscratch + (size_t)blockIdx.x * per_block : mmx_patch_smem;
    for (mmx_index p = blockIdx.x; p < b.npatches; p += gridDim.x) {
        mmx_patch_view V;
        if constexpr (KEPT) mmx_pv_setup_kept(&b, p, &V);
        else build_view(b, p, w, lists, &V);
        patch P(V, w + b.work_bytes);
        f(P);
        __syncthreads(); /* the next patch reuses the work space */
    }
}

} // namespace detail

/* Runs f on every patch of ps (a set on the context's CUDA device): one block of
 * patch_threads threads per patch, each building its view (`lists`: 0, MMX_PV_EDGE_FACES,
 * MMX_PV_VERTEX_FANS or MMX_PV_VERTEX_STARS) in shared memory with `sh`'s bytes after it, then
 * calling f(p) on every thread; with MMX_PV_KEPT_ROWS, blocks of patch_threads_kept threads
 * whose view is set up in place (no work space: the shared memory is sh's alone) and walks the
 * set's kept rows (made on the set's first such launch: see mmx_patch_set_blocks). When the largest patch does not fit a block's shared memory, a fixed grid of blocks
 * loops over the patches in global scratch from the context's pool instead (the same results).
 * Queued on the context's stream (mmx_ctx_cuda_stream); nothing to do for a set without
 * patches. Errors: as mmx_patch_set_blocks; MMX_ERR_UNSUPPORTED (a host context: run the
 * host twin, patch_view.h); MMX_ERR_CUDA (the launch). Synchronises: no. */
template <class F>
mmx_status patch_launch(mmx_ctx *ctx, const mmx_patch_set *ps, int lists, patch_shared sh, F f)
{
    mmx_patch_blocks b;
    if (ctx && mmx_ctx_backend(ctx) != MMX_BACKEND_CUDA)
        return mmx_patch_kernel_fail(ctx, MMX_ERR_UNSUPPORTED, "mmx::patch_launch needs a CUDA context");
    mmx_status s = mmx_patch_set_blocks(ctx, ps, lists, &b);
    if (s || b.npatches == 0) return s;
    const size_t user = detail::round16(sh.fixed) + detail::round16(sh.per_vertex * (size_t)b.max_verts) +
                        detail::round16(sh.per_edge * (size_t)b.max_edges) +
                        detail::round16(sh.per_face * (size_t)b.max_faces);
    const size_t need = b.work_bytes + user;
    int dev = 0, optin = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    /* Leave room for the static shared memory of the block scan. */
    const size_t limit = (size_t)optin > 1024 ? (size_t)optin - 1024 : 0;
    unsigned grid = (unsigned)b.npatches;
    size_t smem = need, per_block = 0;
    unsigned char *gscratch = nullptr;
    const bool kept = lists == MMX_PV_KEPT_ROWS;
    auto kernel = kept ? detail::patch_kernel<F, true> : detail::patch_kernel<F, false>;
    if (e == cudaSuccess && need > limit) {
        grid = b.npatches < 1024 ? (unsigned)b.npatches : 1024u;
        smem = 0;
        per_block = need;
        s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, per_block * grid, (void **)&gscratch);
        if (s) return s;
    } else if (e == cudaSuccess && need > 48 * 1024) {
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)need);
    }
    if (e == cudaSuccess) {
        kernel<<<grid, kept ? patch_threads_kept : patch_threads, smem,
                 (cudaStream_t)mmx_ctx_cuda_stream(ctx)>>>(b, lists, gscratch, per_block, f);
        e = cudaGetLastError();
    }
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, gscratch); /* stream order: after the kernel */
    return e == cudaSuccess ? MMX_OK : mmx_patch_kernel_fail(ctx, MMX_ERR_CUDA, cudaGetErrorString(e));
}

} // namespace mmx

#endif
