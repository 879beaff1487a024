/* The edge-flip round of the cavity operator on the device (host statement: cavity.c). Each
 * seed's cavity is built by flip_step.h's mmx__fv_flip_cavity, the host's code; the kept set
 * is chosen by the device selection (select.cu: its loop, and the proof that it is the host's
 * greedy pass); the kept flips are filled in place by mmx__fv_fill_flip. Queued on the
 * context's stream; the selection reads one small counter block per step, and a round that
 * reports all its counts reads the invalid seeds' count once at the end.
 *
 * A flip's elements for the selection: its two faces, and the slot of the edge it would create
 * in an open-addressing table keyed by that edge (filled once when the cavities are built), as
 * element nfaces + slot. Two flips then share an element exactly when they share a face or a
 * new edge: the host's conflicts (mmx__cavity_select with its edge set). Copies of one seed
 * edge are marked CONFLICT at once (select.cu says why) by an atomicMin of the seed position
 * per edge. */
#include <climits>
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "sc_step.h"

namespace {

/* The counters read back: every one folds from 0. */
struct Counters {
    unsigned int invalid, listed;
};

/* A round's device arrays. */
struct Round {
    const mmx_index *seeds;
    const float *prio;              /* n, or NULL: the hashed priorities */
    mmx_index n, nfaces;
    uint64_t *pri;                  /* n: the key */
    mmx_index *ring;                /* 3n: the cavity's elements (faces, nfaces + slot) */
    mmx_index *ring_ptr;            /* n + 1: 3i */
    unsigned char *state;           /* n */
    unsigned long long *keys;       /* cap: the new edge of each slot (lo << 32 | hi), 0 empty */
    unsigned int mask;              /* cap - 1 */
    const unsigned int *first;      /* nedges: the smallest seed position per edge, or NULL */
    Counters *cnt;
};

__global__ void first_copies(const mmx_index *seeds, mmx_index n, unsigned int *first)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) atomicMin(&first[seeds[i]], (unsigned int)i);
}

/* Builds each seed's cavity (the host's code), its state, its elements; writes per_seed but
 * for the outcome. */
__global__ void build(const mmx__flip_view v, const float *pos, uint32_t round, Round r,
                      mmx_cavity_seed *per_seed)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int invalid = 0;
    if (i < r.n) {
        const mmx_index e = r.seeds[i];
        mmx_cavity_seed sd;
        sd.outcome = MMX_CAVITY_INVALID;
        sd.vertex = -1;
        sd.priority = r.prio ? mmx__rank_key(r.prio[i], (mmx_index)i) : mmx__priority(e, round);
        const int ok = mmx__fv_flip_cavity(&v, pos, e, &sd);
        unsigned char st = MMX__UNDECIDED;
        if (!ok) st = MMX_CAVITY_INVALID, invalid = 1;
        else if (r.first && r.first[e] != (unsigned int)i) st = MMX_CAVITY_CONFLICT;
        r.pri[i] = sd.priority;
        r.state[i] = st;
        r.ring_ptr[i] = 3 * (mmx_index)i;
        if (i == r.n - 1) r.ring_ptr[r.n] = 3 * r.n;
        if (st == MMX__UNDECIDED) {
            /* The slot of the new edge: the host's hash (cavity.c's edge set), linear probing;
             * where an edge lands depends on the order of the inserts, but every cavity with
             * that edge finds the same slot, which is all the selection needs. */
            const unsigned long long k =
                (unsigned long long)(uint32_t)sd.new_edge[0] << 32 | (uint32_t)sd.new_edge[1];
            unsigned int h = (unsigned int)(mmx__priority((mmx_index)(k >> 32), (uint32_t)k) & r.mask);
            for (;;) {
                const unsigned long long old = atomicCAS(&r.keys[h], 0ull, k);
                if (old == 0ull || old == k) break;
                h = (h + 1) & r.mask;
            }
            mmx_index *ring = r.ring + 3 * i;
            ring[0] = sd.faces[0];
            ring[1] = sd.faces[1];
            ring[2] = r.nfaces + (mmx_index)h;
        }
        if (per_seed) per_seed[i] = sd;
    }
    invalid = mmx__block_reduce(invalid, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && invalid) atomicAdd(&r.cnt->invalid, invalid);
}

/* The kept flips into out (a copy of v.verts): kept cavities share no face, so no two
 * threads write one face. Then each seed's outcome, and the kept edges listed (in the order
 * the atomics give: its user, the topology update, does not depend on it). */
__global__ void fill(const mmx__flip_view v, Round r, mmx_index *out, mmx_cavity_seed *per_seed,
                     mmx_index *kept_edges)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= r.n) return;
    const unsigned char st = r.state[i];
    if (st == MMX_CAVITY_KEPT) {
        mmx__fv_fill_flip(&v, r.seeds[i], out);
        if (kept_edges) kept_edges[atomicAdd(&r.cnt->listed, 1u)] = r.seeds[i];
    }
    if (per_seed) per_seed[i].outcome = (mmx_cavity_outcome)st;
}

} // namespace

extern "C" mmx_status mmx__flip_round_cuda(mmx_ctx *ctx, const mmx__flip_view *v,
                                           const float *pos, const mmx_index *seeds, mmx_index n,
                                           int distinct, uint32_t round, mmx_index *out,
                                           mmx_cavity_counts *counts, int tally,
                                           mmx_cavity_seed *per_seed, mmx_index *kept_edges)
{
    return mmx__flip_round_ranked_cuda(ctx, v, pos, seeds, nullptr, n, distinct, round, out,
                                       counts, tally, per_seed, kept_edges);
}

/* With priorities every seed's key is distinct (mmx__rank_key), copies included, so the
 * selection decides copies itself (they share their faces) and none is marked beforehand. */
extern "C" mmx_status mmx__flip_round_ranked_cuda(mmx_ctx *ctx, const mmx__flip_view *v,
                                                  const float *pos, const mmx_index *seeds,
                                                  const float *prio, mmx_index n, int distinct,
                                                  uint32_t round, mmx_index *out,
                                                  mmx_cavity_counts *counts, int tally,
                                                  mmx_cavity_seed *per_seed, mmx_index *kept_edges)
{
    if (prio) distinct = 1;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const size_t vbytes = 3 * (size_t)v->nfaces * sizeof *out;
    mmx_status s = MMX__CUDA(ctx, cudaMemcpyAsync(out, v->verts, vbytes, cudaMemcpyDeviceToDevice, st));
    *counts = mmx_cavity_counts{n, 0, 0, 0};
    if (s || n == 0) return s;
    size_t cap = 16;
    while (cap < 2 * (size_t)n + 16) cap *= 2;
    /* The selection's elements (faces, then slots) and the rings (3 per seed) are numbered
     * by mmx_index. */
    if ((size_t)v->nfaces + cap > (size_t)INT_MAX || 3 * (size_t)n > (size_t)INT_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_cavity_round: %d seeds overflow the table "
                         "of new edges", (int)n);
    /* Sizes first (a null base), then the pieces of one allocation. */
    Round r{};
    char *block = nullptr;
    const size_t ne = distinct ? 0 : (size_t)v->nedges;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        r.pri = c.take<uint64_t>((size_t)n);
        r.ring = c.take<mmx_index>(3 * (size_t)n);
        r.ring_ptr = c.take<mmx_index>((size_t)n + 1);
        r.state = c.take<unsigned char>((size_t)n);
        r.keys = c.take<unsigned long long>(cap);
        unsigned int *first = c.take<unsigned int>(ne);
        r.first = distinct ? nullptr : first;
        r.cnt = c.take<Counters>(1);
        if (pass == 0) s = mmx__dev_alloc(ctx, c.used, (void **)&block);
        if (s) return s;
    }
    r.seeds = seeds;
    r.prio = prio;
    r.n = n;
    r.nfaces = v->nfaces;
    r.mask = (unsigned int)(cap - 1);
    s = MMX__CUDA(ctx, cudaMemsetAsync(r.keys, 0, cap * sizeof *r.keys, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(r.cnt, 0, sizeof *r.cnt, st));
    const unsigned grid = mmx__grid(n);
    if (!s && !distinct) {
        s = MMX__CUDA(ctx, cudaMemsetAsync((void *)r.first, 0xff, ne * sizeof *r.first, st));
        if (!s) first_copies<<<grid, MMX__BLOCK, 0, st>>>(seeds, n, (unsigned int *)r.first);
        if (!s) s = mmx__cuda(ctx, cudaGetLastError(), "first_copies launch");
    }
    if (!s) {
        build<<<grid, MMX__BLOCK, 0, st>>>(*v, pos, round, r, per_seed);
        s = mmx__cuda(ctx, cudaGetLastError(), "build launch");
    }
    mmx_index kept = 0;
    if (!s) s = mmx__select_cuda(ctx, n, r.pri, r.ring_ptr, nullptr, r.ring,
                                 v->nfaces + (mmx_index)cap, r.state, &kept);
    if (!s) {
        fill<<<grid, MMX__BLOCK, 0, st>>>(*v, r, out, per_seed, kept_edges);
        s = mmx__cuda(ctx, cudaGetLastError(), "fill launch");
    }
    /* With tally, the round's last wait: the invalid seeds' count. */
    Counters h{};
    if (!s && tally) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, r.cnt, MMX_SPACE_DEVICE, sizeof h);
    if (!s) {
        counts->kept = kept;
        counts->invalid = tally ? (mmx_index)h.invalid : -1;
        counts->conflicts = tally ? n - counts->kept - counts->invalid : -1;
    }
    mmx__dev_free(ctx, block);
    return s;
}
