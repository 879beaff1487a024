/* The limit benches' comparison with OpenSubdiv (bench/limit_eval.c, bench/limit_table.c):
 * one statement of the bounding-box diagonal and of the gap to OpenSubdiv's patch evaluation. */
#ifndef MMX_BENCH_LIMIT_OSD_H
#define MMX_BENCH_LIMIT_OSD_H

#include <stddef.h>
#include "meshmatrix.h"

/* The diagonal of the mesh's bounding box (host positions). */
double lo_diagonal(const mmx_mesh *m);

/* Evaluates the n points (f, u, v) with OpenSubdiv's Far::PatchTable (Gregory end caps,
 * isolation iso, m's tags) through tests/oracle and prints its times and the largest gap of
 * res (P, du, dv: 3n floats each, one after another, host) to it, relative to diag: "largest
 * gap to OpenSubdiv's surface: ...". Prints why when OpenSubdiv failed or was not built.
 * host: a host context. Returns 0, or 1 when out of memory or the mesh could not be read. */
int lo_compare(mmx_ctx *host, const mmx_mesh *m, mmx_scheme scheme, int iso, size_t n,
               const mmx_index *f, const float *u, const float *v, const float *res, double diag);

#endif
