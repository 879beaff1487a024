/* The labels of a kept patch set after a device round (patch_keep.h): each output face's old
 * patch, read through the round's per-seed records on the device, without the host's origin
 * map (face_origin.c) and its copies. The numbering is dynamic.h's: a split keeps the face
 * ids and appends, for the kept seeds in key order (their new vertices nverts, nverts + 1,
 * ... are that order), faces[0]'s new face then faces[1]'s (a face split: two of the seed
 * face's); a collapse or a vertex removal drops the kept seeds' faces[0] and faces[1] and
 * keeps the survivors in their order. */
#include "core/launch.cuh"
#include "patch_keep.h"

namespace {

#define INDEX() ((long long)blockIdx.x * MMX__BLOCK + threadIdx.x)

__global__ void k_copy(const mmx_index *fp, mmx_index n, mmx_index *label)
{
    const long long f = INDEX();
    if (f < n) label[f] = fp[f];
}

/* Per kept seed, by its rank in key order (its vertex's offset), how many faces it appends
 * and the faces they are cut from. */
__global__ void k_ranks(const mmx_cavity_seed *sd, mmx_index n, mmx_index nverts, mmx_index kept,
                        int face_split, mmx_index *cnt, mmx_index *src)
{
    const long long i = INDEX();
    if (i >= n || sd[i].outcome != MMX_CAVITY_KEPT) return;
    const mmx_index r = sd[i].vertex - nverts;
    if (r < 0 || r >= kept) return;
    const mmx_index f0 = sd[i].faces[0], f1 = face_split ? f0 : sd[i].faces[1];
    cnt[r] = f1 >= 0 ? 2 : 1;
    src[2 * (size_t)r] = f0;
    src[2 * (size_t)r + 1] = f1;
}

__global__ void k_append(const mmx_index *off, const mmx_index *src, mmx_index kept,
                         const mmx_index *fp, mmx_index nfaces, mmx_index *label)
{
    const long long r = INDEX();
    if (r >= kept) return;
    for (mmx_index k = 0; k < off[r + 1] - off[r]; k++)
        label[nfaces + off[r] + k] = fp[src[2 * (size_t)r + k]];
}

/* keep[f] = 0 for the faces the kept seeds remove (keep starts at 1). */
__global__ void k_gone(const mmx_cavity_seed *sd, mmx_index n, mmx_index *keep)
{
    const long long i = INDEX();
    if (i >= n || sd[i].outcome != MMX_CAVITY_KEPT) return;
    for (int h = 0; h < 2; h++)
        if (sd[i].faces[h] >= 0) keep[sd[i].faces[h]] = 0;
}

__global__ void k_ones(mmx_index n, mmx_index *a)
{
    const long long i = INDEX();
    if (i < n) a[i] = 1;
}

__global__ void k_survivors(const mmx_index *keep, const mmx_index *off, const mmx_index *fp,
                            mmx_index n, mmx_index *label)
{
    const long long f = INDEX();
    if (f < n && keep[f]) label[off[f]] = fp[f];
}

} // namespace

mmx_status mmx__keep_labels_cuda(mmx_ctx *ctx, mmx_cavity_kind kind, mmx_index nverts,
                                 mmx_index nfaces, const mmx_cavity_seed *sd, mmx_index n,
                                 mmx_index kept, const mmx_index *fp, mmx_index *label)
{
    cudaStream_t st = static_cast<cudaStream_t>(ctx->stream);
    mmx_status s = MMX_OK;
    mmx_index *a = nullptr, *off = nullptr, *src = nullptr;
    if (kind == MMX_CAVITY_EDGE_COLLAPSE || kind == MMX_CAVITY_VERTEX_REMOVE) {
        s = mmx__dev_alloc(ctx, ((size_t)nfaces + 1) * sizeof *a, (void **)&a);
        if (!s) s = mmx__dev_alloc(ctx, ((size_t)nfaces + 1) * sizeof *off, (void **)&off);
        MMX__LAUNCH(k_ones, nfaces, nfaces, a);
        MMX__LAUNCH(k_gone, n, sd, n, a);
        if (!s) s = mmx__scan_offsets(ctx, a, nfaces, off);
        MMX__LAUNCH(k_survivors, nfaces, a, off, fp, nfaces, label);
    } else { /* EDGE_SPLIT, FACE_SPLIT */
        s = mmx__dev_alloc(ctx, ((size_t)kept + 1) * sizeof *a, (void **)&a);
        if (!s) s = mmx__dev_alloc(ctx, ((size_t)kept + 1) * sizeof *off, (void **)&off);
        if (!s) s = mmx__dev_alloc(ctx, (2 * (size_t)kept + 1) * sizeof *src, (void **)&src);
        MMX__LAUNCH(k_copy, nfaces, fp, nfaces, label);
        MMX__LAUNCH(k_ranks, n, sd, n, nverts, kept, kind == MMX_CAVITY_FACE_SPLIT, a, src);
        if (!s && kept > 0) s = mmx__scan_offsets(ctx, a, kept, off);
        MMX__LAUNCH(k_append, kept, off, src, kept, fp, nfaces, label);
    }
    mmx__dev_free(ctx, a);
    mmx__dev_free(ctx, off);
    mmx__dev_free(ctx, src);
    return s;
}
