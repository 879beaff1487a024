/* The host/device qualifier, the one door to it for every module: a function marked MMX__HD
 * compiles for the host and, in a .cu file, for CUDA kernels as well, so that both backends
 * evaluate the very same code (the shared *_step.h headers, subdiv/rules.h, the gemm maps, the
 * edge lookup). Plain C sees nothing. */
#ifndef MMX_CORE_HD_H
#define MMX_CORE_HD_H

#include <stdint.h>

#ifdef __CUDACC__
#define MMX__HD __host__ __device__
#else
#define MMX__HD
#endif

/* Double-precision operations rounded as written: in device code without the fused
 * multiply-add nvcc would otherwise contract them into, so that a step evaluated by the host
 * and by a kernel gives the same bits (the geometric predicates of the mesh checks and the
 * cavity templates). */
#ifdef __CUDA_ARCH__
#define MMX__DMUL(a, b) __dmul_rn((a), (b))
#define MMX__DADD(a, b) __dadd_rn((a), (b))
#define MMX__DSUB(a, b) __dsub_rn((a), (b))
#else
#define MMX__DMUL(a, b) ((a) * (b))
#define MMX__DADD(a, b) ((a) + (b))
#define MMX__DSUB(a, b) ((a) - (b))
#endif

/* A float's bits mapped to an unsigned order: negative values reversed, so the integer order
 * is the float order (-0 just below +0; NaNs beyond the infinities). Integer minima and maxima
 * of it (atomics, radix sorts) do not depend on the order of their terms. */
static inline MMX__HD uint32_t mmx__float_order(float f)
{
    union {
        float f;
        uint32_t u;
    } x;
    x.f = f;
    return (x.u & 0x80000000u) ? ~x.u : (x.u | 0x80000000u);
}

/* mmx__float_order's inverse. */
static inline MMX__HD float mmx__float_unorder(uint32_t u)
{
    union {
        float f;
        uint32_t u;
    } x;
    x.u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    return x.f;
}

#endif
