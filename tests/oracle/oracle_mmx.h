/* tests/oracle/oracle_mmx.h: meshmatrix meshes as the oracle's arrays (from_mmx.c), for the
 * tests, oracle_check and the subdivision benchmark. */
#ifndef MMX_TESTS_ORACLE_MMX_H
#define MMX_TESTS_ORACLE_MMX_H

#include "meshmatrix.h"
#include "oracle.h"

/* Fills o (host arrays, malloc'd) with m's faces and positions, m in either space; release
 * with oracle_mesh_free. On error o is zeroed. Errors: MMX_ERR_ARG (m has no positions but has
 * vertices), MMX_ERR_NOMEM, and those of mmx_mesh_faces and mmx_mem_copy. */
mmx_status oracle_mesh_from_mmx(mmx_ctx *ctx, const mmx_mesh *m, oracle_mesh *o);

/* Fills o with a face list's faces (repeated vertices kept) and positions. 0 on success, 1
 * when out of memory (o zeroed). */
int oracle_mesh_from_faces(const mmx_faces *fl, oracle_mesh *o);

#endif
