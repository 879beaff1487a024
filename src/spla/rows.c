/* The row view of a matrix (spla_internal.h): kept with a matrix the library made, so that
 * the products that read A by rows (mmx_spmv op = N on CUDA) sort its entries once, not on
 * every call. A matrix's arrays do not change after it is made, so the view stays valid until
 * the matrix is freed or the caller releases it (mmx_csc_release_cache). The device build is
 * in rows.cu. */
#include "spla_internal.h"

void mmx__csc_rows_free(mmx_ctx *ctx, mmx__csc_rows *rows)
{
    /* Device memory, back to ctx's pool after the queued kernels that read it. */
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, rows->rowptr);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, rows->entry);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, rows->col);
    rows->rowptr = rows->entry = rows->col = NULL;
}

/* Whether A's cache is its own (not a copy of another matrix's struct) and may be filled on
 * ctx: only the context that made A allocates into A's keeping, so its memory goes back to
 * the pool that gave it. */
static int keeps_rows(mmx_ctx *ctx, const mmx_csc *A)
{
    return A->cache && A->cache->owner == A && A->ctx == ctx;
}

/* Whether a view made of A still serves it: A's rows and entries never change, but a mesh
 * matrix may be expanded in place from the reduced form to the general one (mmx_mesh_expand),
 * whose kernels read the view's columns, which a view of the reduced form does not hold. */
static int view_fits(const mmx_csc *A, const mmx__csc_rows *r)
{
    return A->order > 0 || A->nnz == 0 || r->col;
}

mmx_status mmx__csc_rows_get(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_rows *rows, int *temp)
{
    *temp = 0;
    if (keeps_rows(ctx, A) && A->cache->has_rows) {
        if (view_fits(A, &A->cache->rows)) {
            *rows = A->cache->rows;
            return MMX_OK;
        }
        mmx__csc_rows_free(ctx, &A->cache->rows);
        A->cache->has_rows = 0;
    }
    mmx__csc_rows r = {NULL, NULL, NULL};
    mmx_status s = mmx__csc_rows_cuda(ctx, A, 1, &r);
    if (s) {
        mmx__csc_rows_free(ctx, &r);
        return s;
    }
    if (keeps_rows(ctx, A)) {
        A->cache->rows = r;
        A->cache->has_rows = 1;
    } else {
        *temp = 1;
    }
    *rows = r;
    return MMX_OK;
}

void mmx_csc_release_cache(mmx_csc *A)
{
    if (!A || !A->cache || A->cache->owner != A || !A->cache->has_rows) return;
    mmx__csc_rows_free(A->ctx, &A->cache->rows);
    A->cache->has_rows = 0;
}
