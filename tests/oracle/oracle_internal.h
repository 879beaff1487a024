/* tests/oracle/oracle_internal.h: helpers shared by the oracle's C and C++ files. */
#ifndef MMX_TESTS_ORACLE_INTERNAL_H
#define MMX_TESTS_ORACLE_INTERNAL_H

#include "oracle.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ORACLE_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ORACLE_PRINTF(a, b)
#endif

/* Writes a message into buf (cap bytes, NUL-terminated when cap > 0; buf may be NULL) and
 * returns 1, so that a failing path reads `return oracle__say(err, cap, "...", ...);`. */
int oracle__say(char *buf, size_t cap, const char *fmt, ...) ORACLE_PRINTF(3, 4);

/* Checks an input mesh: counts >= 0, start[0] = 0 and nondecreasing, faces of order >= 3,
 * indices in range, no vertex twice in a face, arrays present. 0 if fine, else nonzero with
 * the problem in err. */
int oracle__check_mesh(const oracle_mesh *m, char *err, size_t cap);
/* oracle__check_mesh, allowing a face to name a vertex twice when repeats is nonzero (as
 * OpenSubdiv does). */
int oracle__check_faces(const oracle_mesh *m, int repeats, char *err, size_t cap);

/* Allocates out's arrays for nverts / nfaces / ncorners (zeroing the struct first).
 * 0 on success, nonzero (out zeroed) when an allocation fails. */
int oracle__alloc_mesh(oracle_mesh *out, int nverts, int nfaces, long long ncorners);

#ifdef __cplusplus
}
#endif
#endif
