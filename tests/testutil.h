/* Helpers shared by the test suites. */
#ifndef MMX_TESTUTIL_H
#define MMX_TESTUTIL_H

#include <criterion/criterion.h>
#include "meshmatrix.h"

/* Asserts a call returned MMX_OK, printing the status and the context's detail if not. */
#define MMX_OK_OR_FAIL(ctx, call)                                                          \
    do {                                                                                   \
        mmx_status st_ = (call);                                                           \
        cr_assert_eq(st_, MMX_OK, "%s -> %s: %s", #call, mmx_status_str(st_),              \
                     mmx_ctx_error(ctx));                                                  \
    } while (0)

/* A host context; the test fails if one cannot be made. */
mmx_ctx *tu_host_ctx(void);

/* A CUDA context on device 0, or NULL after cr_skip_test() with the reason when the build has
 * no CUDA or the machine has no device. Call it first in a GPU test (never from a parent
 * process: Criterion forks one child per test). */
mmx_ctx *tu_cuda_ctx_or_skip(void);

/* Path of a file in tests/data (static buffer). */
const char *tu_data(const char *name);
/* Path of a scratch file in the build's tests folder, unique per process (static buffer). */
const char *tu_tmp(const char *name);

#endif
