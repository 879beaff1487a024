/* The device half of the fused path (fused.h, fused.c): one kernel per level in which thread i
 * runs face i and vertex i with the rules shared with the host, a reduced quad's corners read
 * with 16-byte loads; and the input level's twins, owners and counts. The scan of the counts
 * is core/device.h's, block size and grid core/launch.cuh's. */
#include "core/launch.cuh"
#include "fused.h"

namespace {

/* A face's children's corners: 16 (Catmull-Clark) or 12 (Loop) indices at a 16-byte aligned
 * place, written with vector stores. */
__device__ __forceinline__ void store16(mmx_index *p, const mmx_index *x)
{
    int4 *q = reinterpret_cast<int4 *>(p);
    for (int i = 0; i < 4; i++) q[i] = make_int4(x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]);
}

__device__ __forceinline__ void store12(mmx_index *p, const mmx_index *x)
{
    int4 *q = reinterpret_cast<int4 *>(p);
    for (int i = 0; i < 3; i++) q[i] = make_int4(x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]);
}

/* ORDER 4 or 3 fixes the level's order at compile time (the corner arithmetic then folds), 0
 * reads general faces through colptr. CREASED: the level has creases (L.esharp), whose vertex
 * walk is a kernel of its own so that levels without keep the plain walk's registers. */
template <int SCHEME, int ORDER, bool CREASED>
__global__ void __launch_bounds__(MMX__BLOCK, 4) pass(const mmx__fz_in Lp, const mmx__fz_out O,
                                               long long n)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= n) return;
    mmx__fz_in L = Lp;
    L.order = ORDER;
    /* Constants the rules fold: the scheme (the Catmull-Clark kernel also runs bilinear, which
     * L.scheme tells apart) and a level without creases. */
    if (SCHEME != MMX_SCHEME_CATMULL_CLARK) L.scheme = (mmx_scheme)SCHEME;
    if (!CREASED) L.esharp = NULL;
    /* Threads below nf run a face, the others a vertex: two short chains of dependent loads
     * rather than one long one per thread. Catmull-Clark on general faces runs a corner per
     * thread below nnz instead, so that a face of any order is spread over many threads.
     * (i is compared in 64 bits: nnz + nv need not fit in 32.) */
    const long long items = SCHEME == MMX_SCHEME_CATMULL_CLARK && ORDER == 0 ? L.nnz : L.nf;
    const mmx_index f = (mmx_index)i; /* used only below items */
    if (i >= items) {
        const mmx_index v = (mmx_index)(i - items);
        mmx__fz_vertex_pass(&L, &O, v, CREASED);
        if (O.owner) O.owner[v] = mmx__fz_vertex_owner((mmx_scheme)SCHEME, L.owner[v]);
    } else if (SCHEME == MMX_SCHEME_CATMULL_CLARK && ORDER == 0) {
        mmx__fz_cc_general_corner(&L, &O, f);
    } else {
        if (SCHEME == MMX_SCHEME_CATMULL_CLARK && ORDER == 4) {
            mmx_index v[4], fe[4], tw[4], cm[16], cfe[16], ctw[16];
            mmx__fz_load4(L.M + 4 * (int64_t)f, v);
            mmx__fz_load4(L.fe + 4 * (int64_t)f, fe);
            mmx__fz_load4(L.twin + 4 * (int64_t)f, tw);
            mmx__fz_cc_face(&L, &O, f, 4 * f, 4, v, fe, tw, cm, cfe, ctw);
            /* The four children's 16 corners as four 16-byte writes per array. */
            if (O.M) store16(O.M + 16 * (int64_t)f, cm);
            if (O.twin) store16(O.fe + 16 * (int64_t)f, cfe), store16(O.twin + 16 * (int64_t)f, ctw);
        } else if (SCHEME == MMX_SCHEME_CATMULL_CLARK) {
            const mmx_index a = ORDER * f; /* ORDER 3: triangles (general faces are above) */
            mmx__fz_cc_face(&L, &O, f, a, ORDER, L.M + a, L.fe + a, L.twin + a,
                            O.M ? O.M + 4 * (int64_t)a : NULL, O.fe ? O.fe + 4 * (int64_t)a : NULL,
                            O.twin ? O.twin + 4 * (int64_t)a : NULL);
        } else {
            const mmx_index *pm = L.M + 3 * (int64_t)f, *pt = L.twin + 3 * (int64_t)f;
            const mmx_index v[3] = {__ldg(pm), __ldg(pm + 1), __ldg(pm + 2)};
            const mmx_index tw[3] = {__ldg(pt), __ldg(pt + 1), __ldg(pt + 2)};
            if (SCHEME == MMX_SCHEME_LOOP) {
                const mmx_index *pe = L.fe + 3 * (int64_t)f;
                const mmx_index fe[3] = {__ldg(pe), __ldg(pe + 1), __ldg(pe + 2)};
                mmx_index cm[12], cfe[12], ctw[12];
                mmx__fz_loop_face(&L, &O, f, v, fe, tw, cm, cfe, ctw);
                if (O.M) store12(O.M + 12 * (int64_t)f, cm);
                if (O.twin) store12(O.fe + 12 * (int64_t)f, cfe), store12(O.twin + 12 * (int64_t)f, ctw);
            } else {
                mmx__fz_sqrt3_face(&L, &O, f, v, tw);
            }
        }
    }
}

/* Catmull-Clark's face points on a level of general faces, before its pass (mmx__fz_in.fpts). */
/* Faces of up to MMX__FZ_LANES corners, a thread each; the larger ones are face_points_wide's
 * when the level has any (maxcol). */
__global__ void __launch_bounds__(MMX__BLOCK) face_points(const mmx__fz_in L, const mmx__fz_out O)
{
    const long long f = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (f < L.nf && L.colptr[f + 1] - L.colptr[f] <= MMX__FZ_LANES)
        mmx__fz_cc_face_point(&L, &O, (mmx_index)f);
}

/* The faces of more than MMX__FZ_LANES corners, a block each, a thread per lane, summed in
 * the order mmx__fz_centroid states (fused_level.h), so the host's result is matched bit for
 * bit. The other faces' blocks return at once. */
__global__ void __launch_bounds__(MMX__FZ_LANES) face_points_wide(const mmx__fz_in L,
                                                                  const mmx__fz_out O)
{
    const mmx_index f = (mmx_index)blockIdx.x, a = L.colptr[f], n = L.colptr[f + 1] - a;
    if (n <= MMX__FZ_LANES) return; /* the whole block */
    __shared__ float lane[3][MMX__FZ_LANES];
    const int l = (int)threadIdx.x;
    float x[3];
    mmx__fz_lane_sum(&L, a, n, l, mmx__rule_face_weight(n), x);
    for (int c = 0; c < 3; c++) lane[c][l] = x[c];
    __syncthreads();
    for (int h = MMX__FZ_LANES / 2; h > 0; h >>= 1) {
        if (l < h)
            for (int c = 0; c < 3; c++) lane[c][l] = lane[c][l] + lane[c][l + h];
        __syncthreads();
    }
    if (l == 0) {
        const float fp[3] = {lane[0][0], lane[1][0], lane[2][0]};
        mmx__fz_store(O.pos, L.nv + f, fp);
    }
}

template <int SCHEME, bool CREASED>
cudaError_t launch(mmx__fz_in L, const mmx__fz_out &O, cudaStream_t st)
{
    const mmx_index n = L.nf + L.nv; /* checked to fit: nnz and V' of the child do */
    if (n == 0) return cudaSuccess;
    if (L.order == 4) pass<SCHEME, 4, CREASED><<<mmx__grid(n), MMX__BLOCK, 0, st>>>(L, O, n);
    else if (L.order == 3) pass<SCHEME, 3, CREASED><<<mmx__grid(n), MMX__BLOCK, 0, st>>>(L, O, n);
    else {
        /* As the host's pass: face points first where the edges and vertices would sum them. */
        if (mmx__fz_face_points_first(&L, &O)) {
            face_points<<<mmx__grid(L.nf), MMX__BLOCK, 0, st>>>(L, O);
            if (L.maxcol > MMX__FZ_LANES) face_points_wide<<<(unsigned)L.nf, MMX__FZ_LANES, 0, st>>>(L, O);
            L.fpts = O.pos + 3 * (int64_t)L.nv;
        }
        /* Catmull-Clark: a thread per corner (and vertex). */
        const long long m = SCHEME == MMX_SCHEME_CATMULL_CLARK ? (long long)L.nnz + L.nv : n;
        pass<SCHEME, 0, CREASED><<<mmx__grid(m), MMX__BLOCK, 0, st>>>(L, O, m);
    }
    return cudaGetLastError();
}

cudaError_t launch_pass(const mmx__fz_in &L, const mmx__fz_out &O, cudaStream_t st)
{
    /* Only Loop and Catmull-Clark have creases (subdiv.c makes none for the others). */
    const bool creased = L.esharp != NULL;
    switch (L.scheme) {
    case MMX_SCHEME_LOOP:
        return creased ? launch<MMX_SCHEME_LOOP, true>(L, O, st)
                       : launch<MMX_SCHEME_LOOP, false>(L, O, st);
    case MMX_SCHEME_SQRT3: return launch<MMX_SCHEME_SQRT3, false>(L, O, st);
    default: /* Catmull-Clark and bilinear: the same children; L.scheme picks the weights */
        return creased ? launch<MMX_SCHEME_CATMULL_CLARK, true>(L, O, st)
                       : launch<MMX_SCHEME_CATMULL_CLARK, false>(L, O, st);
    }
}

/* ---- the input level (its twins, owners and first checks are the half-edge view's) ---- */

/* Loop and sqrt3: each triangle's neighbours distinct, into the view's fault record. */
__global__ void pairs(const mmx__fz_in L, unsigned long long *fault)
{
    const long long f = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (f < L.nf && !mmx__fz_tri_neighbours_ok(&L, (mmx_index)f))
        atomicMin(fault, (unsigned long long)MMX__FAULT_TRIANGLE_PAIR << 32 | (uint32_t)f);
}

/* Every coordinate within MMX_SUBDIV_COORD_MAX (NaN is not), else the first vertex with one
 * beyond, into the view's fault record (an integer minimum: the same record on every run). */
__global__ void coords(const float *pos, long long n, unsigned long long *fault)
{
    for (long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x; i < n;
         i += (long long)gridDim.x * MMX__BLOCK)
        if (!(fabsf(pos[i]) <= MMX_SUBDIV_COORD_MAX))
            atomicMin(fault, (unsigned long long)MMX__FAULT_COORDS << 32 | (uint32_t)(i / 3));
}

__global__ void counts(const mmx__fz_in L, mmx_index *cnt)
{
    const long long f = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (f >= L.nf) return;
    if (L.scheme == MMX_SCHEME_LOOP) mmx__fz_loop_count(&L, (mmx_index)f, cnt);
    else mmx__fz_sqrt3_count(&L, (mmx_index)f, cnt);
}

} // namespace

extern "C" mmx_status mmx__fz_pass_cuda(mmx_ctx *ctx, mmx__fz_in L, mmx__fz_out O)
{
    return MMX__CUDA(ctx, launch_pass(L, O, (cudaStream_t)mmx_ctx_cuda_stream(ctx)));
}

extern "C" mmx_status mmx__fz_pairs_cuda(mmx_ctx *ctx, mmx__fz_in L, unsigned long long *fault)
{
    if (!L.nf) return MMX_OK;
    pairs<<<mmx__grid(L.nf), MMX__BLOCK, 0, (cudaStream_t)mmx_ctx_cuda_stream(ctx)>>>(L, fault);
    return MMX__CUDA(ctx, cudaGetLastError());
}

extern "C" mmx_status mmx__fz_coords_cuda(mmx_ctx *ctx, const float *pos, int64_t n,
                                          unsigned long long *fault)
{
    if (n <= 0) return MMX_OK;
    coords<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)mmx_ctx_cuda_stream(ctx)>>>(pos, n, fault);
    return MMX__CUDA(ctx, cudaGetLastError());
}

extern "C" mmx_status mmx__fz_counts_cuda(mmx_ctx *ctx, mmx__fz_in L, mmx_index *cnt)
{
    if (!L.nf) return MMX_OK;
    counts<<<mmx__grid(L.nf), MMX__BLOCK, 0, (cudaStream_t)mmx_ctx_cuda_stream(ctx)>>>(L, cnt);
    return MMX__CUDA(ctx, cudaGetLastError());
}
