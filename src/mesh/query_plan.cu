/* The device stages of query plans (query_plan.c has the flow and the host statement). One
 * thread per vertex for the fans and the vertex rows' sources (creation), per entry for the
 * vertex rows (a run: a gather at the entry's source), per face for FF, per edge for EF, per
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

/* Rows 0 .. rows of EF or FF, one thread a row; thread `rows` writes the last row pointer.
 * A warp's rows are one contiguous span of the result, so each thread writes its row into
 * the warp's part of shared memory and the warp then stores the span in order: coalesced
 * stores, where a thread's own row would scatter each store over the warp's span. A span
 * longer than the stage (rows on edges of many faces) is written directly. ROW is a functor:
 * at(P, j) the start of row j (j <= rows), row(P, j, out, n) the row's n entries. */
constexpr int kStage = 256; /* entries a warp stages: 8 warps, 8 KiB a block */

template <int ORDER, typename ROW>
__device__ __forceinline__ void plan_rows(const mmx__qplan &P0, long long rows, ROW R,
                                          mmx_index *rowptr, mmx_index *colidx)
{
    __shared__ mmx_index stage[MMX__BLOCK / 32][kStage];
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const long long w0 = i - lane;
    if (w0 > rows) return; /* the whole warp */
    const mmx__qplan P = plan_of<ORDER>(P0);
    const long long w1 = w0 + 32 < rows ? w0 + 32 : rows;
    const mmx_index base = R.at(P, w0), span = R.at(P, w1) - base;
    const bool staged = colidx && span <= kStage;
    if (i <= rows) {
        const mmx_index a = R.at(P, i);
        rowptr[i] = a;
        if (i < rows && colidx)
            R.row(P, (mmx_index)i, staged ? stage[w] + (a - base) : colidx + a, R.at(P, i + 1) - a);
    }
    if (!staged) return;
    __syncwarp();
    for (mmx_index q = lane; q < span; q += 32) colidx[base + q] = stage[w][q];
}

/* Vertex v's sources (creation): VF's, and VV's when vsrc is not NULL. */
template <int ORDER>
__global__ void plan_sources(const mmx__qplan P0, mmx_index *fsrc, mmx_index *vsrc)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= P0.nv) return;
    const mmx__qplan P = plan_of<ORDER>(P0);
    const mmx_index v = (mmx_index)i, a = P.vf_ptr[v];
    mmx__qplan_vertex_sources(&P, 0, v, fsrc + a, P.vf_ptr[v + 1] - a);
    if (!vsrc) return;
    const mmx_index b = P.vv_ptr[v];
    mmx__qplan_vertex_sources(&P, 1, v, vsrc + b, P.vv_ptr[v + 1] - b);
}

/* A vertex query's run: thread i writes entry i from its source (i < total) and row pointer
 * i (i <= nv). Every read of src and write of rowptr and colidx is coalesced; the read at the
 * source (M, fe; nothing for VF) is a gather whose locality follows the mesh's order; no
 * thread waits on another's load. */
template <int ORDER, mmx_query_kind KIND>
__global__ void plan_vertex_rows(const mmx__qplan P0, const mmx_index *ptr, const mmx_index *src,
                                 long long total, mmx_index *rowptr, mmx_index *colidx)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    const mmx__qplan P = plan_of<ORDER>(P0);
    if (i <= P.nv) rowptr[i] = ptr[i];
    if (i < total) colidx[i] = mmx__qplan_vertex_entry(&P, KIND, src[i]);
}

struct ef_rows {
    __device__ mmx_index at(const mmx__qplan &P, long long j) const
    {
        return mmx__qplan_ef_at(&P, (mmx_index)j);
    }
    __device__ void row(const mmx__qplan &P, mmx_index e, mmx_index *out, mmx_index) const
    {
        mmx__qplan_ef_row(&P, e, out);
    }
};

struct ff_rows {
    __device__ mmx_index at(const mmx__qplan &P, long long j) const
    {
        return mmx__qplan_ff_at(&P, (mmx_index)j);
    }
    __device__ void row(const mmx__qplan &P, mmx_index f, mmx_index *out, mmx_index) const
    {
        mmx__qplan_ff_row(&P, f, out);
    }
};

template <int ORDER>
__global__ void plan_ef_rows(const mmx__qplan P, mmx_index *rowptr, mmx_index *colidx)
{
    plan_rows<ORDER>(P, P.ne, ef_rows{}, rowptr, colidx);
}

template <int ORDER>
__global__ void plan_ff_rows(const mmx__qplan P, mmx_index *rowptr, mmx_index *colidx)
{
    plan_rows<ORDER>(P, P.nf, ff_rows{}, rowptr, colidx);
}

template <int ORDER>
void launch_rows(const mmx__qplan *P, mmx_query_kind kind, long long total, mmx_index *rowptr,
                 mmx_index *colidx, cudaStream_t st)
{
    /* A vertex query's entries: vv_ptr[nv] or vf_ptr[nv], known on the host as the result's
     * size (nnz, or the VV total the plan read back); colidx is NULL only when there are none. */
    const long long nv1 = (long long)P->nv + 1;
    const long long tv = colidx ? total : 0;
    const unsigned gv = mmx__grid(tv > nv1 ? tv : nv1);
    switch (kind) {
    case MMX_QUERY_VV:
        plan_vertex_rows<ORDER, MMX_QUERY_VV><<<gv, MMX__BLOCK, 0, st>>>(*P, P->vv_ptr, P->vsrc, tv,
                                                                         rowptr, colidx);
        break;
    case MMX_QUERY_VE:
        plan_vertex_rows<ORDER, MMX_QUERY_VE><<<gv, MMX__BLOCK, 0, st>>>(*P, P->vv_ptr, P->vsrc, tv,
                                                                         rowptr, colidx);
        break;
    case MMX_QUERY_VF:
        plan_vertex_rows<ORDER, MMX_QUERY_VF><<<gv, MMX__BLOCK, 0, st>>>(*P, P->vf_ptr, P->fsrc, tv,
                                                                         rowptr, colidx);
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

extern "C" mmx_status mmx__qplan_sources_cuda(mmx_ctx *ctx, const mmx__qplan *P, mmx_index *fsrc,
                                              mmx_index *vsrc)
{
    if (P->nv == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const unsigned g = mmx__grid(P->nv);
    if (P->order == 3) plan_sources<3><<<g, MMX__BLOCK, 0, st>>>(*P, fsrc, vsrc);
    else if (P->order == 4) plan_sources<4><<<g, MMX__BLOCK, 0, st>>>(*P, fsrc, vsrc);
    else plan_sources<0><<<g, MMX__BLOCK, 0, st>>>(*P, fsrc, vsrc);
    return mmx__cuda(ctx, cudaGetLastError(), "query plan sources launch");
}

extern "C" mmx_status mmx__qplan_run_cuda(mmx_ctx *ctx, const mmx__qplan *P, mmx_query_kind kind,
                                          mmx_index total, mmx_index *rowptr, mmx_index *colidx)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (kind != MMX_QUERY_VV && kind != MMX_QUERY_VE && kind != MMX_QUERY_VF &&
        kind != MMX_QUERY_EF && kind != MMX_QUERY_FF)
        return mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx__qplan_run_cuda: query %s is a copy",
                         mmx_query_name(kind));
    if (P->order == 3) launch_rows<3>(P, kind, total, rowptr, colidx, st);
    else if (P->order == 4) launch_rows<4>(P, kind, total, rowptr, colidx, st);
    else launch_rows<0>(P, kind, total, rowptr, colidx, st);
    return mmx__cuda(ctx, cudaGetLastError(), "query plan rows launch");
}
