/* Bandwidth figures of a CSC matrix (thesis 4.3.4): how far its entries lie from the diagonal,
 * by column, by row, and for square matrices the bandwidth and the profile (envelope). */
#include "spla_internal.h"

/* The figures of a host matrix: one pass over the columns, with the smallest and largest
 * column seen in each row kept on the side for the row spread. */
static mmx_status band_host(mmx_ctx *ctx, const mmx_csc *A, mmx_band *band)
{
    mmx_index *rmin = NULL, *rmax = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)A->nrows, sizeof *rmin, (void **)&rmin);
    if (!s) s = mmx__host_alloc(ctx, (size_t)A->nrows, sizeof *rmax, (void **)&rmax);
    if (s) {
        free(rmin);
        return s;
    }
    for (mmx_index i = 0; i < A->nrows; i++) rmin[i] = -1, rmax[i] = -1;
    const int square = A->nrows == A->ncols;
    mmx_band b = {0, 0, 0, 0};
    for (mmx_index j = 0; j < A->ncols; j++) {
        int64_t a, e;
        mmx__csc_col(A, j, &a, &e);
        if (a == e) continue; /* an empty column spreads nothing and has no smallest row */
        mmx_index lo = A->rowidx[a], hi = lo;
        for (int64_t k = a; k < e; k++) {
            mmx_index i = A->rowidx[k];
            if (i < lo) lo = i;
            if (i > hi) hi = i;
            /* columns come in increasing j, so the first column seen in a row is its smallest */
            if (rmin[i] < 0) rmin[i] = j;
            rmax[i] = j;
            mmx_index d = i > j ? i - j : j - i;
            if (square && d > b.bandwidth) b.bandwidth = d;
        }
        if (hi - lo > b.col_spread) b.col_spread = hi - lo;
        if (square && j > lo) b.profile += j - lo;
    }
    for (mmx_index i = 0; i < A->nrows; i++)
        if (rmin[i] >= 0 && rmax[i] - rmin[i] > b.row_spread) b.row_spread = rmax[i] - rmin[i];
    free(rmin);
    free(rmax);
    *band = b;
    return MMX_OK;
}

mmx_status mmx_csc_band(mmx_ctx *ctx, const mmx_csc *A, mmx_band *band)
{
    MMX__NEED_CTX(ctx);
    if (!A || !band) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_band: NULL argument");
    *band = (mmx_band){0, 0, 0, 0};
    mmx_status s = mmx__check_space(ctx, A->space, "matrix");
    if (s) return s;
    if (A->space == MMX_SPACE_HOST) return band_host(ctx, A, band);
    /* A figure for a report, not a hot path: read the device matrix on the host. */
    mmx_csc *H = NULL;
    s = mmx_csc_copy(ctx, A, MMX_SPACE_HOST, &H);
    if (!s) s = band_host(ctx, H, band);
    mmx_csc_free(H);
    return s;
}
