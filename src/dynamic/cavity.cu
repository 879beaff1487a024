/* The edge-flip round of the cavity operator on the device (host statement: cavity.c). Each
 * seed's cavity is built by flip_step.h's mmx__fv_flip_cavity, the host's code; the kept set
 * is chosen by a Luby-style loop without a materialised conflict graph; the kept flips are
 * filled in place by mmx__fv_fill_flip. Queued on the context's stream; the loop reads one
 * small counter block per step (the one wait of each step).
 *
 * Keys. The host orders valid cavities by (priority, edge, seed position). mmx__priority is a
 * bijection of (round << 32 | edge), so within a round two cavities share a priority only when
 * they are copies of one seed edge. A copy (a valid seed whose edge appears at a smaller
 * position too) is a CONFLICT on the host whatever else happens: the first copy comes just
 * before it in key order and has the same faces and new edge, so either the first copy is kept
 * (and blocks it) or a kept cavity of smaller key blocks the first copy and so blocks it too.
 * The device marks copies CONFLICT at once (an atomicMin of the seed position per edge) and
 * leaves them out of the loop; the others have distinct priorities, and the 64-bit priority
 * alone is the key.
 *
 * The loop. Every valid, non-copy cavity starts undecided. One step:
 *   bid:  each undecided cavity takes atomicMin of its key on its two faces and on the slot of
 *         the edge it would create (an open-addressing table keyed by that edge, filled once
 *         when the cavities are built). A minimum does not depend on the order of the atomics.
 *   keep: an undecided cavity that holds the minimum on its two faces and its slot is KEPT; it
 *         marks its faces and its slot taken.
 *   drop: an undecided cavity with a taken face or slot is a CONFLICT; the others stay
 *         undecided and reset the minima they bid on; their number is read back.
 * until none is undecided.
 *
 * Proof that this is the host's greedy pass (the lexicographically first maximal independent
 * set in key order). Two valid cavities are neighbours in the conflict graph exactly when they
 * share a face or a new edge, i.e. when they bid on a common face or slot; so a cavity holds
 * every minimum it bid on exactly when its key is below that of every undecided neighbour.
 * Let G(x) be the greedy outcome of cavity x. Invariant: every decided cavity's state is G.
 * (keep) Let x be kept in a step: every neighbour y with a smaller key is decided (else x
 * would not hold the minimum), and none is KEPT (a kept neighbour would have made x a
 * CONFLICT in the step that kept it). By the invariant no neighbour of smaller key is in the
 * greedy set, so the greedy pass keeps x: G(x) = KEPT. Two cavities kept in one step are not
 * neighbours (both would hold the minimum of a shared face or slot).
 * (drop) Let y become a CONFLICT: a neighbour x was kept (in this step or before), and
 * G(x) = KEPT; the greedy set is independent, so G(y) = CONFLICT.
 * Progress: the undecided cavity of smallest key holds every minimum it bids on, so each step
 * keeps at least one cavity and the loop ends (in O(log n) steps for random keys, as Luby's).
 * Hence the kept set and every outcome equal the host's, whatever the order of the threads. */
#include <climits>
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "dynamic_internal.h"

namespace {

constexpr unsigned char UNDECIDED = 3; /* besides mmx_cavity_outcome's KEPT 0, INVALID 1,
                                          CONFLICT 2 */
constexpr unsigned long long NONE = ~0ull;

/* The counters read back: every one folds from 0. */
struct Counters {
    unsigned int undecided, kept, invalid, listed;
};

/* A round's device arrays. */
struct Round {
    const mmx_index *seeds;
    mmx_index n;
    unsigned long long *pri;        /* n: the key */
    int2 *faces;                    /* n: the cavity's two faces */
    unsigned int *slot;             /* n: its new edge's slot */
    unsigned char *state;           /* n */
    unsigned long long *face_min;   /* nfaces: the smallest bid, NONE */
    unsigned char *face_taken;      /* nfaces */
    unsigned long long *keys;       /* cap: the new edge of each slot (lo << 32 | hi), 0 empty */
    unsigned long long *slot_min;   /* cap */
    unsigned char *slot_taken;      /* cap */
    unsigned int mask;              /* cap - 1 */
    const unsigned int *first;      /* nedges: the smallest seed position per edge, or NULL */
    Counters *cnt;
};

__global__ void first_copies(const mmx_index *seeds, mmx_index n, unsigned int *first)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) atomicMin(&first[seeds[i]], (unsigned int)i);
}

/* Builds each seed's cavity (the host's code), its state, its slot; writes per_seed but for
 * the outcome. */
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
        sd.priority = mmx__priority(e, round);
        const int ok = mmx__fv_flip_cavity(&v, pos, e, &sd);
        unsigned char st = UNDECIDED;
        if (!ok) st = MMX_CAVITY_INVALID, invalid = 1;
        else if (r.first && r.first[e] != (unsigned int)i) st = MMX_CAVITY_CONFLICT;
        r.pri[i] = sd.priority;
        r.faces[i] = make_int2(sd.faces[0], sd.faces[1]);
        r.state[i] = st;
        if (st == UNDECIDED) {
            /* The slot of the new edge: the host's hash (cavity.c's edge set), linear probing;
             * where an edge lands depends on the order of the inserts, but every cavity with
             * that edge finds the same slot, which is all the loop needs. */
            const unsigned long long k =
                (unsigned long long)(uint32_t)sd.new_edge[0] << 32 | (uint32_t)sd.new_edge[1];
            unsigned int h = (unsigned int)(mmx__priority((mmx_index)(k >> 32), (uint32_t)k) & r.mask);
            for (;;) {
                const unsigned long long old = atomicCAS(&r.keys[h], 0ull, k);
                if (old == 0ull || old == k) break;
                h = (h + 1) & r.mask;
            }
            r.slot[i] = h;
        }
        if (per_seed) per_seed[i] = sd;
    }
    invalid = mmx__block_reduce(invalid, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && invalid) atomicAdd(&r.cnt->invalid, invalid);
}

__global__ void bid(Round r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= r.n || r.state[i] != UNDECIDED) return;
    const unsigned long long p = r.pri[i];
    const int2 f = r.faces[i];
    atomicMin(&r.face_min[f.x], p);
    atomicMin(&r.face_min[f.y], p);
    atomicMin(&r.slot_min[r.slot[i]], p);
}

__global__ void keep(Round r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int kept = 0;
    if (i < r.n && r.state[i] == UNDECIDED) {
        const unsigned long long p = r.pri[i];
        const int2 f = r.faces[i];
        const unsigned int s = r.slot[i];
        if (r.face_min[f.x] == p && r.face_min[f.y] == p && r.slot_min[s] == p) {
            r.state[i] = MMX_CAVITY_KEPT;
            r.face_taken[f.x] = 1;
            r.face_taken[f.y] = 1;
            r.slot_taken[s] = 1;
            kept = 1;
        }
    }
    kept = mmx__block_reduce(kept, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && kept) atomicAdd(&r.cnt->kept, kept);
}

/* A kept cavity's faces and slot are taken for good, and every undecided cavity bidding on
 * them becomes a CONFLICT here, so their minima are never read again; every other minimum
 * that was bid on is reset by an undecided cavity that bid on it. */
__global__ void drop(Round r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int left = 0;
    if (i < r.n && r.state[i] == UNDECIDED) {
        const int2 f = r.faces[i];
        const unsigned int s = r.slot[i];
        if (r.face_taken[f.x] || r.face_taken[f.y] || r.slot_taken[s]) r.state[i] = MMX_CAVITY_CONFLICT;
        else left = 1;
        r.face_min[f.x] = NONE;
        r.face_min[f.y] = NONE;
        r.slot_min[s] = NONE;
    }
    left = mmx__block_reduce(left, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && left) atomicAdd(&r.cnt->undecided, left);
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

/* Carves one device block into aligned pieces. */
struct Carve {
    char *base;
    size_t used;
    template <typename T> T *take(size_t count)
    {
        T *p = reinterpret_cast<T *>(base ? base + used : nullptr);
        used += (count * sizeof(T) + 255) / 256 * 256;
        return p;
    }
};

} // namespace

extern "C" mmx_status mmx__flip_round_cuda(mmx_ctx *ctx, const mmx__flip_view *v,
                                           const float *pos, const mmx_index *seeds, mmx_index n,
                                           int distinct, uint32_t round, mmx_index *out,
                                           mmx_cavity_counts *counts, mmx_cavity_seed *per_seed,
                                           mmx_index *kept_edges)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const size_t vbytes = 3 * (size_t)v->nfaces * sizeof *out;
    mmx_status s = MMX__CUDA(ctx, cudaMemcpyAsync(out, v->verts, vbytes, cudaMemcpyDeviceToDevice, st));
    *counts = mmx_cavity_counts{n, 0, 0, 0};
    if (s || n == 0) return s;
    size_t cap = 16;
    while (cap < 2 * (size_t)n + 16) cap *= 2;
    if (cap > (size_t)UINT_MAX + 1)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_cavity_round: %d seeds overflow the table "
                         "of new edges", (int)n);
    /* Sizes first (a null base), then the pieces of one allocation. */
    Round r{};
    char *block = nullptr;
    const size_t nf = (size_t)v->nfaces, ne = distinct ? 0 : (size_t)v->nedges;
    for (int pass = 0; pass < 2; pass++) {
        Carve c{block, 0};
        r.pri = c.take<unsigned long long>((size_t)n);
        r.faces = c.take<int2>((size_t)n);
        r.slot = c.take<unsigned int>((size_t)n);
        r.state = c.take<unsigned char>((size_t)n);
        r.face_min = c.take<unsigned long long>(nf);
        r.face_taken = c.take<unsigned char>(nf);
        r.keys = c.take<unsigned long long>(cap);
        r.slot_min = c.take<unsigned long long>(cap);
        r.slot_taken = c.take<unsigned char>(cap);
        unsigned int *first = c.take<unsigned int>(ne);
        r.first = distinct ? nullptr : first;
        r.cnt = c.take<Counters>(1);
        if (pass == 0) s = mmx__dev_alloc(ctx, c.used, (void **)&block);
        if (s) return s;
    }
    r.seeds = seeds;
    r.n = n;
    r.mask = (unsigned int)(cap - 1);
    s = MMX__CUDA(ctx, cudaMemsetAsync(r.face_min, 0xff, nf * sizeof *r.face_min, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(r.face_taken, 0, nf, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(r.keys, 0, cap * sizeof *r.keys, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(r.slot_min, 0xff, cap * sizeof *r.slot_min, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(r.slot_taken, 0, cap, st));
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
    Counters h{};
    while (!s) {
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
        /* The step's one wait: whether a cavity is still undecided. */
        if (!s) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, r.cnt, MMX_SPACE_DEVICE, sizeof h);
        if (s || h.undecided == 0) break;
    }
    if (!s) {
        fill<<<grid, MMX__BLOCK, 0, st>>>(*v, r, out, per_seed, kept_edges);
        s = mmx__cuda(ctx, cudaGetLastError(), "fill launch");
    }
    if (!s) {
        counts->kept = (mmx_index)h.kept;
        counts->invalid = (mmx_index)h.invalid;
        counts->conflicts = n - counts->kept - counts->invalid;
    }
    mmx__dev_free(ctx, block);
    return s;
}
