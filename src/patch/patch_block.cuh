/* The CUDA side of the per-patch steps (patch_block.h): a block builds the view of one patch at
 * a time (the patches of its chunk: mmx__patch_each) in its work space (dynamic shared memory,
 * or a slice of global scratch when a patch is too large for shared memory), step by step with
 * a barrier between steps; and the launch that sizes it.
 * Used by patch_query.cu and patch_reduce.cu. */
#ifndef MMX_PATCH_BLOCK_CUH
#define MMX_PATCH_BLOCK_CUH

#include <cub/block/block_scan.cuh>
#include "core/launch.cuh"
#include "patch_block.h"

/* off[i] = cnt[0] + ... + cnt[i - 1] for i <= n, over the block: each thread sums a run of
 * consecutive counts, the runs' sums are scanned, each run written from its prefix. */
__device__ inline void mmx__pl_block_offsets(const mmx_index *cnt, mmx_index n, mmx_index *off)
{
    using Scan = cub::BlockScan<mmx_index, MMX__BLOCK>;
    __shared__ typename Scan::TempStorage tmp;
    const mmx_index chunk = (n + MMX__BLOCK - 1) / MMX__BLOCK;
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

/* dst[i] = src[i] for i < n over the block, four loads in flight per thread before their
 * stores (a strided loop of one load and one store leaves each thread waiting on every load). */
template <typename T>
__device__ inline void mmx__pl_block_copy(T *__restrict__ dst, const T *__restrict__ src, mmx_index n)
{
    const mmx_index bs = (mmx_index)blockDim.x;
    for (mmx_index i = (mmx_index)threadIdx.x; i < n; i += 4 * bs) {
        T a[4];
#pragma unroll
        for (int k = 0; k < 4; k++) a[k] = i + k * bs < n ? src[i + k * bs] : T(0);
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (i + k * bs < n) dst[i + k * bs] = a[k];
    }
}

/* The load step of patch p on the block: the blocks `needs` does not skip (MMX__PL_NO_FE,
 * MMX__PL_NO_EV), the face starts and the maps, as mmx__pl_load_item_of copies them. */
__device__ inline void mmx__pl_block_load(const mmx_patch_set &ps, mmx_index p, mmx__plocal *L, int needs)
{
    if (!(needs & MMX__PL_NO_FE)) {
        mmx__pl_block_copy(L->fe, ps.fe + ps.corner_off[p], L->nc);
        if (!L->order) mmx__pl_block_copy(L->fs, ps.fstart + ps.face_off[p], L->nf);
    }
    if (!(needs & MMX__PL_NO_EV)) mmx__pl_block_copy(L->ev, ps.ev + 2 * (size_t)ps.edge_off[p], 2 * L->ne);
    mmx__pl_block_copy((mmx_index *)L->gf, ps.l2g_f + ps.face_off[p], L->nf);
    mmx__pl_block_copy((mmx_index *)L->ge, ps.l2g_e + ps.edge_off[p], L->ne);
    mmx__pl_block_copy((mmx_index *)L->gv, ps.l2g_v + ps.vert_off[p], L->nv);
}

/* Builds the vertex lists (vf 1) or the edge lists (vf 0) of the block's view, leaving starts
 * or pairs mode for them, as mmx__pl_host_lists does on the host. Every thread calls it (its
 * own L); ends with a barrier. */
__device__ inline void mmx__pl_block_lists(mmx__plocal *L, int vf)
{
    const mmx_index n = vf ? L->nv : L->ne;
    mmx_index *off = vf ? L->vf_off : L->ef_off;
    uint16_t *list = vf ? L->vf : L->ef;
    if (vf) L->starts = 0;
    else L->pairs = 0;
    for (mmx_index i = threadIdx.x; i < n; i += blockDim.x) L->cnt[i] = 0;
    __syncthreads();
    for (mmx_index l = threadIdx.x; l < L->nf; l += blockDim.x) mmx__pl_count_face(L, l, vf);
    __syncthreads();
    mmx__pl_block_offsets(L->cnt, n, off);
    for (mmx_index i = threadIdx.x; i < n; i += blockDim.x) L->cnt[i] = 0;
    __syncthreads();
    for (mmx_index l = threadIdx.x; l < L->nf; l += blockDim.x) mmx__pl_fill_face(L, l, vf);
    __syncthreads();
    /* The atomics filled each list in any order: sorting by rank (global face order, a key in
     * the work space) makes it one. */
    for (mmx_index i = threadIdx.x; i < n; i += blockDim.x)
        mmx__pl_sort(list + off[i], off[i + 1] - off[i], L->rank);
    __syncthreads();
}

/* The block's setup of patch p in the work space w: every thread holds the same view L; the
 * blocks `needs` does not skip are copied and what it asks for built (MMX__PL_*), as
 * mmx__patch_local_host does on the host. Ends with a barrier. */
__device__ inline void mmx__patch_local_block(const mmx_patch_set &ps, mmx_index p, void *w,
                                              int needs, mmx__plocal *L)
{
    mmx__pl_setup(&ps, p, w, L);
    mmx__pl_block_load(ps, p, L, needs);
    __syncthreads(); /* the ranks read the face map */
    if (needs & (MMX__PL_EDGE_LISTS | MMX__PL_VERT_LISTS | MMX__PL_EDGE_PAIRS))
        for (mmx_index l = threadIdx.x; l < L->nf; l += blockDim.x) mmx__pl_rank_face(L, l);
    const int pairs = (needs & MMX__PL_EDGE_PAIRS) && !(needs & MMX__PL_EDGE_LISTS);
    const int starts = pairs && (needs & MMX__PL_VERT_STARTS) && !(needs & MMX__PL_VERT_LISTS);
    if (pairs) {
        L->pairs = 1;
        for (mmx_index i = threadIdx.x; i < L->ne; i += blockDim.x) L->ef_off[i] = 0;
    }
    if (starts) {
        L->starts = 1;
        for (mmx_index i = threadIdx.x; i < L->nv; i += blockDim.x) L->vf_off[i] = 0, L->cnt[i] = -1;
    }
    __syncthreads();
    if (pairs) {
        for (mmx_index l = threadIdx.x; l < L->nf; l += blockDim.x) mmx__pl_pair_face(L, l);
        __syncthreads();
        if (needs & MMX__PL_LISTS_IF_MANY) {
            int many = 0;
            for (mmx_index i = threadIdx.x; i < L->ne; i += blockDim.x) many |= L->ef_off[i] > 2;
            if (__syncthreads_or(many)) needs |= MMX__PL_EDGE_LISTS; /* the same in every thread */
        }
    }
    if (starts) {
        for (mmx_index l = threadIdx.x; l < L->nf; l += blockDim.x) mmx__pl_start_corners(L, l);
        __syncthreads();
    }
    for (int vf = 0; vf < 2; vf++)
        if (needs & (1 << vf)) mmx__pl_block_lists(L, vf);
}

/* The block's counting setup of patch p for the row lengths of query `kind` (patch_block.h,
 * "row lengths by counting"): the blocks it reads, then the edge sides and the vertex counts
 * it needs, no list. Ends with a barrier; mmx__pl_counted_len then gives each row's length. */
__device__ inline void mmx__patch_count_block(const mmx_patch_set &ps, mmx_index p, void *w,
                                              mmx_query_kind kind, mmx__plocal *L)
{
    const int needs = mmx__pl_len_needs(kind);
    mmx__pl_setup(&ps, p, w, L);
    mmx__pl_block_load(ps, p, L, needs);
    if (needs & MMX__PL_EDGE_LISTS)
        for (mmx_index i = threadIdx.x; i < L->ne; i += blockDim.x) L->ef_off[i] = 0;
    if (needs & MMX__PL_VERT_LISTS)
        for (mmx_index i = threadIdx.x; i < L->nv; i += blockDim.x) L->vf_off[i] = 0;
    __syncthreads();
    if (needs & MMX__PL_EDGE_LISTS) {
        for (mmx_index l = threadIdx.x; l < L->nf; l += blockDim.x) mmx__pl_count_sides(L, l);
        __syncthreads();
    }
    if (needs & MMX__PL_VERT_LISTS) {
        for (mmx_index l = threadIdx.x; l < L->nf; l += blockDim.x) mmx__pl_count_corners(L, kind, l);
        __syncthreads();
    }
}

/* How a patch kernel is launched: blocks, dynamic shared memory per block, and the global
 * scratch (NULL when the work space fits shared memory) with its bytes per block. */
typedef struct mmx__patch_launch {
    unsigned grid;
    size_t smem;
    unsigned char *gscratch;
    size_t per_block;
    size_t lo, hi; /* the patches it takes: work space in (lo, hi] bytes (mmx__patch_takes) */
} mmx__patch_launch;

/* Sizes the launch of `kernel` for the set: one block per patch out of shared memory when the
 * largest patch's work space fits what the device grants a block (opting in above 48 KiB);
 * else a fixed grid of blocks that loop over the patches, each with a slice of global scratch
 * from the context's pool (give it back with mmx__dev_free after the launch: stream order). */
template <typename Kernel>
mmx_status mmx__patch_launch_sized(mmx_ctx *ctx, const mmx_patch_set *ps, Kernel kernel,
                                   size_t need, mmx__patch_launch *out)
{
    int dev = 0, optin = 0;
    out->lo = 0, out->hi = ~(size_t)0;
    mmx_status s = MMX__CUDA(ctx, cudaGetDevice(&dev));
    if (!s) s = MMX__CUDA(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (s) return s;
    /* Leave room for the static shared memory of the block scan. */
    const size_t limit = (size_t)optin > 1024 ? (size_t)optin - 1024 : 0;
    out->gscratch = NULL;
    if (need <= limit) {
        out->grid = ps->npatches > 0 ? (unsigned)ps->npatches : 1;
        out->smem = need;
        out->per_block = 0;
        if (need > 48 * 1024)
            s = MMX__CUDA(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    (int)need));
        return s;
    }
    out->grid = ps->npatches < 1024 ? (unsigned)(ps->npatches > 0 ? ps->npatches : 1) : 1024u;
    out->smem = 0;
    out->per_block = (need + 255) / 256 * 256;
    return mmx__dev_alloc(ctx, out->per_block * out->grid, (void **)&out->gscratch);
}

template <typename Kernel>
mmx_status mmx__patch_launch_for(mmx_ctx *ctx, const mmx_patch_set *ps, Kernel kernel,
                                 mmx__patch_launch *out)
{
    return mmx__patch_launch_sized(ctx, ps, kernel, ps->max_scratch ? ps->max_scratch : 16, out);
}

/* Whether the launch ln takes patch p (the same answer in every thread of the block, so a
 * block that skips a patch skips its barriers too): its work space in (ln.lo, ln.hi]. */
__device__ inline bool mmx__patch_takes(const mmx_patch_set &ps, mmx_index p, const mmx__patch_launch &ln)
{
    if (ln.lo == 0 && ln.hi == ~(size_t)0) return true;
    const size_t w = mmx__patch_scratch_bytes(ps.face_off[p + 1] - ps.face_off[p], ps.edge_off[p + 1] - ps.edge_off[p],
                                              ps.vert_off[p + 1] - ps.vert_off[p],
                                              ps.corner_off[p + 1] - ps.corner_off[p]);
    return w > ln.lo && w <= ln.hi;
}

/* The blocks per SM the fill and reduction kernels are compiled for (__launch_bounds__): their
 * walks need many registers, and without a bound the compiler took 74 a thread, so that only
 * three blocks of 256 fitted an SM. */
#ifndef MMX__PATCH_FILL_BLOCKS
#define MMX__PATCH_FILL_BLOCKS 6
#endif

/* Patches per chunk of mmx__patch_each: a block checks a chunk's patches at once (one trip
 * to memory for all of them), then works through those its launch takes (8: 5% faster than
 * 16 and than a block per patch on nef3, H200). */
#ifndef MMX__PATCH_CHUNK
#define MMX__PATCH_CHUNK 8
#endif

/* Calls body(p) on the block for every patch p its launch takes (mmx__patch_takes), the
 * patches cut into chunks of MMX__PATCH_CHUNK that the grid's blocks take in turn. A launch
 * over some of the patches (mmx__patch_run_split) then costs no block per patch it skips:
 * with a block per patch, the blocks of the skipped patches (two thirds of nef3's in the
 * second launch) each paid a launch and the trip for their patch's sizes. Every thread of the
 * block calls it; body runs on every thread (its barriers included) and ends with one. */
template <typename Body>
__device__ inline void mmx__patch_each(const mmx_patch_set &ps, const mmx__patch_launch &ln, Body body)
{
    __shared__ mmx_index taken[MMX__PATCH_CHUNK];
    __shared__ int ntaken;
    const mmx_index nchunks = (ps.npatches + MMX__PATCH_CHUNK - 1) / MMX__PATCH_CHUNK;
    for (mmx_index c = blockIdx.x; c < nchunks; c += gridDim.x) {
        if (threadIdx.x == 0) ntaken = 0;
        __syncthreads();
        const mmx_index p = c * MMX__PATCH_CHUNK + (mmx_index)threadIdx.x;
        /* Any order: each patch writes only its own rows. */
        if (threadIdx.x < MMX__PATCH_CHUNK && p < ps.npatches && mmx__patch_takes(ps, p, ln))
            taken[atomicAdd(&ntaken, 1)] = p;
        __syncthreads();
        const int n = ntaken;
        for (int i = 0; i < n; i++) body(taken[i]);
        __syncthreads(); /* before ntaken is reset */
    }
}

/* The grid of a launch through mmx__patch_each: a block per chunk (the hardware balances
 * them: a grid of what the device holds at once, its blocks looping over the chunks, was 25%
 * slower on nef3, H200), at most `grid` (the blocks given global scratch). */
static inline void mmx__patch_each_grid(const mmx_patch_set *ps, unsigned *grid)
{
    const long long chunks = ((long long)ps->npatches + MMX__PATCH_CHUNK - 1) / MMX__PATCH_CHUNK;
    if (chunks > 0 && (long long)*grid > chunks) *grid = (unsigned)chunks;
}

/* Launches `kernel` over the set's patches, sized by mmx__patch_launch_for, with `args` then
 * the launch record (every patch kernel's last parameter), and gives the scratch back in
 * stream order. Queued; nothing to do for a set without patches. */
template <typename... Params, typename... Args>
mmx_status mmx__patch_run(mmx_ctx *ctx, const mmx_patch_set *ps, void (*kernel)(Params...),
                          Args... args)
{
    if (ps->npatches == 0) return MMX_OK;
    mmx__patch_launch ln;
    mmx_status s = mmx__patch_launch_for(ctx, ps, kernel, &ln);
    if (s) return s;
    mmx__patch_each_grid(ps, &ln.grid);
    kernel<<<ln.grid, MMX__BLOCK, ln.smem, (cudaStream_t)mmx_ctx_cuda_stream(ctx)>>>(args..., ln);
    s = MMX__CUDA(ctx, cudaGetLastError());
    mmx__dev_free(ctx, ln.gscratch);
    return s;
}

/* As mmx__patch_run, for a kernel that skips the patches its launch does not take
 * (mmx__patch_takes): when the largest patch's work space is well above a typical one's (the
 * work space of 1.5 times the mean local counts), two launches, the first over the patches
 * that fit the typical work space with only that much shared memory per block (so more
 * blocks fit an SM), the second over the rest with the largest. One launch otherwise. The
 * cut leaves patches of very different sizes (components of the Morton runs), and one
 * block's shared memory sized for the largest would hold down every block's occupancy. */
template <typename... Params, typename... Args>
mmx_status mmx__patch_run_split(mmx_ctx *ctx, const mmx_patch_set *ps, void (*kernel)(Params...),
                                Args... args)
{
    if (ps->npatches == 0) return MMX_OK;
    const double np = (double)ps->npatches;
    const size_t typical = mmx__patch_scratch_bytes((mmx_index)(1.5 * (double)ps->nlf / np) + 1,
                                                    (mmx_index)(1.5 * (double)ps->nle / np) + 1,
                                                    (mmx_index)(1.5 * (double)ps->nlv / np) + 1,
                                                    (mmx_index)(1.5 * (double)ps->nlc / np) + 1);
    if (2 * typical > ps->max_scratch) return mmx__patch_run(ctx, ps, kernel, args...);
    const cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    mmx_status s = MMX_OK;
    for (int part = 0; part < 2 && !s; part++) {
        mmx__patch_launch ln;
        s = part ? mmx__patch_launch_for(ctx, ps, kernel, &ln)
                 : mmx__patch_launch_sized(ctx, ps, kernel, typical, &ln);
        if (s) break;
        if (part) ln.lo = typical;
        else ln.hi = typical;
        mmx__patch_each_grid(ps, &ln.grid);
        kernel<<<ln.grid, MMX__BLOCK, ln.smem, st>>>(args..., ln);
        s = MMX__CUDA(ctx, cudaGetLastError());
        mmx__dev_free(ctx, ln.gscratch);
    }
    return s;
}

/* The work space of the block for its current launch. */
__device__ inline void *mmx__patch_work(unsigned char *smem, const mmx__patch_launch &ln)
{
    return ln.gscratch ? (void *)(ln.gscratch + (size_t)blockIdx.x * ln.per_block) : (void *)smem;
}

#endif
