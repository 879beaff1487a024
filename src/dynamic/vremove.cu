/* Vertex removal rounds on the device (host statement: vremove.c; the per-seed steps are
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

constexpr const char *WHO = "mmx_cavity_vertex_remove_round";

__global__ void first_copies(const mmx_index *seeds, mmx_index n, unsigned int *first)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) atomicMin(&first[seeds[i]], (unsigned int)i);
}

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

} // namespace

extern "C" mmx_status mmx__vremove_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                              const mmx_index *seeds, mmx_index n,
                                              uint32_t round, mmx_mesh **out,
                                              mmx_cavity_counts *counts,
                                              mmx_cavity_seed *per_seed)
{
    *out = nullptr;
    mmx__sc_dev t;
    mmx_status s = mmx__sc_dev_build(ctx, mesh, WHO, &t);
    if (s) return s;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx__sc_view &v = t.view;
    const mmx_index nv = v.f.nverts, nf = v.f.nfaces;
    const float *pos = mesh->pos;
    const size_t n1 = (size_t)n + 1, v1 = (size_t)nv + 1, f1 = (size_t)nf + 1;
    /* Per seed: the seeds, first (per vertex), uu, len, ptr, key, state, sd, the counter; then
     * to, vid (per vertex), keepf (per face, bytes). */
    mmx_index *dseeds = nullptr, *ring = nullptr, *ib = nullptr;
    unsigned int *first = nullptr, *cnt = nullptr;
    uint64_t *key = nullptr;
    unsigned char *state = nullptr;
    mmx_cavity_seed *sd = nullptr;
    mmx_mesh *m = nullptr;
    s = mmx__dev_alloc(ctx, (4 * n1 + 2 * v1) * sizeof(mmx_index) + f1, (void **)&ib);
    if (!s) s = mmx__dev_alloc(ctx, (v1 + 1) * sizeof *first, (void **)&first);
    if (!s) s = mmx__dev_alloc(ctx, n1 * sizeof *key, (void **)&key);
    if (!s) s = mmx__dev_alloc(ctx, n1 * sizeof *state, (void **)&state);
    if (!s) s = mmx__dev_alloc(ctx, n1 * sizeof *sd, (void **)&sd);
    mmx_index *uu = ib + n1, *len = ib + 2 * n1, *ptr = ib + 3 * n1;
    mmx_index *to = ib + 4 * n1, *vid = to + v1;
    unsigned char *keepf = (unsigned char *)(vid + v1);
    dseeds = ib;
    cnt = first + v1;
    if (!s && n > 0)
        s = mmx__dev_copy(ctx, dseeds, MMX_SPACE_DEVICE, seeds, MMX_SPACE_HOST, n * sizeof *seeds);
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(first, 0xff, v1 * sizeof *first, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(cnt, 0, sizeof *cnt, st));
    MMX__LAUNCH(first_copies, n, dseeds, n, first);
    MMX__LAUNCH(choose, n, v, pos, dseeds, n, round, first, uu, len, key, state, sd, cnt);
    if (!s) s = mmx__scan_offsets(ctx, len, n, ptr);
    mmx_index total = 0;
    /* The rings' total sizes their storage: one wait. */
    if (!s) s = mmx__dev_copy(ctx, &total, MMX_SPACE_HOST, ptr + n, MMX_SPACE_DEVICE, sizeof total);
    if (!s) s = mmx__dev_alloc(ctx, ((size_t)total + 1) * sizeof *ring, (void **)&ring);
    MMX__LAUNCH(rings, n, v, dseeds, n, uu, ptr, ring);
    mmx_index k = 0;
    if (!s) s = mmx__select_cuda(ctx, n, key, ptr, nullptr, ring, nf, state, &k);
    MMX__LAUNCH(mmx__iota<mmx_index>, nv, nv, to);
    if (!s && nf > 0) s = MMX__CUDA(ctx, cudaMemsetAsync(keepf, 1, (size_t)nf, st));
    MMX__LAUNCH(merge, n, dseeds, n, uu, state, sd, to, keepf);
    const mmx__compact c = {keepf, to, pos, nv - k, nf - 2 * k, 0, 0};
    if (!s) s = mmx__round_compact(ctx, MMX_SPACE_DEVICE, v.f.verts, nv, nf, &c, &m, vid);
    MMX__LAUNCH(kept_vertex, n, n, uu, state, vid, sd);
    /* The counts' one wait, then per_seed (the copy waits too, with nothing left to run). */
    unsigned int invalid = 0;
    if (!s && n > 0)
        s = mmx__dev_copy(ctx, &invalid, MMX_SPACE_HOST, cnt, MMX_SPACE_DEVICE, sizeof invalid);
    if (!s && per_seed && n > 0)
        s = mmx__dev_copy(ctx, per_seed, MMX_SPACE_HOST, sd, MMX_SPACE_DEVICE, n * sizeof *sd);
    if (!s) {
        const mmx_index bad = (mmx_index)invalid;
        if (counts) *counts = mmx_cavity_counts{n, k, bad, n - k - bad};
        *out = m;
    } else {
        mmx_mesh_free(m);
    }
    mmx__dev_free(ctx, ib);
    mmx__dev_free(ctx, first);
    mmx__dev_free(ctx, key);
    mmx__dev_free(ctx, state);
    mmx__dev_free(ctx, sd);
    mmx__dev_free(ctx, ring);
    mmx__sc_dev_free(ctx, &t);
    return s;
}
