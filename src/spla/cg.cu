/* The CUDA phases of conjugate gradients (the loop, the checks and the host statement:
 * cg.c). Each phase is a few kernels queued on the context's stream; nothing here waits.
 *
 * Determinism: every dot product is summed in double in a fixed order. A phase's vector
 * kernel runs on G = min(ceil(n / MMX__BLOCK), MMX__CG_GRID_MAX) blocks, a number that
 * depends on n alone; thread t of the grid sums rows t, t + G * MMX__BLOCK, ... in turn, the
 * block combines its threads with cub::BlockReduce (a fixed tree for a fixed block size) and
 * writes one partial per block; then a single block sums the G partials (thread t takes
 * partials t, t + MMX__BLOCK, in order), reduces them the same way, and its thread 0 takes the
 * scalar step (mmx__cg_alpha / mmx__cg_beta, the functions the host runs). No atomics on
 * floats; the one atomic (atomicMin on the first bad diagonal index) is on integers.
 *
 * The vector updates use __fmul_rn / __fadd_rn, which the compiler does not contract into
 * FMAs, so that they round as the host's separate multiply and add do: the backends then
 * differ only by the order of the double sums. Stopped columns are skipped by reading their
 * `active` flag from the state (one broadcast load per thread). */
#include <cuda/std/functional>
#include <type_traits>
#include "core/launch.cuh"
#include "spla_internal.h"

namespace {

using State = mmx__cg_state;

/* The blocks of the partial sums for n rows: a function of n only. */
unsigned sum_grid(mmx_index n)
{
    const unsigned g = mmx__grid(n);
    return g < MMX__CG_GRID_MAX ? g : MMX__CG_GRID_MAX;
}

/* Writes the block's sums of acc[0..W) to partial[blockIdx.x * W + w]. Every thread calls it. */
template <int W>
__device__ __forceinline__ void block_partial(const double (&acc)[W], double *__restrict__ partial)
{
#pragma unroll
    for (int w = 0; w < W; w++) {
        const double s = mmx__block_reduce(acc[w], cuda::std::plus<double>{});
        if (threadIdx.x == 0) partial[blockIdx.x * W + w] = s;
    }
}

/* The totals of G partials of W sums each, valid in thread 0 of a single block. */
template <int W>
__device__ __forceinline__ void finish_sums(const double *__restrict__ partial, unsigned G, double (&out)[W])
{
#pragma unroll
    for (int w = 0; w < W; w++) {
        double a = 0.0;
        for (unsigned b = threadIdx.x; b < G; b += MMX__BLOCK) a += partial[b * W + w];
        out[w] = mmx__block_reduce(a, cuda::std::plus<double>{});
    }
}

/* The grid-stride loop over rows that every vector kernel uses. */
#define FOR_ROWS(i, n)                                                                          \
    for (long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x; i < (n);              \
         i += (long long)gridDim.x * MMX__BLOCK)

/* dinv = 1 / diag (ones for NULL); a bad entry (not > 0, or not finite) gets 0 and its index
 * folded into *bad by minimum. */
__global__ void __launch_bounds__(MMX__BLOCK)
cg_dinv(const float *__restrict__ diag, mmx_index n, float *__restrict__ dinv, mmx_index *bad)
{
    FOR_ROWS(i, n)
    {
        const float d = diag ? diag[i] : 1.0f;
        if (!(d > 0.0f) || !mmx__finite(d)) {
            dinv[i] = 0.0f;
            atomicMin(bad, (mmx_index)i);
        } else {
            dinv[i] = 1.0f / d;
        }
    }
}

/* r = b - sp, z = D⁻¹ r, p = z; sums b·b, r·r, r·z. */
template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_setup_partial(mmx_index n, const float *__restrict__ b, const float *__restrict__ sp,
                 const float *__restrict__ dinv, float *__restrict__ r, float *__restrict__ z,
                 float *__restrict__ p, double *__restrict__ partial)
{
    double acc[3 * K];
#pragma unroll
    for (int w = 0; w < 3 * K; w++) acc[w] = 0.0;
    FOR_ROWS(i, n)
    {
        const float di = dinv[i];
#pragma unroll
        for (int q = 0; q < K; q++) {
            const long long e = i * K + q;
            const float bv = b[e], rv = __fsub_rn(bv, sp[e]), zv = __fmul_rn(di, rv);
            r[e] = rv;
            z[e] = zv;
            p[e] = zv;
            acc[q] += (double)bv * bv;
            acc[K + q] += (double)rv * rv;
            acc[2 * K + q] += (double)rv * zv;
        }
    }
    block_partial<3 * K>(acc, partial);
}

template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_setup_final(const double *__restrict__ partial, unsigned G, mmx_index n, State *st, double rtol,
               int rel0, double *hist, int cap)
{
    double s[3 * K];
    finish_sums<3 * K>(partial, G, s);
    if (threadIdx.x == 0) {
        const int diag_ok = st->bad_diag == n;
        for (int q = 0; q < K; q++)
            mmx__cg_start(&st->col[q], rtol, rel0, s[q], s[K + q], s[2 * K + q], diag_ok,
                          hist ? hist + (long long)q * cap : nullptr, cap);
    }
}

/* x_q = 0 for the columns whose b_q is 0. */
template <int K>
__global__ void __launch_bounds__(MMX__BLOCK) cg_zero_x(mmx_index n, float *__restrict__ x, const State *st)
{
    bool zero[K];
#pragma unroll
    for (int q = 0; q < K; q++) zero[q] = st->col[q].zero_x;
    FOR_ROWS(i, n)
    {
#pragma unroll
        for (int q = 0; q < K; q++)
            if (zero[q]) x[i * K + q] = 0.0f;
    }
}

/* Sums p·sp. */
template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_pap_partial(mmx_index n, const float *__restrict__ p, const float *__restrict__ sp,
               double *__restrict__ partial)
{
    double acc[K];
#pragma unroll
    for (int q = 0; q < K; q++) acc[q] = 0.0;
    FOR_ROWS(i, n)
    {
#pragma unroll
        for (int q = 0; q < K; q++) acc[q] += (double)p[i * K + q] * sp[i * K + q];
    }
    block_partial<K>(acc, partial);
}

template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_alpha_final(const double *__restrict__ partial, unsigned G, State *st, int t)
{
    double s[K];
    finish_sums<K>(partial, G, s);
    if (threadIdx.x == 0)
        for (int q = 0; q < K; q++) mmx__cg_alpha(&st->col[q], s[q], t);
}

/* For the active columns: x += alpha p, r -= alpha sp, z = D⁻¹ r; sums r·r, r·z. */
template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_update_partial(mmx_index n, float *__restrict__ x, float *__restrict__ r, float *__restrict__ z,
                  const float *__restrict__ p, const float *__restrict__ sp,
                  const float *__restrict__ dinv, const State *st, double *__restrict__ partial)
{
    bool on[K];
    float alpha[K];
    double acc[2 * K];
#pragma unroll
    for (int q = 0; q < K; q++) {
        on[q] = st->col[q].active;
        alpha[q] = (float)st->col[q].alpha;
        acc[q] = acc[K + q] = 0.0;
    }
    FOR_ROWS(i, n)
    {
        const float di = dinv[i];
#pragma unroll
        for (int q = 0; q < K; q++) {
            if (!on[q]) continue;
            const long long e = i * K + q;
            x[e] = __fadd_rn(x[e], __fmul_rn(alpha[q], p[e]));
            const float rv = __fsub_rn(r[e], __fmul_rn(alpha[q], sp[e]));
            const float zv = __fmul_rn(di, rv);
            r[e] = rv;
            z[e] = zv;
            acc[q] += (double)rv * rv;
            acc[K + q] += (double)rv * zv;
        }
    }
    block_partial<2 * K>(acc, partial);
}

template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_beta_final(const double *__restrict__ partial, unsigned G, State *st, int t, double *hist, int cap)
{
    double s[2 * K];
    finish_sums<2 * K>(partial, G, s);
    if (threadIdx.x == 0)
        for (int q = 0; q < K; q++)
            mmx__cg_beta(&st->col[q], s[q], s[K + q], t, hist ? hist + (long long)q * cap : nullptr, cap);
}

/* p = z + beta p for the columns still active. */
template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_p_update(mmx_index n, const float *__restrict__ z, float *__restrict__ p, const State *st)
{
    bool on[K];
    float beta[K];
#pragma unroll
    for (int q = 0; q < K; q++) {
        on[q] = st->col[q].active;
        beta[q] = (float)st->col[q].beta;
    }
    FOR_ROWS(i, n)
    {
#pragma unroll
        for (int q = 0; q < K; q++)
            if (on[q]) p[i * K + q] = __fadd_rn(z[i * K + q], __fmul_rn(beta[q], p[i * K + q]));
    }
}

/* Sums ||b - sp||^2 (sp = S x). */
template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_true_partial(mmx_index n, const float *__restrict__ b, const float *__restrict__ sp,
                double *__restrict__ partial)
{
    double acc[K];
#pragma unroll
    for (int q = 0; q < K; q++) acc[q] = 0.0;
    FOR_ROWS(i, n)
    {
#pragma unroll
        for (int q = 0; q < K; q++) {
            const float rv = __fsub_rn(b[i * K + q], sp[i * K + q]);
            acc[q] += (double)rv * rv;
        }
    }
    block_partial<K>(acc, partial);
}

template <int K>
__global__ void __launch_bounds__(MMX__BLOCK)
cg_true_final(const double *__restrict__ partial, unsigned G, State *st)
{
    double s[K];
    finish_sums<K>(partial, G, s);
    if (threadIdx.x == 0)
        for (int q = 0; q < K; q++) st->col[q].true_rr = s[q];
}

#undef FOR_ROWS

/* Calls f(std::integral_constant<int, k>) for the run-time k in 1..4. */
template <class F> mmx_status with_k(int k, F f)
{
    switch (k) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    default: return f(std::integral_constant<int, 4>{});
    }
}

/* The status of the launch just queued. */
mmx_status launched(mmx_ctx *ctx, const char *what) { return mmx__cuda(ctx, cudaGetLastError(), what); }

} // namespace

extern "C" mmx_status mmx__cg_dinv_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *diag)
{
    cg_dinv<<<mmx__grid(w->n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(diag, w->n, w->dinv,
                                                                            &w->state->bad_diag);
    return launched(ctx, "cg_dinv launch");
}

extern "C" mmx_status mmx__cg_setup_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *b, float *x)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const unsigned G = sum_grid(w->n);
    return with_k(w->k, [&](auto kc) {
        constexpr int K = decltype(kc)::value;
        cg_setup_partial<K><<<G, MMX__BLOCK, 0, st>>>(w->n, b, w->sp, w->dinv, w->r, w->z, w->p, w->partial);
        mmx_status s = launched(ctx, "cg_setup_partial launch");
        if (s) return s;
        cg_setup_final<K><<<1, MMX__BLOCK, 0, st>>>(w->partial, G, w->n, w->state, w->rtol, w->rel0, w->hist, w->cap);
        if ((s = launched(ctx, "cg_setup_final launch"))) return s;
        cg_zero_x<K><<<mmx__grid(w->n), MMX__BLOCK, 0, st>>>(w->n, x, w->state);
        return launched(ctx, "cg_zero_x launch");
    });
}

extern "C" mmx_status mmx__cg_step_cuda(mmx_ctx *ctx, mmx__cg_work *w, float *x, int t)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const unsigned G = sum_grid(w->n);
    return with_k(w->k, [&](auto kc) {
        constexpr int K = decltype(kc)::value;
        cg_pap_partial<K><<<G, MMX__BLOCK, 0, st>>>(w->n, w->p, w->sp, w->partial);
        mmx_status s = launched(ctx, "cg_pap_partial launch");
        if (s) return s;
        cg_alpha_final<K><<<1, MMX__BLOCK, 0, st>>>(w->partial, G, w->state, t);
        if ((s = launched(ctx, "cg_alpha_final launch"))) return s;
        cg_update_partial<K><<<G, MMX__BLOCK, 0, st>>>(w->n, x, w->r, w->z, w->p, w->sp, w->dinv,
                                                       w->state, w->partial);
        if ((s = launched(ctx, "cg_update_partial launch"))) return s;
        cg_beta_final<K><<<1, MMX__BLOCK, 0, st>>>(w->partial, G, w->state, t, w->hist, w->cap);
        if ((s = launched(ctx, "cg_beta_final launch"))) return s;
        cg_p_update<K><<<mmx__grid(w->n), MMX__BLOCK, 0, st>>>(w->n, w->z, w->p, w->state);
        return launched(ctx, "cg_p_update launch");
    });
}

extern "C" mmx_status mmx__cg_true_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *b)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const unsigned G = sum_grid(w->n);
    return with_k(w->k, [&](auto kc) {
        constexpr int K = decltype(kc)::value;
        cg_true_partial<K><<<G, MMX__BLOCK, 0, st>>>(w->n, b, w->sp, w->partial);
        mmx_status s = launched(ctx, "cg_true_partial launch");
        if (s) return s;
        cg_true_final<K><<<1, MMX__BLOCK, 0, st>>>(w->partial, G, w->state);
        return launched(ctx, "cg_true_final launch");
    });
}
