/* The host/device qualifier, the one door to it for every module: a function marked MMX__HD
 * compiles for the host and, in a .cu file, for CUDA kernels as well, so that both backends
 * evaluate the very same code (the shared *_step.h headers, subdiv/rules.h, the gemm maps, the
 * edge lookup). Plain C sees nothing. */
#ifndef MMX_CORE_HD_H
#define MMX_CORE_HD_H

#ifdef __CUDACC__
#define MMX__HD __host__ __device__
#else
#define MMX__HD
#endif

#endif
