/* Criterion suite "spgemm": the explicit transpose and the mapped SpGEMM.
 *
 * The dense spec (tests/spec) states both operations literally (dense value and presence
 * matrices, every collision of every C(i,j) in ascending k); the host backend is checked
 * against it on random and mesh inputs, and the CUDA backend against the host on the same
 * inputs, array for array. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "spec/spec.h"

/* ---- inputs --------------------------------------------------------------------------------- */

typedef struct rng { uint64_t s; } rng;

static uint64_t rnext(rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rint_in(rng *r, int lo, int hi) { return lo + (int)(rnext(r) % (uint64_t)(hi - lo + 1)); }

/* How a random matrix's values are chosen. */
enum { VAL_POS = 0, VAL_SIGNED, VAL_SMALL };

/* A random m x n host matrix with about `avg` entries per column (0 .. 2 avg, at most m), rows
 * distinct and in random order inside each column (the library must not assume them sorted).
 * Values: positions (VAL_POS), in [-9, 9] (VAL_SIGNED) or in [1, 6] (VAL_SMALL). */
static mmx_csc *rand_csc(mmx_ctx *h, rng *r, mmx_index m, mmx_index n, int avg, int vals)
{
    mmx_index *colptr = malloc(((size_t)n + 1) * sizeof *colptr);
    size_t cap = (size_t)n * (2 * (size_t)avg + 1) + 1;
    mmx_index *rowidx = malloc(cap * sizeof *rowidx), *val = malloc(cap * sizeof *val);
    mmx_index *stamp = malloc(((size_t)m + 1) * sizeof *stamp), *perm = malloc(((size_t)m + 1) * sizeof *perm);
    cr_assert(colptr && rowidx && val && stamp && perm);
    for (mmx_index i = 0; i < m; i++) stamp[i] = -1;
    mmx_index nnz = 0;
    colptr[0] = 0;
    for (mmx_index j = 0; j < n; j++) {
        int cnt = m ? rint_in(r, 0, 2 * avg) : 0;
        if (cnt > m) cnt = m;
        if (2 * cnt > m) { /* dense column: a shuffled prefix of all rows */
            for (mmx_index i = 0; i < m; i++) perm[i] = i;
            for (mmx_index i = m - 1; i > 0; i--) {
                mmx_index t = rint_in(r, 0, i), x = perm[i];
                perm[i] = perm[t], perm[t] = x;
            }
            for (int c = 0; c < cnt; c++) rowidx[nnz + c] = perm[c];
        } else {
            for (int c = 0; c < cnt; c++) {
                mmx_index i;
                do i = rint_in(r, 0, m - 1); while (stamp[i] == j);
                stamp[i] = j;
                rowidx[nnz + c] = i;
            }
        }
        for (int c = 0; c < cnt; c++)
            val[nnz + c] = vals == VAL_POS ? c + 1 : vals == VAL_SIGNED ? rint_in(r, -9, 9) : rint_in(r, 1, 6);
        nnz += cnt;
        colptr[j + 1] = nnz;
    }
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, m, n, colptr, rowidx, val, MMX_SPACE_HOST, &A));
    free(colptr), free(rowidx), free(val), free(stamp), free(perm);
    return A;
}

/* A host matrix from literal arrays (val NULL: positions). */
static mmx_csc *lit_csc(mmx_ctx *h, mmx_index m, mmx_index n, const mmx_index *colptr,
                        const mmx_index *rowidx, const mmx_index *val)
{
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, m, n, colptr, rowidx, val, MMX_SPACE_HOST, &A));
    return A;
}

/* ---- comparisons ---------------------------------------------------------------------------- */

/* C (host) equals the dense D, as a general CSC with rows ascending in each column. */
static void expect_dense(const mmx_csc *C, const spec_dense *D, const char *what)
{
    cr_assert_eq(C->space, MMX_SPACE_HOST);
    cr_assert_eq(C->order, 0, "%s: result not general", what);
    cr_assert(C->nrows == D->nrows && C->ncols == D->ncols, "%s: %d x %d, expected %d x %d", what,
              C->nrows, C->ncols, D->nrows, D->ncols);
    cr_assert_eq(C->colptr[0], 0, "%s", what);
    int64_t count = 0;
    for (size_t t = 0; t < (size_t)D->nrows * D->ncols; t++) count += D->has[t];
    cr_assert_eq(C->nnz, count, "%s: nnz %d, expected %lld", what, C->nnz, (long long)count);
    cr_assert_eq(C->colptr[C->ncols], C->nnz, "%s", what);
    mmx_index maxcol = 0;
    for (mmx_index j = 0; j < C->ncols; j++) {
        cr_assert_leq(C->colptr[j], C->colptr[j + 1], "%s", what);
        if (C->colptr[j + 1] - C->colptr[j] > maxcol) maxcol = C->colptr[j + 1] - C->colptr[j];
        for (mmx_index e = C->colptr[j]; e < C->colptr[j + 1]; e++) {
            mmx_index i = C->rowidx[e];
            cr_assert(i >= 0 && i < C->nrows, "%s: row %d", what, i);
            if (e > C->colptr[j]) cr_assert_lt(C->rowidx[e - 1], i, "%s: rows not ascending in column %d", what, j);
            size_t at = spec_at(D, i, j);
            cr_assert(D->has[at], "%s: C(%d,%d) should not be stored", what, i, j);
            cr_assert_eq(C->val[e], D->val[at], "%s: C(%d,%d) = %d, expected %lld", what, i, j,
                         C->val[e], (long long)D->val[at]);
        }
    }
    cr_assert_eq(C->maxcol, maxcol, "%s: maxcol", what);
}

/* Two host matrices have identical arrays and properties. */
static void expect_same(const mmx_csc *X, const mmx_csc *Y, const char *what)
{
    cr_assert(X->nrows == Y->nrows && X->ncols == Y->ncols && X->nnz == Y->nnz && X->order == Y->order,
              "%s: shapes differ (%d x %d nnz %d vs %d x %d nnz %d)", what, X->nrows, X->ncols, X->nnz,
              Y->nrows, Y->ncols, Y->nnz);
    cr_assert_eq(memcmp(X->colptr, Y->colptr, ((size_t)X->ncols + 1) * sizeof(mmx_index)), 0, "%s: colptr", what);
    if (X->nnz) {
        cr_assert_eq(memcmp(X->rowidx, Y->rowidx, (size_t)X->nnz * sizeof(mmx_index)), 0, "%s: rowidx", what);
        cr_assert_eq(memcmp(X->val, Y->val, (size_t)X->nnz * sizeof(mmx_index)), 0, "%s: val", what);
    }
    cr_assert(X->maxcol == Y->maxcol && X->minval == Y->minval && X->maxval == Y->maxval &&
              X->positional == Y->positional, "%s: cached properties differ", what);
}

/* A host copy of a matrix living anywhere (the caller frees it). */
static mmx_csc *on_host(mmx_ctx *ctx, const mmx_csc *A)
{
    mmx_csc *H = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, A, MMX_SPACE_HOST, &H));
    return H;
}

/* ---- the checkers, shared by the host and the GPU tests --------------------------------------
 * d == NULL: the host backend against the spec. d a CUDA context: the host against the spec
 * where that is cheap, and the device against the host, exactly. */

/* The map's table in the context's space (NULL for the other kinds); *dev to free after. */
static mmx_gemm_map map_in(mmx_ctx *ctx, mmx_gemm_map map, mmx_index **dev)
{
    *dev = NULL;
    if (map.rel.kind != MMX_REL_TABLE || !map.rel.table || mmx_ctx_space(ctx) == MMX_SPACE_HOST) return map;
    size_t bytes = (size_t)map.rel.dim * map.rel.dim * sizeof(mmx_index);
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, (void **)dev));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, *dev, MMX_SPACE_DEVICE, map.rel.table, MMX_SPACE_HOST, bytes));
    map.rel.table = *dev;
    return map;
}

/* Runs C = A <map> B (host operands) and checks it; returns the host status. */
static mmx_status check_product(mmx_ctx *h, mmx_ctx *d, const mmx_csc *A, const mmx_csc *B,
                                mmx_gemm_map map, const char *what)
{
    mmx_csc *C = NULL;
    mmx_status s = mmx_spgemm(h, A, B, map, &C);
    char hdetail[600];
    snprintf(hdetail, sizeof hdetail, "%s", mmx_ctx_error(h));
    const int64_t m = A->nrows, n = A->ncols, p = B->ncols;
    if (m * n * p <= 60000000 && m * n <= 4000000 && n * p <= 4000000 && m * p <= 4000000) {
        spec_product R = spec_spgemm(A, B, map);
        if (R.ovf_i >= 0) {
            char want[64];
            snprintf(want, sizeof want, "C(%d,%d)", R.ovf_i, R.ovf_j);
            cr_assert_eq(s, MMX_ERR_OVERFLOW, "%s: expected an overflow at %s, got %s", what, want, mmx_status_str(s));
            cr_assert(strstr(hdetail, want), "%s: detail '%s' does not name %s", what, hdetail, want);
            cr_assert_null(C);
        } else {
            cr_assert_eq(s, MMX_OK, "%s: %s: %s", what, mmx_status_str(s), hdetail);
            expect_dense(C, &R.C, what);
        }
        spec_product_free(&R);
    }
    if (d) {
        mmx_csc *Ad = NULL, *Bd = NULL, *Cd = NULL;
        mmx_index *table = NULL;
        MMX_OK_OR_FAIL(d, mmx_csc_copy(d, A, MMX_SPACE_DEVICE, &Ad));
        MMX_OK_OR_FAIL(d, mmx_csc_copy(d, B, MMX_SPACE_DEVICE, &Bd));
        mmx_status sd = mmx_spgemm(d, Ad, Bd, map_in(d, map, &table), &Cd);
        cr_assert_eq(sd, s, "%s: device %s (%s), host %s (%s)", what, mmx_status_str(sd),
                     mmx_ctx_error(d), mmx_status_str(s), hdetail);
        if (sd) {
            cr_assert_str_eq(mmx_ctx_error(d), hdetail, "%s: the backends name different failures", what);
            cr_assert_null(Cd);
        } else {
            cr_assert_eq(Cd->space, MMX_SPACE_DEVICE);
            mmx_csc *Ch = on_host(d, Cd);
            expect_same(Ch, C, what);
            mmx_csc_free(Ch);
        }
        mmx_csc_free(Cd), mmx_csc_free(Ad), mmx_csc_free(Bd);
        mmx_mem_free(d, MMX_SPACE_DEVICE, table);
    }
    mmx_csc_free(C);
    return s;
}

/* A general copy of A with each column's entries sorted by row (values follow). */
static mmx_csc *sorted_rows(mmx_ctx *h, const mmx_csc *A)
{
    spec_dense D = spec_dense_of(A);
    mmx_index *colptr = malloc(((size_t)A->ncols + 1) * sizeof *colptr);
    mmx_index *rowidx = malloc(((size_t)A->nnz + 1) * sizeof *rowidx), *val = malloc(((size_t)A->nnz + 1) * sizeof *val);
    cr_assert(colptr && rowidx && val);
    mmx_index e = 0;
    colptr[0] = 0;
    for (mmx_index j = 0; j < A->ncols; j++) {
        for (mmx_index i = 0; i < A->nrows; i++)
            if (D.has[spec_at(&D, i, j)]) rowidx[e] = i, val[e] = (mmx_index)D.val[spec_at(&D, i, j)], e++;
        colptr[j + 1] = e;
    }
    mmx_csc *S = lit_csc(h, A->nrows, A->ncols, colptr, rowidx, val);
    free(colptr), free(rowidx), free(val), spec_dense_free(&D);
    return S;
}

/* Aᵀ against the spec (host), Aᵀᵀ against A with sorted rows, and the device's Aᵀ and Aᵀᵀ
 * against the host's. Large matrices skip the dense spec. */
static void check_transpose(mmx_ctx *h, mmx_ctx *d, const mmx_csc *A, const char *what)
{
    mmx_csc *T = NULL, *TT = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, A, &T));
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, T, &TT));
    cr_assert(T->nrows == A->ncols && T->ncols == A->nrows && T->nnz == A->nnz && T->order == 0, "%s", what);
    if ((int64_t)A->nrows * A->ncols <= 4000000) {
        spec_dense a = spec_dense_of(A), t = spec_dense_transpose(&a);
        expect_dense(T, &t, what);
        mmx_csc *S = sorted_rows(h, A);
        expect_same(TT, S, what);
        mmx_csc_free(S);
        spec_dense_free(&a), spec_dense_free(&t);
    }
    if (d) {
        mmx_csc *Ad = NULL, *Td = NULL, *TTd = NULL;
        MMX_OK_OR_FAIL(d, mmx_csc_copy(d, A, MMX_SPACE_DEVICE, &Ad));
        MMX_OK_OR_FAIL(d, mmx_csc_transpose(d, Ad, &Td));
        MMX_OK_OR_FAIL(d, mmx_csc_transpose(d, Td, &TTd));
        cr_assert_eq(Td->space, MMX_SPACE_DEVICE);
        mmx_csc *Th = on_host(d, Td), *TTh = on_host(d, TTd);
        expect_same(Th, T, what);
        expect_same(TTh, TT, what);
        mmx_csc_free(Th), mmx_csc_free(TTh), mmx_csc_free(Ad), mmx_csc_free(Td), mmx_csc_free(TTd);
    }
    mmx_csc_free(T), mmx_csc_free(TT);
}

/* ---- the cases ------------------------------------------------------------------------------ */

static const struct shape { mmx_index m, n, p; int avga, avgb; } shapes[] = {
    {7, 5, 6, 2, 2}, {20, 30, 25, 3, 4}, {30, 12, 40, 6, 2}, {1, 20, 1, 1, 10},
    {16, 16, 16, 16, 16}, {40, 25, 9, 1, 3},
};

/* The relations tried on random operands: p negative, zero, and larger than the columns. */
static const mmx_rel rels[] = {
    {MMX_REL_ALL, 0, NULL, 0},        {MMX_REL_CYCLE, 1, NULL, 0},      {MMX_REL_CYCLE, -1, NULL, 0},
    {MMX_REL_CYCLE, 0, NULL, 0},      {MMX_REL_CYCLE, 2, NULL, 0},      {MMX_REL_CYCLE, 13, NULL, 0},
    {MMX_REL_CYCLE, -17, NULL, 0},    {MMX_REL_CYCLE_BOTH, 1, NULL, 0}, {MMX_REL_CYCLE_BOTH, 2, NULL, 0},
    {MMX_REL_CYCLE_BOTH, -3, NULL, 0}, {MMX_REL_CYCLE_BOTH, 0, NULL, 0}, {MMX_REL_CYCLE_BOTH, 11, NULL, 0},
    {MMX_REL_TABLE, 0, NULL, 0},
};

/* Every shape x value kind x relation x collision x monoid. The table relation gets a random
 * table just covering both operands' values, entries in [-2, 3] (about half zero). */
static void random_products(mmx_ctx *h, mmx_ctx *d)
{
    rng r = {12345};
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
        for (int vals = VAL_POS; vals <= VAL_SMALL; vals++) {
            const struct shape *S = &shapes[si];
            mmx_csc *A = rand_csc(h, &r, S->m, S->n, S->avga, vals);
            mmx_csc *B = rand_csc(h, &r, S->n, S->p, S->avgb, vals);
            mmx_index dim = A->maxval > B->maxval ? A->maxval : B->maxval;
            if (dim < 1) dim = 1;
            mmx_index *table = malloc((size_t)dim * dim * sizeof *table);
            for (mmx_index t = 0; t < dim * dim; t++) table[t] = rint_in(&r, 0, 1) ? 0 : rint_in(&r, -2, 3);
            for (size_t ri = 0; ri < sizeof rels / sizeof *rels; ri++) {
                mmx_rel rel = rels[ri];
                if (rel.kind == MMX_REL_TABLE) {
                    if (vals == VAL_SIGNED) continue; /* values must lie in [1, dim] */
                    rel.table = table;
                    rel.dim = dim;
                }
                for (int coll = MMX_COLL_MAP; coll <= MMX_COLL_PRODUCT; coll++)
                    for (int mon = MMX_MONOID_SUM; mon <= MMX_MONOID_ANY; mon++) {
                        mmx_gemm_map map = {rel, (mmx_coll)coll, (mmx_monoid)mon};
                        char what[160];
                        snprintf(what, sizeof what, "shape %zu vals %d rel %zu (p %d) coll %d monoid %d",
                                 si, vals, ri, rel.p, coll, mon);
                        check_product(h, d, A, B, map, what);
                    }
            }
            free(table);
            mmx_csc_free(A), mmx_csc_free(B);
        }
}

static void random_transposes(mmx_ctx *h, mmx_ctx *d)
{
    rng r = {777};
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
        for (int vals = VAL_POS; vals <= VAL_SMALL; vals++) {
            mmx_csc *A = rand_csc(h, &r, shapes[si].m, shapes[si].n, shapes[si].avga, vals);
            check_transpose(h, d, A, "random");
            mmx_csc_free(A);
        }
}

/* Shapes with nothing in them, empty rows and columns, one entry. */
static void edge_cases(mmx_ctx *h, mmx_ctx *d)
{
    static const mmx_index zero[1] = {0};
    static const mmx_index cp1[4] = {0, 0, 1, 1}, ri1[1] = {2}, va1[1] = {-4}; /* 4 x 3, one entry */
    static const mmx_index cp2[4] = {0, 2, 2, 3}, ri2[3] = {3, 0, 1};           /* rows 2 empty */
    static const mmx_index cp3[3] = {0, 1, 1}, ri3[1] = {1}, va3[1] = {5};      /* 3 x 2 */
    mmx_csc *Z00 = lit_csc(h, 0, 0, zero, NULL, NULL);
    mmx_csc *Z05 = lit_csc(h, 0, 5, (const mmx_index[6]){0, 0, 0, 0, 0, 0}, NULL, NULL);
    mmx_csc *Z50 = lit_csc(h, 5, 0, zero, NULL, NULL);
    mmx_csc *Z30 = lit_csc(h, 3, 0, zero, NULL, NULL);
    mmx_csc *Z04 = lit_csc(h, 0, 4, (const mmx_index[5]){0, 0, 0, 0, 0}, NULL, NULL);
    mmx_csc *E53 = lit_csc(h, 5, 3, (const mmx_index[4]){0, 0, 0, 0}, NULL, NULL);
    mmx_csc *One = lit_csc(h, 4, 3, cp1, ri1, va1);
    mmx_csc *Gap = lit_csc(h, 4, 3, cp2, ri2, NULL);
    mmx_csc *Sm = lit_csc(h, 3, 2, cp3, ri3, va3);
    const mmx_csc *T[] = {Z00, Z05, Z50, Z30, Z04, E53, One, Gap, Sm};
    for (size_t t = 0; t < sizeof T / sizeof *T; t++) check_transpose(h, d, T[t], "edge");
    mmx_gemm_map maps[] = {
        {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_PRODUCT, MMX_MONOID_SUM},
        {{MMX_REL_CYCLE, 1, NULL, 0}, MMX_COLL_K, MMX_MONOID_MIN},
        {{MMX_REL_CYCLE_BOTH, 1, NULL, 0}, MMX_COLL_MAP, MMX_MONOID_SUM},
        {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_B, MMX_MONOID_ANY},
    };
    /* (A, B) pairs whose inner sizes agree. */
    mmx_csc *Z24 = lit_csc(h, 2, 4, (const mmx_index[5]){0, 0, 0, 0, 0}, NULL, NULL);
    const mmx_csc *pairs[][2] = {
        {Z00, Z00}, {Z05, E53}, {Z50, Z05}, {Z30, Z04}, {E53, Sm}, {One, Sm}, {Gap, Sm}, {Sm, Z24},
    };
    mmx_csc *SmT = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, Sm, &SmT));
    mmx_csc *OneT = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, One, &OneT));
    for (size_t q = 0; q < sizeof pairs / sizeof *pairs; q++)
        for (size_t k = 0; k < sizeof maps / sizeof *maps; k++)
            check_product(h, d, pairs[q][0], pairs[q][1], maps[k], "edge");
    for (size_t k = 0; k < sizeof maps / sizeof *maps; k++) {
        check_product(h, d, One, OneT, maps[k], "one entry");
        check_product(h, d, OneT, One, maps[k], "one entry");
        check_product(h, d, SmT, Sm, maps[k], "one entry");
    }
    /* The products' sizes, from the structures alone: 0 x 0, 5 x 5, 3 x 4 and 0 x 3 empty. */
    struct { const mmx_csc *A, *B; mmx_index m, p; } sz[] = {{Z00, Z00, 0, 0}, {Z50, Z05, 5, 5}, {Z30, Z04, 3, 4}, {Z05, E53, 0, 3}};
    for (size_t q = 0; q < sizeof sz / sizeof *sz; q++) {
        mmx_csc *C = NULL;
        MMX_OK_OR_FAIL(h, mmx_spgemm(h, sz[q].A, sz[q].B, maps[0], &C));
        cr_assert(C->nrows == sz[q].m && C->ncols == sz[q].p && C->nnz == 0 && C->colptr[C->ncols] == 0);
        mmx_csc_free(C);
    }
    mmx_csc_free(Z00), mmx_csc_free(Z05), mmx_csc_free(Z50), mmx_csc_free(Z30), mmx_csc_free(Z04);
    mmx_csc_free(E53), mmx_csc_free(One), mmx_csc_free(Gap), mmx_csc_free(Sm), mmx_csc_free(Z24);
    mmx_csc_free(SmT), mmx_csc_free(OneT);
}

/* The host mesh matrix of a mesh from a shape spec or face lists. */
static mmx_csc *mesh_matrix(mmx_ctx *h, mmx_mesh *mesh)
{
    mmx_csc *M = NULL;
    MMX_OK_OR_FAIL(h, mmx_mesh_expand(h, mesh)); /* the checks below read colptr */
    MMX_OK_OR_FAIL(h, mmx_csc_copy(h, mesh->M, MMX_SPACE_HOST, &M));
    mmx_mesh_free(mesh);
    return M;
}

static mmx_csc *shape_matrix(mmx_ctx *h, const char *spec)
{
    mmx_mesh *mesh = NULL;
    MMX_OK_OR_FAIL(h, mmx_mesh_shape(h, spec, &mesh));
    return mesh_matrix(h, mesh);
}

/* A cone of nf triangles around vertex 0 (valence nf), its base ring open. */
static mmx_csc *cone_matrix(mmx_ctx *h, mmx_index nf)
{
    mmx_index *start = malloc(((size_t)nf + 1) * sizeof *start), *verts = malloc((size_t)nf * 3 * sizeof *verts);
    for (mmx_index f = 0; f < nf; f++) {
        start[f] = 3 * f;
        verts[3 * f] = 0, verts[3 * f + 1] = 1 + f, verts[3 * f + 2] = 1 + (f + 1) % nf;
    }
    start[nf] = 3 * nf;
    mmx_mesh *mesh = NULL;
    MMX_OK_OR_FAIL(h, mmx_mesh_from_faces(h, nf + 1, nf, start, verts, NULL, &mesh));
    free(start), free(verts);
    return mesh_matrix(h, mesh);
}

/* One face of order c. */
static mmx_csc *polygon_matrix(mmx_ctx *h, mmx_index c)
{
    mmx_index start[2] = {0, c}, *verts = malloc((size_t)c * sizeof *verts);
    for (mmx_index v = 0; v < c; v++) verts[v] = v;
    mmx_mesh *mesh = NULL;
    MMX_OK_OR_FAIL(h, mmx_mesh_from_faces(h, c, 1, start, verts, NULL, &mesh));
    free(verts);
    return mesh_matrix(h, mesh);
}

static const mmx_gemm_map MAP_E = {{MMX_REL_CYCLE_BOTH, 1, NULL, 0}, MMX_COLL_MAP, MMX_MONOID_SUM};
static const mmx_gemm_map MAP_F = {{MMX_REL_CYCLE, 1, NULL, 0}, MMX_COLL_K, MMX_MONOID_MIN};

/* E = M <edge> Mᵀ and F = M <face> Mᵀ of a mesh, checked against the spec (and the device),
 * plus the mesh-level facts: E symmetric with values 1 (boundary) or 2 (inner), F(i,j) a face
 * in which j follows i. Returns E on the host (the caller frees it), with counts. */
static mmx_csc *mesh_products(mmx_ctx *h, mmx_ctx *d, const mmx_csc *M, const char *what,
                              int64_t *ones, int64_t *twos)
{
    mmx_csc *Mt = NULL, *E = NULL, *F = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, M, &Mt));
    check_transpose(h, d, M, what);
    check_product(h, d, M, Mt, MAP_E, what);
    check_product(h, d, M, Mt, MAP_F, what);
    MMX_OK_OR_FAIL(h, mmx_spgemm(h, M, Mt, MAP_E, &E));
    MMX_OK_OR_FAIL(h, mmx_spgemm(h, M, Mt, MAP_F, &F));
    spec_dense e = spec_dense_of(E);
    *ones = *twos = 0;
    for (mmx_index i = 0; i < E->nrows; i++)
        for (mmx_index j = 0; j < E->ncols; j++) {
            size_t at = spec_at(&e, i, j), ta = spec_at(&e, j, i);
            cr_assert_eq(e.has[at], e.has[ta], "%s: E not symmetric at (%d,%d)", what, i, j);
            if (!e.has[at]) continue;
            cr_assert_eq(e.val[at], e.val[ta], "%s", what);
            cr_assert(e.val[at] == 1 || e.val[at] == 2, "%s: E(%d,%d) = %lld", what, i, j, (long long)e.val[at]);
            *ones += e.val[at] == 1, *twos += e.val[at] == 2;
        }
    /* F(i,j) = f: in face f, vertex j comes right after vertex i. */
    for (mmx_index j = 0; j < F->ncols; j++)
        for (mmx_index t = F->colptr[j]; t < F->colptr[j + 1]; t++) {
            mmx_index i = F->rowidx[t], f = F->val[t];
            int64_t a = M->colptr[f], b = M->colptr[f + 1], c = b - a, ok = 0;
            for (int64_t q = 0; q < c; q++) ok |= M->rowidx[a + q] == i && M->rowidx[a + (q + 1) % c] == j;
            cr_assert(ok, "%s: F(%d,%d) = %d, but %d -> %d is not a half-edge of face %d", what, i, j, f, i, j, f);
            cr_assert(e.has[spec_at(&e, i, j)], "%s: F entry outside E", what);
        }
    spec_dense_free(&e);
    mmx_csc_free(Mt), mmx_csc_free(F);
    return E;
}

static void mesh_cases(mmx_ctx *h, mmx_ctx *d)
{
    int64_t ones, twos;
    /* The cube: 12 edges, all inner, 24 off-diagonal entries of value 2. */
    mmx_csc *M = shape_matrix(h, "cube");
    mmx_csc *E = mesh_products(h, d, M, "cube", &ones, &twos);
    cr_assert(E->nnz == 24 && ones == 0 && twos == 24, "cube: nnz %d, ones %lld", E->nnz, (long long)ones);
    for (mmx_index j = 0; j < E->ncols; j++)
        for (mmx_index t = E->colptr[j]; t < E->colptr[j + 1]; t++) cr_assert_neq(E->rowidx[t], j);
    mmx_csc_free(E), mmx_csc_free(M);
    /* The grid and the mixed disk: boundary edges (value 1) as the mesh statistics count them. */
    const char *specs[] = {"grid:8:8", "mixed", "tetrahedron"};
    for (size_t q = 0; q < sizeof specs / sizeof *specs; q++) {
        mmx_mesh *mesh = NULL;
        mmx_mesh_stats st;
        MMX_OK_OR_FAIL(h, mmx_mesh_shape(h, specs[q], &mesh));
        MMX_OK_OR_FAIL(h, mmx_mesh_stats_compute(h, mesh, &st));
        M = mesh_matrix(h, mesh);
        E = mesh_products(h, d, M, specs[q], &ones, &twos);
        cr_assert_eq(E->nnz, 2 * (int64_t)st.nedges, "%s: %d entries for %d edges", specs[q], E->nnz, st.nedges);
        cr_assert_eq(ones, 2 * (int64_t)st.boundary_edges, "%s", specs[q]);
        if (q == 0) cr_assert_gt(ones, 0, "the grid has boundary edges");
        mmx_csc_free(E), mmx_csc_free(M);
    }
    /* A vertex of valence 360: its row of E has 360 spokes, each inner (2); the rim is open. */
    M = cone_matrix(h, 360);
    E = mesh_products(h, d, M, "cone", &ones, &twos);
    cr_assert_eq(E->colptr[1] - E->colptr[0], 360, "the apex has 360 neighbours");
    cr_assert(ones == 720 && twos == 720, "cone: %lld ones, %lld twos", (long long)ones, (long long)twos);
    mmx_csc_free(E), mmx_csc_free(M);
    /* A face of order 360: a ring of boundary edges. */
    M = polygon_matrix(h, 360);
    E = mesh_products(h, d, M, "360-gon", &ones, &twos);
    cr_assert(E->nnz == 720 && ones == 720, "360-gon: nnz %d", E->nnz);
    mmx_csc_free(E), mmx_csc_free(M);
}

/* A reduced operand gives what its general form gives, on either side of the product, and so
 * does its transpose. */
static void reduced_cases(mmx_ctx *h, mmx_ctx *d)
{
    const char *specs[] = {"cube", "icosphere:1", "torus:6:5"};
    for (size_t q = 0; q < sizeof specs / sizeof *specs; q++) {
        mmx_mesh *mesh = NULL;
        MMX_OK_OR_FAIL(h, mmx_mesh_shape(h, specs[q], &mesh));
        mmx_csc *G = NULL;
        MMX_OK_OR_FAIL(h, mmx_csc_copy(h, mesh->M, MMX_SPACE_HOST, &G));
        MMX_OK_OR_FAIL(h, mmx_mesh_reduce(h, mesh));
        const mmx_csc *R = mesh->M;
        cr_assert_gt(R->order, 0);
        mmx_csc *Gt = NULL, *Rt = NULL;
        MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, G, &Gt));
        MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, R, &Rt));
        expect_same(Rt, Gt, specs[q]);
        check_transpose(h, d, R, specs[q]);
        mmx_gemm_map maps[] = {MAP_E, MAP_F,
                               {{MMX_REL_CYCLE, -1, NULL, 0}, MMX_COLL_A, MMX_MONOID_ANY},
                               {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_PRODUCT, MMX_MONOID_SUM}};
        for (size_t k = 0; k < sizeof maps / sizeof *maps; k++) {
            mmx_csc *C1 = NULL, *C2 = NULL, *C3 = NULL, *C4 = NULL;
            MMX_OK_OR_FAIL(h, mmx_spgemm(h, G, Gt, maps[k], &C1));
            MMX_OK_OR_FAIL(h, mmx_spgemm(h, R, Gt, maps[k], &C2));
            MMX_OK_OR_FAIL(h, mmx_spgemm(h, Gt, G, maps[k], &C3));
            MMX_OK_OR_FAIL(h, mmx_spgemm(h, Gt, R, maps[k], &C4));
            expect_same(C2, C1, specs[q]);
            expect_same(C4, C3, specs[q]);
            check_product(h, d, R, Gt, maps[k], specs[q]);
            check_product(h, d, Gt, R, maps[k], specs[q]);
            mmx_csc_free(C1), mmx_csc_free(C2), mmx_csc_free(C3), mmx_csc_free(C4);
        }
        mmx_csc_free(G), mmx_csc_free(Gt), mmx_csc_free(Rt);
        mmx_mesh_free(mesh);
    }
}

/* Sums and products leaving 32 bits are refused, naming the entry; one that only passes
 * through the range on the way is not. */
static void overflow_cases(mmx_ctx *h, mmx_ctx *d)
{
    const mmx_index cp[2] = {0, 4}, ri[4] = {0, 1, 2, 3};
    /* A: 2 x 4 with values near 2^20 / 2^15; B = Aᵀ. */
    const mmx_index acp[5] = {0, 2, 4, 6, 8}, ari[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    const mmx_index big[8] = {1 << 20, 3, 1 << 20, -5, 7, 1 << 20, 2, 1 << 20};
    const mmx_index mid[8] = {1 << 15, 1, 1 << 15, 1, 1 << 15, 1, 1 << 15, 1};
    mmx_csc *Ab = lit_csc(h, 2, 4, acp, ari, big), *Am = lit_csc(h, 2, 4, acp, ari, mid);
    mmx_csc *Abt = NULL, *Amt = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, Ab, &Abt));
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, Am, &Amt));
    mmx_gemm_map prod = {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_PRODUCT, MMX_MONOID_SUM};
    /* (2^20)^2 overflows as a product, with any monoid. */
    cr_assert_eq(check_product(h, d, Ab, Abt, prod, "product 2^40"), MMX_ERR_OVERFLOW);
    prod.monoid = MMX_MONOID_MIN;
    cr_assert_eq(check_product(h, d, Ab, Abt, prod, "product 2^40 min"), MMX_ERR_OVERFLOW);
    /* Four products of 2^30: each fits, C(0,0)'s sum 2^32 does not; C(1,1) = 4 does. */
    prod.monoid = MMX_MONOID_SUM;
    cr_assert_eq(check_product(h, d, Am, Amt, prod, "sum 2^32"), MMX_ERR_OVERFLOW);
    cr_assert(strstr(mmx_ctx_error(h), "C(0,0)"), "%s", mmx_ctx_error(h));
    prod.monoid = MMX_MONOID_MAX;
    cr_assert_eq(check_product(h, d, Am, Amt, prod, "max 2^30"), MMX_OK);
    /* INT32_MAX + 5 - 5: the partial sum leaves the range, the result does not. */
    const mmx_index vals[4] = {INT32_MAX, 5, -5, 0};
    mmx_csc *Row = lit_csc(h, 1, 4, (const mmx_index[5]){0, 1, 2, 3, 4}, (const mmx_index[4]){0, 0, 0, 0}, vals);
    mmx_csc *Col = lit_csc(h, 4, 1, cp, ri, NULL);
    mmx_gemm_map sum_a = {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_A, MMX_MONOID_SUM};
    cr_assert_eq(check_product(h, d, Row, Col, sum_a, "through the range"), MMX_OK);
    mmx_csc *C = NULL;
    MMX_OK_OR_FAIL(h, mmx_spgemm(h, Row, Col, sum_a, &C));
    cr_assert(C->nnz == 1 && C->val[0] == INT32_MAX);
    mmx_csc_free(C);
    /* INT32_MAX + 5 + 0 does not come back. */
    const mmx_index vals2[4] = {INT32_MAX, 5, 0, 0};
    mmx_csc *Row2 = lit_csc(h, 1, 4, (const mmx_index[5]){0, 1, 2, 3, 4}, (const mmx_index[4]){0, 0, 0, 0}, vals2);
    cr_assert_eq(check_product(h, d, Row2, Col, sum_a, "sum past 2^31"), MMX_ERR_OVERFLOW);
    mmx_csc_free(Ab), mmx_csc_free(Am), mmx_csc_free(Abt), mmx_csc_free(Amt);
    mmx_csc_free(Row), mmx_csc_free(Row2), mmx_csc_free(Col);
}

/* ---- host tests ----------------------------------------------------------------------------- */

Test(spgemm, transpose_random_vs_spec)
{
    mmx_ctx *h = tu_host_ctx();
    random_transposes(h, NULL);
    mmx_ctx_free(h);
}

Test(spgemm, transpose_reduced_keeps_positions)
{
    mmx_ctx *h = tu_host_ctx();
    mmx_mesh *mesh = NULL;
    MMX_OK_OR_FAIL(h, mmx_mesh_shape(h, "cube", &mesh));
    MMX_OK_OR_FAIL(h, mmx_mesh_reduce(h, mesh));
    mmx_csc *T = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, mesh->M, &T));
    cr_assert(T->nrows == 6 && T->ncols == 8 && T->nnz == 24 && T->order == 0);
    /* Every vertex of the cube is in 3 faces; the values are positions 1..4. */
    for (mmx_index i = 0; i < 8; i++) cr_assert_eq(T->colptr[i + 1] - T->colptr[i], 3);
    cr_assert(T->minval == 1 && T->maxval == 4 && T->maxcol == 3);
    for (mmx_index t = 0; t < 24; t++) {
        mmx_index f = T->rowidx[t], v = T->val[t];
        mmx_index i = 0;
        while (T->colptr[i + 1] <= t) i++;
        cr_assert_eq(mesh->M->rowidx[4 * f + v - 1], i, "vertex %d is not at position %d of face %d", i, v, f);
    }
    check_transpose(h, NULL, mesh->M, "reduced cube");
    mmx_csc_free(T);
    mmx_mesh_free(mesh);
    mmx_ctx_free(h);
}

Test(spgemm, random_all_maps_vs_spec)
{
    mmx_ctx *h = tu_host_ctx();
    random_products(h, NULL);
    mmx_ctx_free(h);
}

Test(spgemm, edge_shapes)
{
    mmx_ctx *h = tu_host_ctx();
    edge_cases(h, NULL);
    mmx_ctx_free(h);
}

Test(spgemm, mesh_edge_and_face_maps)
{
    mmx_ctx *h = tu_host_ctx();
    mesh_cases(h, NULL);
    mmx_ctx_free(h);
}

Test(spgemm, reduced_equals_general)
{
    mmx_ctx *h = tu_host_ctx();
    reduced_cases(h, NULL);
    mmx_ctx_free(h);
}

Test(spgemm, overflow_refused)
{
    mmx_ctx *h = tu_host_ctx();
    overflow_cases(h, NULL);
    mmx_ctx_free(h);
}

/* ANY keeps the smallest k's contribution even when B's rows come in another order. */
Test(spgemm, any_takes_smallest_k)
{
    mmx_ctx *h = tu_host_ctx();
    /* A: 1 x 3, A(0,k) = 10 + k; B: 3 x 1 with its rows stored as 2, 0, 1. */
    mmx_csc *A = lit_csc(h, 1, 3, (const mmx_index[4]){0, 1, 2, 3}, (const mmx_index[3]){0, 0, 0},
                         (const mmx_index[3]){10, 11, 12});
    mmx_csc *B = lit_csc(h, 3, 1, (const mmx_index[2]){0, 3}, (const mmx_index[3]){2, 0, 1}, NULL);
    mmx_gemm_map any = {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_A, MMX_MONOID_ANY};
    mmx_csc *C = NULL;
    MMX_OK_OR_FAIL(h, mmx_spgemm(h, A, B, any, &C));
    cr_assert(C->nnz == 1 && C->val[0] == 10, "ANY gave %d", C->val[0]);
    mmx_csc_free(C);
    any.coll = MMX_COLL_B; /* B(0,0) is the second stored entry: value 2 */
    MMX_OK_OR_FAIL(h, mmx_spgemm(h, A, B, any, &C));
    cr_assert(C->nnz == 1 && C->val[0] == 2, "ANY gave %d", C->val[0]);
    mmx_csc_free(C);
    mmx_csc_free(A), mmx_csc_free(B);
    mmx_ctx_free(h);
}

Test(spgemm, errors)
{
    mmx_ctx *h = tu_host_ctx();
    rng r = {99};
    mmx_csc *A = rand_csc(h, &r, 5, 4, 2, VAL_POS), *B = rand_csc(h, &r, 3, 6, 2, VAL_POS);
    mmx_csc *B4 = rand_csc(h, &r, 4, 6, 2, VAL_POS), *S = rand_csc(h, &r, 4, 6, 2, VAL_SIGNED);
    mmx_gemm_map map = MAP_E;
    mmx_csc *C = (mmx_csc *)&r; /* must be reset to NULL on failure */
    cr_assert_eq(mmx_spgemm(h, A, B, map, &C), MMX_ERR_ARG);
    cr_assert_null(C);
    cr_assert(strstr(mmx_ctx_error(h), "5 x 4") && strstr(mmx_ctx_error(h), "3 x 6"), "%s", mmx_ctx_error(h));
    cr_assert_eq(mmx_spgemm(h, NULL, B4, map, &C), MMX_ERR_ARG);
    cr_assert_eq(mmx_spgemm(h, A, NULL, map, &C), MMX_ERR_ARG);
    cr_assert_eq(mmx_spgemm(h, A, B4, map, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_spgemm(NULL, A, B4, map, &C), MMX_ERR_ARG);
    cr_assert_eq(mmx_csc_transpose(h, NULL, &C), MMX_ERR_ARG);
    cr_assert_eq(mmx_csc_transpose(h, A, NULL), MMX_ERR_ARG);
    mmx_gemm_map bad = map;
    bad.coll = (mmx_coll)42;
    cr_assert_eq(mmx_spgemm(h, A, B4, bad, &C), MMX_ERR_ARG);
    bad = map;
    bad.rel.kind = (mmx_rel_kind)-1;
    cr_assert_eq(mmx_spgemm(h, A, B4, bad, &C), MMX_ERR_ARG);
    bad = map;
    bad.monoid = (mmx_monoid)9;
    cr_assert_eq(mmx_spgemm(h, A, B4, bad, &C), MMX_ERR_ARG);
    /* Tables that do not cover the values: too small, NULL, dim 0, values below 1. */
    mmx_index table[64] = {0};
    mmx_index dim = A->maxval > B4->maxval ? A->maxval : B4->maxval;
    mmx_gemm_map tab = {{MMX_REL_TABLE, 0, table, dim}, MMX_COLL_MAP, MMX_MONOID_SUM};
    MMX_OK_OR_FAIL(h, mmx_spgemm(h, A, B4, tab, &C));
    mmx_csc_free(C);
    tab.rel.dim = dim - 1;
    cr_assert_eq(mmx_spgemm(h, A, B4, tab, &C), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(h), "does not cover"), "%s", mmx_ctx_error(h));
    tab.rel.dim = 0;
    cr_assert_eq(mmx_spgemm(h, A, B4, tab, &C), MMX_ERR_ARG);
    tab.rel.dim = 8;
    tab.rel.table = NULL;
    cr_assert_eq(mmx_spgemm(h, A, B4, tab, &C), MMX_ERR_ARG);
    tab.rel.table = table;
    mmx_csc *At = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, S, &At)); /* 6 x 4, signed values */
    cr_assert_lt(At->minval, 1);
    cr_assert_eq(mmx_spgemm(h, At, B4, tab, &C), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(h), "A's values"), "%s", mmx_ctx_error(h));
    /* A device operand on a host context. */
    mmx_csc fake = *A;
    fake.space = MMX_SPACE_DEVICE;
    cr_assert_eq(mmx_spgemm(h, &fake, B4, map, &C), MMX_ERR_SPACE);
    cr_assert_eq(mmx_spgemm(h, A, &(mmx_csc){.nrows = 4, .ncols = 1, .space = MMX_SPACE_DEVICE}, map, &C),
                 MMX_ERR_SPACE);
    cr_assert_eq(mmx_csc_transpose(h, &fake, &C), MMX_ERR_SPACE);
    cr_assert_null(C);
    mmx_csc_free(A), mmx_csc_free(B), mmx_csc_free(B4), mmx_csc_free(S), mmx_csc_free(At);
    mmx_ctx_free(h);
}

/* ---- GPU tests: the same inputs on a CUDA context, compared with the host exactly --------- */

Test(spgemm, gpu_transpose)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    random_transposes(h, d);
    mmx_ctx_free(h), mmx_ctx_free(d);
}

Test(spgemm, gpu_random_all_maps)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    random_products(h, d);
    mmx_ctx_free(h), mmx_ctx_free(d);
}

Test(spgemm, gpu_edge_shapes)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    edge_cases(h, d);
    mmx_ctx_free(h), mmx_ctx_free(d);
}

Test(spgemm, gpu_meshes_and_reduced)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    mesh_cases(h, d);
    reduced_cases(h, d);
    mmx_ctx_free(h), mmx_ctx_free(d);
}

Test(spgemm, gpu_overflow)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    overflow_cases(h, d);
    mmx_ctx_free(h), mmx_ctx_free(d);
}

/* 20k x 20k, about 10 entries per column: many blocks in every kernel, long sorts, and the
 * overflow flag raised from many threads at once (the smallest entry must win). */
Test(spgemm, gpu_large_random)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    rng r = {2024};
    mmx_csc *A = rand_csc(h, &r, 20000, 20000, 10, VAL_SIGNED);
    mmx_csc *B = rand_csc(h, &r, 20000, 20000, 10, VAL_POS);
    check_transpose(h, d, A, "large");
    mmx_gemm_map maps[] = {
        {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_PRODUCT, MMX_MONOID_SUM},
        {{MMX_REL_CYCLE, 3, NULL, 0}, MMX_COLL_K, MMX_MONOID_MIN},
        {{MMX_REL_CYCLE_BOTH, -1, NULL, 0}, MMX_COLL_B, MMX_MONOID_ANY},
        {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_A, MMX_MONOID_MAX},
    };
    for (size_t k = 0; k < sizeof maps / sizeof *maps; k++) check_product(h, d, A, B, maps[k], "large");
    /* Values near 2^15: products fit, the sums on the diagonal of A·Aᵀ do not. */
    mmx_index *val = malloc((size_t)A->nnz * sizeof *val);
    for (mmx_index e = 0; e < A->nnz; e++) val[e] = 30000 + rint_in(&r, 0, 400);
    mmx_csc *Abig = lit_csc(h, 20000, 20000, A->colptr, A->rowidx, val);
    mmx_csc *Abt = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, Abig, &Abt));
    cr_assert_eq(check_product(h, d, Abig, Abt, maps[0], "large overflow"), MMX_ERR_OVERFLOW);
    free(val);
    mmx_csc_free(A), mmx_csc_free(B), mmx_csc_free(Abig), mmx_csc_free(Abt);
    mmx_ctx_free(h), mmx_ctx_free(d);
}

/* ---- valued SpGEMM (mmx_spgemm_valued) -------------------------------------------------------
 * Stated plainly here: a dense lookup of A's entries, C(i,j) folding, for B's column j in
 * storage order, every counted collision's float contribution (SUM from 0, MIN / MAX keeping
 * the earlier value on ties); the library must give the same bits, and CUDA the host's. */

/* m(i, j, v, e) of a float map over a host operand (the kinds these tests use). */
static float vmap(const mmx_map *m, const mmx_csc *X, mmx_index i, mmx_index j, mmx_index v, int64_t e)
{
    switch (m->kind) {
    case MMX_MAP_VALUE: return (float)v;
    case MMX_MAP_CONST: return m->c;
    case MMX_MAP_BY_ROW: return m->table[i];
    case MMX_MAP_BY_COL: return m->table[j];
    case MMX_MAP_X: return X->x[e];
    default: return m->table[e]; /* BY_ENTRY */
    }
}

/* The dense statement: present and value, m x p, column-major. */
static void valued_spec(const mmx_csc *A, const mmx_csc *B, mmx_vgemm_map map, unsigned char *has,
                        float *val)
{
    const mmx_index m = A->nrows, n = A->ncols, p = B->ncols;
    int64_t *at = malloc((size_t)m * n * sizeof *at); /* A's entry at (i, k), or -1 */
    cr_assert_not_null(at);
    for (size_t t = 0; t < (size_t)m * n; t++) at[t] = -1;
    for (mmx_index k = 0; k < n; k++) {
        const int64_t a0 = A->order ? (int64_t)A->order * k : A->colptr[k];
        const int64_t a1 = A->order ? a0 + A->order : A->colptr[k + 1];
        for (int64_t e = a0; e < a1; e++) at[(size_t)k * m + A->rowidx[e]] = e;
    }
    memset(has, 0, (size_t)m * p);
    for (mmx_index j = 0; j < p; j++) {
        const int64_t b0 = B->order ? (int64_t)B->order * j : B->colptr[j];
        const int64_t b1 = B->order ? b0 + B->order : B->colptr[j + 1];
        for (int64_t eb = b0; eb < b1; eb++) {
            const mmx_index k = B->rowidx[eb];
            const mmx_index b = B->order ? (mmx_index)(eb - b0 + 1) : B->val[eb];
            const int64_t a0 = A->order ? (int64_t)A->order * k : A->colptr[k];
            const int64_t a1 = A->order ? a0 + A->order : A->colptr[k + 1];
            const mmx_index nk = (mmx_index)(a1 - a0);
            for (mmx_index i = 0; i < m; i++) {
                const int64_t ea = at[(size_t)k * m + i];
                if (ea < 0) continue;
                const mmx_index a = A->order ? (mmx_index)(ea - a0 + 1) : A->val[ea];
                int64_t d = (int64_t)b - a, r = map.rel.p, ok;
                int64_t mp = ((d - r) % nk + nk) % nk, mm = ((d + r) % nk + nk) % nk;
                switch (map.rel.kind) {
                case MMX_REL_ALL: ok = 1; break;
                case MMX_REL_CYCLE: ok = mp == 0; break;
                case MMX_REL_CYCLE_BOTH: ok = mp == 0 || mm == 0; break;
                default: ok = map.rel.table[(size_t)(a - 1) * map.rel.dim + (b - 1)] != 0; break;
                }
                if (!ok) continue;
                const float ma = vmap(&map.amap, A, i, k, a, ea), mb = vmap(&map.bmap, B, k, j, b, eb);
                float c = map.coll == MMX_VCOLL_PRODUCT ? ma * mb : map.coll == MMX_VCOLL_A ? ma
                        : map.coll == MMX_VCOLL_B ? mb : mp == 0 ? ma : mb;
                const size_t t = (size_t)j * m + i;
                if (!has[t]) val[t] = map.monoid == MMX_MONOID_SUM ? 0.0f + c : c;
                else if (map.monoid == MMX_MONOID_SUM) val[t] += c;
                else if (map.monoid == MMX_MONOID_MIN) val[t] = c < val[t] ? c : val[t];
                else val[t] = c > val[t] ? c : val[t];
                has[t] = 1;
            }
        }
    }
    free(at);
}

/* C (host) against the statement: unmasked, exactly the present entries, rows ascending;
 * masked, the mask's pattern, 0 where nothing counted. Bits, not tolerances. */
static void expect_valued(const mmx_csc *C, const mmx_csc *mask, const unsigned char *has,
                          const float *val, const char *what)
{
    cr_assert_not_null(C->x, "%s: no floats", what);
    cr_assert_eq(C->order, 0, "%s", what);
    cr_assert(C->positional, "%s: not positional", what);
    int64_t count = 0;
    for (size_t t = 0; t < (size_t)C->nrows * C->ncols; t++) count += has[t];
    if (!mask) cr_assert_eq(C->nnz, count, "%s: nnz %d, expected %lld", what, C->nnz, (long long)count);
    else cr_assert_eq(C->nnz, mask->nnz, "%s", what);
    for (mmx_index j = 0; j < C->ncols; j++)
        for (mmx_index e = C->colptr[j]; e < C->colptr[j + 1]; e++) {
            const mmx_index i = C->rowidx[e];
            const size_t t = (size_t)j * C->nrows + i;
            cr_assert_eq(C->val[e], e - C->colptr[j] + 1, "%s", what);
            if (mask) {
                const int64_t mq = mask->order ? (int64_t)mask->order * j + (e - C->colptr[j]) : e;
                cr_assert_eq(i, mask->rowidx[mq], "%s: not the mask's pattern", what);
            } else {
                cr_assert(has[t], "%s: C(%d,%d) should not be stored", what, i, j);
                if (e > C->colptr[j]) cr_assert_lt(C->rowidx[e - 1], i, "%s: rows not ascending", what);
            }
            const float want = has[t] ? val[t] : 0.0f;
            cr_assert(memcmp(&C->x[e], &want, sizeof want) == 0, "%s: C(%d,%d) = %.9g, expected %.9g",
                      what, i, j, C->x[e], want);
        }
}

/* A float table of n entries in [-2, 2] with a few repeats (MIN / MAX ties), in ctx's space. */
static float *rand_table(rng *r, size_t n)
{
    float *t = malloc((n + 1) * sizeof *t);
    cr_assert_not_null(t);
    for (size_t q = 0; q < n; q++) t[q] = (float)rint_in(r, -20, 20) / 8.0f + (float)rint_in(r, 0, 3) / 3.0f;
    return t;
}

static mmx_map map_dev(mmx_ctx *d, mmx_map m, size_t n, float **dev)
{
    *dev = NULL;
    if (!m.table) return m;
    MMX_OK_OR_FAIL(d, mmx_mem_alloc(d, MMX_SPACE_DEVICE, n * sizeof(float), (void **)dev));
    MMX_OK_OR_FAIL(d, mmx_mem_copy(d, *dev, MMX_SPACE_DEVICE, m.table, MMX_SPACE_HOST, n * sizeof(float)));
    m.table = *dev;
    return m;
}

static void random_valued(mmx_ctx *h, mmx_ctx *d)
{
    rng r = {777};
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        const struct shape *S = &shapes[si];
        mmx_csc *A = rand_csc(h, &r, S->m, S->n, S->avga, VAL_POS);
        mmx_csc *B = rand_csc(h, &r, S->n, S->p, S->avgb, VAL_SMALL);
        mmx_csc *mask = rand_csc(h, &r, S->m, S->p, 3, VAL_POS);
        float *ta = rand_table(&r, (size_t)A->nnz), *tb = rand_table(&r, (size_t)S->n);
        /* B also carries floats of its own, read by MMX_MAP_X. */
        float *bx = rand_table(&r, (size_t)B->nnz);
        MMX_OK_OR_FAIL(h, mmx_csc_set_values(h, B, bx, MMX_SPACE_HOST));
        free(bx);
        const size_t mp = (size_t)S->m * S->p;
        unsigned char *has = malloc(mp + 1);
        float *val = malloc((mp + 1) * sizeof *val);
        for (size_t ri = 0; ri < sizeof rels / sizeof *rels - 1; ri++) /* not TABLE */
            for (int coll = MMX_VCOLL_PRODUCT; coll <= MMX_VCOLL_TAIL; coll++)
                for (int mon = MMX_MONOID_SUM; mon <= MMX_MONOID_MAX; mon++)
                    for (int maps = 0; maps < 2; maps++) {
                        if (coll == MMX_VCOLL_TAIL && rels[ri].kind == MMX_REL_ALL) continue;
                        mmx_vgemm_map map = {rels[ri], maps ? mmx_map_table(MMX_MAP_BY_ENTRY, ta, A->nnz)
                                                            : mmx_map_value(),
                                             maps ? mmx_map_table(MMX_MAP_BY_ROW, tb, S->n)
                                                  : mmx_map_table(MMX_MAP_X, NULL, 0),
                                             (mmx_vcoll)coll, (mmx_monoid)mon};
                        valued_spec(A, B, map, has, val);
                        for (int masked = 0; masked < 2; masked++) {
                            char what[160];
                            snprintf(what, sizeof what, "valued shape %zu rel %zu coll %d monoid %d maps %d mask %d",
                                     si, ri, coll, mon, maps, masked);
                            mmx_csc *C = NULL;
                            const mmx_csc *mk = masked ? mask : NULL;
                            MMX_OK_OR_FAIL(h, mmx_spgemm_valued(h, A, B, map, mk, &C));
                            expect_valued(C, mk, has, val, what);
                            if (d) {
                                mmx_csc *Ad = NULL, *Bd = NULL, *Md = NULL, *Cd = NULL;
                                float *da = NULL, *db = NULL;
                                MMX_OK_OR_FAIL(d, mmx_csc_copy(d, A, MMX_SPACE_DEVICE, &Ad));
                                MMX_OK_OR_FAIL(d, mmx_csc_copy(d, B, MMX_SPACE_DEVICE, &Bd));
                                MMX_OK_OR_FAIL(d, mmx_csc_copy(d, mask, MMX_SPACE_DEVICE, &Md));
                                mmx_vgemm_map dm = map;
                                dm.amap = map_dev(d, map.amap, maps ? (size_t)A->nnz : 0, &da);
                                dm.bmap = map_dev(d, map.bmap, maps ? (size_t)S->n : 0, &db);
                                MMX_OK_OR_FAIL(d, mmx_spgemm_valued(d, Ad, Bd, dm, masked ? Md : NULL, &Cd));
                                mmx_csc *Ch = on_host(d, Cd);
                                expect_same(Ch, C, what);
                                cr_assert(C->nnz == 0 || memcmp(Ch->x, C->x, (size_t)C->nnz * sizeof(float)) == 0,
                                          "%s: CUDA's floats differ from the host's", what);
                                mmx_csc_free(Ch), mmx_csc_free(Cd), mmx_csc_free(Ad), mmx_csc_free(Bd), mmx_csc_free(Md);
                                mmx_mem_free(d, MMX_SPACE_DEVICE, da), mmx_mem_free(d, MMX_SPACE_DEVICE, db);
                            }
                            mmx_csc_free(C);
                        }
                    }
        free(has), free(val), free(ta), free(tb);
        mmx_csc_free(A), mmx_csc_free(B), mmx_csc_free(mask);
    }
}

Test(spgemm, valued_random_vs_statement)
{
    mmx_ctx *h = tu_host_ctx();
    random_valued(h, NULL);
    mmx_ctx_free(h);
}

/* The valued product of two valued matrices (MMX_MAP_X on both) is the ordinary product:
 * d0ᵀ d0 = -L_uniform for the incidence d0 (mmx_operator EV), and d1 d0 = 0. */
Test(spgemm, valued_incidences_compose)
{
    mmx_ctx *h = tu_host_ctx();
    const char *const specs[] = {"icosphere:2", "torus:8:5", "cube", "mixed"};
    for (int s = 0; s < 4; s++) {
        mmx_mesh *m = tu_shape(h, specs[s]);
        mmx_csc *d0 = NULL, *d1 = NULL, *d0t = NULL, *P = NULL, *Z = NULL, *U = NULL;
        MMX_OK_OR_FAIL(h, mmx_operator(h, m, NULL, MMX_OPERATOR_EV, &d0));
        MMX_OK_OR_FAIL(h, mmx_operator(h, m, NULL, MMX_OPERATOR_FE, &d1));
        MMX_OK_OR_FAIL(h, mmx_operator(h, m, NULL, MMX_OPERATOR_UNIFORM, &U));
        MMX_OK_OR_FAIL(h, mmx_csc_transpose(h, d0, &d0t));
        cr_assert_not_null(d0t->x);
        const mmx_vgemm_map prod = {{MMX_REL_ALL, 0, NULL, 0}, mmx_map_table(MMX_MAP_X, NULL, 0),
                                    mmx_map_table(MMX_MAP_X, NULL, 0), MMX_VCOLL_PRODUCT, MMX_MONOID_SUM};
        MMX_OK_OR_FAIL(h, mmx_spgemm_valued(h, d0t, d0, prod, NULL, &P));
        cr_assert_eq(P->nnz, U->nnz, "%s", specs[s]);
        cr_assert_eq(memcmp(P->colptr, U->colptr, ((size_t)P->ncols + 1) * sizeof(mmx_index)), 0);
        cr_assert_eq(memcmp(P->rowidx, U->rowidx, (size_t)P->nnz * sizeof(mmx_index)), 0);
        for (mmx_index q = 0; q < P->nnz; q++)
            cr_assert_eq(P->x[q], -U->x[q], "%s: (d0ᵀ d0)[%d] = %g, L = %g", specs[s], q, P->x[q], U->x[q]);
        MMX_OK_OR_FAIL(h, mmx_spgemm_valued(h, d1, d0, prod, NULL, &Z));
        cr_assert_gt(Z->nnz, 0);
        for (mmx_index q = 0; q < Z->nnz; q++) cr_assert_eq(Z->x[q], 0.0f, "%s: d1 d0 != 0", specs[s]);
        mmx_csc_free(d0), mmx_csc_free(d1), mmx_csc_free(d0t), mmx_csc_free(P), mmx_csc_free(Z), mmx_csc_free(U);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(h);
}

Test(spgemm, valued_errors)
{
    mmx_ctx *h = tu_host_ctx();
    rng r = {5};
    mmx_csc *A = rand_csc(h, &r, 5, 4, 2, VAL_POS), *B = rand_csc(h, &r, 4, 3, 2, VAL_POS);
    mmx_csc *W = rand_csc(h, &r, 3, 3, 2, VAL_POS), *C = NULL;
    mmx_vgemm_map map = {{MMX_REL_ALL, 0, NULL, 0}, mmx_map_value(), mmx_map_value(),
                         MMX_VCOLL_PRODUCT, MMX_MONOID_SUM};
    cr_assert_eq(mmx_spgemm_valued(h, B, A, map, NULL, &C), MMX_ERR_ARG); /* 4x3 times 5x4 */
    cr_assert_eq(mmx_spgemm_valued(h, A, B, map, W, &C), MMX_ERR_ARG);    /* mask 3x3, C 5x3 */
    cr_assert(strstr(mmx_ctx_error(h), "mask"), "%s", mmx_ctx_error(h));
    map.monoid = MMX_MONOID_ANY;
    cr_assert_eq(mmx_spgemm_valued(h, A, B, map, NULL, &C), MMX_ERR_ARG);
    map.monoid = MMX_MONOID_SUM, map.coll = MMX_VCOLL_TAIL;
    cr_assert_eq(mmx_spgemm_valued(h, A, B, map, NULL, &C), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(h), "cycle"), "%s", mmx_ctx_error(h));
    map.coll = MMX_VCOLL_PRODUCT, map.amap = mmx_map_table(MMX_MAP_X, NULL, 0);
    cr_assert_eq(mmx_spgemm_valued(h, A, B, map, NULL, &C), MMX_ERR_ARG); /* A has no floats */
    cr_assert(strstr(mmx_ctx_error(h), "MMX_MAP_X"), "%s", mmx_ctx_error(h));
    float t[2] = {1, 2};
    map.amap = mmx_map_table(MMX_MAP_BY_ENTRY, t, 2);
    cr_assert_eq(mmx_spgemm_valued(h, A, B, map, NULL, &C), MMX_ERR_ARG); /* table too short */
    cr_assert_null(C);
    /* A float matrix is not silently stripped by a permutation. */
    float *ones = calloc((size_t)A->nnz + 1, sizeof *ones);
    MMX_OK_OR_FAIL(h, mmx_csc_set_values(h, A, ones, MMX_SPACE_HOST));
    cr_assert_eq(mmx_csc_permute(h, A, NULL, NULL, &C), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(h), "float values"), "%s", mmx_ctx_error(h));
    mmx_ctx *other = tu_host_ctx();
    cr_assert_eq(mmx_csc_set_values(other, A, ones, MMX_SPACE_HOST), MMX_ERR_ARG);
    cr_assert_eq(mmx_csc_set_values(h, A, NULL, MMX_SPACE_HOST), MMX_ERR_ARG);
    mmx_ctx_free(other);
    free(ones);
    mmx_csc_free(A), mmx_csc_free(B), mmx_csc_free(W);
    mmx_ctx_free(h);
}

Test(spgemm, gpu_valued_random)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    if (!d) return;
    mmx_ctx *h = tu_host_ctx();
    random_valued(h, d);
    mmx_ctx_free(h), mmx_ctx_free(d);
}

/* 20k x 20k, about 10 entries per column, floats on both operands: many blocks in the expand,
 * sort and fold kernels, runs spanning block boundaries; the device's bits must be the host's
 * (unmasked and masked), and a second device run's too. */
Test(spgemm, gpu_valued_large)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    if (!d) return;
    mmx_ctx *h = tu_host_ctx();
    rng r = {99};
    mmx_csc *A = rand_csc(h, &r, 20000, 20000, 10, VAL_POS);
    mmx_csc *B = rand_csc(h, &r, 20000, 20000, 10, VAL_POS);
    float *ax = rand_table(&r, (size_t)A->nnz), *bx = rand_table(&r, (size_t)B->nnz);
    MMX_OK_OR_FAIL(h, mmx_csc_set_values(h, A, ax, MMX_SPACE_HOST));
    MMX_OK_OR_FAIL(h, mmx_csc_set_values(h, B, bx, MMX_SPACE_HOST));
    free(ax), free(bx);
    mmx_csc *Ad = NULL, *Bd = NULL;
    MMX_OK_OR_FAIL(d, mmx_csc_copy(d, A, MMX_SPACE_DEVICE, &Ad));
    MMX_OK_OR_FAIL(d, mmx_csc_copy(d, B, MMX_SPACE_DEVICE, &Bd));
    const mmx_vgemm_map maps[] = {
        {{MMX_REL_ALL, 0, NULL, 0}, mmx_map_table(MMX_MAP_X, NULL, 0), mmx_map_table(MMX_MAP_X, NULL, 0),
         MMX_VCOLL_PRODUCT, MMX_MONOID_SUM},
        {{MMX_REL_CYCLE_BOTH, 1, NULL, 0}, mmx_map_table(MMX_MAP_X, NULL, 0), mmx_map_table(MMX_MAP_X, NULL, 0),
         MMX_VCOLL_TAIL, MMX_MONOID_MAX},
    };
    for (size_t k = 0; k < sizeof maps / sizeof *maps; k++)
        for (int masked = 0; masked < 2; masked++) {
            mmx_csc *C = NULL, *Cd = NULL, *Cd2 = NULL;
            MMX_OK_OR_FAIL(h, mmx_spgemm_valued(h, A, B, maps[k], masked ? A : NULL, &C));
            MMX_OK_OR_FAIL(d, mmx_spgemm_valued(d, Ad, Bd, maps[k], masked ? Ad : NULL, &Cd));
            MMX_OK_OR_FAIL(d, mmx_spgemm_valued(d, Ad, Bd, maps[k], masked ? Ad : NULL, &Cd2));
            mmx_csc *Ch = on_host(d, Cd), *Ch2 = on_host(d, Cd2);
            expect_same(Ch, C, "large valued");
            cr_assert_eq(memcmp(Ch->x, C->x, (size_t)C->nnz * sizeof(float)), 0, "map %zu mask %d: CUDA != host", k, masked);
            cr_assert_eq(memcmp(Ch2->x, Ch->x, (size_t)C->nnz * sizeof(float)), 0, "map %zu mask %d: runs differ", k, masked);
            mmx_csc_free(C), mmx_csc_free(Cd), mmx_csc_free(Cd2), mmx_csc_free(Ch), mmx_csc_free(Ch2);
        }
    mmx_csc_free(A), mmx_csc_free(B), mmx_csc_free(Ad), mmx_csc_free(Bd);
    mmx_ctx_free(h), mmx_ctx_free(d);
}
