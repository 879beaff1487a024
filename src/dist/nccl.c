/* NCCL for the partitioned mesh's device data: the communicator made from the MPI one, and the
 * all-to-all of the halo exchange as grouped point-to-point calls on the context's stream.
 * Compiled with NCCL only where the build found it (meson -Dnccl); otherwise the stubs below
 * say so and the exchange stages through host memory (dist_mesh.c). */
#include <stdlib.h>
#include "dist_internal.h"
#ifdef MMX_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

int mmx__dist_has_nccl(void)
{
    return 1;
}

static mmx_status nccl_fail(mmx_ctx *ctx, ncclResult_t r, const char *call)
{
    return mmx__fail(ctx, MMX_ERR_CUDA, "%s failed: %s", call, ncclGetErrorString(r));
}

mmx_status mmx__dist_nccl_init(mmx_ctx *ctx, mmx_dist *d)
{
    if (d->nccl) return MMX_OK;
    ncclUniqueId id;
    mmx_status s = MMX_OK;
    if (d->rank == 0) {
        const ncclResult_t r = ncclGetUniqueId(&id);
        if (r != ncclSuccess) s = nccl_fail(ctx, r, "ncclGetUniqueId");
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_bcast(ctx, d, &id, sizeof id, 0);
    if (s) return s;
    ncclComm_t comm = NULL;
    /* ncclCommInitRank binds the communicator to the current device: the context's. */
    if (cudaSetDevice(mmx_ctx_device(ctx)) != cudaSuccess)
        s = mmx__fail(ctx, MMX_ERR_CUDA, "cudaSetDevice(%d) failed", mmx_ctx_device(ctx));
    if (!s) {
        const ncclResult_t r = ncclCommInitRank(&comm, d->size, id, d->rank);
        if (r != ncclSuccess) s = nccl_fail(ctx, r, "ncclCommInitRank");
    }
    s = mmx_dist_agree(ctx, d, s);
    if (s) {
        if (comm) ncclCommDestroy(comm);
        return s;
    }
    d->nccl = comm;
    return MMX_OK;
}

mmx_status mmx__dist_nccl_alltoallv(mmx_ctx *ctx, mmx_dist *d, const void *send,
                                    const int64_t *scount, void *recv, const int64_t *rcount)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    ncclComm_t comm = (ncclComm_t)d->nccl;
    const char *sb = send;
    char *rb = recv;
    ncclResult_t r = ncclGroupStart();
    for (int q = 0; q < d->size && r == ncclSuccess; q++) {
        if (scount[q] > 0) r = ncclSend(sb, (size_t)scount[q], ncclChar, q, comm, st);
        if (r == ncclSuccess && rcount[q] > 0) r = ncclRecv(rb, (size_t)rcount[q], ncclChar, q, comm, st);
        sb += scount[q], rb += rcount[q];
    }
    const ncclResult_t e = ncclGroupEnd();
    if (r == ncclSuccess) r = e;
    return r == ncclSuccess ? MMX_OK : nccl_fail(ctx, r, "ncclSend/ncclRecv");
}

void mmx__dist_nccl_free(mmx_dist *d)
{
    if (d && d->nccl) ncclCommDestroy((ncclComm_t)d->nccl);
    if (d) d->nccl = NULL;
}

#else /* no NCCL */

int mmx__dist_has_nccl(void)
{
    return 0;
}
mmx_status mmx__dist_nccl_init(mmx_ctx *ctx, mmx_dist *d)
{
    (void)d;
    return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "this build has no NCCL (meson -Dnccl=enabled)");
}
mmx_status mmx__dist_nccl_alltoallv(mmx_ctx *ctx, mmx_dist *d, const void *send,
                                    const int64_t *scount, void *recv, const int64_t *rcount)
{
    (void)d, (void)send, (void)scount, (void)recv, (void)rcount;
    return mmx__fail(ctx, MMX_ERR_INTERNAL, "dist: NCCL code reached in a build without NCCL");
}
void mmx__dist_nccl_free(mmx_dist *d)
{
    (void)d;
}

#endif
