/* The device selection of every cavity template (dynamic_internal.h: mmx__select_cuda): the
 * host's greedy pass (mmx__cavity_select: the lexicographically first maximal independent set
 * of the cavities in key order) by a Luby-style loop without a materialised conflict graph.
 * A seed's cavity is a list of elements (its ring): the faces it edits and, for a flip, the
 * slot of the edge it creates (cavity.cu); two cavities conflict when they share an element.
 * Queued on the context's stream; the loop reads one small counter block after the first step
 * and then after every second step (its waits).
 *
 * Keys. The host orders valid cavities by (priority, edge, seed position). mmx__priority is a
 * bijection of (round << 32 | edge), so within a round two cavities share a priority only when
 * they are copies of one seed edge. A copy (a valid seed whose edge appears at a smaller
 * position too) is a CONFLICT on the host whatever else happens: the first copy comes just
 * before it in key order and has the same elements, so either the first copy is kept (and
 * blocks it) or a kept cavity of smaller key blocks the first copy and so blocks it too. The
 * callers mark copies CONFLICT at once (an atomicMin of the seed position per edge) and leave
 * them out of the loop; the others have distinct priorities, and the 64-bit priority alone is
 * the key.
 *
 * The loop. Every seed the caller left UNDECIDED takes part. One step:
 *   bid:  each undecided cavity takes atomicMin of its key on each of its elements. A minimum
 *         does not depend on the order of the atomics.
 *   keep: an undecided cavity that holds the minimum on all its elements is KEPT; it marks
 *         them taken (a cavity without elements holds every minimum it bid on and is kept).
 *   drop: an undecided cavity with a taken element is a CONFLICT; the others stay undecided
 *         and reset the minima they bid on; their number is read back.
 * until none is undecided.
 *
 * Proof that this is the host's greedy pass. Two valid cavities are neighbours in the conflict
 * graph exactly when they share an element (a face, or a flip's new edge), i.e. when they bid
 * on a common element; so a cavity holds every minimum it bid on exactly when its key is below
 * that of every undecided neighbour. Let G(x) be the greedy outcome of cavity x. Invariant:
 * every decided cavity's state is G.
 * (keep) Let x be kept in a step: every neighbour y with a smaller key is decided (else x
 * would not hold the minimum), and none is KEPT (a kept neighbour would have made x a
 * CONFLICT in the step that kept it). By the invariant no neighbour of smaller key is in the
 * greedy set, so the greedy pass keeps x: G(x) = KEPT. Two cavities kept in one step are not
 * neighbours (both would hold the minimum of a shared element).
 * (drop) Let y become a CONFLICT: a neighbour x was kept (in this step or before), and
 * G(x) = KEPT; the greedy set is independent, so G(y) = CONFLICT.
 * Progress: the undecided cavity of smallest key holds every minimum it bids on, so each step
 * keeps at least one cavity and the loop ends (in O(log n) steps for random keys, as Luby's).
 * Hence the kept set and every outcome equal the host's, whatever the order of the threads. */
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "dynamic_internal.h"

namespace {

constexpr unsigned long long NONE = ~0ull;

/* The counters read back: both fold from 0. */
struct Counters {
    unsigned int undecided, kept;
};

struct Sel {
    mmx_index n;
    const unsigned long long *key;
    const mmx_index *ring_ptr, *ring_len, *ring;
    unsigned char *state;
    unsigned long long *elem_min; /* nelem: the smallest bid, NONE */
    unsigned char *taken;         /* nelem */
    Counters *cnt;
};

/* Seed i's elements: *len of them from the returned pointer. */
__device__ __forceinline__ const mmx_index *ring_of(const Sel &r, long long i, mmx_index *len)
{
    const mmx_index p = r.ring_ptr[i];
    *len = r.ring_len ? r.ring_len[i] : r.ring_ptr[i + 1] - p;
    return r.ring + p;
}

__global__ void bid(Sel r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= r.n || r.state[i] != MMX__UNDECIDED) return;
    const unsigned long long p = r.key[i];
    mmx_index len;
    const mmx_index *ring = ring_of(r, i, &len);
    for (mmx_index k = 0; k < len; k++) atomicMin(&r.elem_min[ring[k]], p);
}

__global__ void keep(Sel r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int kept = 0;
    if (i < r.n && r.state[i] == MMX__UNDECIDED) {
        const unsigned long long p = r.key[i];
        mmx_index len;
        const mmx_index *ring = ring_of(r, i, &len);
        int all = 1;
        for (mmx_index k = 0; k < len && all; k++) all = r.elem_min[ring[k]] == p;
        if (all) {
            r.state[i] = MMX_CAVITY_KEPT;
            for (mmx_index k = 0; k < len; k++) r.taken[ring[k]] = 1;
            kept = 1;
        }
    }
    kept = mmx__block_reduce(kept, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && kept) atomicAdd(&r.cnt->kept, kept);
}

/* A kept cavity's elements are taken for good, and every undecided cavity bidding on them
 * becomes a CONFLICT here, so their minima are never read again; every other minimum that was
 * bid on is reset by an undecided cavity that bid on it. */
__global__ void drop(Sel r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int left = 0;
    if (i < r.n && r.state[i] == MMX__UNDECIDED) {
        mmx_index len;
        const mmx_index *ring = ring_of(r, i, &len);
        int taken = 0;
        for (mmx_index k = 0; k < len; k++) {
            taken |= r.taken[ring[k]];
            r.elem_min[ring[k]] = NONE;
        }
        if (taken) r.state[i] = MMX_CAVITY_CONFLICT;
        else left = 1;
    }
    left = mmx__block_reduce(left, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && left) atomicAdd(&r.cnt->undecided, left);
}

/* The smallest position of each element among the seeds naming it. */
__global__ void first_copies(const mmx_index *seeds, mmx_index n, unsigned int *first)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) atomicMin(&first[seeds[i]], (unsigned int)i);
}

/* The first bad seed and the first NaN priority: minima of positions, whatever the order. */
__global__ void rank_check(const mmx_index *seeds, const float *prio, mmx_index n,
                           mmx_index limit, unsigned int *first)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= n) return;
    if (seeds[i] < 0 || seeds[i] >= limit) atomicMin(&first[0], (unsigned int)i);
    if (prio && isnan(prio[i])) atomicMin(&first[1], (unsigned int)i);
}

size_t round_up(size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

} // namespace

extern "C" mmx_status mmx__select_cuda(mmx_ctx *ctx, mmx_index n, const uint64_t *key,
                                       const mmx_index *ring_ptr, const mmx_index *ring_len,
                                       const mmx_index *ring, mmx_index nelem,
                                       unsigned char *state, mmx_index *kept)
{
    static_assert(sizeof(uint64_t) == sizeof(unsigned long long), "64-bit keys");
    cudaStream_t st = (cudaStream_t)ctx->stream;
    *kept = 0;
    if (n <= 0) return MMX_OK;
    /* The scratch in one allocation: the minima, the taken flags, the counters. */
    const size_t ne = nelem > 0 ? (size_t)nelem : 0;
    const size_t min_bytes = round_up(ne * sizeof(unsigned long long)), taken_bytes = round_up(ne);
    char *block = nullptr;
    mmx_status s = mmx__dev_alloc(ctx, min_bytes + taken_bytes + sizeof(Counters), (void **)&block);
    if (s) return s;
    Sel r{};
    r.n = n;
    r.key = reinterpret_cast<const unsigned long long *>(key);
    r.ring_ptr = ring_ptr;
    r.ring_len = ring_len;
    r.ring = ring;
    r.state = state;
    r.elem_min = reinterpret_cast<unsigned long long *>(block);
    r.taken = reinterpret_cast<unsigned char *>(block + min_bytes);
    r.cnt = reinterpret_cast<Counters *>(block + min_bytes + taken_bytes);
    if (ne > 0) {
        s = MMX__CUDA(ctx, cudaMemsetAsync(r.elem_min, 0xff, ne * sizeof *r.elem_min, st));
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(r.taken, 0, ne, st));
    }
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(r.cnt, 0, sizeof *r.cnt, st));
    const unsigned grid = mmx__grid(n);
    Counters h{};
    for (int step = 1; !s; step++) {
        bid<<<grid, MMX__BLOCK, 0, st>>>(r);
        s = mmx__cuda(ctx, cudaGetLastError(), "bid launch");
        if (!s) {
            keep<<<grid, MMX__BLOCK, 0, st>>>(r);
            s = mmx__cuda(ctx, cudaGetLastError(), "keep launch");
        }
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(&r.cnt->undecided, 0, sizeof(unsigned int), st));
        if (!s) {
            drop<<<grid, MMX__BLOCK, 0, st>>>(r);
            s = mmx__cuda(ctx, cudaGetLastError(), "drop launch");
        }
        /* The wait: whether a cavity is still undecided, read after the first step and then
         * after every second one. A step over decided cavities only is three launches that
         * return at once (their counts stay), cheaper than a wait; most rounds end within a
         * few steps, so this halves the loop's waits. */
        if (step > 1 && step % 2 == 0) continue;
        if (!s) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, r.cnt, MMX_SPACE_DEVICE, sizeof h);
        if (s || h.undecided == 0) break;
    }
    if (!s) *kept = (mmx_index)h.kept;
    mmx__dev_free(ctx, block);
    return s;
}

extern "C" mmx_status mmx__rank_check_cuda(mmx_ctx *ctx, const mmx_index *seeds, const float *prio,
                                           mmx_index n, mmx_index limit, mmx_index *bad,
                                           mmx_index *nan)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    *bad = *nan = -1;
    if (n <= 0) return MMX_OK;
    unsigned int *first = nullptr, h[2] = {0, 0};
    mmx_status s = mmx__dev_alloc(ctx, 2 * sizeof *first, (void **)&first);
    if (s) return s;
    s = MMX__CUDA(ctx, cudaMemsetAsync(first, 0xff, 2 * sizeof *first, st));
    MMX__LAUNCH(rank_check, n, seeds, prio, n, limit, first);
    if (!s) s = mmx__dev_copy(ctx, h, MMX_SPACE_HOST, first, MMX_SPACE_DEVICE, sizeof h);
    if (!s) {
        *bad = h[0] == ~0u ? -1 : (mmx_index)h[0];
        *nan = h[1] == ~0u ? -1 : (mmx_index)h[1];
    }
    mmx__dev_free(ctx, first);
    return s;
}

extern "C" mmx_status mmx__first_copies_cuda(mmx_ctx *ctx, const mmx_index *seeds, mmx_index n,
                                             mmx_index nelem, unsigned int *first)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    mmx_status s = MMX_OK;
    if (nelem > 0)
        s = MMX__CUDA(ctx, cudaMemsetAsync(first, 0xff, (size_t)nelem * sizeof *first, st));
    MMX__LAUNCH(first_copies, n, seeds, n, first);
    return s;
}
