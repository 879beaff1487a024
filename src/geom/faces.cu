/* The per-face geometry on the device (host statement: faces.c; the formulas are
 * mmx__geom_face in geom_internal.h, the same code on both backends): one thread per face,
 * which reads its column of M and its vertices' positions and writes its own outputs, so no
 * two threads write one value. Queued on the context's stream. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void face_kernel(const mmx_csc M, const float *pos, mmx__face_what what,
                                   float *out, float *out2)
{
    const int64_t f = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= M.ncols) return;
    int64_t a, b;
    mmx__csc_col(&M, (mmx_index)f, &a, &b);
    mmx__geom_face(pos, M.rowidx + a, a, b - a, (mmx_index)f, what, out, out2);
}

extern "C" mmx_status mmx__geom_faces_cuda(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                           mmx__face_what what, float *out, float *out2)
{
    if (M->ncols == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    face_kernel<<<mmx__grid(M->ncols), MMX__BLOCK, 0, st>>>(*M, pos, what, out, out2);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry face_kernel launch");
}
