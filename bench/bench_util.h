/* Shared pieces of the GPU benchmarks: checked calls, CUDA-event timing (median of repeats
 * after warm-up), the measured copy bandwidth that defines each kernel's floor, the
 * stream-ordered pool's high-water mark for peak memory, and the GPU's name. */
#ifndef MMX_BENCH_UTIL_H
#define MMX_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
/* cuSPARSE's header marks its legacy API deprecated; this program uses only the generic API. */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>
#include "meshmatrix.h"

/* Benchmarks stop at the first failure: a figure measured after one is worthless. */
#define BU_CUDA(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(e_));                                               \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define BU_MMX(ctx, call)                                                                  \
    do {                                                                                   \
        mmx_status s_ = (call);                                                            \
        if (s_ != MMX_OK) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,              \
                    mmx_status_str(s_), mmx_ctx_error(ctx));                               \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* A cuSPARSE call that may legitimately be unsupported for one form (a CSC operand, say):
 * returns 1 on success, else prints why and returns 0 so the row is reported as n/a. */
int bu_sparse_ok(cusparseStatus_t s, const char *what);

/* Work queued on `st` by one call of fn(arg); returns 0 on success. */
typedef int (*bu_fn)(void *arg);

/* Median milliseconds of fn over `reps` calls after `warm` unmeasured ones, each call between
 * two CUDA events on st. Returns -1 if a call fails. */
double bu_time(cudaStream_t st, int warm, int reps, bu_fn fn, void *arg);

/* The device-to-device copy bandwidth in TB/s: bytes read plus bytes written over the time of
 * a 1 GiB cudaMemcpyAsync, median of 10. The floor of a kernel is its minimum bytes over this. */
double bu_copy_tbps(cudaStream_t st);

/* A stream-ordered memory pool: bytes in use now, and the high-water mark since the last
 * reset. The library allocates from its context's pool (mmx_ctx's `pool`); the peers'
 * buffers come from the device's default pool, bu_default_pool(). */
cudaMemPool_t bu_default_pool(void);
size_t bu_pool_used(cudaMemPool_t pool);
size_t bu_pool_high(cudaMemPool_t pool);
void bu_pool_reset_high(cudaMemPool_t pool);

/* "NVIDIA H200, driver 580.xx" into buf. */
void bu_gpu_name(char *buf, size_t cap);

/* The local date and time, "YYYY-MM-DD HH:MM:SS ZONE", into buf: each result's header. */
void bu_date(char *buf, size_t cap);

/* What every GPU benchmark starts from: [--quick] [--csv FILE] parsed, a CUDA context on
 * device 0 with a cuSPARSE handle on its stream, the GPU's description, and the two meshes
 * measured: a quad torus and a triangle icosphere of 4M+ faces (small ones with --quick). */
typedef struct bu_env {
    mmx_ctx *ctx;
    cudaStream_t st;
    cusparseHandle_t h;
    int quick;
    FILE *csv;                 /* NULL without --csv */
    char gpu[256];
    int sparse_version;
    const char *spec[2];       /* builtin shape specs: quads, triangles */
    char label[2][64];         /* "quads torus:2048:2048", ... */
} bu_env;

/* Fills e, or exits: 2 on a usage error (naming `name`), 1 without a CUDA device. */
void bu_start(int argc, char **argv, const char *name, bu_env *e);
void bu_finish(bu_env *e);

/* A float array of n copies of v, on the device. */
float *bu_dev_fill(size_t n, float v);

/* cuSPARSE's SpGEMM C = A·B (CSR, float values), timed from the work estimation to the filled
 * result, buffers and output allocated with cudaMallocAsync on `st` (as the library allocates):
 * fill h, st, A, B and m (C's rows and columns), pass to bu_time with bu_spgemm_run; cnnz is
 * C's size after a run; bu_spgemm_release frees the last run's buffers and result. */
typedef struct bu_spgemm {
    cusparseHandle_t h;
    cudaStream_t st;
    cusparseSpMatDescr_t A, B;
    int m;
    void *b1, *b2;
    int *cptr, *cidx;
    float *cval;
    int64_t cnnz;
    int ok;
} bu_spgemm;
int bu_spgemm_run(void *s);
void bu_spgemm_release(bu_spgemm *s);

/* The CSR form of a mesh matrix M (general form, on the device: M's CSC arrays are the CSR of
 * Mᵀ) by cuSPARSE's csr2csc with the values `val` (nnz floats): rows are vertices. Allocates
 * *rowptr, *colidx and *csr_val (cudaMallocAsync on stream 0); waits for the result. Exits on
 * failure. */
void bu_csr_of_mesh(cusparseHandle_t h, cudaStream_t st, const mmx_csc *M, const float *val,
                    int **rowptr, int **colidx, float **csr_val);

/* One 1-to-4 split of a reduced triangle mesh on the host by its edge midpoints (positions
 * unchanged): the "nef1..nef3" meshes of DESIGN.md from nefertiti. Exits on failure. */
mmx_mesh *bu_split4(mmx_ctx *h, const mmx_mesh *m);

/* The benchmarks' nef0..nefmax (DESIGN.md): DIR/models/nefertiti.obj read and reduced, then
 * split by bu_split4 once per step. Start with `bu_nef it = BU_NEF_START;` and call
 *     for (const mmx_mesh *nef; (nef = bu_nef_next(host, dir, max, &it));) use(it.name, nef);
 * each call gives the next level (it.level, it.name "nefL"); after nefmax it frees the mesh
 * and returns NULL. Exits on failure. */
typedef struct bu_nef {
    int level;
    char name[16];
    mmx_mesh *m;
} bu_nef;
#define BU_NEF_START {-1, "", NULL}
const mmx_mesh *bu_nef_next(mmx_ctx *host, const char *dir, int max, bu_nef *it);

/* The line under a "with patches kept current" row (issue 28): from a kept set's update
 * counters (mmx_patch_stats), the updates (rounds) and how many were incremental, the share of
 * the patches each update rebuilt (dirty), and extra_ms (the call with patches minus the call
 * without) per update. `who` names the backend. */
void bu_patch_updates(const char *who, const mmx_patch_stats *pst, double extra_ms);

#endif
