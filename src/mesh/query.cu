/* The device stages of the queries (host statement and the flow: query.c). One thread per
 * source element: per corner for FE and the sort's input, per edge for the orientation check,
 * per vertex for the vertex rows' counts and walks, per face for FF. The corners are put in
 * key order by a stable radix sort (core/cub.cuh), so each key's corners keep their ascending
 * order, as the host's counting sort gives them. Sums and the first fault fold by atomics,
 * which give the same result in any order. Everything is queued; nothing waits. */
#include <cuda/functional>
#include <cuda/std/functional>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "query_steps.h"

namespace {

using Topo = mmx__query_topo;

__global__ void fe_edges(const mmx_index *fe, mmx_index nnz, mmx_index *out)
{
    const long long c = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (c < nnz) out[c] = fe[c] >> 1;
}

/* The sort's input: each corner's key (its edge or its vertex) and its number. */
__global__ void sort_input(const Topo T, int by_edge, unsigned *keys, mmx_index *corner)
{
    const long long c = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (c >= T.nnz) return;
    keys[c] = (unsigned)(by_edge ? T.fe[c] >> 1 : T.M[c]);
    corner[c] = (mmx_index)c;
}

/* The sorted corners' faces and/or numbers. */
__global__ void sort_output(const Topo T, const mmx_index *sorted, mmx_index *faces,
                           mmx_index *corners)
{
    const long long t = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (t >= T.nnz) return;
    const mmx_index c = sorted[t];
    if (corners) corners[t] = c;
    if (faces) {
        mmx_index a, n;
        faces[t] = mmx__corner_face(T.order, T.colptr, T.nf, c, &a, &n);
    }
}

/* The smallest inconsistent edge, as the rank ne - e folded by maximum. */
__global__ void check(const Topo T, const mmx_index *ev, mmx_index ne, mmx__query_report *r)
{
    const long long e = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    mmx_index rank = 0;
    if (e < ne && mmx__query_inconsistent(&T, ev, (mmx_index)e)) rank = ne - (mmx_index)e;
    rank = mmx__block_reduce(rank, cuda::maximum<>{});
    if (threadIdx.x == 0 && rank > 0) atomicMax(&r->bad_rank, rank);
}

/* Row lengths, and their sum (per block, then one atomic). */
__global__ void counts(const Topo T, mmx_query_kind kind, mmx_index *cnt, mmx__query_report *r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned long long n = 0;
    if (kind == MMX_QUERY_FF) {
        if (i < T.nf) {
            const int64_t k = mmx__query_ff_count(&T, (mmx_index)i);
            cnt[i] = (mmx_index)k; /* wraps only when the total is refused */
            n = (unsigned long long)k;
        }
    } else if (i < T.nv) {
        mmx_index opens;
        cnt[i] = mmx__query_vertex_count(&T, kind, (mmx_index)i, &opens);
        n = (unsigned long long)(T.Lptr[i + 1] - T.Lptr[i]) +
            (kind == MMX_QUERY_VF ? 0ull : (unsigned long long)opens);
    }
    n = mmx__block_reduce(n, cuda::std::plus<unsigned long long>{});
    if (threadIdx.x == 0 && n) atomicAdd(&r->total, n);
}

__global__ void fill(const Topo T, mmx_query_kind kind, const mmx_index *ef_ptr,
                     const mmx_index *ef, unsigned char *seen, const mmx_index *rowptr,
                     mmx_index *colidx)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (kind == MMX_QUERY_FF) {
        if (i < T.nf) mmx__query_ff_row(&T, ef_ptr, ef, (mmx_index)i, colidx + rowptr[i]);
    } else if (i < T.nv) {
        mmx__query_vertex_row(&T, kind, (mmx_index)i, seen, colidx + rowptr[i],
                              rowptr[i + 1] - rowptr[i]);
    }
}

} // namespace

extern "C" mmx_status mmx__query_fe_cuda(mmx_ctx *ctx, const mmx_index *fe, mmx_index nnz,
                                          mmx_index *out)
{
    if (nnz == 0) return MMX_OK;
    fe_edges<<<mmx__grid(nnz), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(fe, nnz, out);
    return mmx__cuda(ctx, cudaGetLastError(), "fe_edges launch");
}

extern "C" mmx_status mmx__query_sort_corners_cuda(mmx_ctx *ctx, const mmx__query_topo *T,
                                                   int by_edge, mmx_index nkeys,
                                                   mmx_index *faces, mmx_index *corners)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index nnz = T->nnz;
    if (nnz == 0) return MMX_OK;
    unsigned *keys[2] = {NULL, NULL};
    mmx_index *vals[2] = {NULL, NULL};
    int cur = 0;
    const int bits = mmx__bits_for(nkeys > 0 ? nkeys - 1 : 0);
    mmx_status s = MMX_OK;
    for (int b = 0; b < 2 && !s; b++) {
        s = mmx__dev_alloc(ctx, (size_t)nnz * sizeof *keys[b], (void **)&keys[b]);
        if (!s) s = mmx__dev_alloc(ctx, (size_t)nnz * sizeof *vals[b], (void **)&vals[b]);
    }
    if (!s) {
        sort_input<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(*T, by_edge, keys[0], vals[0]);
        s = mmx__cuda(ctx, cudaGetLastError(), "sort_input launch");
    }
    if (!s) s = mmx__sort_pairs(ctx, keys, vals, nnz, bits > 0 ? bits : 1, &cur);
    if (!s) {
        sort_output<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(*T, vals[cur], faces, corners);
        s = mmx__cuda(ctx, cudaGetLastError(), "sort_output launch");
    }
    for (int b = 0; b < 2; b++) {
        mmx__dev_free(ctx, keys[b]);
        mmx__dev_free(ctx, vals[b]);
    }
    return s;
}

extern "C" mmx_status mmx__query_check_cuda(mmx_ctx *ctx, const mmx__query_topo *T,
                                            const mmx_index *ev, mmx_index ne,
                                            mmx__query_report *report)
{
    if (ne == 0) return MMX_OK;
    check<<<mmx__grid(ne), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*T, ev, ne, report);
    return mmx__cuda(ctx, cudaGetLastError(), "query check launch");
}

extern "C" mmx_status mmx__query_counts_cuda(mmx_ctx *ctx, const mmx__query_topo *T,
                                             mmx_query_kind kind, mmx_index *cnt,
                                             mmx__query_report *report)
{
    const mmx_index rows = kind == MMX_QUERY_FF ? T->nf : T->nv;
    if (rows == 0) return MMX_OK;
    counts<<<mmx__grid(rows), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*T, kind, cnt, report);
    return mmx__cuda(ctx, cudaGetLastError(), "query counts launch");
}

extern "C" mmx_status mmx__query_fill_cuda(mmx_ctx *ctx, const mmx__query_topo *T,
                                           mmx_query_kind kind, const mmx_index *ef_ptr,
                                           const mmx_index *ef, unsigned char *seen,
                                           const mmx_index *rowptr, mmx_index *colidx)
{
    const mmx_index rows = kind == MMX_QUERY_FF ? T->nf : T->nv;
    if (rows == 0) return MMX_OK;
    fill<<<mmx__grid(rows), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*T, kind, ef_ptr, ef, seen,
                                                                       rowptr, colidx);
    return mmx__cuda(ctx, cudaGetLastError(), "query fill launch");
}
