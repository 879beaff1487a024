/* The face split round on the device (host statement: templates.c,
 * mmx__face_split_round_topo; the per-seed check and the fill are reloc_step.h's, the host's
 * code). The flow:
 *
 * The kept set needs no selection loop. A face split's cavity is its face alone, so two seeds
 * conflict exactly when they name the same face, and copies of one face are all valid or all
 * invalid (the check reads the face only). In the host's key order (priority, face, position)
 * the copies of a face come together, smallest position first, and nothing else shares their
 * face: the greedy pass keeps the first copy of every valid face and makes the others
 * CONFLICTs. So one thread per seed decides it: INVALID by the check, else KEPT when it is the
 * smallest position naming its face (an atomicMin per face, which does not depend on the order
 * of the atomics), else CONFLICT.
 *
 * Numbering. The host numbers the kept seeds in key order: the one of rank j gets vertex
 * nverts + j and faces nfaces + 2j, nfaces + 2j + 1. Kept seeds name distinct faces, so their
 * priorities are distinct (mmx__priority is a bijection of the face) and the rank is the one
 * in priority order: the kept seeds' (priority, position) pairs are listed (in the atomics'
 * order) and sorted by CUB's radix sort. One wait reads the kept and invalid counts, which size
 * the output; then one thread per rank fills its face (kept faces are distinct, so no two
 * threads write one face). */
#include <cuda/std/functional>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "reloc_step.h"

namespace {

struct Counters {
    unsigned int kept, invalid;
};

__global__ void first_copies(const mmx_index *seeds, mmx_index n, unsigned int *first)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) atomicMin(&first[seeds[i]], (unsigned int)i);
}

/* Each seed's cavity, check and outcome; the kept seeds' (priority, position) listed. */
__global__ void decide(const mmx__flip_view v, const float *pos, const mmx_index *seeds,
                       mmx_index n, uint32_t round, const unsigned int *first,
                       mmx_cavity_seed *sd, unsigned long long *kkey, mmx_index *kpos,
                       Counters *cnt)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int invalid = 0;
    if (i < n) {
        const mmx_index face = seeds[i];
        mmx_cavity_seed x;
        x.faces[0] = face;
        x.faces[1] = x.new_edge[0] = x.new_edge[1] = x.vertex = -1;
        x.priority = mmx__priority(face, round);
        if (!mmx__fs_valid(&v, pos, face)) {
            x.outcome = MMX_CAVITY_INVALID;
            invalid = 1;
        } else if (first[face] != (unsigned int)i) {
            x.outcome = MMX_CAVITY_CONFLICT;
        } else {
            x.outcome = MMX_CAVITY_KEPT;
            const unsigned int j = atomicAdd(&cnt->kept, 1u);
            kkey[j] = x.priority;
            kpos[j] = (mmx_index)i;
        }
        sd[i] = x;
    }
    invalid = mmx__block_reduce(invalid, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && invalid) atomicAdd(&cnt->invalid, invalid);
}

/* Kept seed of rank j: vertex nverts + j, faces nfaces + 2j and + 1. */
__global__ void fill(const mmx__flip_view v, const float *pos, const mmx_index *seeds,
                     mmx_cavity_seed *sd, const mmx_index *kpos, mmx_index k, mmx_index *verts,
                     float *opos)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= k) return;
    const mmx_index i = kpos[j], m = v.nverts + (mmx_index)j;
    sd[i].vertex = m;
    mmx__fs_fill(v.verts, pos, seeds[i], m, v.nfaces + 2 * (mmx_index)j, verts, opos);
}

template <typename T> size_t piece(size_t count)
{
    return (count * sizeof(T) + 255) / 256 * 256;
}

} // namespace

extern "C" mmx_status mmx__face_split_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                                 const mmx__flip_view *v, const mmx_index *seeds,
                                                 mmx_index n, uint32_t round, mmx_mesh **out,
                                                 mmx_cavity_counts *counts,
                                                 mmx_cavity_seed *per_seed)
{
    *out = nullptr;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index nv = v->nverts, nf = v->nfaces;
    const float *pos = mesh->pos;
    const size_t nn = (size_t)n + 1, f1 = (size_t)nf + 1;
    const size_t b_first = piece<unsigned int>(f1), b_sd = per_seed ? 0 : piece<mmx_cavity_seed>(nn),
                 b_key = piece<unsigned long long>(nn), b_pos = piece<mmx_index>(nn);
    char *block = nullptr;
    mmx_status s = mmx__dev_alloc(ctx, b_first + b_sd + 2 * b_key + 2 * b_pos + 256,
                                  (void **)&block);
    if (s) return s;
    char *p = block;
    unsigned int *first = reinterpret_cast<unsigned int *>(p);
    p += b_first;
    mmx_cavity_seed *sd = per_seed ? per_seed : reinterpret_cast<mmx_cavity_seed *>(p);
    p += b_sd;
    unsigned long long *kkey[2] = {reinterpret_cast<unsigned long long *>(p),
                                   reinterpret_cast<unsigned long long *>(p + b_key)};
    p += 2 * b_key;
    mmx_index *kpos[2] = {reinterpret_cast<mmx_index *>(p), reinterpret_cast<mmx_index *>(p + b_pos)};
    p += 2 * b_pos;
    Counters *cnt = reinterpret_cast<Counters *>(p);
    s = MMX__CUDA(ctx, cudaMemsetAsync(first, 0xff, f1 * sizeof *first, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(cnt, 0, sizeof *cnt, st));
    MMX__LAUNCH(first_copies, n, seeds, n, first);
    MMX__LAUNCH(decide, n, *v, pos, seeds, n, round, first, sd, kkey[0], kpos[0], cnt);
    /* The round's one wait: the counts, which size the output. */
    Counters h{};
    if (!s) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, cnt, MMX_SPACE_DEVICE, sizeof h);
    const mmx_index k = (mmx_index)h.kept;
    int cur = 0;
    if (!s && k > 1) s = mmx__sort_pairs(ctx, kkey, kpos, k, 64, &cur);
    mmx_mesh *m = nullptr;
    if (!s) s = mmx__dev_tri_mesh(ctx, nv + k, nf + 2 * k, pos != nullptr, &m);
    if (!s && nf > 0)
        s = MMX__CUDA(ctx, cudaMemcpyAsync(m->M->rowidx, v->verts, 3 * (size_t)nf * sizeof(mmx_index),
                                           cudaMemcpyDeviceToDevice, st));
    if (!s && pos && nv > 0)
        s = MMX__CUDA(ctx, cudaMemcpyAsync(m->pos, pos, 3 * (size_t)nv * sizeof(float),
                                           cudaMemcpyDeviceToDevice, st));
    if (!s) MMX__LAUNCH(fill, k, *v, pos, seeds, sd, kpos[cur], k, m->M->rowidx, m->pos);
    if (!s) {
        if (counts)
            *counts = mmx_cavity_counts{n, k, (mmx_index)h.invalid, n - k - (mmx_index)h.invalid};
        *out = m;
    } else {
        mmx_mesh_free(m);
    }
    mmx__dev_free(ctx, block);
    return s;
}
