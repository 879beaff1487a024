/*
 * tests/spec: the dense specification of the algebra in include/meshmatrix/spla.h, stated
 * once for every suite that checks the library against it.
 *
 * Each operation is written as spla.h defines it, over dense matrices and in 64-bit integers
 * or doubles, with no attention to cost: the mapped SpMV as a sum over the stored entries of a
 * row or a column, the mapped SpGEMM as the monoid over the counted collisions of each C(i,j)
 * in ascending k, and the mesh product M <map> Mᵀ as that SpGEMM with B = Mᵀ. The library's
 * backends are optimised; this is the plain statement they are held to.
 *
 * Dense matrices are row-major: entry (i, j) of an R x C matrix is at i * C + j (spec_at).
 * Every function takes its inputs in host memory and fails the running Criterion test (rather
 * than returning an error) when it cannot allocate or when it is asked to read outside a map's
 * table: a broken spec must never pass a test.
 */
#ifndef MMX_TEST_SPEC_H
#define MMX_TEST_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include "meshmatrix.h"

/* ---- dense matrices (dense.c) ------------------------------------------------------------- */

/* A matrix expanded to dense arrays. */
typedef struct spec_dense {
    mmx_index nrows, ncols;
    unsigned char *has; /* has[i * ncols + j]: A(i,j) is stored */
    int64_t *val;       /* its stored value (the 1-based position, for the reduced form); 0
                           where nothing is stored */
    mmx_index *cnt;     /* cnt[j]: the number of entries of column j, the face order c_j */
    int64_t *entry;     /* entry[i * ncols + j]: the index of A(i,j) in the storage of the
                           matrix it was read from (0 .. nnz - 1, what MMX_MAP_BY_ENTRY looks
                           up); -1 where nothing is stored. A transpose keeps the indices of
                           the matrix it was made from; a product (spec_spgemm) has none:
                           NULL */
} spec_dense;

/* Where entry (i, j) of D lies in has[] and val[]. */
static inline size_t spec_at(const spec_dense *D, mmx_index i, mmx_index j)
{
    return (size_t)i * (size_t)D->ncols + (size_t)j;
}

/* A host matrix (general or reduced) as a dense one; free it with spec_dense_free. */
spec_dense spec_dense_of(const mmx_csc *A);

/* Aᵀ of a dense matrix: entry (j, i) of the result is entry (i, j) of A, value included. */
spec_dense spec_dense_transpose(const spec_dense *A);

/* Frees the arrays of D (which may be partly NULL) and clears them. */
void spec_dense_free(spec_dense *D);

/* The properties spla.h says the library caches in an mmx_csc, recomputed from A's arrays
 * (a host matrix, general or reduced): the longest column (0 without columns), the range of
 * the stored values (0, 0 without entries), and whether every stored value is its 1-based
 * position in its column in storage order (always so in the reduced form). */
typedef struct spec_props {
    mmx_index maxcol, minval, maxval;
    int positional;
} spec_props;

spec_props spec_props_of(const mmx_csc *A);

/* ---- action maps (map.c) ------------------------------------------------------------------ */

/* m(i, j, v): what a stored entry of row i, column j, value v, at index q of A's storage, in
 * a column of c entries, contributes to a mapped SpMV (mmx_map_kind). A table kind that would
 * read outside the map's table fails the test. */
double spec_map_entry(mmx_map map, int64_t i, int64_t j, int64_t c, int64_t v, int64_t q);

/* The shortest table a map kind of a table kind may have for the matrix A, from spla.h's
 * "needs": BY_VALUE maxval (and no value below 1), BY_ROW nrows, BY_COL ncols, BY_ORDER
 * maxcol + 1, BY_ENTRY nnz, BY_ORDER_VALUE C(C+1)/2 for C = maxcol (and a positional A, which the caller
 * knows from the arrays: `positional`). -1 when A's values rule the kind out, 0 for the kinds
 * without a table. */
int64_t spec_map_len(const spec_dense *A, int positional, mmx_map_kind kind);

/* Q(a, b) for a shared column of n entries (mmx_rel_kind): 0 when the collision does not
 * count, else Q's value: 1 for the kinds other than TABLE, the table entry there (rel.table
 * in host memory, rel.dim x rel.dim, read at (a - 1) * dim + (b - 1)). The cycle kinds take
 * their residues mod n in 64 bits, non-negative. */
int64_t spec_rel(mmx_rel rel, int64_t a, int64_t b, int64_t n);

/* What a counted collision of A(i,k) = a and B(k,j) = b with Q(a, b) = q contributes
 * (mmx_coll). */
int64_t spec_coll(mmx_coll coll, int64_t q, int64_t k, int64_t a, int64_t b);

/* acc combined with a later contribution x (mmx_monoid). ANY keeps acc: the contributions
 * come in ascending k, so acc is the smallest k's. */
int64_t spec_monoid(mmx_monoid monoid, int64_t acc, int64_t x);

/* ---- mapped SpMV (spmv.c) ----------------------------------------------------------------- */

/* The mapped SpMV of mmx_spmv on k-component row-major vectors, in double:
 *   op = N:  y[i] = alpha * sum over stored (i, j, v) of m(i, j, v) * x[j] + beta * y[i]
 *   op = T:  y[j] = alpha * sum over stored (i, j, v) of m(i, j, v) * x[i] + beta * y[j]
 * For each output element (nout x k of them: nrows for N, ncols for T) it writes the result
 * to out, the sum of the absolute values of the terms (alpha times those of the products,
 * plus |beta * y|) to scale, and the number of products to nterms: what a rounding bound
 * needs. As in BLAS, beta = 0 does not read y and alpha = 0 does not read x, so NaN there
 * does not reach out. */
void spec_spmv(const spec_dense *A, mmx_map map, mmx_op op, int k, float alpha, const float *x,
               float beta, const float *y, double *out, double *scale, int *nterms);

/* ---- mapped SpGEMM and the mesh product (spgemm.c) ---------------------------------------- */

/* A product as the spec finds it. */
typedef struct spec_product {
    spec_dense C;           /* C's presence and values (a value is meaningless where the
                               entry overflows) */
    mmx_index ovf_i, ovf_j; /* the first C(i,j) in column-major order that has a contribution
                               or a value outside 32 bits (what the library must refuse with
                               MMX_ERR_OVERFLOW, naming it); -1, -1 when none */
} spec_product;

/* C = A <map> B (mmx_spgemm), for host matrices A (m x n) and B (n x p), general or reduced:
 * C(i,j) is stored exactly when some k has a stored A(i,k) = a and B(k,j) = b with
 * Q(a, b) != 0 for n_k the number of entries of column k of A, and its value is the monoid,
 * over those k in ascending order, of coll(a, b, k). A table relation's table is read from
 * map.rel.table, in host memory. Cost: O(m n + nnz(A) p) time, O(m p) memory. */
spec_product spec_spgemm(const mmx_csc *A, const mmx_csc *B, mmx_gemm_map map);

/* C = M <map> Mᵀ (mmx_mesh_product): spec_spgemm(M, Mᵀ, map), with Mᵀ transposed densely. */
spec_product spec_mesh_product(const mmx_csc *M, mmx_gemm_map map);

/* Frees the result's matrix. */
void spec_product_free(spec_product *R);

/* ---- symmetric positive definite solves (solve.c) ----------------------------------------- */

/* A<map> as a dense row-major nrows x ncols array of doubles (0 where nothing is stored), each
 * entry m(i, j, v) as spec_map_entry states it; free() it. */
double *spec_mapped_dense(const mmx_csc *A, mmx_map map);

/* The Cholesky factor of an n x n symmetric positive definite S, in double: S = L Lᵀ, L
 * written over S's lower triangle (the upper one is left). Returns 0 when a pivot is not
 * positive (S is not positive definite), 1 otherwise. */
int spec_cholesky(double *S, mmx_index n);

/* x = S⁻¹ x from the factor of spec_cholesky (one right-hand side). */
void spec_cholesky_solve(const double *L, mmx_index n, double *x);

/* An estimate of the 2-norm condition number lambda_max / lambda_min of an SPD S, from power
 * iterations on S and on S⁻¹ (through its factor L). */
double spec_spd_condition(const double *S, const double *L, mmx_index n);

/* ---- the first-order queries (query.c) ---------------------------------------------------- */

/* Query `kind` of a host mesh (either form) as include/meshmatrix/query.h states it, read off
 * the face lists alone (no adjacency): edges are the unique vertex pairs {i, j}, i < j, of
 * consecutive face vertices, numbered by (j, i) ascending as mmx_adjacency numbers them; the
 * vertex rows are walks counter-clockwise around each vertex, fan by fan. On success returns 0
 * with *nrows source elements and malloc'd arrays *rowptr (*nrows + 1 entries) and *colidx
 * (rowptr[*nrows] entries; free both with free()). Returns nonzero, with NULL arrays, for a
 * vertex query (VV, VE, VF) of a mesh that has an edge with two faces running it the same
 * way: what the library refuses. Cost: O(V F c + nnz log nnz); for small meshes. */
int spec_query(const mmx_mesh *host_mesh, mmx_query_kind kind, mmx_index **rowptr,
               mmx_index **colidx, mmx_index *nrows);

/* The inconsistent edge a vertex query is refused for: the smallest-numbered edge with two
 * faces that run it the same way. Returns 1 with its ends (*a < *b), or 0 with -1, -1. */
int spec_query_inconsistent_edge(const mmx_mesh *host_mesh, mmx_index *a, mmx_index *b);

#endif
