/* The device stages of the adjacency (host statement and the flow: adjacency.c). One thread per
 * column of E for the edges; for the corners one per face of a reduced quad mesh (one 16-byte
 * load and store per quad), else one per corner; one per vertex for the counts. Every count is
 * reduced per block first. */
#include <climits>
#include <cuda/functional>
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "mesh_internal.h"
#include "spla/spla_internal.h"

namespace {

using Counts = mmx__adjacency_counts; /* every field folds from 0: mesh_internal.h */

/* edge_ptr[j] = rows i < j in column j of E (edge_ptr[nv] is left 0 for the scan). */
__global__ void upper_counts(const mmx_csc E, mmx_index *edge_ptr)
{
    long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= E.nrows) return;
    mmx_index a = E.colptr[j];
    edge_ptr[j] = mmx__lower_bound(E.rowidx, a, E.colptr[j + 1], (mmx_index)j) - a;
}

__global__ void edges(const mmx_csc E, const mmx_index *edge_ptr, mmx_index *ev, mmx_index *sides,
                      unsigned char *boundary, Counts *counts)
{
    long long jj = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    int nb = 0, nm = 0;
    if (jj == E.nrows - 1) counts->nedges = edge_ptr[jj + 1];
    if (jj < E.nrows) {
        mmx_index j = (mmx_index)jj, e = edge_ptr[j];
        for (mmx_index q = E.colptr[j]; q < E.colptr[j + 1] && E.rowidx[q] < j; q++, e++) {
            mmx_index i = E.rowidx[q], v = E.val[q];
            reinterpret_cast<int2 *>(ev)[e] = make_int2(i, j);
            sides[e] = v;
            if (v == 1) {
                nb++;
                boundary[i] = 1; /* every writer writes 1: the race is harmless */
                boundary[j] = 1;
            } else if (v >= 3) {
                nm++;
            }
        }
    }
    nb = mmx__block_reduce(nb, cuda::std::plus<int>{});
    nm = mmx__block_reduce(nm, cuda::std::plus<int>{});
    if (threadIdx.x == 0) {
        if (nb) atomicAdd(&counts->boundary_edges, nb);
        if (nm) atomicAdd(&counts->nonmanifold_edges, nm);
    }
}

/* The directed edge of the corner v -> w. Returns false if E does not hold it. */
__device__ __forceinline__ bool corner_edge(const mmx_csc &E, const mmx_index *edge_ptr, mmx_index v,
                                            mmx_index w, mmx_index &fe)
{
    mmx_index lo = min(v, w), hi = max(v, w);
    mmx_index a = E.colptr[hi], b = E.colptr[hi + 1];
    mmx_index q = mmx__lower_bound(E.rowidx, a, b, lo);
    fe = 2 * (edge_ptr[hi] + (q - a)) + (v < w ? 0 : 1);
    return lo != hi && q < b && E.rowidx[q] == lo; /* v -> v is no edge (only a view can hold it) */
}

/* C = 4: one thread per face of a reduced quad mesh, read and written 16 bytes at a time;
 * C = 0: one thread per corner, any form. */
template <int C>
__global__ void corners(const mmx_csc M, const mmx_csc E, const mmx_index *edge_ptr, mmx_index *fe,
                        mmx_index *valence, Counts *counts)
{
    long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (k >= (C == 4 ? M.ncols : M.nnz)) return;
    bool ok = true;
    if constexpr (C == 4) {
        int4 f = reinterpret_cast<const int4 *>(M.rowidx)[k];
        int4 r;
        ok &= corner_edge(E, edge_ptr, f.x, f.y, r.x);
        ok &= corner_edge(E, edge_ptr, f.y, f.z, r.y);
        ok &= corner_edge(E, edge_ptr, f.z, f.w, r.z);
        ok &= corner_edge(E, edge_ptr, f.w, f.x, r.w);
        reinterpret_cast<int4 *>(fe)[k] = r;
        atomicAdd(&valence[f.x], 1);
        atomicAdd(&valence[f.y], 1);
        atomicAdd(&valence[f.z], 1);
        atomicAdd(&valence[f.w], 1);
    } else {
        /* k is a corner: its face found by a binary search of colptr, so that a face of any
         * order is spread over many threads. */
        const mmx_index x = (mmx_index)k, f = mmx__csc_col_of(&M, k);
        const mmx_index s = M.order ? M.order * f : M.colptr[f];
        const mmx_index n = M.order ? M.order : M.colptr[f + 1] - s;
        const mmx_index v = M.rowidx[x], w = x + 1 < s + n ? M.rowidx[x + 1] : M.rowidx[s];
        ok = corner_edge(E, edge_ptr, v, w, fe[x]);
        atomicAdd(&valence[v], 1);
        if (x == s) { /* the face's first corner speaks for its order */
            const mmx_index n0 = M.order ? M.order : M.colptr[1] - M.colptr[0];
            if (f == 0) counts->first_order = n;
            else if (n != n0) atomicOr(&counts->mixed_orders, 1);
        }
    }
    if constexpr (C == 4)
        if (k == 0) counts->first_order = 4;
    if (!ok) atomicOr(&counts->fault, 1);
}

__global__ void vertices(mmx_index nv, const mmx_index *valence, const unsigned char *boundary,
                         Counts *counts)
{
    long long v = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    int nb = 0, mv = 0;
    if (v < nv) {
        nb = boundary[v];
        mv = valence[v];
    }
    nb = mmx__block_reduce(nb, cuda::std::plus<int>{});
    mv = mmx__block_reduce(mv, cuda::maximum<>{});
    if (threadIdx.x == 0) {
        if (nb) atomicAdd(&counts->boundary_verts, nb);
        if (mv > counts->max_valence) atomicMax(&counts->max_valence, mv); /* rarely: one address */
    }
}

} // namespace

extern "C" mmx_status mmx__adjacency_fill_cuda(mmx_ctx *ctx, const mmx_csc *M, mmx_adjacency *adj,
                                               Counts *counts)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index nv = adj->nverts;
    const mmx_csc &E = *adj->E; /* its arrays only: nnz comes with the read-back */
    mmx_index *edge_ptr = adj->edge_ptr;
    mmx_status s = MMX__CUDA(ctx, cudaMemsetAsync(edge_ptr + nv, 0, sizeof *edge_ptr, st));
    if (!s && nv > 0) {
        upper_counts<<<mmx__grid(nv), MMX__BLOCK, 0, st>>>(E, edge_ptr);
        s = mmx__cuda(ctx, cudaGetLastError(), "upper_counts launch");
    }
    if (!s) s = mmx__scan_exclusive(ctx, edge_ptr, (int64_t)nv + 1, edge_ptr);
    if (!s && nv > 0) s = MMX__CUDA(ctx, cudaMemsetAsync(adj->boundary, 0, (size_t)nv, st));
    if (!s && nv > 0) s = MMX__CUDA(ctx, cudaMemsetAsync(adj->valence, 0, (size_t)nv * sizeof(mmx_index), st));
    if (!s && nv > 0) {
        edges<<<mmx__grid(nv), MMX__BLOCK, 0, st>>>(E, edge_ptr, adj->ev, adj->sides,
                                                 adj->boundary, counts);
        s = mmx__cuda(ctx, cudaGetLastError(), "edges launch");
    }
    if (!s && M->ncols > 0) {
        const bool quads = M->order == 4 && ((uintptr_t)M->rowidx & 15) == 0 && ((uintptr_t)adj->fe & 15) == 0;
        if (quads)
            corners<4><<<mmx__grid(M->ncols), MMX__BLOCK, 0, st>>>(*M, E, edge_ptr, adj->fe,
                                                                adj->valence, counts);
        else
            corners<0><<<mmx__grid(M->nnz), MMX__BLOCK, 0, st>>>(*M, E, edge_ptr, adj->fe,
                                                                adj->valence, counts);
        s = mmx__cuda(ctx, cudaGetLastError(), "corners launch");
    }
    if (!s && nv > 0) {
        vertices<<<mmx__grid(nv), MMX__BLOCK, 0, st>>>(nv, adj->valence, adj->boundary, counts);
        s = mmx__cuda(ctx, cudaGetLastError(), "vertices launch");
    }
    return s;
}
