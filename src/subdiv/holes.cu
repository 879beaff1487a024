/* The device half of leaving holes out (holes.c states it): one thread per result face flags
 * it kept by its ancestor (mmx__hole_ancestor) and marks the vertices it uses, used and used
 * by a kept face; one thread per vertex flags the rows kept (used by a kept face, or by no
 * face); scans of the flags count the kept vertices and faces and number the kept vertices;
 * one thread per id reads its new number. Queued on the context's stream; no wait. */
#include "core/launch.cuh"
#include "subdiv_internal.h"

namespace {

/* Face F < nf: keep[F] = keepi[F] = kept; its rows marked used (and used by a kept face):
 * every writer writes 1, so the order does not matter. keepi[nf] = 0, for the scan's total. */
__global__ void mark_faces(mmx__holes_in in, mmx_csc R, unsigned char *keep, mmx_index *keepi,
                           unsigned char *used, unsigned char *kuse)
{
    const long long F = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (F > R.ncols) return;
    if (F == R.ncols) {
        keepi[F] = 0;
        return;
    }
    const int k = !in.hole0[mmx__hole_ancestor(in.scheme, in.order0, in.colptr0, in.ncols0, in.levels,
                                               (mmx_index)F)];
    keep[F] = (unsigned char)k;
    keepi[F] = k;
    for (mmx_index j = 0; j < R.order; j++) {
        const mmx_index r = R.rowidx[(int64_t)R.order * F + j];
        used[r] = 1;
        if (k) kuse[r] = 1;
    }
}

/* Row r < nv: kept when a kept face uses it or no face does (rflag; rflag[nv] = 0 for the
 * scan's total); row_keep[r]: no face uses it. */
__global__ void mark_rows(mmx_index nv, const unsigned char *used, const unsigned char *kuse,
                          mmx_index *rflag, unsigned char *row_keep)
{
    const long long r = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (r > nv) return;
    rflag[r] = r < nv && (kuse[r] || !used[r]);
    if (r < nv) row_keep[r] = !used[r];
}

/* info = [kept vertices, kept faces, ids' new numbers]. */
__global__ void read_ids(mmx_index nv, mmx_index nf, const mmx_index *ids, mmx_index nid,
                         const mmx_index *rflag, const mmx_index *rid, const mmx_index *kid,
                         mmx_index *info)
{
    const long long q = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (q > nid) return;
    if (q == nid) {
        info[0] = rid[nv], info[1] = kid[nf];
        return;
    }
    const mmx_index v = ids[q];
    info[2 + q] = rflag[v] ? rid[v] : -1;
}

} // namespace

extern "C" mmx_status mmx__subdiv_holes_mark_cuda(mmx_ctx *ctx, const mmx__holes_in *in,
                                                  unsigned char *keep, unsigned char *row_keep,
                                                  mmx_index *info)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_csc *R = in->R;
    const size_t v1 = (size_t)R->nrows + 1, f1 = (size_t)R->ncols + 1;
    /* rflag, rid (rows), keepi (faces, scanned in place); used, kuse (row bytes) */
    mmx_index *blk = nullptr;
    unsigned char *bytes = nullptr;
    mmx_status s = mmx__dev_alloc(ctx, (2 * v1 + f1) * sizeof *blk, (void **)&blk);
    if (!s) s = mmx__dev_alloc(ctx, 2 * v1, (void **)&bytes);
    if (s) {
        mmx__dev_free(ctx, blk);
        return s;
    }
    mmx_index *rflag = blk, *rid = blk + v1, *keepi = blk + 2 * v1;
    unsigned char *used = bytes, *kuse = bytes + v1;
    s = mmx__dev_zero(ctx, bytes, 2 * v1);
    MMX__LAUNCH(mark_faces, f1, *in, *R, keep, keepi, used, kuse);
    MMX__LAUNCH(mark_rows, v1, R->nrows, used, kuse, rflag, row_keep);
    /* The counts and the ids' numbers: not where the caller has them already (info NULL). */
    if (!s && info) s = mmx__scan_exclusive(ctx, rflag, (int64_t)v1, rid);
    if (!s && info) s = mmx__scan_exclusive(ctx, keepi, (int64_t)f1, keepi);
    if (info)
        MMX__LAUNCH(read_ids, (size_t)in->nid + 1, R->nrows, R->ncols, in->ids, in->nid, rflag, rid,
                    keepi, info);
    mmx__dev_free(ctx, blk); /* in stream order, after the kernels that read them */
    mmx__dev_free(ctx, bytes);
    return s;
}
