/* The device stages of query plans (query_plan.c has the flow and the host statement). One
 * thread per vertex for the fans and the vertex rows, per face for FF, per edge for EF, per
 * corner for the edges' smallest corners (an atomic minimum: the same in any order). The
 * totals fold per block, then by one atomic each. Everything is queued; nothing waits. */
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "query_steps.h"

namespace {

using Topo = mmx__query_topo;

__global__ void plan_count(const Topo T, unsigned char *seen, mmx_index *vstart, mmx_index *vv_len,
                           mmx_index *fan_len, mmx_index *ff_len, mmx_index *ecorner,
                           mmx__qplan_report *r)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned long long vv = 0, ff = 0, fans = 0;
    if (i < T.nv) {
        const mmx_index v = (mmx_index)i;
        mmx_index first = -1, opens;
        const mmx_index n = mmx__query_vertex_starts(&T, v, seen, &first, 1);
        vstart[v] = n ? first : -1;
        vv_len[v] = mmx__query_vertex_count(&T, MMX_QUERY_VV, v, &opens);
        fan_len[v] = n > 1 ? n + 1 : 0;
        vv = (unsigned long long)(T.Lptr[v + 1] - T.Lptr[v]) + (unsigned long long)opens;
        fans = (unsigned long long)fan_len[v];
    }
    if (i < T.nf) {
        const int64_t n = mmx__query_ff_count(&T, (mmx_index)i);
        ff_len[i] = (mmx_index)n; /* wraps only when the total is refused */
        ff = (unsigned long long)n;
    }
    if (i < T.nnz) atomicMin((unsigned *)ecorner + (T.fe[i] >> 1), (unsigned)i);
    vv = mmx__block_reduce(vv, cuda::std::plus<unsigned long long>{});
    if (threadIdx.x == 0 && vv) atomicAdd(&r->vv_total, vv);
    ff = mmx__block_reduce(ff, cuda::std::plus<unsigned long long>{});
    if (threadIdx.x == 0 && ff) atomicAdd(&r->ff_total, ff);
    fans = mmx__block_reduce(fans, cuda::std::plus<unsigned long long>{});
    if (threadIdx.x == 0 && fans) atomicAdd(&r->fans_total, fans);
}

__global__ void plan_fans(const Topo T, unsigned char *seen, const mmx_index *fan_ptr,
                          mmx_index *vstart, mmx_index *fans)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= T.nv) return;
    const mmx_index v = (mmx_index)i, o = fan_ptr[v], n = fan_ptr[v + 1] - o - 1;
    if (n < 1) return;
    fans[o] = n;
    mmx__query_vertex_starts(&T, v, seen, fans + o + 1, n);
    vstart[v] = -2 - o;
}

/* The plan as a kernel reads it: a copy whose face order is the template's constant when it
 * is 3 or 4 (ORDER 0: as stored), so that a corner's face is a division by a constant. */
template <int ORDER>
__device__ __forceinline__ mmx__qplan plan_of(const mmx__qplan &P)
{
    mmx__qplan L = P;
    if (ORDER) L.order = ORDER;
    return L;
}

/* Rows 0 .. rows of a query; thread `rows` writes the last row pointer. */
template <int ORDER, mmx_query_kind KIND>
__global__ void plan_vertex_rows(const mmx__qplan P0, const mmx_index *ptr, mmx_index *rowptr,
                                 mmx_index *colidx)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i > P0.nv) return;
    const mmx__qplan P = plan_of<ORDER>(P0);
    const mmx_index a = ptr[i];
    rowptr[i] = a;
    if (i < P.nv && colidx) mmx__qplan_vertex_row(&P, KIND, (mmx_index)i, colidx + a, ptr[i + 1] - a);
}

template <int ORDER>
__global__ void plan_ef_rows(const mmx__qplan P0, mmx_index *rowptr, mmx_index *colidx)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i > P0.ne) return;
    const mmx__qplan P = plan_of<ORDER>(P0);
    const mmx_index a = mmx__qplan_ef_at(&P, (mmx_index)i);
    rowptr[i] = a;
    if (i < P.ne && colidx) mmx__qplan_ef_row(&P, (mmx_index)i, colidx + a);
}

template <int ORDER>
__global__ void plan_ff_rows(const mmx__qplan P0, mmx_index *rowptr, mmx_index *colidx)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i > P0.nf) return;
    const mmx__qplan P = plan_of<ORDER>(P0);
    const mmx_index a = mmx__qplan_ff_at(&P, (mmx_index)i);
    rowptr[i] = a;
    if (i < P.nf && colidx) mmx__qplan_ff_row(&P, (mmx_index)i, colidx + a);
}

template <int ORDER>
void launch_rows(const mmx__qplan *P, mmx_query_kind kind, mmx_index *rowptr, mmx_index *colidx,
                 cudaStream_t st)
{
    const unsigned gv = mmx__grid((long long)P->nv + 1);
    switch (kind) {
    case MMX_QUERY_VV:
        plan_vertex_rows<ORDER, MMX_QUERY_VV><<<gv, MMX__BLOCK, 0, st>>>(*P, P->vv_ptr, rowptr, colidx);
        break;
    case MMX_QUERY_VE:
        plan_vertex_rows<ORDER, MMX_QUERY_VE><<<gv, MMX__BLOCK, 0, st>>>(*P, P->vv_ptr, rowptr, colidx);
        break;
    case MMX_QUERY_VF:
        plan_vertex_rows<ORDER, MMX_QUERY_VF><<<gv, MMX__BLOCK, 0, st>>>(*P, P->vf_ptr, rowptr, colidx);
        break;
    case MMX_QUERY_EF:
        plan_ef_rows<ORDER><<<mmx__grid((long long)P->ne + 1), MMX__BLOCK, 0, st>>>(*P, rowptr, colidx);
        break;
    default: /* FF */
        plan_ff_rows<ORDER><<<mmx__grid((long long)P->nf + 1), MMX__BLOCK, 0, st>>>(*P, rowptr, colidx);
        break;
    }
}

} // namespace

extern "C" mmx_status mmx__qplan_count_cuda(mmx_ctx *ctx, const mmx__query_topo *T,
                                            unsigned char *seen, mmx_index *vstart,
                                            mmx_index *vv_len, mmx_index *fan_len,
                                            mmx_index *ff_len, mmx_index *ecorner, mmx_index ne,
                                            mmx__qplan_report *r)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    long long n = T->nv > T->nf ? T->nv : T->nf;
    if (T->nnz > n) n = T->nnz;
    mmx_status s = MMX_OK;
    if (ne) s = mmx__cuda(ctx, cudaMemsetAsync(ecorner, 0xff, (size_t)ne * sizeof *ecorner, st),
                          "ecorner reset");
    if (s || n == 0) return s;
    plan_count<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(*T, seen, vstart, vv_len, fan_len, ff_len,
                                                     ecorner, r);
    return mmx__cuda(ctx, cudaGetLastError(), "query plan count launch");
}

extern "C" mmx_status mmx__qplan_fans_cuda(mmx_ctx *ctx, const mmx__query_topo *T,
                                           unsigned char *seen, const mmx_index *fan_ptr,
                                           mmx_index *vstart, mmx_index *fans)
{
    if (T->nv == 0) return MMX_OK;
    plan_fans<<<mmx__grid(T->nv), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*T, seen, fan_ptr,
                                                                              vstart, fans);
    return mmx__cuda(ctx, cudaGetLastError(), "query plan fans launch");
}

extern "C" mmx_status mmx__qplan_run_cuda(mmx_ctx *ctx, const mmx__qplan *P, mmx_query_kind kind,
                                          mmx_index *rowptr, mmx_index *colidx)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (kind != MMX_QUERY_VV && kind != MMX_QUERY_VE && kind != MMX_QUERY_VF &&
        kind != MMX_QUERY_EF && kind != MMX_QUERY_FF)
        return mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx__qplan_run_cuda: query %s is a copy",
                         mmx_query_name(kind));
    if (P->order == 3) launch_rows<3>(P, kind, rowptr, colidx, st);
    else if (P->order == 4) launch_rows<4>(P, kind, rowptr, colidx, st);
    else launch_rows<0>(P, kind, rowptr, colidx, st);
    return mmx__cuda(ctx, cudaGetLastError(), "query plan rows launch");
}
