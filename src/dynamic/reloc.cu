/* The vertex relocation round's CUDA stages for the round driver (round.c; host statement:
 * templates.c,
 * mmx__relocate_round_pos; the per-seed check is reloc_step.h's mmx__mv_valid, the host's
 * code). The flow:
 *
 * Check. One thread per seed: its move's validity, its priority (mmx__priority of its vertex,
 * = mmx_cavity_priority), its cavity (the faces at its vertex: a window of the topology's vf,
 * no copy) and per_seed but for the outcome and the vertex; the smallest position among the
 * valid seeds of each vertex by an atomicMin (a minimum does not depend on the order of the
 * atomics).
 *
 * Copies. The host's key is (priority, vertex, position). The valid copies of one vertex (seeds
 * of the same vertex, maybe with different targets, so not all valid) share every face of
 * their cavity, and the first of them in key order is the one of smallest position. It is
 * either kept, which blocks the later ones, or blocked by a kept cavity of smaller key sharing
 * one of its faces, which shares that face with the later ones too: either way every later
 * valid copy is a CONFLICT on the host. The device marks them so at once, leaving in the
 * selection only seeds of distinct vertices, whose priorities are distinct (mmx__priority is
 * a bijection of the vertex), so the priority alone is the key (select.cu's condition).
 *
 * Selection. mmx__select_cuda over the faces (select.cu proves its kept set the host's greedy
 * pass). Apply. One thread per seed: a kept seed writes its target into pos (kept seeds have
 * distinct vertices, so no two threads write one row) and every seed its outcome. The counts:
 * the kept from the selection, the invalid read back once at the end. */
#include <cstdlib>
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "reloc_step.h"

namespace {

/* A round's device arrays. */
struct Round {
    const mmx_index *seeds;
    const float *targets;
    mmx_index n;
    uint64_t *key;            /* n */
    mmx_index *ring_ptr;      /* n: the seed's window of vf */
    mmx_index *ring_len;      /* n: its length, 0 for an invalid seed */
    unsigned char *state;     /* n */
    unsigned int *first;      /* nverts: the smallest position of a valid seed per vertex */
    mmx__round_counters *cnt; /* the driver's: invalid */
};

__global__ void check(const mmx__sc_view v, const float *pos, uint32_t round, double min_quality,
                      Round r, mmx_cavity_seed *per_seed)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int invalid = 0;
    if (i < r.n) {
        const mmx_index x = r.seeds[i];
        mmx_cavity_seed sd;
        sd.outcome = MMX_CAVITY_INVALID;
        sd.faces[0] = sd.faces[1] = sd.new_edge[0] = sd.new_edge[1] = sd.vertex = -1;
        sd.priority = mmx__priority(x, round);
        const int ok = mmx__mv_valid(&v, pos, x, r.targets + 3 * (size_t)i, min_quality);
        r.key[i] = sd.priority;
        r.ring_ptr[i] = v.vf_ptr[x];
        r.ring_len[i] = ok ? v.vf_ptr[x + 1] - v.vf_ptr[x] : 0;
        r.state[i] = ok ? (unsigned char)MMX__UNDECIDED : (unsigned char)MMX_CAVITY_INVALID;
        if (ok) atomicMin(&r.first[x], (unsigned int)i);
        else invalid = 1;
        if (per_seed) per_seed[i] = sd;
    }
    invalid = mmx__block_reduce(invalid, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && invalid) atomicAdd(&r.cnt->invalid, invalid);
}

/* A valid seed that is not the first valid one of its vertex: a CONFLICT (above). */
__global__ void copies(Round r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < r.n && r.state[i] == MMX__UNDECIDED && r.first[r.seeds[i]] != (unsigned int)i)
        r.state[i] = MMX_CAVITY_CONFLICT;
}

__global__ void apply(Round r, float *pos, mmx_cavity_seed *per_seed)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= r.n) return;
    const unsigned char st = r.state[i];
    const mmx_index x = r.seeds[i];
    if (st == MMX_CAVITY_KEPT)
        for (int k = 0; k < 3; k++) pos[3 * (size_t)x + k] = r.targets[3 * (size_t)i + k];
    if (per_seed) {
        per_seed[i].outcome = (mmx_cavity_outcome)st;
        if (st == MMX_CAVITY_KEPT) per_seed[i].vertex = x;
    }
}

} // namespace

/* The proposal: each move's check, key and cavity (a window of vf), copies marked. */
extern "C" mmx_status mmx__move_propose_cuda(mmx__round *rd)
{
    mmx_ctx *ctx = rd->ctx;
    const mmx_index n = rd->n;
    if (n == 0) {
        rd->decided = 1;
        return MMX_OK;
    }
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx__sc_view *v = rd->sv;
    Round *r = (Round *)calloc(1, sizeof *r);
    if (!r) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_cavity_relocate_round: out of host memory");
    rd->priv = r;
    const size_t nn = (size_t)n, nv = (size_t)v->f.nverts + 1;
    char *block = nullptr;
    mmx_status s = MMX_OK;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        r->key = c.take<uint64_t>(nn);
        r->ring_ptr = c.take<mmx_index>(nn);
        r->ring_len = c.take<mmx_index>(nn);
        r->state = c.take<unsigned char>(nn);
        r->first = c.take<unsigned int>(nv);
        if (pass == 0) s = mmx__round_take(rd, c.used, (void **)&block);
        if (s) return s;
    }
    r->seeds = rd->seeds;
    r->targets = rd->targets;
    r->n = n;
    r->cnt = rd->dtally;
    s = MMX__CUDA(ctx, cudaMemsetAsync(r->first, 0xff, nv * sizeof *r->first, st));
    MMX__LAUNCH(check, n, *v, rd->pos, rd->round, rd->min_quality, *r, rd->sd);
    MMX__LAUNCH(copies, n, *r);
    rd->key = r->key;
    rd->state = r->state;
    rd->ring_ptr = r->ring_ptr;
    rd->ring_len = r->ring_len;
    rd->ring = v->vf;
    rd->nelem = v->f.nfaces;
    return s;
}

/* The fill: the kept moves into pos_out, every outcome. */
extern "C" mmx_status mmx__move_fill_cuda(mmx__round *rd, mmx_mesh **out)
{
    (void)out; /* a move writes pos_out */
    if (rd->n == 0) return MMX_OK;
    mmx_ctx *ctx = rd->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    mmx_status s = MMX_OK;
    MMX__LAUNCH(apply, rd->n, *(const Round *)rd->priv, rd->pos_out, rd->sd);
    return s;
}
