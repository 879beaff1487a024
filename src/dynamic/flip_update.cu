/* The topology after a flip round on the device (host statement: flip_update.c; the steps are
 * flip_step.h's, the same code): the removed edges flagged and scanned, the added keys sorted
 * by CUB's radix sort, then one thread per old edge, per added edge and per vertex moves each
 * into the new numbering, and one per kept flip fixes ef around its quad. Every thread writes
 * its own entries (the fixes write distinct slots: flip_step.h), so the result does not depend
 * on the order of the threads. Queued on the context's stream. */
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "dynamic_internal.h"

namespace {

__global__ void flag_removed(const mmx_index *kedge, mmx_index k, mmx_index *R)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j < k) R[kedge[j]] = 1;
}

__global__ void added_keys(const mmx__flip_view old, const mmx_index *kedge, mmx_index k,
                           uint64_t *keys)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j < k) keys[j] = mmx__fu_added_key(&old, kedge[j]);
}

__global__ void move_old(const mmx__flip_view old, const mmx_index *R, const uint64_t *added,
                         mmx_index k, mmx_index *ev, mmx_index *ef)
{
    const long long e = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (e < old.nedges && R[e + 1] == R[e]) mmx__fu_move_old(&old, (mmx_index)e, R, added, k, ev, ef);
}

__global__ void move_added(const mmx__flip_view old, const mmx_index *R, const uint64_t *added,
                           mmx_index k, mmx_index *ev)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j < k) mmx__fu_move_added(&old, (mmx_index)j, R, added, ev);
}

__global__ void edge_ptrs(const mmx__flip_view old, const mmx_index *R, const uint64_t *added,
                          mmx_index k, mmx_index *edge_ptr)
{
    const long long v = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (v <= old.nverts) edge_ptr[v] = mmx__fu_edge_ptr(&old, (mmx_index)v, R, added, k);
}

__global__ void fix(const mmx__flip_view old, const mmx_index *kedge, mmx_index k,
                    const mmx__flip_view nv, mmx_index *ef)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j < k) mmx__fu_fix(&old, kedge[j], &nv, ef);
}

} // namespace

extern "C" mmx_status mmx__flip_update_cuda(mmx_ctx *ctx, const mmx__flip_view *old,
                                            const mmx_index *kedge, mmx_index k,
                                            const mmx_index *verts, mmx_index *edge_ptr,
                                            mmx_index *ev, mmx_index *ef, mmx__flip_view *out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index ne = old->nedges;
    *out = mmx__flip_view{old->nverts, old->nfaces, ne, verts, edge_ptr, ev, ef};
    mmx_index *R = nullptr;
    uint64_t *keys[2] = {nullptr, nullptr};
    const size_t kk = (size_t)k + 1;
    mmx_status s = mmx__dev_alloc(ctx, ((size_t)ne + 1) * sizeof *R, (void **)&R);
    if (!s) s = mmx__dev_alloc(ctx, kk * sizeof(uint64_t), (void **)&keys[0]);
    if (!s) s = mmx__dev_alloc(ctx, kk * sizeof(uint64_t), (void **)&keys[1]);
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(R, 0, ((size_t)ne + 1) * sizeof *R, st));
    if (!s && k > 0) {
        flag_removed<<<mmx__grid(k), MMX__BLOCK, 0, st>>>(kedge, k, R);
        s = mmx__cuda(ctx, cudaGetLastError(), "flag_removed launch");
    }
    if (!s) s = mmx__scan_exclusive(ctx, R, (int64_t)ne + 1, R); /* R[e]: removed before e */
    if (!s && k > 0) {
        added_keys<<<mmx__grid(k), MMX__BLOCK, 0, st>>>(*old, kedge, k, keys[0]);
        s = mmx__cuda(ctx, cudaGetLastError(), "added_keys launch");
    }
    int cur = 0;
    if (!s && k > 1) {
        cub::DoubleBuffer<uint64_t> db(keys[0], keys[1]);
        s = mmx__cub_run(ctx, "cub::DeviceRadixSort::SortKeys", [&](void *tmp, size_t &bytes) {
            return cub::DeviceRadixSort::SortKeys(tmp, bytes, db, (long long)k, 0, 64, st);
        });
        cur = db.selector;
    }
    const uint64_t *added = keys[cur];
    if (!s && ne > 0) {
        move_old<<<mmx__grid(ne), MMX__BLOCK, 0, st>>>(*old, R, added, k, ev, ef);
        s = mmx__cuda(ctx, cudaGetLastError(), "move_old launch");
    }
    if (!s && k > 0) {
        move_added<<<mmx__grid(k), MMX__BLOCK, 0, st>>>(*old, R, added, k, ev);
        s = mmx__cuda(ctx, cudaGetLastError(), "move_added launch");
    }
    if (!s) {
        edge_ptrs<<<mmx__grid((long long)old->nverts + 1), MMX__BLOCK, 0, st>>>(*old, R, added, k, edge_ptr);
        s = mmx__cuda(ctx, cudaGetLastError(), "edge_ptrs launch");
    }
    if (!s && k > 0) {
        fix<<<mmx__grid(k), MMX__BLOCK, 0, st>>>(*old, kedge, k, *out, ef);
        s = mmx__cuda(ctx, cudaGetLastError(), "fix launch");
    }
    mmx__dev_free(ctx, R);
    mmx__dev_free(ctx, keys[0]);
    mmx__dev_free(ctx, keys[1]);
    return s;
}
