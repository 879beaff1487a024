/* The face split round's CUDA stages for the round driver (round.c; host statement: templates.c,
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
#include <cstdlib>
#include <cuda/std/functional>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "reloc_step.h"

namespace {

/* Each seed's cavity, check and outcome; the kept seeds' (priority, position) listed. */
__global__ void decide(const mmx__flip_view v, const float *pos, const mmx_index *seeds,
                       mmx_index n, uint32_t round, const unsigned int *first,
                       mmx_cavity_seed *sd, unsigned long long *kkey, mmx_index *kpos,
                       mmx__round_counters *cnt)
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
            const unsigned int j = atomicAdd(&cnt->listed, 1u);
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

/* The kept seeds' (priority, position) pairs, sorted by the fill. */
struct Fs {
    unsigned long long *kkey[2];
    mmx_index *kpos[2];
};

} // namespace

/* The proposal decides every seed (above): no selection. */
extern "C" mmx_status mmx__face_propose_cuda(mmx__round *rd)
{
    mmx_ctx *ctx = rd->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index n = rd->n, nf = rd->fv->nfaces;
    Fs *fs = (Fs *)calloc(1, sizeof *fs);
    if (!fs)
        return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_cavity_face_split_round: out of host memory");
    rd->priv = fs;
    rd->decided = 1;
    const size_t nn = (size_t)n + 1, f1 = (size_t)nf + 1;
    char *block = nullptr;
    unsigned int *first = nullptr;
    mmx_status s = MMX_OK;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        first = c.take<unsigned int>(f1);
        fs->kkey[0] = c.take<unsigned long long>(nn);
        fs->kkey[1] = c.take<unsigned long long>(nn);
        fs->kpos[0] = c.take<mmx_index>(nn);
        fs->kpos[1] = c.take<mmx_index>(nn);
        if (pass == 0) s = mmx__round_take(rd, c.used, (void **)&block);
        if (s) return s;
    }
    s = mmx__first_copies_cuda(ctx, rd->seeds, n, (mmx_index)f1, first);
    MMX__LAUNCH(decide, n, *rd->fv, rd->pos, rd->seeds, n, rd->round, first, rd->sd, fs->kkey[0],
                fs->kpos[0], rd->dtally);
    return s;
}

/* The fill: the counts (the round's one read of them: they size the output), the kept seeds
 * ranked in key order, each filled. */
extern "C" mmx_status mmx__face_fill_cuda(mmx__round *rd, mmx_mesh **out)
{
    mmx_ctx *ctx = rd->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    Fs *fs = (Fs *)rd->priv;
    const mmx__flip_view *v = rd->fv;
    const mmx_index nv = v->nverts, nf = v->nfaces;
    const float *pos = rd->pos;
    mmx_status s = mmx__round_tally(rd);
    const mmx_index k = (mmx_index)rd->htally.listed;
    rd->c.kept = k;
    int cur = 0;
    if (!s && k > 1) s = mmx__sort_pairs(ctx, fs->kkey, fs->kpos, k, 64, &cur);
    mmx_mesh *m = nullptr;
    if (!s) s = mmx__dev_tri_mesh(ctx, nv + k, nf + 2 * k, pos != nullptr, &m);
    if (!s && nf > 0)
        s = MMX__CUDA(ctx, cudaMemcpyAsync(m->M->rowidx, v->verts,
                                           3 * (size_t)nf * sizeof(mmx_index),
                                           cudaMemcpyDeviceToDevice, st));
    if (!s && pos && nv > 0)
        s = MMX__CUDA(ctx, cudaMemcpyAsync(m->pos, pos, 3 * (size_t)nv * sizeof(float),
                                           cudaMemcpyDeviceToDevice, st));
    if (!s)
        MMX__LAUNCH(fill, k, *v, pos, rd->seeds, rd->sd, fs->kpos[cur], k, m->M->rowidx, m->pos);
    if (!s) *out = m;
    else mmx_mesh_free(m);
    return s;
}
