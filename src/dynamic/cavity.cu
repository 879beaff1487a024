/* The edge-flip round's CUDA stages for the round driver (round.c: propose, the selection,
 * fill; host statement: cavity.c). Each
 * seed's cavity is built by flip_step.h's mmx__fv_flip_cavity, the host's code; the kept set
 * is chosen by the device selection (select.cu: its loop, and the proof that it is the host's
 * greedy pass); the kept flips are filled in place by mmx__fv_fill_flip. Queued on the
 * context's stream; the selection reads a small counter block as mmx__select_cuda says, and
 * a round that reports all its counts reads the invalid seeds' count once at the end.
 *
 * A flip's elements for the selection: its two faces, and the slot of the edge it would create
 * in an open-addressing table keyed by that edge (filled once when the cavities are built), as
 * element nfaces + slot. Two flips then share an element exactly when they share a face or a
 * new edge: the host's conflicts (mmx__cavity_select with its edge set). Copies of one seed
 * edge are marked CONFLICT at once (select.cu says why) by an atomicMin of the seed position
 * per edge. */
#include <climits>
#include <cstdlib>
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "sc_step.h"

namespace {

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
    mmx__round_counters *cnt;       /* the driver's: invalid, listed */
};

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

/* The proposal: each seed's cavity, key, state and elements (build). With priorities every
 * seed's key is distinct (mmx__rank_key), copies included, so the selection decides copies
 * itself (they share their faces) and none is marked beforehand. */
extern "C" mmx_status mmx__flip_propose_cuda(mmx__round *rd)
{
    mmx_ctx *ctx = rd->ctx;
    const mmx__flip_view *v = rd->fv;
    const mmx_index n = rd->n;
    const int distinct = rd->prio ? 1 : rd->distinct;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (n == 0) { /* nothing to select: the fill copies the faces */
        rd->decided = 1;
        return MMX_OK;
    }
    size_t cap = 16;
    while (cap < 2 * (size_t)n + 16) cap *= 2;
    /* The selection's elements (faces, then slots) and the rings (3 per seed) are numbered
     * by mmx_index. */
    if ((size_t)v->nfaces + cap > (size_t)INT_MAX || 3 * (size_t)n > (size_t)INT_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_cavity_round: %d seeds overflow the table "
                         "of new edges", (int)n);
    Round *r = (Round *)calloc(1, sizeof *r);
    if (!r) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_cavity_round: out of host memory");
    rd->priv = r;
    /* Sizes first (a null base), then the pieces of one allocation. */
    char *block = nullptr;
    unsigned int *first = nullptr;
    mmx_status s = MMX_OK;
    const size_t ne = distinct ? 0 : (size_t)v->nedges;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        r->pri = c.take<uint64_t>((size_t)n);
        r->ring = c.take<mmx_index>(3 * (size_t)n);
        r->ring_ptr = c.take<mmx_index>((size_t)n + 1);
        r->state = c.take<unsigned char>((size_t)n);
        r->keys = c.take<unsigned long long>(cap);
        first = c.take<unsigned int>(ne);
        r->first = distinct ? nullptr : first;
        if (pass == 0) s = mmx__round_take(rd, c.used, (void **)&block);
        if (s) return s;
    }
    r->cnt = rd->dtally;
    r->seeds = rd->seeds;
    r->prio = rd->prio;
    r->n = n;
    r->nfaces = v->nfaces;
    r->mask = (unsigned int)(cap - 1);
    s = MMX__CUDA(ctx, cudaMemsetAsync(r->keys, 0, cap * sizeof *r->keys, st));
    const unsigned grid = mmx__grid(n);
    if (!s && !distinct) s = mmx__first_copies_cuda(ctx, rd->seeds, n, (mmx_index)ne, first);
    if (!s) {
        build<<<grid, MMX__BLOCK, 0, st>>>(*v, rd->pos, rd->round, *r, rd->sd);
        s = mmx__cuda(ctx, cudaGetLastError(), "build launch");
    }
    rd->key = r->pri;
    rd->state = r->state;
    rd->ring_ptr = r->ring_ptr;
    rd->ring = r->ring;
    rd->nelem = v->nfaces + (mmx_index)cap;
    return s;
}

/* The fill: a copy of the faces (into out_verts, or a new mesh with the input's positions),
 * the kept flips in place, every outcome. */
extern "C" mmx_status mmx__flip_fill_cuda(mmx__round *rd, mmx_mesh **out)
{
    mmx_ctx *ctx = rd->ctx;
    const mmx__flip_view *v = rd->fv;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    mmx_mesh *m = nullptr;
    mmx_index *verts = rd->out_verts;
    mmx_status s = MMX_OK;
    if (!verts) {
        s = mmx__flip_dev_mesh(ctx, rd->mesh, &m);
        if (s) return s;
        verts = m->M->rowidx;
    }
    const size_t vbytes = 3 * (size_t)v->nfaces * sizeof *verts;
    s = MMX__CUDA(ctx, cudaMemcpyAsync(verts, v->verts, vbytes, cudaMemcpyDeviceToDevice, st));
    if (!s && rd->n > 0) {
        const Round *r = (const Round *)rd->priv;
        fill<<<mmx__grid(rd->n), MMX__BLOCK, 0, st>>>(*v, *r, verts, rd->sd, rd->kept_edges);
        s = mmx__cuda(ctx, cudaGetLastError(), "fill launch");
    }
    if (s) mmx_mesh_free(m);
    else if (m) *out = m;
    return s;
}
