/* Column selection on the device (host statement: select_cols.c). Row flags by one thread
 * per kept column (every writer writes 1, so the order does not matter), the new row numbers
 * and the kept columns' places by exclusive scans of the flags, the entries' places by a scan
 * of the kept columns' lengths; then one thread per column copies a kept column. Queued on the
 * context's stream; one wait to read the kept counts unless the caller gives them. */
#include "core/launch.cuh"
#include "spla_internal.h"

namespace {

/* rflag[r] (r < nrows; rflag[nrows] = 0 for the scan's total): kept by the caller's flags. */
__global__ void row_init(mmx_index nrows, const unsigned char *row_keep, const mmx_index *map,
                         int all_rows, mmx_index *rflag)
{
    const long long r = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (r > nrows) return;
    rflag[r] = r < nrows &&
               (all_rows ? !map || map[r] == (mmx_index)r : row_keep && row_keep[r]);
}

/* Per column: its kept flag and kept length (0 for a dropped one; column ncols: 0, for the
 * scans' totals), and its rows flagged used. */
__global__ void col_flags(const mmx_csc A, const unsigned char *keep, const mmx_index *map,
                          int all_rows, mmx_index *cflag, mmx_index *clen, mmx_index *rflag)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j > A.ncols) return;
    const int kept = j < A.ncols && keep[j];
    cflag[j] = kept;
    clen[j] = 0;
    if (!kept) return;
    int64_t a, b;
    mmx__csc_col(&A, (mmx_index)j, &a, &b);
    clen[j] = (mmx_index)(b - a);
    if (!all_rows)
        for (int64_t e = a; e < b; e++) rflag[map ? map[A.rowidx[e]] : A.rowidx[e]] = 1;
}

/* The maps: a kept row's new number is its flags' exclusive scan rid[r]. */
__global__ void row_maps(mmx_index nrows, const mmx_index *rflag, const mmx_index *rid,
                         mmx_index *row_new, mmx_index *row_old)
{
    const long long r = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (r >= nrows) return;
    if (row_new) row_new[r] = rflag[r] ? rid[r] : -1;
    if (row_old && rflag[r]) row_old[rid[r]] = (mmx_index)r;
}

/* Kept column j becomes column cid[j], its entries from off[j] (the scans of the flags and
 * the kept lengths); the last thread closes colptr. */
__global__ void copy_cols(const mmx_csc A, const unsigned char *keep, const mmx_index *map,
                          const mmx_index *rid, const mmx_index *cid, const mmx_index *off,
                          mmx_csc B)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j > A.ncols) return;
    if (j == A.ncols) {
        if (!A.order) B.colptr[cid[j]] = off[j];
        return;
    }
    if (!keep[j]) return;
    int64_t a, b;
    mmx__csc_col(&A, (mmx_index)j, &a, &b);
    const int64_t k0 = off[j];
    if (!A.order) B.colptr[cid[j]] = (mmx_index)k0;
    for (int64_t e = a; e < b; e++) {
        const int64_t k = k0 + (e - a);
        B.rowidx[k] = rid[map ? map[A.rowidx[e]] : A.rowidx[e]];
        if (B.val) B.val[k] = A.val[e];
        if (B.x) B.x[k] = A.x[e];
    }
}

} // namespace

extern "C" mmx_status mmx__csc_select_cols_cuda(mmx_ctx *ctx, const mmx_csc *A,
                                                const mmx__col_select *sel, mmx_csc **out,
                                                mmx_index *row_new, mmx_index *row_old)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const size_t r1 = (size_t)A->nrows + 1, c1 = (size_t)A->ncols + 1;
    /* rflag, rid (rows); cflag, clen, cid, off (columns); the three totals read back. */
    mmx_index *blk = nullptr;
    mmx_status s = mmx__dev_alloc(ctx, (2 * r1 + 4 * c1) * sizeof *blk, (void **)&blk);
    if (s) return s;
    mmx_index *rflag = blk, *rid = blk + r1, *cflag = blk + 2 * r1, *clen = cflag + c1,
              *cid = clen + c1, *off = cid + c1;
    MMX__LAUNCH(row_init, r1, A->nrows, sel->row_keep, sel->row_map, sel->all_rows, rflag);
    MMX__LAUNCH(col_flags, c1, *A, sel->keep, sel->row_map, sel->all_rows, cflag, clen, rflag);
    if (!s) s = mmx__scan_exclusive(ctx, rflag, (int64_t)r1, rid);
    if (!s) s = mmx__scan_exclusive(ctx, cflag, (int64_t)c1, cid);
    if (!s) s = mmx__scan_exclusive(ctx, clen, (int64_t)c1, off);
    MMX__LAUNCH(row_maps, A->nrows, A->nrows, rflag, rid, row_new, row_old);
    /* The sizes: the caller's, or the scans' totals (one wait). */
    mmx_index nr = sel->nrows, nc = sel->ncols, nnz = A->order * sel->ncols;
    if (!s && (nr < 0 || nc < 0 || !A->order)) {
        s = MMX__CUDA(ctx, cudaMemcpyAsync(&nr, rid + A->nrows, sizeof nr,
                                           cudaMemcpyDeviceToHost, st));
        if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&nc, cid + A->ncols, sizeof nc,
                                                   cudaMemcpyDeviceToHost, st));
        if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&nnz, off + A->ncols, sizeof nnz,
                                                   cudaMemcpyDeviceToHost, st));
        if (!s) s = mmx__stream_sync(ctx); /* kept: the sizes are the output's allocation */
    }
    mmx_csc *B = nullptr;
    const int64_t room = (int64_t)nnz + (int64_t)sel->extra_cols * A->order;
    if (!s) s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, nr + sel->extra_rows, nc + sel->extra_cols,
                               (mmx_index)room, A->order, &B);
    if (!s && A->x) s = mmx__csc_alloc_x(ctx, B);
    MMX__LAUNCH(copy_cols, c1, *A, sel->keep, sel->row_map, rid, cid, off, *B);
    mmx__dev_free(ctx, blk); /* in stream order, after the kernels that read it */
    if (!s) s = mmx__csc_props(ctx, B); /* reduced: no wait; general: mmx__csc_props_cuda's */
    if (s) {
        mmx_csc_free(B);
        return s;
    }
    *out = B;
    return MMX_OK;
}
