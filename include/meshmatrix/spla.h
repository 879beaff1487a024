/*
 * meshmatrix/spla.h: sparse matrices in compressed sparse column (CSC) form.
 *
 * A CSC matrix stores, for column j, the entries k in [colptr[j], colptr[j+1]): row rowidx[k]
 * with stored value val[k]. Row indices inside a column are NOT assumed sorted: in a mesh
 * matrix they follow the face's cyclic order, and every operation here keeps that order.
 *
 * The reduced form (order > 0) is the mesh matrix of a mesh whose faces all have `order`
 * vertices: colptr and val are NULL, column j is rowidx[order*j .. order*(j+1)) and its stored
 * values are implied as 1, 2, ..., order.
 *
 * The struct is transparent, as in CSparse, so that kernels and users can read its fields; it
 * is created and freed only through the functions below. It records the context that made it
 * (core.h, "Ownership"): its device arrays go back to that context's pool, on its stream,
 * when it is freed.
 */
#ifndef MESHMATRIX_SPLA_H
#define MESHMATRIX_SPLA_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmx_csc {
    mmx_index nrows, ncols, nnz;
    mmx_index *colptr;  /* ncols + 1 entries, colptr[0] = 0, colptr[ncols] = nnz; NULL if reduced */
    mmx_index *rowidx;  /* nnz row indices in [0, nrows), distinct within a column */
    mmx_index *val;     /* nnz stored values; NULL if reduced */
    float *x;           /* NULL, or nnz float values in storage order (a valued matrix, as
                           CSparse's x: a valued product's result, an operator of geom.h's
                           mmx_operator), read by the map MMX_MAP_X; mmx_csc_free frees it,
                           mmx_csc_copy and mmx_csc_transpose carry it, mmx_csc_permute
                           refuses it */
    mmx_index order;    /* > 0: reduced form, every column has `order` entries; 0: general */
    mmx_space space;    /* where colptr, rowidx and val live */
    /* Properties the library computes when it creates the matrix (read them, never set them);
     * they let an operation check a map's table against the matrix in O(1). */
    mmx_index maxcol;   /* the longest column's length (order when reduced; 0 without columns) */
    mmx_index minval, maxval; /* range of the stored values (0, 0 when nnz = 0) */
    int positional;     /* 1 when every stored value is its 1-based position in its column, as
                           in a mesh matrix (always so in the reduced form) */
    mmx_ctx *ctx;       /* the context that made the matrix: its arrays come from that
                           context's memory (device: its stream-ordered pool) and go back there
                           in its stream's order, so the context must outlive the matrix. Calls
                           on that context are ordered with the matrix's making and freeing;
                           another context of the same device may read it after mmx_ctx_sync
                           of this one, and must be synchronised itself before the matrix is
                           freed (core.h). NULL in a matrix assembled by hand (a view), which is
                           never passed to mmx_csc_free. */
    struct mmx_csc_cache *cache; /* private: what the library keeps with a matrix it made (the
                           row view that MMX_OP_N products read, built on first use; see
                           mmx_spmv and mmx_csc_release_cache). Leave it NULL in a matrix
                           assembled by hand ({0} or designated initialisers do); a copy of
                           the struct by value does not share it (the copy is a view). */
} mmx_csc;

/* The CSR view of a matrix: the same three arrays read by rows. */
typedef struct mmx_csr {
    mmx_index nrows, ncols, nnz;
    const mmx_index *rowptr; /* nrows + 1 entries; NULL if reduced */
    const mmx_index *colidx;
    const mmx_index *val;    /* NULL if reduced */
    mmx_index order;         /* > 0: every row has `order` entries, row i is colidx[order*i ...] */
    mmx_space space;
    mmx_ctx *ctx;            /* NULL in a view (mmx_csc_transpose_view); the context that made
                                an owned result (a query's, query.h), freed by mmx_csr_free */
} mmx_csr;

/* Creates A (nrows x ncols) from arrays in `src_space`, validated, and copied into the
 * context's memory space. colptr has ncols + 1 entries, rowidx and val have colptr[ncols];
 * val may be NULL, in which case each entry's value is its 1-based position in its column.
 * Checks: sizes non-negative, colptr[0] = 0 and non-decreasing, rows in [0, nrows), no row
 * twice in one column. Errors: MMX_ERR_ARG (the detail names the first offending column or
 * entry), MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_SPACE, MMX_ERR_CUDA.
 * Cost: O(nnz) on the host; on the CUDA backend the check runs on the device.
 * Synchronises: yes, on CUDA: it reads colptr[ncols] (the size to allocate) when colptr is in
 * device memory, the check's verdict (a fault to report) and the value range of a general
 * matrix (host fields). */
mmx_status mmx_csc_create(mmx_ctx *ctx, mmx_index nrows, mmx_index ncols,
                          const mmx_index *colptr, const mmx_index *rowidx,
                          const mmx_index *val, mmx_space src_space, mmx_csc **out);

/* Creates the reduced form directly: ncols columns of `order` entries each, rowidx having
 * order * ncols entries in `src_space`. Same checks and errors as mmx_csc_create.
 * Synchronises: yes, on CUDA, to read the check's verdict. */
mmx_status mmx_csc_create_reduced(mmx_ctx *ctx, mmx_index nrows, mmx_index ncols,
                                  mmx_index order, const mmx_index *rowidx,
                                  mmx_space src_space, mmx_csc **out);

/* Frees A and its arrays, which go back to the memory of A->ctx (device arrays to its pool,
 * after the work queued on its stream, so work still reading A is not disturbed); NULL is
 * accepted. Synchronises: no. */
void mmx_csc_free(mmx_csc *A);

/* Releases what the library keeps with A beside its arrays: the row view that mmx_spmv
 * with MMX_OP_N builds on the CUDA backend at its first call on A (nrows + 1 indices, plus
 * one index per entry for a reduced A and two for a general one: 4 * (nrows + 1 + nnz) or
 * 4 * (nrows + 1 + 2 nnz) bytes of device memory). mmx_csc_free releases it too; call this to
 * give the memory back earlier (the next MMX_OP_N product on A builds it again). Device
 * memory goes back to A->ctx's pool in its stream's order. NULL, a host matrix and a matrix
 * without a cache are accepted. Synchronises: no. */
void mmx_csc_release_cache(mmx_csc *A);

/* A deep copy of A in `dst_space`, made by (and belonging to) ctx. Errors: MMX_ERR_SPACE (a
 * device side on a host context), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: only when copying from the device into host memory, because the host copy
 * must be complete when it returns; a copy to the device is queued. */
mmx_status mmx_csc_copy(mmx_ctx *ctx, const mmx_csc *A, mmx_space dst_space, mmx_csc **out);

/* Gives A float values (a valued matrix, read by MMX_MAP_X): A->x, allocated in A's space
 * when absent, becomes a copy of x[0 .. nnz) from `src_space`, in A's storage order. A must
 * have been made by ctx (its arrays are ctx's). Errors: MMX_ERR_ARG (NULL A, x NULL with
 * entries, A of another context), MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: only when copying from the device into host memory. */
mmx_status mmx_csc_set_values(mmx_ctx *ctx, mmx_csc *A, const float *x, mmx_space src_space);

/* The CSR view of Aᵀ: no copy, the view aliases A's arrays and is valid while A is.
 * Synchronises: no. */
mmx_csr mmx_csc_transpose_view(const mmx_csc *A);

/* Checks the structure of A (the checks of mmx_csc_create) where it lives: on the host, or
 * with a kernel on the device. Errors: MMX_ERR_ARG with the first offending column.
 * Synchronises: yes, on CUDA, to read the verdict (a fault to report). */
mmx_status mmx_csc_check(mmx_ctx *ctx, const mmx_csc *A);

/* Aᵀ as a new CSC matrix (ncols x nrows) in the context's space: column i of the result holds
 * the entries of row i of A, in ascending column order, with their values. The result is
 * general (never reduced) and keeps A's values (a reduced A's implied positions), so Aᵀ of a
 * mesh matrix is in general not positional. A must live in the context's space. Both backends
 * give the same arrays. Errors: MMX_ERR_ARG, MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(nnz + nrows + ncols): a counting sort on the host, a stable radix sort on the device.
 * Synchronises: yes, on CUDA, to read the result's properties (maxcol, value range,
 * positional), host fields of the matrix. */
mmx_status mmx_csc_transpose(mmx_ctx *ctx, const mmx_csc *A, mmx_csc **out);

/* C = P·A·Q: row i of A becomes row pinv[i] of C, and column j of C is column q[j] of A (the
 * CSparse convention). pinv (nrows entries) and q (ncols entries) live where A does (the
 * context's space, for a matrix the context made), either may be NULL for the identity; they
 * are checked there (a kernel on the device). Entries keep their order inside each column and
 * their values, so a mesh matrix stays a mesh matrix (the faces keep their cyclic order). The
 * result has A's form (reduced stays reduced) and space. Errors: MMX_ERR_ARG if pinv or q is
 * not a permutation (the detail names the first repeated or out-of-range entry: "q[7] = 2
 * repeats q[3]"), MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nnz + nrows + ncols);
 * on the device, a general A adds a binary search per entry to find its column.
 * Synchronises: on CUDA, once per permutation given (pinv, q), to read its check's verdict (a
 * fault to report); the permutation itself is queued. */
mmx_status mmx_csc_permute(mmx_ctx *ctx, const mmx_csc *A, const mmx_index *pinv,
                           const mmx_index *q, mmx_csc **out);

/* ---- action maps and mapped SpMV ---------------------------------------------------------- */

/* What an entry (row i, column j, stored value v) of A contributes in a mapped SpMV: instead
 * of v, the product uses m(i, j, v) given by the map (thesis 3.2). Column j's "order" c is its
 * number of entries: the face order, for a mesh matrix. */
typedef enum mmx_map_kind {
    MMX_MAP_VALUE = 0,      /* m = v, the stored value, as a float */
    MMX_MAP_CONST,          /* m = c, the map's constant */
    MMX_MAP_BY_VALUE,       /* m = table[v - 1]: by position in the face cycle, (1,2,3) -> 1/3.
                               Needs A.minval >= 1 and len >= A.maxval */
    MMX_MAP_BY_ROW,         /* m = table[i]: per-vertex weights, i -> 1/n_i. len >= nrows */
    MMX_MAP_BY_COL,         /* m = table[j]: per-face weights. len >= ncols */
    MMX_MAP_BY_ORDER,       /* m = table[c]: by face order, val_j -> 1/c_j. len > A.maxcol */
    MMX_MAP_BY_ORDER_VALUE, /* m = table[c(c-1)/2 + v - 1]: one table per face order, packed
                               (order 1 at [0], order 2 at [1..2], order 3 at [3..5], order 4
                               at [6..9], ...). Needs a positional A and len >= C(C+1)/2 for
                               C = A.maxcol */
    MMX_MAP_BY_ENTRY,       /* m = table[q], q the entry's index in A's storage (0 .. nnz-1:
                               colptr[j] + p for the p-th entry of column j, order * j + p in
                               the reduced form). len >= A.nnz. A float-valued matrix can
                               be a pattern mmx_csc plus this table of weights (geom.h's
                               mmx_weighted), or carry its floats itself (x, MMX_MAP_X); the
                               stored values are not read. The
                               table follows A's storage: permuting or transposing A (which
                               moves entries) needs the table moved the same way */
    MMX_MAP_X               /* m = A->x[q]: A's own float values (a valued matrix); the table
                               is not read. MMX_MAP_BY_ENTRY with table A->x, which moves with
                               A (mmx_csc_transpose carries it). Needs A->x (or nnz = 0) */
} mmx_map_kind;

typedef struct mmx_map {
    mmx_map_kind kind;
    float c;              /* the constant of MMX_MAP_CONST */
    const float *table;   /* the table kinds: len floats in the context's memory space */
    mmx_index len;
} mmx_map;

/* Shorthands for building maps. */
static inline mmx_map mmx_map_value(void) { mmx_map m = {MMX_MAP_VALUE, 0.0f, NULL, 0}; return m; }
static inline mmx_map mmx_map_const(float c) { mmx_map m = {MMX_MAP_CONST, c, NULL, 0}; return m; }
static inline mmx_map mmx_map_table(mmx_map_kind kind, const float *table, mmx_index len)
{
    mmx_map m = {kind, 0.0f, table, len};
    return m;
}

/* Which product a mapped SpMV computes. Neither transposes A: MMX_OP_N scatters each column
 * into the rows it touches, MMX_OP_T gathers each column. */
typedef enum mmx_op {
    MMX_OP_N = 0,  /* y (nrows x k) = alpha * A<map> * x (ncols x k) + beta * y */
    MMX_OP_T = 1   /* y (ncols x k) = alpha * A<map>ᵀ * x (nrows x k) + beta * y */
} mmx_op;

/* Mapped SpMV on k-component vectors (1 <= k <= 4), all components in one pass:
 *   op = N:  y[i] = alpha * sum over entries (i, j, v) of m(i, j, v) * x[j] + beta * y[i]
 *   op = T:  y[j] = alpha * sum over entries (i, j, v) of m(i, j, v) * x[i] + beta * y[j]
 * x and y are row-major float arrays (vertex or face data, k floats per item) in the
 * context's space, as is A; they must not overlap (nor may the map's table overlap y). x or y
 * may be NULL where it has no element, a table where len is 0. When beta is 0, y is only
 * written (NaN or garbage there does not propagate), as in BLAS; when alpha is 0, y = beta * y
 * and x is not read. A may be general or reduced.
 * On the host the sums are accumulated in float, in entry order: op = T forms each column's
 * sum, then alpha * sum + beta * y[j]; op = N scales y by beta first, then adds
 * m * (alpha * x[j]) entry by entry. On CUDA, op = T gives each column to one thread
 * (reduced quads: one 16-byte load of the column; the four corners' partial sums combined
 * with warp shuffles when that is faster) and is deterministic; op = N gives each row to one
 * thread, which adds the row's terms in ascending column order starting from beta * y[i],
 * each rounded as the host rounds it (no fused multiply-add): the CUDA result of op = N is
 * the host's bit for bit, and the same bytes on every run (no atomics). It reads A by rows
 * through a row view (for each row, its entries' positions in A's storage in ascending column
 * order, and their columns for a general A) that the first op = N call on A builds on the
 * device (a stable radix sort of the entries by row, queued, no wait) and keeps with A until
 * mmx_csc_free or mmx_csc_release_cache, so later calls allocate nothing. The view is kept only
 * for a matrix the library made, used on the context that made it; a matrix assembled by hand
 * or used from another context gets a view made and released within the call. On CUDA it only
 * queues the kernels: y is ready for the next call on the context, and for the host after
 * mmx_ctx_sync or an mmx_mem_copy into host memory. A's rows must not be changed after its
 * first op = N product (the kept view would no longer describe them); changing its form in
 * place (mmx_mesh_reduce, mmx_mesh_expand) is fine.
 * Errors: MMX_ERR_ARG (k out of range, NULL pointers, x and y overlapping, a table too short
 * for A, a by-value map on values < 1, a per-order-value map on a non-positional matrix,
 * MMX_MAP_X on a matrix without floats; the detail says which), MMX_ERR_SPACE (A not in the
 * context's space), MMX_ERR_NOMEM (op = N on CUDA: no device memory for A's row view),
 * MMX_ERR_CUDA (a launch that failed; a fault inside the kernels shows at the next
 * synchronising call).
 * Cost: O(nnz * k + (op = N ? nrows * k : 0)); no allocation, except op = N on CUDA, whose
 * first call on A builds the row view (O(nnz + nrows), the memory mmx_csc_release_cache
 * states; a second call finds it).
 * Synchronises: no (nothing is read back). */
mmx_status mmx_spmv(mmx_ctx *ctx, mmx_op op, float alpha, const mmx_csc *A, mmx_map map,
                    const float *x, int k, float beta, float *y);

/* The diagonal of A<map>: d[i] = m(i, i, v) for the stored entry (i, i), 0 where column i
 * stores no row i, for 0 <= i < min(nrows, ncols). d has min(nrows, ncols) floats in the
 * context's space, as A and the map's table do. The map is checked as mmx_spmv checks it.
 * It is what a Jacobi preconditioner needs (mmx_cg_csc uses it). Errors: MMX_ERR_ARG (NULL
 * arguments, a bad map), MMX_ERR_SPACE, MMX_ERR_CUDA. Cost: O(nnz), one thread per column on
 * CUDA; no allocation. Synchronises: no (queued on CUDA). */
mmx_status mmx_csc_diagonal(mmx_ctx *ctx, const mmx_csc *A, mmx_map map, float *d);

/* ---- conjugate gradients ------------------------------------------------------------------ */

/* Solves S X = B for a symmetric positive definite n x n operator S and up to MMX_CG_MAX_K
 * right-hand sides at once, by Jacobi-preconditioned conjugate gradients (Hestenes-Stiefel,
 * with z = D⁻¹ r, D the diagonal of S). B and X are n x k row-major float arrays (vertex data:
 * column q is component q of every vertex); each column runs its own recurrence, with its own
 * alpha and beta, and stops on its own when
 *     ||r_q|| <= rtol * ||b_q||,   r_q = b_q - S x_q the recurrence's residual,
 * (or rtol * ||r_q(0)||, the initial residual, with opts.rel_initial), or when the iteration
 * cap is reached. A column that has stopped is frozen (its x, r and p no longer change) while
 * the others go on; S is still applied to all k columns.
 *
 * Arithmetic: vectors in float; every dot product and norm accumulated in double, in a fixed
 * order (host: one sequential sum per column; CUDA: a grid of at most 512 blocks of fixed
 * size, each a fixed tree over its threads' strided partial sums, then one block summing the
 * partials in a fixed order; no floating-point atomics), and alpha, beta and the convergence
 * test computed from those doubles by the same code on both backends. So a solve is
 * bit-for-bit repeatable on one backend (given a deterministic operator: mmx_cg_csc applies
 * S with mmx_spmv's MMX_OP_T, which is deterministic on CUDA), and the host and CUDA agree
 * within float rounding, with the same iteration count on well-conditioned systems (not
 * guaranteed: a column near its threshold may take one iteration more on one backend).
 * Float vectors limit the accuracy: the true residual ||b - S x|| / ||b|| stalls near a small
 * multiple of eps_float * cond(S) (about 1e-6 measured on grid Laplacians of condition ~90),
 * while the recurrence's residual, which decides convergence, keeps falling. A tolerance
 * below that floor is met by the recurrence only: compare rel_residual with
 * true_rel_residual in the report. The error is bounded by ||x - x*|| / ||x*|| <= cond(S) *
 * true_rel_residual. */
#define MMX_CG_MAX_K 4

/* A matrix-free operator: y = S x on n x k row-major float arrays (1 <= k <= MMX_CG_MAX_K) in
 * the context's space. `apply` is a host function called by mmx_cg, never from device code;
 * on CUDA it must queue its work on the context's stream (mmx_ctx_cuda_stream, or library
 * calls on ctx) and may return before that work has run; it must write every element of y
 * (y is scratch: its old contents are garbage) and must not keep x or y. A status other than
 * MMX_OK stops the solve and is returned as is (set the context's detail with it). `diag` is
 * S's diagonal, n floats in the context's space, all > 0; NULL runs without a preconditioner
 * (D = I). */
typedef struct mmx_linop {
    mmx_index n;
    mmx_status (*apply)(mmx_ctx *ctx, void *data, const float *x, int k, float *y);
    void *data;
    const float *diag;
} mmx_linop;

typedef struct mmx_cg_opts {
    double rtol;         /* relative tolerance on ||r_q|| / ||b_q||, >= 0 (0: run max_iter
                            iterations unless a residual becomes exactly 0) */
    int max_iter;        /* iteration cap, >= 0 */
    int check_every;     /* CUDA: read the columns' state back (one small copy, a wait for the
                            stream) after the set-up, at iterations 1, 2, 4, 8, ... below
                            check_every (so that a solve of a few iterations does not run on
                            to check_every), and every check_every iterations, >= 1. Larger
                            values wait less often but may queue up to check_every - 1
                            iterations (or as many as were done, below check_every) after the
                            last column has stopped; those change nothing (stopped columns are
                            frozen), so the results do not depend on it. The host checks every
                            iteration. */
    double *history;     /* NULL, or host memory of history_cap * k doubles: history[q *
                            history_cap + t] = ||r_q|| / ||b_q|| after t iterations (t = 0: the
                            initial guess's), for t <= the column's iterations and t <
                            history_cap; entries past that are left as they were */
    int history_cap;     /* entries per column in history, >= 0 */
    int rel_initial;     /* 0 (default): stop when ||r_q|| <= rtol ||b_q||; nonzero: when
                            ||r_q|| <= rtol ||r_q(0)||, relative to the initial guess's residual
                            (the test of RXMesh's MCF and of many CG codes: with a good initial
                            guess it asks for more digits than the ||b|| test). The report's
                            residuals stay relative to ||b_q|| either way */
} mmx_cg_opts;

/* rtol 1e-6, max_iter 1000, check_every 1, no history, tolerance relative to ||b||. */
static inline mmx_cg_opts mmx_cg_defaults(void)
{
    mmx_cg_opts o = {1e-6, 1000, 1, NULL, 0, 0};
    return o;
}

/* What a solve did, per column q < k (entries past k are zero). */
typedef struct mmx_cg_report {
    int iterations;                          /* the most iterations any column ran */
    int col_iterations[MMX_CG_MAX_K];        /* iterations column q ran before it stopped */
    int converged[MMX_CG_MAX_K];             /* 1: ||r_q|| <= rtol ||b_q|| was reached */
    double rel_residual[MMX_CG_MAX_K];       /* the recurrence's final ||r_q|| / ||b_q|| */
    double true_rel_residual[MMX_CG_MAX_K];  /* ||b_q - S x_q|| / ||b_q|| for the returned x,
                                                recomputed with one more application of S;
                                                NaN when the solve failed */
    int history_len[MMX_CG_MAX_K];           /* entries written to opts.history for column q */
} mmx_cg_report;

/* Solves S X = B (above) with a matrix-free S. b (n x k, read) and x (n x k: the initial
 * guess in, the solution out) are float arrays in the context's space that must not overlap.
 * A column with b_q = 0 gets x_q = 0, converged after 0 iterations with residual 0. opts NULL
 * means mmx_cg_defaults(); report may be NULL.
 * Not converging within max_iter is not an error: the call returns MMX_OK with converged[q] =
 * 0, x the last iterate. Errors (for the refusals found while solving, a diagonal entry, a
 * value not finite, a breakdown, the report, when given, is filled as far as the solve went):
 *   MMX_ERR_ARG: ctx, S, S->apply NULL; n < 0; b or x NULL (n > 0) or overlapping; k outside
 *     1..MMX_CG_MAX_K; rtol negative or NaN, max_iter < 0, check_every < 1, history_cap < 0,
 *     history NULL with history_cap > 0; a diagonal entry <= 0 or not finite ("d[7] = -2");
 *     b or the initial residual not finite; and a breakdown, p·Sp <= 0 (or NaN) for an active
 *     column, which proves S is not positive definite (or not symmetric, or holds NaN): the
 *     detail names the iteration and the column ("p·Sp = -0.5 <= 0 at iteration 3, column 1").
 *     At a breakdown x holds each column's last iterate (on CUDA the other columns may have
 *     gone on for up to check_every - 1 iterations).
 *   MMX_ERR_NOMEM, MMX_ERR_CUDA; and whatever S->apply returns.
 * Cost: per iteration one application of S to n x k, and O(n k) vector work in 5 kernels on
 * CUDA (3 over the n x k vectors, 2 of which also sum partials, and 2 one-block kernels that
 * finish the sums and take the scalar steps); one more application at the start and one at
 * the end (the true residual). Memory: 4 n k + n
 * floats of scratch (r, z, p, S p, D⁻¹), plus on CUDA 12 * 512 doubles of partial sums and
 * history_cap * k doubles, all from the context's pool.
 * Synchronises: on CUDA, once after the set-up, then at iterations 1, 2, 4, ... below
 * check_every, every check_every iterations and at the cap, to read the columns' state (a
 * few hundred bytes), and at the end to read the final state (and once more to copy the
 * history, when one is asked for); on a refused diagonal, once more to read the offending
 * entry. The host backend checks every iteration, at no cost. */
mmx_status mmx_cg(mmx_ctx *ctx, const mmx_linop *S, const float *b, int k, float *x,
                  const mmx_cg_opts *opts, mmx_cg_report *report);

/* mmx_cg for S = A<map>, a square mmx_csc with an action map (a float-valued S is a pattern A
 * with MMX_MAP_BY_ENTRY weights). S is applied as mmx_spmv(MMX_OP_T, A, map), which gathers
 * per column and is deterministic on CUDA; it equals A<map>·x because S is symmetric (for an
 * unsymmetric A<map> the solve is of A<map>ᵀ X = B, and likely breaks down). The Jacobi
 * diagonal is mmx_csc_diagonal(A, map), computed into scratch (n more floats). A, its map's
 * table, b and x live in the context's space. Errors: those of mmx_cg, plus MMX_ERR_ARG (A
 * NULL or not square, a bad map: mmx_spmv's checks) and MMX_ERR_SPACE (A not in the
 * context's space). A diagonal entry A does not store counts as 0, and is refused.
 * Cost and synchronisation: mmx_cg's, with mmx_spmv's T product (O(nnz k)) as the
 * application. */
mmx_status mmx_cg_csc(mmx_ctx *ctx, const mmx_csc *A, mmx_map map, const float *b, int k,
                      float *x, const mmx_cg_opts *opts, mmx_cg_report *report);

/* ---- mapped SpGEMM ------------------------------------------------------------------------ */

/* In C = A·B, entries A(i,k) = a and B(k,j) = b "collide" through the shared index k (a face,
 * when A is a mesh matrix and B its transpose). A relation Q decides which collisions count
 * (thesis 3.2, eq. 3.4-3.8); n is the number of entries of column k of A (the face order). */
typedef enum mmx_rel_kind {
    MMX_REL_ALL = 0,     /* every collision counts: the structure of the ordinary product */
    MMX_REL_CYCLE,       /* Q_n^p: b = a + p (mod n); p = 1: b follows a in the face cycle,
                            so C(i,j) records the half-edge i -> j */
    MMX_REL_CYCLE_BOTH,  /* Q_n^p + Q_n^-p: b = a + p or b = a - p (mod n); p = 1 relates the
                            two ends of every edge (Q_3 + Q_3^2 on triangles) */
    MMX_REL_TABLE        /* a user table: table[(a - 1) * dim + (b - 1)] != 0, for
                            1 <= a, b <= dim (both operands' values must lie there) */
} mmx_rel_kind;

typedef struct mmx_rel {
    mmx_rel_kind kind;
    int p;                   /* the power of the cycle kinds; any integer */
    const mmx_index *table;  /* MMX_REL_TABLE: dim x dim, row-major, in the context's space */
    mmx_index dim;
} mmx_rel;

/* What a counted collision contributes to C(i,j). */
typedef enum mmx_coll {
    MMX_COLL_MAP = 0,   /* Q's value: 1 for the kinds other than TABLE, the table entry there */
    MMX_COLL_K,         /* the shared index k: the face, thesis eq. 4.7 */
    MMX_COLL_A,         /* a */
    MMX_COLL_B,         /* b */
    MMX_COLL_PRODUCT    /* a * b: with MMX_REL_ALL and MMX_MONOID_SUM, the ordinary product */
} mmx_coll;

/* How the contributions of several k to one C(i,j) combine. MMX_MONOID_ANY keeps the one of
 * the smallest k, so that every backend gives the same answer. */
typedef enum mmx_monoid {
    MMX_MONOID_SUM = 0,
    MMX_MONOID_MIN,
    MMX_MONOID_MAX,
    MMX_MONOID_ANY
} mmx_monoid;

/* The action map of a mapped SpGEMM: relation, collision function, monoid. */
typedef struct mmx_gemm_map {
    mmx_rel rel;
    mmx_coll coll;
    mmx_monoid monoid;
} mmx_gemm_map;

/* Mapped SpGEMM, C = A <map> B (A: m x n, B: n x p, C: m x p). For every stored B(k,j) = b
 * and every stored A(i,k) = a, with n_k the number of entries of column k of A, the collision
 * counts when Q(a, b) holds for n = n_k (MMX_REL_CYCLE: (b - a - rel.p) mod n_k = 0, computed
 * in 64 bits with a non-negative residue; MMX_REL_CYCLE_BOTH: the same for rel.p or -rel.p, a
 * collision counting once even when both hold). C(i,j) is stored exactly when some counted collision
 * exists, and its value is the monoid over the counted collisions of map.coll. C is general
 * CSC with rows ascending in each column. A and B may be general or reduced (the reduced form's
 * values are the positions 1..order); zero-sized operands give an empty C of the right size.
 * Values are mmx_index: every contribution (a PRODUCT may not) and every SUM must fit 32 bits,
 * else MMX_ERR_OVERFLOW naming the first such C(i,j) in column-major order (both backends name
 * the same entry). MMX_REL_TABLE needs, when A and B both have entries, a table, dim >= 1, and
 * both operands' values in [1, dim] (their minval and maxval).
 * Host: Gustavson's column-by-column product with a dense accumulator over the rows.
 * CUDA: two phases, symbolic (collisions counted per entry of B, scanned with CUB, expanded as
 * (column, row) keys with their contributions and radix-sorted to bring each C(i,j)'s
 * collisions together) and numeric (each run of one (i, j) reduced by the monoid); integer
 * throughout, so the result equals the host's exactly.
 * Errors: MMX_ERR_ARG (NULL arguments, sizes that do not match, an unknown map kind, a
 * relation table that does not cover the values), MMX_ERR_OVERFLOW (a value as above, more
 * than 2^31 - 1 entries in C, or device scratch beyond the device's memory), MMX_ERR_SPACE (an
 * operand not in the context's space), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(collisions + m + p) time plus the sort of each column's rows on the host; the CUDA
 * path holds every counted collision at once, 32 bytes each (an 8-byte key and an 8-byte
 * payload, and the sort's second buffers), plus 16 bytes per entry of B.
 * Synchronises: yes, on CUDA: it reads the number of collisions and of C's entries (sizes to
 * allocate), the overflow flag (a fault to report) and C's properties (host fields). */
mmx_status mmx_spgemm(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B, mmx_gemm_map map,
                      mmx_csc **out);

/* The implicit mesh product C = M <map> Mᵀ (nrows x nrows), equal to
 * mmx_spgemm(M, mmx_csc_transpose(M), map) but computed without a general SpGEMM (thesis
 * 5.2): only entries of the same column of M can collide, so each column's pairs (a, b) with
 * Q(a, b) are visited directly, and Mᵀ is never built. Same result conventions and errors as
 * mmx_spgemm (an overflow names the same C(i,j)); also MMX_ERR_OVERFLOW when the relation
 * admits more than 2^31 - 1 collisions in all (both backends).
 * Cost: O(sum over columns of the pairs the relation admits), one pass to count, one to fill,
 * and a sort of each output column's few entries. The CUDA path holds every collision at once,
 * 4 bytes each (8 for a general M whose map needs the face), plus 8 bytes per row of M, and
 * gives C room for every collision (nnz(C) is not waited for: at most 2 nnz(M) entries, 8 bytes
 * each, for the cycle relations of a mesh matrix).
 * Synchronises: on CUDA, once for the cycle relations of a mesh matrix (nnz(C) and C's
 * properties, host fields, with the overflow report, a fault), twice for other relations
 * (first the number of collisions, a size to allocate). */
mmx_status mmx_mesh_product(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map, mmx_csc **out);

/* ---- valued SpGEMM ------------------------------------------------------------------------ */

/* What a counted collision contributes to C(i,j) in a valued product, from ma and mb, the
 * float values of the colliding entries A(i,k) and B(k,j) under the operands' action maps
 * (mmx_map: the stored value, a constant, a table by value, row, column, order or entry, or
 * the matrix's own floats, MMX_MAP_X). */
typedef enum mmx_vcoll {
    MMX_VCOLL_PRODUCT = 0, /* ma * mb (rounded once: no fused multiply-add on either backend);
                              with MMX_REL_ALL, MMX_MONOID_SUM and MMX_MAP_X maps, the
                              ordinary product of two valued matrices */
    MMX_VCOLL_A,           /* ma */
    MMX_VCOLL_B,           /* mb */
    MMX_VCOLL_TAIL         /* the cycle relations: ma when b = a + p (mod n), else mb (then
                              b = a - p): the value of the entry the cycle step leaves from.
                              With p = 1 in M <CYCLE_BOTH> Mᵀ and a per-corner weight of the
                              edge leaving each corner (the same table on M and, moved with
                              it, on Mᵀ), C(i,j) = C(j,i) sums the weights of the edge {i, j}
                              over its faces: a cotangent Laplacian's off-diagonal */
} mmx_vcoll;

/* The action map of a valued SpGEMM: which collisions count (the integer relation on the
 * stored values a, b, as in mmx_spgemm), the operands' float maps, what a collision
 * contributes, how contributions combine (SUM, MIN or MAX; ANY is refused). */
typedef struct mmx_vgemm_map {
    mmx_rel rel;
    mmx_map amap, bmap;
    mmx_vcoll coll;
    mmx_monoid monoid;
} mmx_vgemm_map;

/* Valued SpGEMM, C = A <map> B (A: m x n, B: n x p) with float values: the collisions that
 * count are mmx_spgemm's (same relation on the stored integer values, same symbolic phase);
 * contribution c = map.coll(ma, mb), ma = amap(A(i,k)), mb = bmap(B(k,j)).
 * Order, the same on both backends, so that the host and CUDA give the same bits: C(i,j)'s
 * contributions are combined in the order of B's column j (its storage order; for B = Mᵀ, or
 * any matrix made by mmx_csc_transpose, ascending k), SUM as 0 + c1 + c2 + ... left to right
 * in float, MIN and MAX keeping the earlier value on ties (c < acc, c > acc: a NaN
 * contribution after the first is skipped, a NaN first one stays).
 * Without a mask (mask NULL) C(i,j) is stored exactly where some collision counts, rows
 * ascending in each column. With a mask (m x p, either form, in the context's space), C has
 * the mask's pattern exactly (its columns' rows in the mask's order): collisions outside it are
 * dropped and an entry of the mask without a counted collision holds 0 (where an operator
 * needs entries the product does not make: a Laplacian's diagonal, set afterwards).
 * C is general CSC; C->val holds each entry's 1-based position in its column (C is
 * positional), C->x the floats. Zero-sized operands give an empty C of the right size.
 * Errors: MMX_ERR_ARG (NULL arguments, sizes that do not match, an unknown map kind, the
 * monoid ANY, TAIL with a relation that is not a cycle, a float map whose table does not
 * cover its operand: mmx_spmv's checks, a relation table that does not cover the values, a
 * mask of another size), MMX_ERR_OVERFLOW (more than 2^31 - 1 entries in C, device scratch
 * beyond the device's memory), MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: without a mask, mmx_spgemm's (the host: Gustavson's product with a dense float
 * accumulator; CUDA: the counted collisions expanded as (column, row) keys with their float
 * contributions, stably radix-sorted, each run of one C(i,j) folded in order by one thread:
 * 40 bytes per counted collision (key and payload, the sort's second buffers, a run flag),
 * plus 16 bytes per entry of B);
 * with a mask, O(sum over the mask's entries (i, j) of the entries of A's columns k for the
 * B(k, j)), one thread per entry of the mask on CUDA, nothing but C allocated.
 * Synchronises: on CUDA, without a mask as mmx_spgemm (the number of collisions and of C's
 * entries, sizes to allocate); with a mask, no (C's properties are the mask's). */
mmx_status mmx_spgemm_valued(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                             mmx_vgemm_map map, const mmx_csc *mask, mmx_csc **out);

/* ---- bandwidth and reordering ------------------------------------------------------------- */

/* How far a matrix's entries lie from its diagonal (thesis 4.3.4). Spreads are measured in
 * index units. */
typedef struct mmx_band {
    mmx_index col_spread;   /* max over columns of (largest row - smallest row): for a mesh
                               matrix, how far apart a face's vertices are stored */
    mmx_index row_spread;   /* max over rows of (largest column - smallest column): how far
                               apart the faces around a vertex are stored */
    mmx_index bandwidth;    /* max |i - j| over the entries (square matrices; else 0) */
    int64_t profile;        /* sum over columns j of max(0, j - smallest row in column j): the
                               envelope of a symmetric matrix (square matrices; else 0) */
} mmx_band;

/* Computes the figures above, wherever A lives (a device matrix is read on the host).
 * Errors: MMX_ERR_ARG, MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nnz + nrows + ncols).
 * Synchronises: yes for a device matrix, which is copied to the host. */
mmx_status mmx_csc_band(mmx_ctx *ctx, const mmx_csc *A, mmx_band *band);

/* Reverse Cuthill-McKee ordering of the graph whose adjacency is the pattern of S + Sᵀ for a
 * square S, the diagonal ignored (a symmetric pattern, such as E, is its own graph; an
 * unsymmetric one is symmetrised, not refused): perm[new] = old, nrows entries, host memory
 * supplied by the caller. Each connected component starts from a pseudo-peripheral vertex
 * (George and Liu: starting from the component's smallest vertex, re-root the breadth-first
 * level structure at a vertex of least degree in its last level while the eccentricity
 * grows), neighbours are numbered by increasing degree, ties by index; the components follow
 * each other in order of their smallest vertex, and the whole Cuthill-McKee order is then
 * reversed. The result is deterministic. Runs on the host (a device S is copied).
 * Errors: MMX_ERR_ARG (S not square, perm NULL), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(nnz log(maxdeg) + nrows) time plus O(nnz + nrows) per extra level structure of the
 * starting-vertex search (a few per component), O(nnz + nrows) memory (the symmetrised lists).
 * Synchronises: yes for a device S, which is copied to the host. */
mmx_status mmx_rcm(mmx_ctx *ctx, const mmx_csc *S, mmx_index *perm);

#ifdef __cplusplus
}
#endif
#endif
