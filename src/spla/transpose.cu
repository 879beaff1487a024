/* Explicit transpose on the device (host statement: transpose.c): A's row view (rows.cu, a
 * stable sort of the entries by row, so each row's entries come in ascending column order)
 * with each entry's column and value written out: the result is the host's, entry for entry. */
#include "core/launch.cuh"
#include "spla_internal.h"

namespace {

/* Slot t of Aᵀ holds A's entry perm[t]: its column becomes the row, its value stays. */
__global__ void fill(const mmx_csc A, const mmx_index *perm, mmx_index *rowidx, mmx_index *val,
                     float *x)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= A.nnz) return;
    mmx_index e = perm[t];
    mmx_index j = mmx__csc_col_of(&A, e);
    rowidx[t] = j;
    val[t] = A.order ? e - A.order * j + 1 : A.val[e];
    if (x) x[t] = A.x[e];
}

} // namespace

extern "C" mmx_status mmx__csc_transpose_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx_csc **out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    mmx_csc *T = NULL;
    mmx__csc_rows r = {NULL, NULL, NULL};
    mmx_status s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, A->ncols, A->nrows, A->nnz, 0, &T);
    if (!s && A->x) s = mmx__csc_alloc_x(ctx, T);
    if (s) {
        mmx_csc_free(T);
        return s;
    }
    /* A's row pointers are Aᵀ's column pointers: the view's array takes the place of T's. */
    s = mmx__csc_rows_cuda(ctx, A, 0, &r);
    if (!s) {
        mmx__dev_free(ctx, T->colptr);
        T->colptr = r.rowptr;
        r.rowptr = NULL;
        if (A->nnz > 0) {
            fill<<<mmx__grid(A->nnz), MMX__BLOCK, 0, st>>>(*A, r.entry, T->rowidx, T->val, T->x);
            s = mmx__cuda(ctx, cudaGetLastError(), "transpose fill launch");
        }
    }
    mmx__csc_rows_free(ctx, &r); /* in stream order, after the fill that reads it */
    /* The result's properties are host fields: mmx__csc_props reads them back (the one wait). */
    if (!s) s = mmx__csc_props(ctx, T);
    if (s) {
        mmx_csc_free(T); /* in stream order too: no wait for the queued kernels */
        return s;
    }
    *out = T;
    return MMX_OK;
}
