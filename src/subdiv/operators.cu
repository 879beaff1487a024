/* The device half of the level operators (operators.c holds the flow and the host loops):
 * FE's rows, the identity's rows and the weight tables, one thread per element, each using the
 * rules.h's rules through the table entries subdiv_internal.h shares with the host. Queued on
 * the context's stream: nothing is read back, so nothing waits. */
#include "core/launch.cuh"
#include "subdiv_internal.h"

namespace {

__global__ void fe_rows(const mmx_index *fe, mmx_index nnz, mmx_index *rows)
{
    long long q = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (q < nnz) rows[q] = fe[q] >> 1;
}

__global__ void iota(mmx_index n, mmx_index *out)
{
    long long v = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (v < n) out[v] = (mmx_index)v;
}

__global__ void vertex_tables(mmx_scheme scheme, const mmx__subdiv_sharp sh, int level,
                              mmx_index nv, const mmx_index *valence,
                              const unsigned char *boundary, float *self, float *ring,
                              float *crease)
{
    long long v = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (v < nv)
        mmx__subdiv_vertex_tables(scheme, &sh, level, valence, boundary, (mmx_index)v, self, ring,
                                  crease);
}

__global__ void edge_tables(mmx_scheme scheme, mmx_index ne, const mmx_index *sides, float *ends,
                            float *faces)
{
    long long e = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (e < ne) mmx__subdiv_edge_tables(scheme, sides, (mmx_index)e, ends, faces);
}

/* Launch errors; the kernels' own show at the next call that waits for the stream. */
mmx_status finish(mmx_ctx *ctx)
{
    return MMX__CUDA(ctx, cudaGetLastError());
}

} // namespace

extern "C" mmx_status mmx__subdiv_fe_rows_cuda(mmx_ctx *ctx, const mmx_index *fe, mmx_index nnz,
                                               mmx_index *rows)
{
    if (nnz == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    fe_rows<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(fe, nnz, rows);
    return finish(ctx);
}

extern "C" mmx_status mmx__subdiv_iota_cuda(mmx_ctx *ctx, mmx_index n, mmx_index *out)
{
    if (n == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    iota<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(n, out);
    return finish(ctx);
}

extern "C" mmx_status mmx__subdiv_tables_cuda(mmx_ctx *ctx, mmx__subdiv_ops *ops)
{
    const mmx_adjacency *adj = ops->adj;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    if (adj->nverts)
        vertex_tables<<<mmx__grid(adj->nverts), MMX__BLOCK, 0, st>>>(
            ops->scheme, ops->sharp, ops->level, adj->nverts, adj->valence, adj->boundary,
            ops->w_self, ops->w_ring, ops->w_crease);
    if (adj->nedges)
        edge_tables<<<mmx__grid(adj->nedges), MMX__BLOCK, 0, st>>>(ops->scheme, adj->nedges,
                                                                adj->sides, ops->w_ends,
                                                                ops->w_faces);
    return finish(ctx);
}
