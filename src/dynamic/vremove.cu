/* Vertex removal rounds' CUDA stages for the round driver (round.c; host statement: vremove.c;
 * the per-seed steps are
 * vremove_step.h's, the host's code). The flow, on the split/collapse device topology
 * (mmx__sc_dev_build: the faces at each vertex ascending, as the host's):
 *
 * Choice. One thread per seed chooses u (the host's code) and its cavity's length, the
 * valences of v and u; copies of a seed vertex (an atomicMin of the position per vertex) are
 * CONFLICTs at once, as on the host (select.cu says why). The lengths are scanned into
 * offsets, whose total is read back to size the rings, and a second pass writes each ring.
 *
 * Selection. mmx__select_cuda over the rings (select.cu proves it the host's greedy pass; the
 * priority is a bijection of the vertex, so the uncopied seeds' keys are distinct).
 *
 * Fill. No order is needed: one thread per kept seed sets to[v] = u and drops the edge's two
 * faces; the compaction every removing round shares (mmx__round_compact, the host's too)
 * keeps the surviving vertices and faces in their order, corner x becoming vid[to[x]]. Every
 * kept seed removes one vertex and two faces, so the output's sizes need no read-back beyond
 * the selection's count. */
#include <cstdlib>
#include <cstring>
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "vremove_step.h"

namespace {

/* Seed i's u (uu, -1 when invalid), its per_seed but the outcome, its key and state, its
 * ring's length (0 when invalid); the invalid ones counted. */
__global__ void choose(const mmx__sc_view v, const float *pos, const mmx_index *seeds,
                       mmx_index n, uint32_t round, const unsigned int *first, mmx_index *uu,
                       mmx_index *len, uint64_t *key, unsigned char *state,
                       mmx_cavity_seed *sd, unsigned int *invalid)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int bad = 0;
    if (i < n) {
        const mmx_index w = seeds[i];
        mmx_cavity_seed x;
        x.outcome = MMX_CAVITY_INVALID;
        const mmx_index u = mmx__vr_choose(&v, pos, w, round, &x);
        unsigned char st = MMX__UNDECIDED;
        mmx_index l = 0;
        if (u < 0) st = MMX_CAVITY_INVALID, bad = 1;
        else {
            l = v.vf_ptr[w + 1] - v.vf_ptr[w] + v.vf_ptr[u + 1] - v.vf_ptr[u];
            if (first[w] != (unsigned int)i) st = MMX_CAVITY_CONFLICT;
        }
        uu[i] = u;
        len[i] = l;
        key[i] = x.priority;
        state[i] = st;
        sd[i] = x;
    }
    bad = mmx__block_reduce(bad, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && bad) atomicAdd(invalid, bad);
}

__global__ void rings(const mmx__sc_view v, const mmx_index *seeds, mmx_index n,
                      const mmx_index *uu, const mmx_index *ptr, mmx_index *ring)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n && uu[i] >= 0) mmx__vr_ring(&v, seeds[i], uu[i], ring + ptr[i]);
}

/* Each seed's outcome; a kept one merges v into u and drops its edge's faces. */
__global__ void merge(const mmx_index *seeds, mmx_index n, const mmx_index *uu,
                      const unsigned char *state, mmx_cavity_seed *sd, mmx_index *to,
                      unsigned char *keepf)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= n) return;
    sd[i].outcome = (mmx_cavity_outcome)state[i];
    if (state[i] != MMX_CAVITY_KEPT) return;
    to[seeds[i]] = uu[i];
    keepf[sd[i].faces[0]] = 0;
    keepf[sd[i].faces[1]] = 0;
}

__global__ void kept_vertex(mmx_index n, const mmx_index *uu, const unsigned char *state,
                            const mmx_index *vid, mmx_cavity_seed *sd)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n && state[i] == MMX_CAVITY_KEPT) sd[i].vertex = vid[uu[i]];
}

/* What the fill needs from the proposal: each seed's u. */
struct Vr {
    mmx_index *uu;
};

} // namespace

/* The proposal: each seed's u and its ring's length, copies marked, the rings' offsets (their
 * total read back to size them: a wait), the rings. */
extern "C" mmx_status mmx__vremove_propose_cuda(mmx__round *rd)
{
    mmx_ctx *ctx = rd->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx__sc_view &v = *rd->sv;
    const mmx_index n = rd->n, nv = v.f.nverts;
    const size_t n1 = (size_t)n + 1, v1 = (size_t)nv + 1;
    Vr *vr = (Vr *)calloc(1, sizeof *vr);
    if (!vr)
        return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_cavity_vertex_remove_round: out of host memory");
    rd->priv = vr;
    char *block = nullptr;
    mmx_index *len = nullptr, *ptr = nullptr, *ring = nullptr;
    unsigned int *first = nullptr;
    uint64_t *key = nullptr;
    unsigned char *state = nullptr;
    mmx_status s = MMX_OK;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        vr->uu = c.take<mmx_index>(n1);
        len = c.take<mmx_index>(n1);
        ptr = c.take<mmx_index>(n1);
        first = c.take<unsigned int>(v1);
        key = c.take<uint64_t>(n1);
        state = c.take<unsigned char>(n1);
        if (pass == 0) s = mmx__round_take(rd, c.used, (void **)&block);
        if (s) return s;
    }
    const mmx_index *seeds = rd->seeds;
    s = mmx__first_copies_cuda(ctx, seeds, n, (mmx_index)v1, first);
    MMX__LAUNCH(choose, n, v, rd->pos, seeds, n, rd->round, first, vr->uu, len, key, state, rd->sd,
                &rd->dtally->invalid);
    if (!s) s = mmx__scan_offsets(ctx, len, n, ptr);
    mmx_index total = 0;
    /* The rings' total sizes their storage: one wait. */
    if (!s) s = mmx__dev_copy(ctx, &total, MMX_SPACE_HOST, ptr + n, MMX_SPACE_DEVICE, sizeof total);
    if (!s) s = mmx__round_take(rd, ((size_t)total + 1) * sizeof *ring, (void **)&ring);
    MMX__LAUNCH(rings, n, v, seeds, n, vr->uu, ptr, ring);
    rd->key = key;
    rd->state = state;
    rd->ring_ptr = ptr;
    rd->ring = ring;
    rd->nelem = v.f.nfaces;
    return s;
}

/* The fill: the kept seeds merged (no order needed), the compaction, their vertices. */
extern "C" mmx_status mmx__vremove_fill_cuda(mmx__round *rd, mmx_mesh **out)
{
    mmx_ctx *ctx = rd->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx__sc_view &v = *rd->sv;
    const mmx_index nv = v.f.nverts, nf = v.f.nfaces, n = rd->n, k = rd->c.kept;
    const mmx_index *uu = ((const Vr *)rd->priv)->uu;
    const size_t v1 = (size_t)nv + 1;
    mmx_index *to = nullptr;
    mmx_mesh *m = nullptr;
    mmx_status s = mmx__dev_alloc(ctx, 2 * v1 * sizeof *to + (size_t)nf + 1, (void **)&to);
    mmx_index *vid = to + v1;
    unsigned char *keepf = (unsigned char *)(vid + v1);
    MMX__LAUNCH(mmx__iota<mmx_index>, nv, nv, to);
    if (!s && nf > 0) s = MMX__CUDA(ctx, cudaMemsetAsync(keepf, 1, (size_t)nf, st));
    MMX__LAUNCH(merge, n, rd->seeds, n, uu, rd->state, rd->sd, to, keepf);
    const mmx__compact c = {keepf, to, rd->pos, nv - k, nf - 2 * k, 0, 0};
    if (!s) s = mmx__round_compact(ctx, MMX_SPACE_DEVICE, v.f.verts, nv, nf, &c, &m, vid);
    MMX__LAUNCH(kept_vertex, n, n, uu, rd->state, vid, rd->sd);
    mmx__dev_free(ctx, to);
    if (!s) *out = m;
    else mmx_mesh_free(m);
    return s;
}
