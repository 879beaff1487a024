/* Permutations of a CSC matrix, C = P·A·Q (CSparse's cs_permute): row i of A becomes row
 * pinv[i] of C, column j of C is column q[j] of A. Entries keep their order inside a column,
 * so a mesh matrix stays a mesh matrix (each face keeps its cyclic order). */
#include "spla_internal.h"

mmx_status mmx__perm_fault_report(mmx_ctx *ctx, mmx__perm_fault f, mmx_index n, const char *name)
{
    if (f.bad < 0) return MMX_OK;
    if (f.first < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s is not a permutation: %s[%d] = %d is outside [0, %d)",
                         name, name, f.bad, f.value, n);
    return mmx__fail(ctx, MMX_ERR_ARG, "%s is not a permutation: %s[%d] = %d repeats %s[%d]",
                     name, name, f.bad, f.value, name, f.first);
}

mmx_status mmx__perm_check_host(mmx_ctx *ctx, const mmx_index *p, mmx_index n, const char *name)
{
    if (!p) return MMX_OK;
    /* first[v]: where v was first seen, so a repeat names both of its places. */
    mmx_index *first = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)n, sizeof *first, (void **)&first);
    if (s) return s;
    for (mmx_index v = 0; v < n; v++) first[v] = -1;
    mmx__perm_fault f = {-1, 0, -1};
    for (mmx_index i = 0; i < n; i++) {
        mmx_index v = p[i];
        if (v < 0 || v >= n) { f = (mmx__perm_fault){i, v, -1}; break; }
        if (first[v] >= 0) { f = (mmx__perm_fault){i, v, first[v]}; break; }
        first[v] = i;
    }
    free(first);
    return mmx__perm_fault_report(ctx, f, n, name);
}

/* The host statement: column j of C is column q[j] of A with every row i renamed pinv[i]. */
static void permute_host(const mmx_csc *A, const mmx_index *pinv, const mmx_index *q, mmx_csc *C)
{
    int64_t k = 0;
    if (!A->order) C->colptr[0] = 0;
    for (mmx_index j = 0; j < A->ncols; j++) {
        int64_t a, b;
        mmx__csc_col(A, q ? q[j] : j, &a, &b);
        for (int64_t t = a; t < b; t++, k++) {
            mmx_index i = A->rowidx[t];
            C->rowidx[k] = pinv ? pinv[i] : i;
            if (!A->order) C->val[k] = A->val[t];
        }
        if (!A->order) C->colptr[j + 1] = (mmx_index)k;
    }
}

mmx_status mmx__csc_permute_unchecked(mmx_ctx *ctx, const mmx_csc *A, const mmx_index *pinv,
                                      const mmx_index *q, mmx_csc **out)
{
    mmx_csc *C;
    mmx_status s = mmx__csc_alloc(ctx, A->space, A->nrows, A->ncols, A->nnz, A->order, &C);
    if (s) return s;
    /* The work runs where A lives: a host matrix on a CUDA context is permuted on the host. */
    if (A->space == MMX_SPACE_DEVICE) s = mmx__csc_permute_cuda(ctx, A, pinv, q, C);
    else permute_host(A, pinv, q, C);
    if (s) {
        mmx_csc_free(C);
        return s;
    }
    /* Columns move whole, with their values in order: the column lengths, the value range and
     * "every value is its position" are those of A, so the cached fields carry over (what
     * mmx__csc_props would compute, without another pass). */
    C->maxcol = A->maxcol;
    C->minval = A->minval;
    C->maxval = A->maxval;
    C->positional = A->positional;
    *out = C;
    return MMX_OK;
}

/* Checks one permutation where it lives (A's space). */
static mmx_status perm_check(mmx_ctx *ctx, mmx_space space, const mmx_index *p, mmx_index n,
                             const char *name)
{
    if (!p) return MMX_OK;
    if (space == MMX_SPACE_HOST) return mmx__perm_check_host(ctx, p, n, name);
    mmx__perm_fault f;
    mmx_status s = mmx__perm_check_cuda(ctx, p, n, &f);
    return s ? s : mmx__perm_fault_report(ctx, f, n, name);
}

mmx_status mmx_csc_permute(mmx_ctx *ctx, const mmx_csc *A, const mmx_index *pinv,
                           const mmx_index *q, mmx_csc **out)
{
    MMX__NEED_CTX(ctx);
    if (!A || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_permute: NULL argument");
    *out = NULL;
    if (A->x)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_permute: A has float values (x), which a "
                         "permutation does not carry yet");
    mmx_status s = mmx__check_space(ctx, A->space, "matrix");
    if (!s) s = perm_check(ctx, A->space, pinv, A->nrows, "pinv");
    if (!s) s = perm_check(ctx, A->space, q, A->ncols, "q");
    return s ? s : mmx__csc_permute_unchecked(ctx, A, pinv, q, out);
}
