/* The half-edge view (halfedge.h): the flow for both backends, and the host's loops. Mates
 * come from one sum per edge of the corners that leave along it (an edge with two faces has
 * two such corners, so each is the sum less the other), the start corners from a maximum of
 * their rank, the fans from one walk per vertex. Every step is a fold that does not depend on
 * the order of its terms, so the device's atomics give the host's arrays. */
#include <string.h>
#include "halfedge.h"

/* n items of `size` bytes in the view's space; NULL for none. */
static mmx_status he_alloc(mmx__halfedge *H, size_t n, size_t size, void **out)
{
    size_t bytes;
    *out = NULL;
    if (!mmx__mul_ok(n, size, &bytes))
        return mmx__fail(H->ctx, MMX_ERR_OVERFLOW, "half-edge view: %zu x %zu bytes overflow", n, size);
    return mmx_mem_alloc(H->ctx, H->space, bytes, out);
}

void mmx__halfedge_free(mmx__halfedge *H)
{
    if (H->ctx) {
        mmx_mem_free(H->ctx, H->space, H->mate);
        mmx_mem_free(H->ctx, H->space, H->first);
        mmx_mem_free(H->ctx, H->space, H->one_fan);
        mmx_mem_free(H->ctx, H->space, H->fault);
    }
    memset(H, 0, sizeof *H);
}

/* The host's loops, in the order the device's folds come out the same. */
static mmx_status build_host(mmx__halfedge *H)
{
    unsigned long long *sum = NULL, *rank = NULL;
    mmx_status s = mmx__host_alloc(H->ctx, (size_t)H->ne, sizeof *sum, (void **)&sum);
    if (!s) s = mmx__host_alloc(H->ctx, (size_t)H->nv, sizeof *rank, (void **)&rank);
    if (s) {
        free(sum);
        return s;
    }
    memset(sum, 0, (size_t)H->ne * sizeof *sum);
    for (mmx_index c = 0; c < H->nnz; c++) sum[H->fe[c] >> 1] += (unsigned long long)c;
    for (mmx_index c = 0; c < H->nnz; c++) H->mate[c] = mmx__he_mate(H->fe, H->sides, sum, c);
    /* rank + 1, so that 0 means no corner yet */
    memset(rank, 0, (size_t)H->nv * sizeof *rank);
    for (mmx_index c = 0; c < H->nnz; c++) {
        const unsigned long long r = mmx__he_start_rank(H, c) + 1;
        if (r > rank[H->M[c]]) rank[H->M[c]] = r;
    }
    for (mmx_index v = 0; v < H->nv; v++)
        H->first[v] = rank[v] ? (mmx_index)(uint32_t)(rank[v] - 1) : -1;
    unsigned long long fault = MMX__FAULT_CLEAR;
    for (mmx_index c = 0; c < H->nnz && fault == MMX__FAULT_CLEAR; c++) {
        /* Scanning up, the first corner of an inconsistent pair is the pair's smaller one. */
        const mmx_index m = H->mate[c];
        if (m >= 0 && H->fe[m] == H->fe[c])
            fault = (unsigned long long)MMX__FAULT_HALFEDGE_TWICE << 32 | (uint32_t)c;
    }
    for (mmx_index v = 0; v < H->nv; v++) {
        H->one_fan[v] = (unsigned char)mmx__he_one_fan(H, v);
        if (!H->one_fan[v] && fault == MMX__FAULT_CLEAR)
            fault = (unsigned long long)MMX__FAULT_FANS << 32 | (uint32_t)v;
    }
    *H->fault = fault;
    free(sum);
    free(rank);
    return MMX_OK;
}

mmx_status mmx__halfedge_build(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                               mmx__halfedge *H)
{
    const mmx_csc *M = mesh->M;
    memset(H, 0, sizeof *H);
    H->ctx = ctx;
    H->space = mesh->space;
    H->nv = M->nrows, H->nf = M->ncols, H->ne = adj->nedges, H->nnz = M->nnz;
    H->order = M->order;
    H->colptr = M->order ? NULL : M->colptr;
    H->M = M->rowidx;
    H->fe = adj->fe, H->sides = adj->sides, H->valence = adj->valence;
    mmx_status s = he_alloc(H, (size_t)H->nnz, sizeof *H->mate, (void **)&H->mate);
    if (!s) s = he_alloc(H, (size_t)H->nv, sizeof *H->first, (void **)&H->first);
    if (!s) s = he_alloc(H, (size_t)H->nv, sizeof *H->one_fan, (void **)&H->one_fan);
    if (!s) s = he_alloc(H, 1, sizeof *H->fault, (void **)&H->fault);
    if (!s) s = H->space == MMX_SPACE_DEVICE ? mmx__halfedge_build_cuda(ctx, H) : build_host(H);
    if (s) mmx__halfedge_free(H);
    return s;
}

mmx_status mmx__halfedge_fault(mmx_ctx *ctx, const mmx__halfedge *H, mmx__fault *out)
{
    unsigned long long f = MMX__FAULT_CLEAR;
    mmx_status s = mmx_mem_copy(ctx, &f, MMX_SPACE_HOST, H->fault, H->space, sizeof f);
    *out = (mmx__fault){MMX__FAULT_NONE, 0};
    if (!s && f != MMX__FAULT_CLEAR)
        *out = (mmx__fault){(mmx__fault_kind)(f >> 32), (mmx_index)(uint32_t)f};
    return s;
}
