/* The device half of the half-edge view (halfedge.h, halfedge.c): the host's loops as
 * kernels, the folds (sums, maxima, the first fault) done by atomics, which give the same
 * result in any order. Everything is queued on the context's stream; nothing waits. */
#include "core/launch.cuh"
#include "halfedge.h"

namespace {

__global__ void edge_sums(const mmx_index *fe, mmx_index nnz, unsigned long long *sum)
{
    const long long c = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (c < nnz) atomicAdd(sum + (fe[c] >> 1), (unsigned long long)c);
}

__global__ void mates(const mmx__halfedge H, const unsigned long long *sum)
{
    const long long c = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (c < H.nnz) H.mate[c] = mmx__he_mate(H.fe, H.sides, sum, (mmx_index)c);
}

/* rank + 1 per vertex, 0 meaning no corner, as on the host. */
__global__ void start_ranks(const mmx__halfedge H, unsigned long long *rank)
{
    const long long c = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (c < H.nnz) atomicMax(rank + H.M[c], mmx__he_start_rank(&H, (mmx_index)c) + 1);
}

/* Per vertex its start and its fan; per corner the inconsistent edges; the first fault of
 * each kind by an atomic minimum of the packed record. */
__global__ void fans(const mmx__halfedge H, const unsigned long long *rank)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < H.nnz) {
        const mmx_index m = H.mate[i];
        if (m >= 0 && m > i && H.fe[m] == H.fe[i])
            atomicMin(H.fault, (unsigned long long)MMX__FAULT_HALFEDGE_TWICE << 32 | (uint32_t)i);
    }
    if (i < H.nv) {
        const mmx_index v = (mmx_index)i;
        H.first[v] = rank[v] ? (mmx_index)(uint32_t)(rank[v] - 1) : -1;
        const int one = mmx__he_one_fan(&H, v);
        H.one_fan[v] = (unsigned char)one;
        if (!one) atomicMin(H.fault, (unsigned long long)MMX__FAULT_FANS << 32 | (uint32_t)v);
    }
}

} // namespace

extern "C" mmx_status mmx__halfedge_build_cuda(mmx_ctx *ctx, mmx__halfedge *H)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    unsigned long long *sum = NULL, *rank = NULL;
    const size_t ne = (size_t)H->ne, nv = (size_t)H->nv;
    const long long n = H->nnz > H->nv ? H->nnz : H->nv;
    /* The sums and the ranks in one allocation, zeroed at once: a small cage's view costs its
     * calls more than its bytes. */
    mmx_status s = mmx__dev_alloc(ctx, (ne + nv + 1) * sizeof *sum, (void **)&sum);
    if (!s) rank = sum + ne;
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(H->fault, 0xff, sizeof *H->fault, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(sum, 0, (ne + nv) * sizeof *sum, st));
    if (!s && n) {
        if (H->nnz) {
            edge_sums<<<mmx__grid(H->nnz), MMX__BLOCK, 0, st>>>(H->fe, H->nnz, sum);
            mates<<<mmx__grid(H->nnz), MMX__BLOCK, 0, st>>>(*H, sum);
            start_ranks<<<mmx__grid(H->nnz), MMX__BLOCK, 0, st>>>(*H, rank);
        }
        fans<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(*H, rank);
        s = MMX__CUDA(ctx, cudaGetLastError());
    }
    mmx__dev_free(ctx, sum); /* and rank */
    return s;
}
