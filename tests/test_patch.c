/* Criterion suite "patch": the patch set's invariants (every face owned once, patches
 * connected and at most S faces, owners by smallest face, ribbons complete, local maps and
 * blocks consistent with the adjacency, determinism), the patch queries against the query
 * spec (tests/spec) and the algebraic path (mmx_query), the reductions against the SpMV of the
 * query's rows, robustness cases (many components, isolated vertices, non-manifold edges and
 * vertices, a huge fan, one triangle, an empty mesh, bad options), and the CUDA build against
 * the host's: every array bit for bit, the same refusal, the same queries and reductions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "patch_sets.h"
#include "spec/spec.h"
#include "patch/patch_internal.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static mmx_mesh *from_faces(mmx_ctx *ctx, mmx_index nv, mmx_index nf, const mmx_index *start,
                            const mmx_index *verts, int with_pos)
{
    float *pos = NULL;
    if (with_pos) {
        pos = malloc(3 * (size_t)(nv ? nv : 1) * sizeof *pos);
        cr_assert(pos);
        uint32_t seed = 7;
        for (mmx_index i = 0; i < 3 * nv; i++) pos[i] = (float)(tu_rng(&seed) % 1000) / 100.0f;
    }
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, nf, start, verts, pos, &m));
    free(pos);
    return m;
}

static mmx_patch_set *make_set(mmx_ctx *ctx, const mmx_mesh *m, int S)
{
    mmx_patch_options o = {S};
    mmx_patch_set *ps = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
    return ps;
}

static mmx_index ufind(mmx_index *parent, mmx_index i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* Every invariant patch.h states, on a host set of host mesh m. */
static void check_invariants(mmx_ctx *ctx, const mmx_mesh *m, const mmx_patch_set *ps, int S)
{
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_csc *M = m->M;
    const mmx_index F = M->ncols, V = M->nrows, E = adj->nedges, np = ps->npatches;
    cr_assert_eq(ps->nfaces, F);
    cr_assert_eq(ps->nedges, E);
    /* Faces at each vertex, faces on each edge, smallest face per edge and vertex. */
    mmx_index *minf_e = malloc(((size_t)E + 1) * sizeof *minf_e);
    mmx_index *minf_v = malloc(((size_t)V + 1) * sizeof *minf_v);
    mmx_index *vstart = calloc((size_t)V + 2, sizeof *vstart);
    mmx_index *vfaces = malloc(((size_t)M->nnz + 1) * sizeof *vfaces);
    cr_assert(minf_e && minf_v && vstart && vfaces);
    for (mmx_index e = 0; e < E; e++) minf_e[e] = -1;
    for (mmx_index v = 0; v < V; v++) minf_v[v] = -1;
    for (mmx_index f = F - 1; f >= 0; f--) {
        const mmx_index a = M->order ? M->order * f : M->colptr[f];
        const mmx_index b = M->order ? a + M->order : M->colptr[f + 1];
        for (mmx_index c = a; c < b; c++) minf_e[adj->fe[c] >> 1] = f, minf_v[M->rowidx[c]] = f;
    }
    for (mmx_index c = 0; c < M->nnz; c++) vstart[M->rowidx[c] + 2]++;
    for (mmx_index v = 0; v < V; v++) vstart[v + 2] += vstart[v + 1];
    for (mmx_index f = 0; f < F; f++) {
        const mmx_index a = M->order ? M->order * f : M->colptr[f];
        const mmx_index b = M->order ? a + M->order : M->colptr[f + 1];
        for (mmx_index c = a; c < b; c++) vfaces[vstart[M->rowidx[c] + 1]++] = f;
    }
    /* Ownership, from the maps' owned entries: each face, edge and vertex in a face is the
     * owned entry of exactly one patch, a face of its face_patch, an edge and a vertex of
     * the patch of their smallest face. The build-time owner arrays are gone. */
    cr_assert(!ps->edge_patch && !ps->vert_patch && !ps->face_local && !ps->edge_local && !ps->vert_local,
              "the build-time arrays are kept");
    mmx_index *own_f = malloc(((size_t)F + 1) * sizeof *own_f), *own_e = malloc(((size_t)E + 1) * sizeof *own_e);
    mmx_index *own_v = malloc(((size_t)V + 1) * sizeof *own_v);
    cr_assert(own_f && own_e && own_v);
    for (mmx_index f = 0; f < F; f++) own_f[f] = -1;
    for (mmx_index e = 0; e < E; e++) own_e[e] = -1;
    for (mmx_index v = 0; v < V; v++) own_v[v] = -1;
    for (mmx_index p = 0; p < np; p++) {
        for (mmx_index i = 0; i < ps->owned[3 * p]; i++) {
            const mmx_index f = ps->l2g_f[ps->face_off[p] + i];
            cr_assert_eq(own_f[f], -1, "face %d owned twice", f);
            own_f[f] = p;
        }
        for (mmx_index i = 0; i < ps->owned[3 * p + 1]; i++) {
            const mmx_index e = ps->l2g_e[ps->edge_off[p] + i];
            cr_assert_eq(own_e[e], -1, "edge %d owned twice", e);
            own_e[e] = p;
        }
        for (mmx_index i = 0; i < ps->owned[3 * p + 2]; i++) {
            const mmx_index v = ps->l2g_v[ps->vert_off[p] + i];
            cr_assert_eq(own_v[v], -1, "vertex %d owned twice", v);
            own_v[v] = p;
        }
    }
    for (mmx_index f = 0; f < F; f++) {
        const mmx_index p = ps->face_patch[f];
        cr_assert(p >= 0 && p < np, "face %d patch %d", f, p);
        cr_assert_eq(own_f[f], p, "face %d", f);
    }
    for (mmx_index e = 0; e < E; e++) cr_assert_eq(own_e[e], ps->face_patch[minf_e[e]], "edge %d", e);
    for (mmx_index v = 0; v < V; v++)
        cr_assert_eq(own_v[v], minf_v[v] < 0 ? -1 : ps->face_patch[minf_v[v]], "vertex %d", v);
    /* Per patch: sizes, order of the local lists, connectivity, ribbon, blocks. */
    mmx_index *mark = malloc(((size_t)F + 1) * sizeof *mark), *parent = malloc(((size_t)F + 1) * sizeof *parent);
    cr_assert(mark && parent);
    for (mmx_index f = 0; f < F; f++) mark[f] = -1, parent[f] = f;
    int64_t owned_total = 0;
    for (mmx_index p = 0; p < np; p++) {
        const mmx_index f0 = ps->face_off[p], nf = ps->face_off[p + 1] - f0, of = ps->owned[3 * p];
        const mmx_index e0 = ps->edge_off[p], ne = ps->edge_off[p + 1] - e0, oe = ps->owned[3 * p + 1];
        const mmx_index v0 = ps->vert_off[p], nv = ps->vert_off[p + 1] - v0, ov = ps->owned[3 * p + 2];
        cr_assert(of >= 1 && of <= S, "patch %d owns %d faces (S %d)", p, of, S);
        owned_total += of;
        for (mmx_index i = 0; i < nf; i++) {
            const mmx_index f = ps->l2g_f[f0 + i];
            cr_assert_eq(ps->face_patch[f] == p, i < of, "patch %d local face %d", p, i);
            if (i && i != of) cr_assert_gt(f, ps->l2g_f[f0 + i - 1]);
            mark[f] = p;
        }
        for (mmx_index i = 0; i < ne; i++) {
            const mmx_index e = ps->l2g_e[e0 + i];
            cr_assert_eq(own_e[e] == p, i < oe);
            if (i && i != oe) cr_assert_gt(e, ps->l2g_e[e0 + i - 1]);
        }
        for (mmx_index i = 0; i < nv; i++) {
            const mmx_index v = ps->l2g_v[v0 + i];
            cr_assert_eq(own_v[v] == p, i < ov);
            if (i && i != ov) cr_assert_gt(v, ps->l2g_v[v0 + i - 1]);
        }
        /* Ribbon: every face at a vertex of an owned face is local; every ribbon face is at
         * such a vertex. */
        for (mmx_index i = 0; i < of; i++) {
            const mmx_index f = ps->l2g_f[f0 + i];
            const mmx_index a = M->order ? M->order * f : M->colptr[f];
            const mmx_index b = M->order ? a + M->order : M->colptr[f + 1];
            for (mmx_index c = a; c < b; c++) {
                const mmx_index v = M->rowidx[c];
                for (mmx_index q = vstart[v]; q < vstart[v + 1]; q++)
                    cr_assert_eq(mark[vfaces[q]], p, "patch %d misses face %d at vertex %d", p, vfaces[q], v);
            }
        }
        /* The blocks against the adjacency. */
        const mmx_index c0 = ps->corner_off[p];
        mmx_index k = 0;
        for (mmx_index i = 0; i < nf; i++) {
            const mmx_index f = ps->l2g_f[f0 + i];
            const mmx_index a = M->order ? M->order * f : M->colptr[f];
            const mmx_index b = M->order ? a + M->order : M->colptr[f + 1];
            if (!ps->order) cr_assert_eq(ps->fstart[f0 + i], k);
            for (mmx_index c = a; c < b; c++, k++) {
                const uint16_t x = ps->fe[c0 + k];
                cr_assert_lt(x >> 1, ne);
                cr_assert_eq(ps->l2g_e[e0 + (x >> 1)], adj->fe[c] >> 1, "patch %d corner %d", p, k);
                cr_assert_eq(x & 1, adj->fe[c] & 1);
            }
        }
        cr_assert_eq(k, ps->corner_off[p + 1] - c0);
        for (mmx_index i = 0; i < ne; i++) {
            const mmx_index e = ps->l2g_e[e0 + i];
            cr_assert_eq(ps->l2g_v[v0 + ps->ev[2 * ((size_t)e0 + i)]], adj->ev[2 * e]);
            cr_assert_eq(ps->l2g_v[v0 + ps->ev[2 * ((size_t)e0 + i) + 1]], adj->ev[2 * e + 1]);
        }
    }
    cr_assert_eq(owned_total, F);
    /* The memory the statistics report is the arrays the set holds (patch.h), and its
     * topology those less the maps' owned entries and the face owners. */
    {
        const int64_t nlf = ps->face_off[np], nle = ps->edge_off[np], nlv = ps->vert_off[np];
        int64_t held = 4 * (4 * ((int64_t)np + 1) + 3 * (int64_t)np) + 2 * (int64_t)ps->corner_off[np] +
                       4 * nle + 4 * (nlf + nle + nlv) + 4 * (int64_t)F;
        if (ps->fstart) held += 4 * nlf;
        int64_t owned_v = 0;
        for (mmx_index v = 0; v < V; v++) owned_v += minf_v[v] >= 0;
        cr_assert_eq(ps->stats.bytes, held, "bytes %lld, the arrays %lld", (long long)ps->stats.bytes,
                     (long long)held);
        cr_assert_eq(ps->stats.topology_bytes, held - 4 * ((int64_t)F + E + owned_v) - 4 * (int64_t)F);
        cr_assert(F == 0 || ps->stats.topology_bytes_per_face == (double)ps->stats.topology_bytes / (double)F);
    }
    /* Connected: owned faces of one patch joined across their edges make one class. */
    mmx_index *estart = calloc((size_t)E + 2, sizeof *estart);
    mmx_index *efaces = malloc(((size_t)M->nnz + 1) * sizeof *efaces);
    cr_assert(estart && efaces);
    for (mmx_index c = 0; c < M->nnz; c++) estart[(adj->fe[c] >> 1) + 2]++;
    for (mmx_index e = 0; e < E; e++) estart[e + 2] += estart[e + 1];
    for (mmx_index f = 0; f < F; f++) {
        const mmx_index a = M->order ? M->order * f : M->colptr[f];
        const mmx_index b = M->order ? a + M->order : M->colptr[f + 1];
        for (mmx_index c = a; c < b; c++) efaces[estart[(adj->fe[c] >> 1) + 1]++] = f;
    }
    for (mmx_index e = 0; e < E; e++)
        for (mmx_index i = estart[e]; i < estart[e + 1]; i++)
            for (mmx_index j = i + 1; j < estart[e + 1]; j++)
                if (ps->face_patch[efaces[i]] == ps->face_patch[efaces[j]]) {
                    const mmx_index r1 = ufind(parent, efaces[i]), r2 = ufind(parent, efaces[j]);
                    if (r1 != r2) parent[r1] = r2;
                }
    mmx_index *root = malloc(((size_t)np + 1) * sizeof *root);
    cr_assert(root);
    for (mmx_index p = 0; p < np; p++) root[p] = -1;
    for (mmx_index f = 0; f < F; f++) {
        const mmx_index p = ps->face_patch[f], r = ufind(parent, f);
        if (root[p] < 0) root[p] = r;
        cr_assert_eq(root[p], r, "patch %d is not connected (face %d)", p, f);
    }
    free(root), free(estart), free(efaces), free(mark), free(parent), free(own_f), free(own_e), free(own_v);
    free(minf_e), free(minf_v), free(vstart), free(vfaces);
    mmx_adjacency_free(adj);
}

/* Row r's entries [*a, *b) of a host CSR in either form. */
static void csr_row(const mmx_csr *A, mmx_index r, mmx_index *a, mmx_index *b)
{
    *a = A->order ? A->order * r : A->rowptr[r];
    *b = A->order ? *a + A->order : A->rowptr[r + 1];
}

static void expect_equal_csr(const mmx_csr *A, const mmx_csr *B, const char *what)
{
    cr_assert_eq(A->nrows, B->nrows, "%s: rows %d %d", what, A->nrows, B->nrows);
    cr_assert_eq(A->ncols, B->ncols, "%s: cols", what);
    cr_assert_eq(A->nnz, B->nnz, "%s: nnz %d %d", what, A->nnz, B->nnz);
    cr_assert_eq(A->order, B->order, "%s: order %d %d", what, A->order, B->order);
    for (mmx_index r = 0; r < A->nrows; r++) {
        mmx_index a, b, c, d;
        csr_row(A, r, &a, &b);
        csr_row(B, r, &c, &d);
        cr_assert_eq(b - a, d - c, "%s: row %d length %d vs %d", what, r, b - a, d - c);
        for (mmx_index i = 0; i < b - a; i++)
            cr_assert_eq(A->colidx[a + i], B->colidx[c + i], "%s: row %d entry %d: %d vs %d", what,
                         r, i, A->colidx[a + i], B->colidx[c + i]);
    }
}

/* The patch queries of m against spec_query and mmx_query, every kind. */
static void check_queries(mmx_ctx *ctx, const mmx_mesh *m, const mmx_patch_set *ps, const char *name)
{
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        char what[128];
        snprintf(what, sizeof what, "%s %s", name, mmx_query_name((mmx_query_kind)k));
        mmx_csr *P = NULL, *Q = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_patch_query(ctx, ps, (mmx_query_kind)k, &P));
        MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, (mmx_query_kind)k, &Q));
        expect_equal_csr(P, Q, what);
        /* Again into the result made (mmx_patch_query_run), its entries spoilt first. */
        if (P->nnz) memset((void *)P->colidx, 0xff, (size_t)P->nnz * sizeof *P->colidx);
        MMX_OK_OR_FAIL(ctx, mmx_patch_query_run(ctx, ps, (mmx_query_kind)k, P));
        expect_equal_csr(P, Q, what);
        /* A result of another shape is refused. */
        const mmx_query_kind other = k == MMX_QUERY_VV ? MMX_QUERY_FV : MMX_QUERY_VV;
        if (P->nrows != (other <= MMX_QUERY_VF ? m->M->nrows : m->M->ncols) && ps->npatches > 0) {
            cr_expect_eq(mmx_patch_query_run(ctx, ps, other, P), MMX_ERR_ARG, "%s: run into another kind", what);
        }
        mmx_index *rowptr = NULL, *colidx = NULL, nrows = 0;
        cr_assert_eq(spec_query(m, (mmx_query_kind)k, &rowptr, &colidx, &nrows), 0, "%s: spec refused", what);
        mmx_csr S = {nrows, P->ncols, rowptr[nrows], rowptr, colidx, NULL, 0, MMX_SPACE_HOST, NULL};
        mmx_csr Pg = *P;
        cr_assert_eq(nrows, P->nrows, "%s: spec rows", what);
        Pg.order = 0;
        if (P->order) { /* compare as general */
            mmx_index *rp = malloc(((size_t)nrows + 1) * sizeof *rp);
            cr_assert(rp);
            for (mmx_index r = 0; r <= nrows; r++) rp[r] = P->order * r;
            Pg.rowptr = rp;
            expect_equal_csr(&Pg, &S, what);
            free(rp);
        } else {
            expect_equal_csr(&Pg, &S, what);
        }
        free(rowptr), free(colidx);
        mmx_csr_free(P), mmx_csr_free(Q);
    }
}

/* The reductions against the rows of the query, summed in float left to right. */
static void check_reduce(mmx_ctx *ctx, const mmx_patch_set *ps, const char *name)
{
    const mmx_query_kind kinds[3] = {MMX_QUERY_VV, MMX_QUERY_VF, MMX_QUERY_EF};
    for (int t = 0; t < 3; t++) {
        mmx_csr *Q = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_patch_query(ctx, ps, kinds[t], &Q));
        for (int k = 1; k <= 4; k++) {
            uint32_t seed = 11u + (uint32_t)k;
            float *x = malloc(((size_t)Q->ncols * k + 1) * sizeof *x);
            float *y = malloc(((size_t)Q->nrows * k + 1) * sizeof *y);
            cr_assert(x && y);
            for (mmx_index i = 0; i < Q->ncols * k; i++)
                x[i] = (float)((int)(tu_rng(&seed) % 2001) - 1000) / 37.0f;
            MMX_OK_OR_FAIL(ctx, mmx_patch_reduce(ctx, ps, kinds[t], x, k, y));
            for (mmx_index r = 0; r < Q->nrows; r++) {
                mmx_index a, b;
                csr_row(Q, r, &a, &b);
                for (int c = 0; c < k; c++) {
                    float acc = 0;
                    for (mmx_index i = a; i < b; i++) acc += x[(size_t)Q->colidx[i] * k + c];
                    cr_assert(acc == y[(size_t)r * k + c], "%s %s k=%d row %d: %g vs %g", name,
                              mmx_query_name(kinds[t]), k, r, (double)acc, (double)y[(size_t)r * k + c]);
                }
            }
            free(x), free(y);
        }
        mmx_csr_free(Q);
    }
}

/* Two builds give the same arrays. */
static void check_deterministic(mmx_ctx *ctx, const mmx_mesh *m, int S)
{
    mmx_patch_set *a = make_set(ctx, m, S), *b = make_set(ctx, m, S);
    cr_assert_eq(a->npatches, b->npatches);
    const size_t np = (size_t)a->npatches;
#define SAME(f, n) cr_assert(memcmp(a->f, b->f, (n) * sizeof *a->f) == 0, #f " differs")
    SAME(face_off, np + 1);
    SAME(edge_off, np + 1);
    SAME(vert_off, np + 1);
    SAME(corner_off, np + 1);
    SAME(owned, 3 * np);
    SAME(l2g_f, (size_t)a->face_off[np]);
    SAME(l2g_e, (size_t)a->edge_off[np]);
    SAME(l2g_v, (size_t)a->vert_off[np]);
    SAME(fe, (size_t)a->corner_off[np]);
    SAME(ev, 2 * (size_t)a->edge_off[np]);
    SAME(face_patch, (size_t)a->nfaces);
#undef SAME
    mmx_patch_set_free(a);
    mmx_patch_set_free(b);
}

/* Everything above on one mesh and one S. */
static void check_all(mmx_ctx *ctx, const mmx_mesh *m, int S, const char *name)
{
    mmx_patch_set *ps = make_set(ctx, m, S);
    check_invariants(ctx, m, ps, S ? S : MMX_PATCH_DEFAULT_FACES);
    check_queries(ctx, m, ps, name);
    check_reduce(ctx, ps, name);
    mmx_patch_set_free(ps);
    check_deterministic(ctx, m, S);
}

/* ---- shapes and files ------------------------------------------------------------------------ */

static void shape_case(const char *spec)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, spec);
    const int Ss[3] = {7, 16, 0};
    for (int i = 0; i < 3; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s S=%d", spec, Ss[i]);
        check_all(ctx, m, Ss[i], name);
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch, torus) { shape_case("torus:32:24"); }
Test(patch, icosphere) { shape_case("icosphere:3"); }
Test(patch, grid_with_holes) { shape_case("grid:40:30"); }
Test(patch, mixed_polygons) { shape_case("mixed"); }
Test(patch, cube_and_tetrahedron)
{
    shape_case("cube");
    shape_case("tetrahedron");
}

Test(patch, data_meshes)
{
    const char *files[] = {"cube.obj", "house.obj", "strip.obj", "bigguy_quads.obj", "cube.off"};
    mmx_ctx *ctx = tu_host_ctx();
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data(files[i]), MMX_FORMAT_AUTO, &m));
        char name[96];
        snprintf(name, sizeof name, "%s S=16", files[i]);
        check_all(ctx, m, 16, name);
        snprintf(name, sizeof name, "%s S=512", files[i]);
        check_all(ctx, m, 512, name);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(patch, shuffled_order)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "torus:20:16"), *sh = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shuffle(ctx, m, 3, NULL, NULL, &sh));
    check_all(ctx, sh, 16, "shuffled torus");
    mmx_mesh_free(sh);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- robustness ------------------------------------------------------------------------------ */

Test(patch, thousands_of_separate_triangles)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index n = 3000;
    mmx_index *start = malloc(((size_t)n + 1) * sizeof *start), *verts = malloc(3 * (size_t)n * sizeof *verts);
    cr_assert(start && verts);
    for (mmx_index f = 0; f <= n; f++) start[f] = 3 * f;
    for (mmx_index i = 0; i < 3 * n; i++) verts[i] = i;
    mmx_mesh *m = from_faces(ctx, 3 * n, n, start, verts, 1);
    mmx_patch_set *ps = make_set(ctx, m, 0);
    cr_expect_eq(ps->npatches, n, "every triangle is its own component: %d patches", ps->npatches);
    mmx_patch_set_free(ps);
    check_all(ctx, m, 0, "separate triangles");
    check_all(ctx, m, 7, "separate triangles S=7");
    mmx_mesh_free(m);
    free(start), free(verts);
    mmx_ctx_free(ctx);
}

Test(patch, isolated_vertices)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Two triangles on vertices 1..4; 0, 5 and 6 in no face. */
    const mmx_index start[] = {0, 3, 6}, verts[] = {1, 2, 3, 3, 2, 4};
    mmx_mesh *m = from_faces(ctx, 7, 2, start, verts, 1);
    check_all(ctx, m, 1, "isolated vertices S=1");
    check_all(ctx, m, 0, "isolated vertices");
    mmx_patch_set *ps = make_set(ctx, m, 0);
    for (mmx_index i = 0; i < ps->vert_off[ps->npatches]; i++)
        cr_expect(ps->l2g_v[i] != 0 && ps->l2g_v[i] != 5 && ps->l2g_v[i] != 6, "isolated vertex %d in a patch",
                  ps->l2g_v[i]);
    mmx_csr *Q = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_query(ctx, ps, MMX_QUERY_VV, &Q));
    cr_expect_eq(Q->rowptr[1] - Q->rowptr[0], 0);
    mmx_csr_free(Q);
    mmx_patch_set_free(ps);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch, nonmanifold_edge)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Three triangles on edge {0, 1}, plus a fourth across another edge. */
    const mmx_index start[] = {0, 3, 6, 9, 12}, verts[] = {0, 1, 2, 1, 0, 3, 0, 1, 4, 2, 1, 5};
    mmx_mesh *m = from_faces(ctx, 6, 4, start, verts, 1);
    check_all(ctx, m, 1, "non-manifold edge S=1");
    check_all(ctx, m, 2, "non-manifold edge S=2");
    check_all(ctx, m, 0, "non-manifold edge");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch, bowtie_vertex)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Two fans meeting at vertex 0: an open one (two triangles) and a closed one (a cone). */
    const mmx_index start[] = {0, 3, 6, 9, 12, 15};
    const mmx_index verts[] = {0, 1, 2, 0, 2, 3, 0, 4, 5, 0, 5, 6, 0, 6, 4};
    mmx_mesh *m = from_faces(ctx, 7, 5, start, verts, 1);
    check_all(ctx, m, 1, "bowtie S=1");
    check_all(ctx, m, 2, "bowtie S=2");
    check_all(ctx, m, 0, "bowtie");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch, one_triangle_and_no_positions)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index start[] = {0, 3}, verts[] = {0, 1, 2};
    mmx_mesh *m = from_faces(ctx, 3, 1, start, verts, 1);
    check_all(ctx, m, 0, "one triangle");
    mmx_mesh_free(m);
    m = from_faces(ctx, 3, 1, start, verts, 0);
    check_all(ctx, m, 0, "one triangle without positions");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch, empty_mesh)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index start[1] = {0};
    for (mmx_index nv = 0; nv <= 4; nv += 4) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, 0, start, NULL, NULL, &m));
        mmx_patch_set *ps = make_set(ctx, m, 0);
        mmx_patch_stats st;
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_stats(ctx, ps, &st));
        cr_expect_eq(st.npatches, 0);
        for (int k = 0; k < MMX_QUERY_COUNT; k++) {
            mmx_csr *Q = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_patch_query(ctx, ps, (mmx_query_kind)k, &Q));
            cr_expect_eq(Q->nnz, 0);
            cr_expect_eq(Q->nrows, k <= MMX_QUERY_VF ? nv : 0);
            mmx_csr_free(Q);
        }
        float x[4] = {1, 2, 3, 4}, y[16];
        MMX_OK_OR_FAIL(ctx, mmx_patch_reduce(ctx, ps, MMX_QUERY_VV, x, 1, y));
        for (mmx_index v = 0; v < nv; v++) cr_expect(y[v] == 0);
        mmx_patch_set_free(ps);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* A fan of n triangles around vertex 0 (open: a disk cut once). */
static mmx_mesh *fan(mmx_ctx *ctx, mmx_index n)
{
    mmx_index *start = malloc(((size_t)n + 1) * sizeof *start), *verts = malloc(3 * (size_t)n * sizeof *verts);
    float *pos = malloc(3 * ((size_t)n + 2) * sizeof *pos);
    cr_assert(start && verts && pos);
    for (mmx_index f = 0; f <= n; f++) start[f] = 3 * f;
    for (mmx_index f = 0; f < n; f++) verts[3 * f] = 0, verts[3 * f + 1] = f + 1, verts[3 * f + 2] = f + 2;
    pos[0] = pos[1] = pos[2] = 0;
    for (mmx_index i = 1; i <= n + 1; i++) {
        const double t = 6.0 * i / (n + 1);
        pos[3 * i] = (float)t, pos[3 * i + 1] = (float)(t * t), pos[3 * i + 2] = 0;
    }
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, n + 2, n, start, verts, pos, &m));
    free(start), free(verts), free(pos);
    return m;
}

Test(patch, fan_of_100000_is_refused_naming_its_vertex)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = fan(ctx, 100000);
    mmx_patch_set *ps = NULL;
    mmx_status s = mmx_patch_set_create(ctx, m, NULL, NULL, &ps);
    cr_assert_eq(s, MMX_ERR_MESH, "%s", mmx_status_str(s));
    cr_assert_null(ps);
    cr_expect(strstr(mmx_ctx_error(ctx), "vertex 0 has 100000 faces") != NULL, "%s", mmx_ctx_error(ctx));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch, fan_of_10000_is_built)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = fan(ctx, 10000);
    mmx_patch_set *ps = make_set(ctx, m, 0);
    mmx_csr *P = NULL, *Q = NULL;
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        MMX_OK_OR_FAIL(ctx, mmx_patch_query(ctx, ps, (mmx_query_kind)k, &P));
        MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, (mmx_query_kind)k, &Q));
        expect_equal_csr(P, Q, mmx_query_name((mmx_query_kind)k));
        mmx_csr_free(P), mmx_csr_free(Q);
    }
    mmx_patch_set_free(ps);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch, inconsistent_orientation_is_refused_for_vertex_queries)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* The second triangle runs edge {1, 2} the same way as the first. */
    const mmx_index start[] = {0, 3, 6, 9}, verts[] = {0, 1, 2, 1, 2, 3, 2, 1, 4};
    mmx_mesh *m = from_faces(ctx, 5, 2, start, verts, 1);
    mmx_index a, b;
    cr_assert(spec_query_inconsistent_edge(m, &a, &b));
    mmx_patch_set *ps = make_set(ctx, m, 1);
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        mmx_csr *P = NULL;
        mmx_status s = mmx_patch_query(ctx, ps, (mmx_query_kind)k, &P);
        if (k <= MMX_QUERY_VF) {
            cr_expect_eq(s, MMX_ERR_MESH, "%s", mmx_query_name((mmx_query_kind)k));
            char want[64];
            snprintf(want, sizeof want, "{%d, %d}", a, b);
            cr_expect(strstr(mmx_ctx_error(ctx), want) != NULL, "%s", mmx_ctx_error(ctx));
            cr_expect_null(P);
        } else {
            cr_expect_eq(s, MMX_OK, "%s", mmx_ctx_error(ctx));
            mmx_csr_free(P);
        }
    }
    /* The reductions that walk fans refuse it too; EF does not walk. */
    cr_expect_geq(ps->bad_edge, 0);
    float x[5] = {1, 2, 3, 4, 5}, y[5];
    const mmx_query_kind kinds[3] = {MMX_QUERY_VV, MMX_QUERY_VF, MMX_QUERY_EF};
    for (int t = 0; t < 3; t++) {
        const mmx_status s = mmx_patch_reduce(ctx, ps, kinds[t], x, 1, y);
        if (kinds[t] == MMX_QUERY_EF) {
            cr_expect_eq(s, MMX_OK, "%s", mmx_ctx_error(ctx));
        } else {
            cr_expect_eq(s, MMX_ERR_MESH, "reduce %s", mmx_query_name(kinds[t]));
            char want[64];
            snprintf(want, sizeof want, "{%d, %d}", a, b);
            cr_expect(strstr(mmx_ctx_error(ctx), want) != NULL, "%s", mmx_ctx_error(ctx));
        }
    }
    mmx_patch_set_free(ps);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch, options_and_arguments)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:4");
    mmx_patch_set *ps = NULL;
    mmx_patch_options o = {769};
    cr_expect_eq(mmx_patch_set_create(ctx, m, NULL, &o, &ps), MMX_ERR_ARG);
    o.max_faces = -1;
    cr_expect_eq(mmx_patch_set_create(ctx, m, NULL, &o, &ps), MMX_ERR_ARG);
    cr_expect_null(ps);
    cr_expect_eq(mmx_patch_set_create(ctx, NULL, NULL, NULL, &ps), MMX_ERR_ARG);
    o.max_faces = 0;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
    mmx_patch_stats st;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_stats(ctx, ps, &st));
    cr_expect_leq(st.max_faces, MMX_PATCH_DEFAULT_FACES);
    cr_expect_geq(st.min_faces, 1);
    cr_expect_gt(st.npatches, 1);
    cr_expect(st.mean_faces * st.npatches > 5119.5 && st.mean_faces * st.npatches < 5120.5);
    cr_expect(st.ribbon_share > 0 && st.ribbon_share < 1);
    cr_expect_gt(st.bytes, 0);
    mmx_patch_set_free(ps);
    o.max_faces = MMX_PATCH_MAX_FACES;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
    float x[4] = {0}, y[4];
    cr_expect_eq(mmx_patch_reduce(ctx, ps, MMX_QUERY_FV, x, 1, y), MMX_ERR_ARG);
    cr_expect_eq(mmx_patch_reduce(ctx, ps, MMX_QUERY_VV, x, 5, y), MMX_ERR_ARG);
    cr_expect_eq(mmx_patch_reduce(ctx, ps, MMX_QUERY_VV, NULL, 1, y), MMX_ERR_ARG);
    mmx_csr *Q = NULL;
    cr_expect_eq(mmx_patch_query(ctx, ps, MMX_QUERY_COUNT, &Q), MMX_ERR_ARG);
    mmx_patch_set_free(ps);
    mmx_patch_set_free(NULL);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- CUDA against the host ------------------------------------------------------------------ */

/* A device array of n items of `size` bytes compared with its host twin, byte for byte. */
static void expect_same_array(mmx_ctx *dctx, const void *h, const void *d, size_t n, size_t size,
                              const char *name, const char *what)
{
    if (n == 0) return;
    cr_assert(h && d, "%s: %s missing (host %p, device %p)", name, what, h, d);
    unsigned char *c = malloc(n * size);
    cr_assert(c);
    MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, c, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, n * size));
    size_t first = n;
    for (size_t i = 0; i < n && first == n; i++)
        if (memcmp(c + i * size, (const unsigned char *)h + i * size, size) != 0) first = i;
    cr_expect_eq(first, n, "%s: %s differs first at item %zu of %zu", name, what, first, n);
    free(c);
}

/* The device-built set against the host-built one: every field and every array of
 * patch_internal.h, bit for bit. */
static void expect_same_set(mmx_ctx *dctx, const mmx_patch_set *h, const mmx_patch_set *d, const char *name)
{
    cr_assert_eq(d->space, MMX_SPACE_DEVICE, "%s", name);
    cr_assert_eq(h->npatches, d->npatches, "%s: %d patches on the host, %d on the device", name, h->npatches,
                 d->npatches);
    cr_expect_eq(h->nverts, d->nverts, "%s", name);
    cr_expect_eq(h->nfaces, d->nfaces, "%s", name);
    cr_expect_eq(h->nedges, d->nedges, "%s", name);
    cr_expect_eq(h->order, d->order, "%s: order %d / %d", name, h->order, d->order);
    cr_expect_eq(h->max_faces, d->max_faces, "%s", name);
    cr_expect_eq(h->max_corners, d->max_corners, "%s", name);
    cr_expect_eq(h->max_scratch, d->max_scratch, "%s", name);
    cr_expect_eq(h->bad_edge, d->bad_edge, "%s: bad edge %d / %d", name, h->bad_edge, d->bad_edge);
    cr_expect_eq(h->nlf, d->nlf, "%s", name);
    cr_expect_eq(h->nle, d->nle, "%s", name);
    cr_expect_eq(h->nlv, d->nlv, "%s", name);
    cr_expect_eq(h->nlc, d->nlc, "%s", name);
    const mmx_patch_stats *a = &h->stats, *b = &d->stats;
    cr_expect(a->npatches == b->npatches && a->min_faces == b->min_faces && a->max_faces == b->max_faces &&
                  a->mean_faces == b->mean_faces && a->ribbon_faces == b->ribbon_faces &&
                  a->ribbon_share == b->ribbon_share && a->max_local_verts == b->max_local_verts &&
                  a->max_local_edges == b->max_local_edges && a->max_local_faces == b->max_local_faces &&
                  a->bytes == b->bytes && a->bytes_per_face == b->bytes_per_face &&
                  a->topology_bytes == b->topology_bytes,
              "%s: the statistics differ", name);
    const size_t np = (size_t)h->npatches, I = sizeof(mmx_index), H = sizeof(uint16_t);
    const size_t F = (size_t)h->nfaces;
    const size_t nlf = np ? (size_t)h->face_off[np] : 0, nle = np ? (size_t)h->edge_off[np] : 0;
    const size_t nlv = np ? (size_t)h->vert_off[np] : 0, nc = np ? (size_t)h->corner_off[np] : 0;
    expect_same_array(dctx, h->face_off, d->face_off, np + 1, I, name, "face_off");
    expect_same_array(dctx, h->edge_off, d->edge_off, np + 1, I, name, "edge_off");
    expect_same_array(dctx, h->vert_off, d->vert_off, np + 1, I, name, "vert_off");
    expect_same_array(dctx, h->corner_off, d->corner_off, np + 1, I, name, "corner_off");
    expect_same_array(dctx, h->owned, d->owned, 3 * np, I, name, "owned");
    expect_same_array(dctx, h->l2g_f, d->l2g_f, nlf, I, name, "l2g_f");
    expect_same_array(dctx, h->l2g_e, d->l2g_e, nle, I, name, "l2g_e");
    expect_same_array(dctx, h->l2g_v, d->l2g_v, nlv, I, name, "l2g_v");
    /* fstart exists for mixed orders only (a set without local faces may hold it empty). */
    if (nlf) cr_expect_eq(h->fstart == NULL, d->fstart == NULL, "%s: fstart", name);
    if (h->fstart) expect_same_array(dctx, h->fstart, d->fstart, nlf, I, name, "fstart");
    expect_same_array(dctx, h->fe, d->fe, nc, H, name, "fe");
    expect_same_array(dctx, h->ev, d->ev, 2 * nle, H, name, "ev");
    expect_same_array(dctx, h->face_patch, d->face_patch, F, I, name, "face_patch");
    cr_expect(!d->edge_patch && !d->vert_patch && !d->face_local && !d->edge_local && !d->vert_local,
              "%s: the CUDA set keeps build-time arrays", name);
    cr_expect(h->bad_edge == d->bad_edge && h->bad_ends[0] == d->bad_ends[0] && h->bad_ends[1] == d->bad_ends[1],
              "%s: the inconsistent edge differs", name);
}

/* The host mesh hm built into a set on both backends (S), compared array by array. */
static void compare_builds(mmx_ctx *hctx, mmx_ctx *dctx, const mmx_mesh *hm, int S, const char *name)
{
    mmx_mesh *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_patch_set *hs = make_set(hctx, hm, S), *ds = make_set(dctx, dm, S);
    char what[160];
    snprintf(what, sizeof what, "%s (S = %d)", name, S);
    expect_same_set(dctx, hs, ds, what);
    mmx_patch_set_free(hs), mmx_patch_set_free(ds);
    mmx_mesh_free(dm);
}

Test(patch, gpu_build_matches_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const char *specs[] = {"torus:32:24", "icosphere:3", "grid:40:30", "mixed", "icosphere:5"};
    const int Ss[] = {7, 16, 512};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        mmx_mesh *hm = tu_shape(hctx, specs[i]);
        for (size_t j = 0; j < 3; j++) compare_builds(hctx, dctx, hm, Ss[j], specs[i]);
        mmx_mesh_free(hm);
    }
    /* Scanned order: vertices and faces shuffled. */
    mmx_mesh *t = tu_shape(hctx, "torus:40:30"), *sh = NULL;
    MMX_OK_OR_FAIL(hctx, mmx_mesh_shuffle(hctx, t, 3, NULL, NULL, &sh));
    compare_builds(hctx, dctx, sh, 16, "shuffled torus");
    compare_builds(hctx, dctx, sh, 0, "shuffled torus");
    mmx_mesh_free(sh), mmx_mesh_free(t);
    /* Many components: 3000 separate triangles. */
    const mmx_index n = 3000;
    mmx_index *start = malloc(((size_t)n + 1) * sizeof *start), *verts = malloc(3 * (size_t)n * sizeof *verts);
    cr_assert(start && verts);
    for (mmx_index f = 0; f <= n; f++) start[f] = 3 * f;
    for (mmx_index q = 0; q < 3 * n; q++) verts[q] = q;
    mmx_mesh *m = from_faces(hctx, 3 * n, n, start, verts, 1);
    compare_builds(hctx, dctx, m, 0, "separate triangles");
    compare_builds(hctx, dctx, m, 7, "separate triangles");
    mmx_mesh_free(m);
    free(start), free(verts);
    /* Non-manifold edge and vertex, isolated vertices, no positions, badly oriented. */
    const mmx_index s4[] = {0, 3, 6, 9, 12}, nm[] = {0, 1, 2, 1, 0, 3, 0, 1, 4, 2, 1, 5};
    m = from_faces(hctx, 6, 4, s4, nm, 1);
    for (int S = 1; S <= 3; S++) compare_builds(hctx, dctx, m, S, "non-manifold edge");
    mmx_mesh_free(m);
    const mmx_index s5[] = {0, 3, 6, 9, 12, 15}, bow[] = {0, 1, 2, 0, 2, 3, 0, 4, 5, 0, 5, 6, 0, 6, 4};
    m = from_faces(hctx, 7, 5, s5, bow, 1);
    compare_builds(hctx, dctx, m, 2, "bowtie");
    compare_builds(hctx, dctx, m, 0, "bowtie");
    mmx_mesh_free(m);
    const mmx_index s2[] = {0, 3, 6}, iso[] = {1, 2, 3, 3, 2, 4};
    m = from_faces(hctx, 7, 2, s2, iso, 1);
    compare_builds(hctx, dctx, m, 0, "isolated vertices");
    mmx_mesh_free(m);
    m = from_faces(hctx, 7, 2, s2, iso, 0);
    compare_builds(hctx, dctx, m, 1, "no positions");
    mmx_mesh_free(m);
    const mmx_index s3[] = {0, 3, 6, 9}, bad[] = {0, 1, 2, 1, 2, 3, 2, 1, 4};
    m = from_faces(hctx, 5, 3, s3, bad, 1);
    compare_builds(hctx, dctx, m, 1, "inconsistent orientation");
    mmx_mesh_free(m);
    const mmx_index s0[1] = {0};
    MMX_OK_OR_FAIL(hctx, mmx_mesh_from_faces(hctx, 4, 0, s0, NULL, NULL, &m));
    compare_builds(hctx, dctx, m, 0, "no faces");
    mmx_mesh_free(m);
    /* A large fan (one vertex in every patch). */
    m = fan(hctx, 10000);
    compare_builds(hctx, dctx, m, 0, "fan of 10000");
    mmx_mesh_free(m);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(patch, gpu_refusal_matches_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    /* 40,000 faces at vertex 0: every patch holds them all, 80,001 local edges. */
    mmx_mesh *hm = fan(hctx, 40000), *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_patch_set *hs = NULL, *ds = NULL;
    const mmx_status a = mmx_patch_set_create(hctx, hm, NULL, NULL, &hs);
    const mmx_status b = mmx_patch_set_create(dctx, dm, NULL, NULL, &ds);
    cr_expect_eq(a, MMX_ERR_MESH, "%s", mmx_status_str(a));
    cr_expect_eq(b, MMX_ERR_MESH, "%s", mmx_status_str(b));
    cr_expect_null(hs);
    cr_expect_null(ds);
    cr_expect_str_eq(mmx_ctx_error(dctx), mmx_ctx_error(hctx));
    cr_expect(strstr(mmx_ctx_error(hctx), "vertex 0 has 40000 faces") != NULL, "%s", mmx_ctx_error(hctx));
    /* The same refusal from the cut with labels, grouped on the device (400 labels of 100
     * faces, each patch's ribbon the whole fan). */
    const mmx_index F = hm->M->ncols;
    mmx_index *label = malloc(((size_t)F + 1) * sizeof *label), *dl = NULL;
    cr_assert(label);
    for (mmx_index f = 0; f < F; f++) label[f] = f / 100;
    MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, (size_t)F * sizeof *dl, (void **)&dl));
    MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, dl, MMX_SPACE_DEVICE, label, MMX_SPACE_HOST, (size_t)F * sizeof *dl));
    const mmx_status c = mmx_patch_set_follow(hctx, hm, label, NULL, NULL, &hs);
    const mmx_status d = mmx__patch_set_follow_hint(dctx, dm, dl, 400, 100, NULL, NULL, &ds);
    cr_expect_eq(c, MMX_ERR_MESH, "%s", mmx_status_str(c));
    cr_expect_eq(d, MMX_ERR_MESH, "%s", mmx_status_str(d));
    cr_expect_null(ds);
    cr_expect_str_eq(mmx_ctx_error(dctx), mmx_ctx_error(hctx));
    mmx_mem_free(dctx, MMX_SPACE_DEVICE, dl);
    free(label);
    mmx_mesh_free(dm), mmx_mesh_free(hm);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

/* The host mesh hm built into a set on both backends (S): the same arrays, then every query
 * and the reductions the same on the device as on the host (the host's equal the algebraic
 * path's: check_queries). */
static void gpu_case(mmx_ctx *hctx, mmx_ctx *dctx, const mmx_mesh *hm, int S, const char *name)
{
    mmx_mesh *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_patch_set *hs = make_set(hctx, hm, S), *ds = make_set(dctx, dm, S);
    char what[160];
    snprintf(what, sizeof what, "%s (S = %d)", name, S);
    /* The device build's arrays are the host build's; then the queries on them. */
    expect_same_set(dctx, hs, ds, what);
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        mmx_csr *H = NULL, *D = NULL;
        snprintf(what, sizeof what, "%s (S = %d) %s", name, S, mmx_query_name((mmx_query_kind)k));
        const mmx_status hs_s = mmx_patch_query(hctx, hs, (mmx_query_kind)k, &H);
        const mmx_status ds_s = mmx_patch_query(dctx, ds, (mmx_query_kind)k, &D);
        cr_assert_eq(hs_s, ds_s, "%s: host %d, CUDA %d", what, hs_s, ds_s);
        if (hs_s) { /* the same refusal in the same words */
            cr_expect_str_eq(mmx_ctx_error(hctx), mmx_ctx_error(dctx), "%s", what);
            continue;
        }
        cr_assert_eq(D->space, MMX_SPACE_DEVICE);
        /* D's entries spoilt, then written again by mmx_patch_query_run (the kernel of the rows
         * alone, into the result made). */
        mmx_csr C = *D;
        mmx_index *rp = NULL, *ci = malloc(((size_t)D->nnz + 1) * sizeof *ci);
        cr_assert(ci);
        memset(ci, 0xff, ((size_t)D->nnz + 1) * sizeof *ci);
        if (D->nnz)
            MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, (void *)D->colidx, MMX_SPACE_DEVICE, ci, MMX_SPACE_HOST,
                                              (size_t)D->nnz * sizeof *ci));
        MMX_OK_OR_FAIL(dctx, mmx_patch_query_run(dctx, ds, (mmx_query_kind)k, D));
        /* D's arrays on the host, compared as a host matrix. */
        if (D->nnz)
            MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, ci, MMX_SPACE_HOST, D->colidx, MMX_SPACE_DEVICE,
                                              (size_t)D->nnz * sizeof *ci));
        if (D->rowptr) {
            rp = malloc(((size_t)D->nrows + 1) * sizeof *rp);
            cr_assert(rp);
            MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, rp, MMX_SPACE_HOST, D->rowptr, MMX_SPACE_DEVICE,
                                              ((size_t)D->nrows + 1) * sizeof *rp));
        }
        C.rowptr = rp, C.colidx = ci, C.space = MMX_SPACE_HOST;
        expect_equal_csr(&C, H, what);
        free(rp), free(ci);
        mmx_csr_free(H), mmx_csr_free(D);
    }
    const mmx_query_kind kinds[3] = {MMX_QUERY_VV, MMX_QUERY_VF, MMX_QUERY_EF};
    for (int t = 0; t < 3; t++) {
        const int k = 3;
        const mmx_index nx = kinds[t] == MMX_QUERY_VV ? hm->M->nrows : hm->M->ncols;
        const mmx_index ny = kinds[t] == MMX_QUERY_EF ? hs->nedges : hm->M->nrows;
        float *x = malloc(((size_t)nx * k + 1) * sizeof *x), *hy = malloc(((size_t)ny * k + 1) * sizeof *hy);
        float *dy = malloc(((size_t)ny * k + 1) * sizeof *dy), *dx = NULL, *dyd = NULL;
        cr_assert(x && hy && dy);
        uint32_t seed = 5;
        for (mmx_index q = 0; q < nx * k; q++) x[q] = (float)(tu_rng(&seed) % 1000) / 7.0f;
        MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, (size_t)nx * k * sizeof *x, (void **)&dx));
        MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, (size_t)ny * k * sizeof *x, (void **)&dyd));
        MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, dx, MMX_SPACE_DEVICE, x, MMX_SPACE_HOST, (size_t)nx * k * sizeof *x));
        const mmx_status hr = mmx_patch_reduce(hctx, hs, kinds[t], x, k, hy);
        const mmx_status dr = mmx_patch_reduce(dctx, ds, kinds[t], dx, k, dyd);
        cr_assert_eq(hr, dr, "%s reduce %s: host %d, CUDA %d", name, mmx_query_name(kinds[t]), hr, dr);
        if (!hr) {
            MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, dy, MMX_SPACE_HOST, dyd, MMX_SPACE_DEVICE, (size_t)ny * k * sizeof *x));
            /* Same sums in the same order: bit for bit (additions only, no contraction). */
            cr_expect(memcmp(hy, dy, (size_t)ny * k * sizeof *x) == 0, "%s (S = %d) %s reduce differs", name, S,
                      mmx_query_name(kinds[t]));
        } else {
            cr_expect_str_eq(mmx_ctx_error(hctx), mmx_ctx_error(dctx), "%s reduce", name);
        }
        mmx_mem_free(dctx, MMX_SPACE_DEVICE, dx), mmx_mem_free(dctx, MMX_SPACE_DEVICE, dyd);
        free(x), free(hy), free(dy);
    }
    mmx_patch_set_free(hs), mmx_patch_set_free(ds);
    mmx_mesh_free(dm);
}

Test(patch, gpu_matches_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const char *specs[] = {"torus:32:24", "icosphere:3", "grid:40:30", "mixed"};
    const int Ss[] = {7, 16, 512};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        mmx_mesh *hm = tu_shape(hctx, specs[i]);
        for (size_t j = 0; j < 3; j++) gpu_case(hctx, dctx, hm, Ss[j], specs[i]);
        mmx_mesh_free(hm);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

/* The CUDA queries and reductions on the awkward meshes of the host tests: a non-manifold
 * edge, a bowtie vertex, isolated vertices, many components, a shuffled order, a fan of 10000
 * faces (a patch too large for shared memory: the global work space), and inconsistent
 * orientation (the same refusal), each at several S. */
Test(patch, gpu_matches_host_on_awkward_meshes)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const int Ss[] = {1, 2, 16, 0};
    {
        const mmx_index start[] = {0, 3, 6, 9, 12}, verts[] = {0, 1, 2, 1, 0, 3, 0, 1, 4, 2, 1, 5};
        mmx_mesh *m = from_faces(hctx, 6, 4, start, verts, 1);
        for (int j = 0; j < 4; j++) gpu_case(hctx, dctx, m, Ss[j], "non-manifold edge");
        mmx_mesh_free(m);
    }
    {
        const mmx_index start[] = {0, 3, 6, 9, 12, 15};
        const mmx_index verts[] = {0, 1, 2, 0, 2, 3, 0, 4, 5, 0, 5, 6, 0, 6, 4};
        mmx_mesh *m = from_faces(hctx, 7, 5, start, verts, 1);
        for (int j = 0; j < 4; j++) gpu_case(hctx, dctx, m, Ss[j], "bowtie");
        mmx_mesh_free(m);
    }
    {
        const mmx_index start[] = {0, 3, 6}, verts[] = {1, 2, 3, 3, 2, 4};
        mmx_mesh *m = from_faces(hctx, 7, 2, start, verts, 1);
        for (int j = 0; j < 4; j++) gpu_case(hctx, dctx, m, Ss[j], "isolated vertices");
        mmx_mesh_free(m);
    }
    {
        const mmx_index start[] = {0, 3, 6, 9}, verts[] = {0, 1, 2, 1, 2, 3, 2, 1, 4};
        mmx_mesh *m = from_faces(hctx, 5, 2, start, verts, 1);
        for (int j = 0; j < 4; j++) gpu_case(hctx, dctx, m, Ss[j], "inconsistent orientation");
        mmx_mesh_free(m);
    }
    {
        const mmx_index n = 300;
        mmx_index *start = malloc(((size_t)n + 1) * sizeof *start), *verts = malloc(3 * (size_t)n * sizeof *verts);
        cr_assert(start && verts);
        for (mmx_index f = 0; f <= n; f++) start[f] = 3 * f;
        for (mmx_index i = 0; i < 3 * n; i++) verts[i] = i;
        mmx_mesh *m = from_faces(hctx, 3 * n, n, start, verts, 1);
        for (int j = 2; j < 4; j++) gpu_case(hctx, dctx, m, Ss[j], "separate triangles");
        mmx_mesh_free(m);
        free(start), free(verts);
    }
    {
        mmx_mesh *t = tu_shape(hctx, "torus:20:16"), *sh = NULL;
        MMX_OK_OR_FAIL(hctx, mmx_mesh_shuffle(hctx, t, 3, NULL, NULL, &sh));
        for (int j = 2; j < 4; j++) gpu_case(hctx, dctx, sh, Ss[j], "shuffled torus");
        mmx_mesh_free(sh), mmx_mesh_free(t);
    }
    {
        mmx_mesh *m = fan(hctx, 10000);
        gpu_case(hctx, dctx, m, 0, "fan of 10000");
        mmx_mesh_free(m);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

/* ---- patches that follow dynamic edits (mmx_cavity_face_origin, mmx_patch_set_follow) ----- */

/* An open triangulated grid of nx x ny squares (two triangles each), on the plane z = 0. */
static mmx_mesh *tri_grid(mmx_ctx *ctx, mmx_index nx, mmx_index ny)
{
    const mmx_index nv = (nx + 1) * (ny + 1), nf = 2 * nx * ny;
    mmx_index *verts = malloc(3 * (size_t)nf * sizeof *verts);
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    cr_assert(verts && pos);
    for (mmx_index j = 0; j <= ny; j++)
        for (mmx_index i = 0; i <= nx; i++) {
            const mmx_index v = j * (nx + 1) + i;
            pos[3 * v] = (float)i, pos[3 * v + 1] = (float)j, pos[3 * v + 2] = 0;
        }
    mmx_index k = 0;
    for (mmx_index j = 0; j < ny; j++)
        for (mmx_index i = 0; i < nx; i++) {
            const mmx_index a = j * (nx + 1) + i, b = a + 1, c = a + nx + 1, d = c + 1;
            verts[k++] = a, verts[k++] = b, verts[k++] = d;
            verts[k++] = a, verts[k++] = d, verts[k++] = c;
        }
    mmx_mesh *m = tu_triangles(ctx, nv, nf, verts, pos);
    free(verts), free(pos);
    return m;
}

/* Corner k of face f of a host triangle mesh. */
static mmx_index corner(const mmx_mesh *m, mmx_index f, int k)
{
    int64_t a, b;
    mmx__csc_col(m->M, f, &a, &b);
    return m->M->rowidx[a + k];
}

/* One round of `kind` (edge kinds: seeds = every edge; face split: every face) on host mesh m;
 * per_seed and seeds returned (caller frees). */
static mmx_mesh *run_round(mmx_ctx *ctx, const mmx_mesh *m, mmx_cavity_kind kind, uint32_t round,
                           mmx_index **seeds_out, mmx_cavity_seed **sd_out, mmx_index *n_out)
{
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index n = kind == MMX_CAVITY_FACE_SPLIT ? m->M->ncols : adj->nedges;
    mmx_adjacency_free(adj);
    mmx_index *seeds = malloc(((size_t)n + 1) * sizeof *seeds);
    mmx_cavity_seed *sd = malloc(((size_t)n + 1) * sizeof *sd);
    cr_assert(seeds && sd);
    for (mmx_index i = 0; i < n; i++) seeds[i] = i;
    mmx_mesh *out = NULL;
    mmx_cavity_counts c;
    if (kind == MMX_CAVITY_FACE_SPLIT)
        MMX_OK_OR_FAIL(ctx, mmx_cavity_face_split_round(ctx, m, seeds, n, round, &out, &c, sd));
    else
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, kind, seeds, n, round, &out, &c, sd));
    cr_assert_gt(c.kept, 0, "round %u of kind %d kept nothing", round, (int)kind);
    *seeds_out = seeds, *sd_out = sd, *n_out = n;
    return out;
}

/* The origin of a split's faces (edge or face split), checked against the meshes: every
 * output vertex of face f that the input has is a vertex of input face origin[f]; a new
 * vertex in it is the one made by a kept seed whose faces hold origin[f]; the untouched faces
 * are the same. */
static void check_split_origin(const mmx_mesh *in, const mmx_mesh *out, const mmx_cavity_seed *sd,
                               mmx_index n, const mmx_index *origin)
{
    const mmx_index V = in->M->nrows, F = in->M->ncols, F2 = out->M->ncols;
    mmx_index *maker = malloc(((size_t)out->M->nrows + 1) * sizeof *maker);
    unsigned char *touched = calloc((size_t)F + 1, 1);
    cr_assert(maker && touched);
    for (mmx_index v = 0; v < out->M->nrows; v++) maker[v] = -1;
    for (mmx_index i = 0; i < n; i++)
        if (sd[i].outcome == MMX_CAVITY_KEPT) {
            maker[sd[i].vertex] = i;
            for (int h = 0; h < 2; h++)
                if (sd[i].faces[h] >= 0) touched[sd[i].faces[h]] = 1;
        }
    for (mmx_index f = 0; f < F2; f++) {
        const mmx_index o = origin[f];
        cr_assert(o >= 0 && o < F, "face %d: origin %d", f, o);
        if (f < F) cr_assert_eq(o, f, "kept face %d has origin %d", f, o);
        int nnew = 0;
        for (int k = 0; k < 3; k++) {
            const mmx_index v = corner(out, f, k);
            if (v >= V) {
                nnew++;
                const mmx_index i = maker[v];
                cr_assert(i >= 0, "face %d: vertex %d made by no kept seed", f, v);
                cr_assert(sd[i].faces[0] == o || sd[i].faces[1] == o,
                          "face %d (origin %d) holds vertex %d of seed %d (faces %d %d)", f, o, v, i,
                          sd[i].faces[0], sd[i].faces[1]);
                continue;
            }
            int found = 0;
            for (int j = 0; j < 3; j++) found |= corner(in, o, j) == v;
            cr_assert(found, "face %d: vertex %d is not in its origin face %d", f, v, o);
        }
        cr_assert_leq(nnew, 1, "face %d", f);
        if (f < F && !touched[f])
            for (int k = 0; k < 3; k++) cr_assert_eq(corner(out, f, k), corner(in, f, k));
        if (f >= F) cr_assert_eq(nnew, 1, "appended face %d has no new vertex", f);
    }
    free(maker), free(touched);
}

/* The origin of a collapse or vertex removal: output face f is input face origin[f] with each
 * removed vertex replaced by its kept one and the survivors renumbered, corner by corner.
 * removed[i]: the input vertex seed i removes (kept seeds). */
static void check_merge_origin(const mmx_mesh *in, const mmx_mesh *out, const mmx_cavity_seed *sd,
                               mmx_index n, const mmx_index *removed, const mmx_index *origin)
{
    const mmx_index V = in->M->nrows, F = in->M->ncols, F2 = out->M->ncols;
    mmx_index *to = malloc(((size_t)V + 1) * sizeof *to);
    unsigned char *gone = calloc((size_t)V + 1, 1);
    cr_assert(to && gone);
    for (mmx_index i = 0; i < n; i++)
        if (sd[i].outcome == MMX_CAVITY_KEPT) gone[removed[i]] = 1;
    mmx_index r = 0;
    for (mmx_index v = 0; v < V; v++) to[v] = gone[v] ? -1 : r++;
    cr_assert_eq(r, out->M->nrows);
    for (mmx_index i = 0; i < n; i++)
        if (sd[i].outcome == MMX_CAVITY_KEPT) to[removed[i]] = sd[i].vertex;
    mmx_index prev = -1;
    for (mmx_index f = 0; f < F2; f++) {
        const mmx_index o = origin[f];
        cr_assert(o > prev && o < F, "face %d: origin %d after %d", f, o, prev);
        prev = o;
        for (int k = 0; k < 3; k++)
            cr_assert_eq(corner(out, f, k), to[corner(in, o, k)], "face %d corner %d (origin %d)", f, k, o);
    }
    free(to), free(gone);
}

Test(patch, face_origin_of_real_rounds)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *meshes[2] = {tu_shape(ctx, "icosphere:3"), tri_grid(ctx, 12, 9)};
    for (int t = 0; t < 2; t++) {
        mmx_mesh *m = meshes[t];
        const mmx_index F = m->M->ncols;
        mmx_index *seeds, n, *origin;
        mmx_cavity_seed *sd;
        /* Edge split and face split. */
        const mmx_cavity_kind splits[2] = {MMX_CAVITY_EDGE_SPLIT, MMX_CAVITY_FACE_SPLIT};
        for (int k = 0; k < 2; k++) {
            mmx_mesh *out = run_round(ctx, m, splits[k], 5, &seeds, &sd, &n);
            origin = malloc((size_t)out->M->ncols * sizeof *origin);
            cr_assert(origin);
            MMX_OK_OR_FAIL(ctx, mmx_cavity_face_origin(ctx, splits[k], F, sd, n, out->M->ncols, origin));
            check_split_origin(m, out, sd, n, origin);
            /* A wrong count is refused, naming it. */
            cr_expect_eq(mmx_cavity_face_origin(ctx, splits[k], F, sd, n, out->M->ncols + 1, origin),
                         MMX_ERR_ARG);
            cr_expect(strstr(mmx_ctx_error(ctx), "nfaces_after") != NULL, "%s", mmx_ctx_error(ctx));
            free(origin), free(seeds), free(sd);
            mmx_mesh_free(out);
        }
        /* Edge collapse: the removed vertex is the edge's higher end. */
        mmx_adjacency *adj = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
        mmx_mesh *out = run_round(ctx, m, MMX_CAVITY_EDGE_COLLAPSE, 2, &seeds, &sd, &n);
        mmx_index *removed = malloc((size_t)n * sizeof *removed);
        origin = malloc((size_t)out->M->ncols * sizeof *origin);
        cr_assert(removed && origin);
        for (mmx_index i = 0; i < n; i++) removed[i] = adj->ev[2 * (size_t)seeds[i] + 1];
        MMX_OK_OR_FAIL(ctx, mmx_cavity_face_origin(ctx, MMX_CAVITY_EDGE_COLLAPSE, F, sd, n,
                                                   out->M->ncols, origin));
        check_merge_origin(m, out, sd, n, removed, origin);
        free(removed), free(origin), free(seeds), free(sd);
        mmx_mesh_free(out);
        mmx_adjacency_free(adj);
        /* Vertex removal (closed mesh only: boundary vertices are refused): removes the seed. */
        if (t == 0) {
            n = m->M->nrows;
            seeds = malloc((size_t)n * sizeof *seeds);
            sd = malloc((size_t)n * sizeof *sd);
            cr_assert(seeds && sd);
            for (mmx_index i = 0; i < n; i++) seeds[i] = i;
            MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, m, seeds, n, 4, &out, NULL, sd));
            origin = malloc((size_t)out->M->ncols * sizeof *origin);
            cr_assert(origin);
            MMX_OK_OR_FAIL(ctx, mmx_cavity_face_origin(ctx, MMX_CAVITY_VERTEX_REMOVE, F, sd, n,
                                                       out->M->ncols, origin));
            check_merge_origin(m, out, sd, n, seeds, origin);
            free(origin), free(seeds), free(sd);
            mmx_mesh_free(out);
        }
        /* Flip: the identity. */
        out = run_round(ctx, m, MMX_CAVITY_EDGE_FLIP, 1, &seeds, &sd, &n);
        origin = malloc((size_t)F * sizeof *origin);
        cr_assert(origin);
        MMX_OK_OR_FAIL(ctx, mmx_cavity_face_origin(ctx, MMX_CAVITY_EDGE_FLIP, F, sd, n, F, origin));
        for (mmx_index f = 0; f < F; f++) cr_assert_eq(origin[f], f);
        cr_expect_eq(mmx_cavity_face_origin(ctx, MMX_CAVITY_EDGE_FLIP, F, sd, n, F - 1, origin), MMX_ERR_ARG);
        cr_expect_eq(mmx_cavity_face_origin(ctx, (mmx_cavity_kind)99, F, sd, n, F, origin),
                     MMX_ERR_UNSUPPORTED);
        cr_expect_eq(mmx_cavity_face_origin(ctx, MMX_CAVITY_EDGE_SPLIT, F, NULL, n, F, origin), MMX_ERR_ARG);
        /* A kept seed naming a face outside the input is refused, naming the seed. */
        mmx_index kept = 0;
        while (sd[kept].outcome != MMX_CAVITY_KEPT) kept++;
        sd[kept].faces[0] = F;
        cr_expect_eq(mmx_cavity_face_origin(ctx, MMX_CAVITY_EDGE_COLLAPSE, F, sd, n, F - 2, origin),
                     MMX_ERR_ARG);
        char want[64];
        snprintf(want, sizeof want, "kept seed %d", kept);
        cr_expect(strstr(mmx_ctx_error(ctx), want) != NULL, "%s", mmx_ctx_error(ctx));
        free(origin), free(seeds), free(sd);
        mmx_mesh_free(out);
    }
    mmx_mesh_free(meshes[0]), mmx_mesh_free(meshes[1]);
    mmx_ctx_free(ctx);
}

/* The followed set of mesh m for labels (host), S. */
static mmx_patch_set *follow_set(mmx_ctx *ctx, const mmx_mesh *m, const mmx_index *label, int S)
{
    mmx_patch_options o = {S};
    mmx_patch_set *ps = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_follow(ctx, m, label, NULL, &o, &ps));
    return ps;
}

/* The labels of a round's output: each face's origin's patch in the set before the round. */
static mmx_index *labels_after(mmx_ctx *ctx, const mmx_patch_set *before, mmx_cavity_kind kind,
                               const mmx_cavity_seed *sd, mmx_index n, mmx_index nfaces_after)
{
    mmx_index *origin = malloc(((size_t)nfaces_after + 1) * sizeof *origin);
    mmx_index *fp = malloc(((size_t)before->nfaces + 1) * sizeof *fp);
    cr_assert(origin && fp);
    MMX_OK_OR_FAIL(ctx, mmx_cavity_face_origin(ctx, kind, before->nfaces, sd, n, nfaces_after, origin));
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_face_patch(ctx, before, fp));
    for (mmx_index f = 0; f < nfaces_after; f++) origin[f] = fp[origin[f]];
    free(fp);
    return origin;
}

/* What mmx_patch_set_follow promises for labels (np_old labels, 0 .. np_old - 1): no patch
 * mixes labels, patches come in label order, a group of at most the bound is whole in one
 * patch when `connected` (the group is known to be edge-connected), a larger one is re-cut
 * into patches of at most S. Counts patches grown past S and groups re-cut. */
static void check_follow(const mmx_patch_set *ps, const mmx_index *label, mmx_index np_old, int S,
                         int connected, int *grown, int *recut, const char *name)
{
    const mmx_index F = ps->nfaces, np = ps->npatches, bound = 2 * S < MMX_PATCH_MAX_FACES ? 2 * S : MMX_PATCH_MAX_FACES;
    mmx_index *cnt = calloc((size_t)np_old + 1, sizeof *cnt), *plabel = malloc(((size_t)np + 1) * sizeof *plabel);
    mmx_index *npat = calloc((size_t)np_old + 1, sizeof *npat);
    cr_assert(cnt && plabel && npat);
    for (mmx_index p = 0; p < np; p++) plabel[p] = -1;
    for (mmx_index f = 0; f < F; f++) {
        const mmx_index l = label[f], p = ps->face_patch[f];
        cr_assert(l >= 0 && l < np_old);
        cnt[l]++;
        if (plabel[p] < 0) plabel[p] = l;
        cr_assert_eq(plabel[p], l, "%s: patch %d holds labels %d and %d", name, p, plabel[p], l);
    }
    for (mmx_index p = 0; p < np; p++) {
        cr_assert_geq(plabel[p], 0);
        if (p) cr_assert_geq(plabel[p], plabel[p - 1], "%s: patch %d out of label order", name, p);
        npat[plabel[p]]++;
        const mmx_index of = ps->owned[3 * p], l = plabel[p];
        if (of > S) (*grown)++;
        if (cnt[l] <= bound && connected)
            cr_assert_eq(of, cnt[l], "%s: label %d (%d faces) is not whole in patch %d (%d)", name, l,
                         cnt[l], p, of);
        if (cnt[l] > bound) cr_assert_leq(of, S, "%s: patch %d of re-cut label %d owns %d", name, p, l, of);
    }
    for (mmx_index l = 0; l < np_old; l++)
        if (cnt[l] > bound) {
            (*recut)++;
            cr_assert_geq(npat[l], 2, "%s: label %d of %d faces in %d patch", name, l, cnt[l], npat[l]);
        }
    free(cnt), free(plabel), free(npat);
}

Test(patch, follow_without_edits_gives_the_same_set)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *specs[] = {"torus:32:24", "icosphere:3", "grid:40:30", "mixed"};
    const int Ss[] = {1, 7, 16, 0};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        mmx_mesh *m = tu_shape(ctx, specs[i]);
        for (size_t j = 0; j < 4; j++) {
            mmx_patch_set *ps = make_set(ctx, m, Ss[j]);
            mmx_index *fp = malloc(((size_t)ps->nfaces + 1) * sizeof *fp);
            cr_assert(fp);
            MMX_OK_OR_FAIL(ctx, mmx_patch_set_face_patch(ctx, ps, fp));
            cr_assert(memcmp(fp, ps->face_patch, (size_t)ps->nfaces * sizeof *fp) == 0);
            mmx_patch_set *fs = follow_set(ctx, m, fp, Ss[j]);
            char name[96];
            snprintf(name, sizeof name, "%s S=%d", specs[i], Ss[j]);
            tu_expect_same_patch_sets(ps, fs, name);
            mmx_patch_set_free(fs);
            /* Labels spread over a large range choose the same grouping. */
            for (mmx_index f = 0; f < ps->nfaces; f++) fp[f] = 2000000000 - 7919 * fp[f];
            fs = follow_set(ctx, m, fp, Ss[j]);
            cr_assert_eq(fs->npatches, ps->npatches, "%s", name);
            for (mmx_index f = 0; f < ps->nfaces; f++)
                cr_assert_eq(fs->face_patch[f], ps->npatches - 1 - ps->face_patch[f], "%s: face %d", name, f);
            mmx_patch_set_free(fs);
            /* One label for every face: runs of S only where the mesh is beyond the bound. */
            memset(fp, 0, (size_t)ps->nfaces * sizeof *fp);
            fs = follow_set(ctx, m, fp, Ss[j]);
            const int S = Ss[j] ? Ss[j] : MMX_PATCH_DEFAULT_FACES;
            check_invariants(ctx, m, fs, 2 * S < MMX_PATCH_MAX_FACES ? 2 * S : MMX_PATCH_MAX_FACES);
            if (ps->nfaces > (2 * S < MMX_PATCH_MAX_FACES ? 2 * S : MMX_PATCH_MAX_FACES))
                tu_expect_same_patch_sets(ps, fs, name);
            mmx_patch_set_free(fs);
            free(fp);
            mmx_patch_set_free(ps);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* The patch queries of m against mmx_query (the algebraic path), every kind: for meshes too
 * large for the dense spec. */
static void check_queries_algebraic(mmx_ctx *ctx, const mmx_mesh *m, const mmx_patch_set *ps,
                                    const char *name)
{
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        char what[160];
        snprintf(what, sizeof what, "%s %s", name, mmx_query_name((mmx_query_kind)k));
        mmx_csr *P = NULL, *Q = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_patch_query(ctx, ps, (mmx_query_kind)k, &P));
        MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, (mmx_query_kind)k, &Q));
        expect_equal_csr(P, Q, what);
        /* Again into the result made (mmx_patch_query_run), its entries spoilt first. */
        if (P->nnz) memset((void *)P->colidx, 0xff, (size_t)P->nnz * sizeof *P->colidx);
        MMX_OK_OR_FAIL(ctx, mmx_patch_query_run(ctx, ps, (mmx_query_kind)k, P));
        expect_equal_csr(P, Q, what);
        /* A result of another shape is refused. */
        const mmx_query_kind other = k == MMX_QUERY_VV ? MMX_QUERY_FV : MMX_QUERY_VV;
        if (P->nrows != (other <= MMX_QUERY_VF ? m->M->nrows : m->M->ncols) && ps->npatches > 0) {
            cr_expect_eq(mmx_patch_query_run(ctx, ps, other, P), MMX_ERR_ARG, "%s: run into another kind", what);
        }
        mmx_csr_free(P), mmx_csr_free(Q);
    }
}

/* Rounds of `kinds` on m from a fresh set of S, each followed; checks every followed set. */
static void follow_rounds(mmx_ctx *ctx, mmx_mesh *m, int S, const mmx_cavity_kind *kinds, int nrounds,
                          int *grown, int *recut, mmx_index *shrunk, const char *name)
{
    mmx_patch_set *ps = make_set(ctx, m, S);
    const mmx_index bound = 2 * S < MMX_PATCH_MAX_FACES ? 2 * S : MMX_PATCH_MAX_FACES;
    for (int r = 0; r < nrounds; r++) {
        mmx_index *seeds, n;
        mmx_cavity_seed *sd;
        mmx_mesh *out = run_round(ctx, m, kinds[r], (uint32_t)r, &seeds, &sd, &n);
        mmx_index *label = labels_after(ctx, ps, kinds[r], sd, n, out->M->ncols);
        mmx_patch_set *fs = follow_set(ctx, out, label, S);
        char what[128];
        snprintf(what, sizeof what, "%s round %d (kind %d)", name, r, (int)kinds[r]);
        check_invariants(ctx, out, fs, bound);
        const int split = kinds[r] == MMX_CAVITY_EDGE_SPLIT || kinds[r] == MMX_CAVITY_FACE_SPLIT;
        check_follow(fs, label, ps->npatches, S, split, grown, recut, what);
        if (kinds[r] == MMX_CAVITY_EDGE_COLLAPSE) {
            /* Every label keeps at most its old patch's faces; some keep fewer. */
            for (mmx_index p = 0; p < fs->npatches; p++) {
                const mmx_index l = label[fs->l2g_f[fs->face_off[p]]];
                cr_assert_leq(fs->owned[3 * p], ps->owned[3 * l], "%s: patch %d grew", what, p);
                *shrunk += fs->owned[3 * p] < ps->owned[3 * l];
            }
        }
        check_queries_algebraic(ctx, out, fs, what);
        if (r == nrounds - 1) check_reduce(ctx, fs, what);
        free(label), free(seeds), free(sd);
        mmx_patch_set_free(ps);
        ps = fs;
        if (r) mmx_mesh_free(m);
        m = out;
    }
    mmx_patch_set_free(ps);
    if (nrounds > 0) mmx_mesh_free(m);
}

Test(patch, follow_grows_and_recuts_patches_through_splits)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_cavity_kind kinds[] = {MMX_CAVITY_EDGE_SPLIT, MMX_CAVITY_FACE_SPLIT, MMX_CAVITY_EDGE_FLIP,
                                     MMX_CAVITY_EDGE_SPLIT, MMX_CAVITY_EDGE_SPLIT};
    mmx_mesh *meshes[2] = {tu_shape(ctx, "icosphere:3"), tri_grid(ctx, 20, 16)};
    const int Ss[] = {40, 16};
    for (int t = 0; t < 2; t++) {
        int grown = 0, recut = 0;
        mmx_index shrunk = 0;
        follow_rounds(ctx, meshes[t], Ss[t], kinds, 5, &grown, &recut, &shrunk, t ? "grid" : "icosphere");
        cr_expect_gt(grown, 0, "mesh %d S %d: no patch grew past S", t, Ss[t]);
        cr_expect_gt(recut, 0, "mesh %d S %d: no label was re-cut", t, Ss[t]);
    }
    mmx_mesh_free(meshes[0]), mmx_mesh_free(meshes[1]);
    mmx_ctx_free(ctx);
}

Test(patch, follow_shrinks_patches_through_collapses)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_cavity_kind kinds[] = {MMX_CAVITY_EDGE_COLLAPSE, MMX_CAVITY_EDGE_COLLAPSE,
                                     MMX_CAVITY_EDGE_COLLAPSE};
    mmx_mesh *meshes[2] = {tu_shape(ctx, "icosphere:3"), tri_grid(ctx, 24, 20)};
    for (int t = 0; t < 2; t++) {
        int grown = 0, recut = 0;
        mmx_index shrunk = 0;
        follow_rounds(ctx, meshes[t], 24, kinds, 3, &grown, &recut, &shrunk, t ? "grid" : "icosphere");
        cr_expect_gt(shrunk, 0, "mesh %d: no patch shrank", t);
        cr_expect_eq(grown, 0);
        cr_expect_eq(recut, 0);
    }
    mmx_mesh_free(meshes[0]), mmx_mesh_free(meshes[1]);
    mmx_ctx_free(ctx);
}

Test(patch, follow_arguments)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    const mmx_index F = m->M->ncols;
    mmx_index *label = calloc((size_t)F, sizeof *label);
    cr_assert(label);
    mmx_patch_set *ps = NULL;
    cr_expect_eq(mmx_patch_set_follow(ctx, m, NULL, NULL, NULL, &ps), MMX_ERR_ARG);
    cr_expect_null(ps);
    label[17] = -3, label[40] = -1;
    cr_expect_eq(mmx_patch_set_follow(ctx, m, label, NULL, NULL, &ps), MMX_ERR_ARG);
    cr_expect_null(ps);
    cr_expect(strstr(mmx_ctx_error(ctx), "face 17 has label -3") != NULL, "%s", mmx_ctx_error(ctx));
    label[17] = label[40] = 0;
    mmx_patch_options o = {MMX_PATCH_MAX_FACES + 1};
    cr_expect_eq(mmx_patch_set_follow(ctx, m, label, NULL, &o, &ps), MMX_ERR_ARG);
    cr_expect(strstr(mmx_ctx_error(ctx), "mmx_patch_set_follow") != NULL, "%s", mmx_ctx_error(ctx));
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_follow(ctx, m, label, NULL, NULL, &ps));
    cr_expect_eq(mmx_patch_set_face_patch(ctx, ps, NULL), MMX_ERR_ARG);
    mmx_patch_set_free(ps);
    /* No faces: no labels needed. */
    const mmx_index start[1] = {0};
    mmx_mesh *e = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 3, 0, start, NULL, NULL, &e));
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_follow(ctx, e, NULL, NULL, NULL, &ps));
    cr_expect_eq(ps->npatches, 0);
    mmx_patch_set_free(ps);
    mmx_mesh_free(e);
    free(label);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* The followed set of host mesh hm with host labels, built on both backends and compared array
 * by array; the device's face-patch copy against the host set's. */
static void compare_follow_hint(mmx_ctx *hctx, mmx_ctx *dctx, const mmx_mesh *hm, const mmx_index *label,
                                int S, mmx_index hint, const char *name);

static void compare_follow(mmx_ctx *hctx, mmx_ctx *dctx, const mmx_mesh *hm, const mmx_index *label,
                           int S, const char *name)
{
    compare_follow_hint(hctx, dctx, hm, label, S, 0, name);
}

/* The host's follow set of hm for label (host) against the device's, built with the CUDA
 * build's hint nlabels = hint (mmx__patch_set_follow_hint; 0: none, mmx_patch_set_follow):
 * with a hint the cut groups the labels without sorting where they are in [0, hint) and each
 * group within the bound, else it sorts; the same set either way. With a hint, three device
 * builds: the groups checked by a wait (max_group 0), vouched for by their true largest size
 * (as the update does), and vouched for wrongly (max_group 1: where the groups do not hold,
 * the build finds it and runs again sorted). */
static void compare_follow_hint(mmx_ctx *hctx, mmx_ctx *dctx, const mmx_mesh *hm, const mmx_index *label,
                                int S, mmx_index hint, const char *name)
{
    const mmx_index F = hm->M->ncols;
    mmx_mesh *dm = NULL;
    mmx_index *dl = NULL, *dfp = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, ((size_t)F + 1) * sizeof *dl, (void **)&dl));
    MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, ((size_t)F + 1) * sizeof *dfp, (void **)&dfp));
    MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, dl, MMX_SPACE_DEVICE, label, MMX_SPACE_HOST, (size_t)F * sizeof *dl));
    mmx_index maxg = 0; /* the largest group of the labels in [0, hint) */
    if (hint > 0) {
        mmx_index *cnt = calloc((size_t)hint + 1, sizeof *cnt);
        cr_assert(cnt);
        for (mmx_index f = 0; f < F; f++)
            if (label[f] >= 0 && label[f] < hint && ++cnt[label[f]] > maxg) maxg = cnt[label[f]];
        free(cnt);
    }
    const mmx_index vouch[3] = {0, maxg, 1};
    mmx_patch_set *hs = follow_set(hctx, hm, label, S);
    for (int t = 0; t < (hint > 0 ? 3 : 1); t++) {
        mmx_patch_set *ds = NULL;
        const mmx_patch_options o = {S};
        MMX_OK_OR_FAIL(dctx, mmx__patch_set_follow_hint(dctx, dm, dl, hint, vouch[t], NULL, &o, &ds));
        char what[160];
        snprintf(what, sizeof what, "follow %s (S = %d, hint %d, max_group %d)", name, S, hint, vouch[t]);
        expect_same_set(dctx, hs, ds, what);
        MMX_OK_OR_FAIL(dctx, mmx_patch_set_face_patch(dctx, ds, dfp));
        expect_same_array(dctx, hs->face_patch, dfp, (size_t)F, sizeof *dfp, what, "mmx_patch_set_face_patch");
        mmx_patch_set_free(ds);
    }
    mmx_patch_set_free(hs);
    mmx_mem_free(dctx, MMX_SPACE_DEVICE, dl), mmx_mem_free(dctx, MMX_SPACE_DEVICE, dfp);
    mmx_mesh_free(dm);
}

Test(patch, gpu_follow_matches_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    /* After rounds of collapses (patches shrunk) and splits (grown and re-cut). */
    const mmx_cavity_kind kinds[] = {MMX_CAVITY_EDGE_COLLAPSE, MMX_CAVITY_EDGE_SPLIT, MMX_CAVITY_EDGE_SPLIT,
                                     MMX_CAVITY_FACE_SPLIT};
    mmx_mesh *meshes[2] = {tu_shape(hctx, "icosphere:4"), tri_grid(hctx, 40, 30)};
    const int Ss[] = {7, 16, 300, 512};
    for (int t = 0; t < 2; t++)
        for (size_t j = 0; j < 4; j++) {
            mmx_mesh *m = meshes[t];
            mmx_patch_set *ps = make_set(hctx, m, Ss[j]);
            for (int r = 0; r < 4; r++) {
                mmx_index *seeds, n;
                mmx_cavity_seed *sd;
                mmx_mesh *out = run_round(hctx, m, kinds[r], (uint32_t)r, &seeds, &sd, &n);
                mmx_index *label = labels_after(hctx, ps, kinds[r], sd, n, out->M->ncols);
                char name[96];
                snprintf(name, sizeof name, "%s round %d", t ? "grid" : "icosphere:4", r);
                compare_follow(hctx, dctx, out, label, Ss[j], name);
                compare_follow_hint(hctx, dctx, out, label, Ss[j], ps->npatches, name);
                mmx_patch_set *fs = follow_set(hctx, out, label, Ss[j]);
                free(label), free(seeds), free(sd);
                mmx_patch_set_free(ps);
                ps = fs;
                if (m != meshes[t]) mmx_mesh_free(m);
                m = out;
            }
            mmx_patch_set_free(ps);
            if (m != meshes[t]) mmx_mesh_free(m);
        }
    mmx_mesh_free(meshes[0]), mmx_mesh_free(meshes[1]);
    /* Polygon meshes with their own patches as labels, large label values, one label. */
    const char *specs[] = {"torus:32:24", "mixed", "grid:40:30"};
    for (size_t i = 0; i < 3; i++) {
        mmx_mesh *hm = tu_shape(hctx, specs[i]);
        mmx_patch_set *ps = make_set(hctx, hm, 16);
        mmx_index *label = malloc(((size_t)ps->nfaces + 1) * sizeof *label);
        cr_assert(label);
        for (mmx_index f = 0; f < ps->nfaces; f++) label[f] = ps->face_patch[f];
        compare_follow(hctx, dctx, hm, label, 16, specs[i]);
        compare_follow_hint(hctx, dctx, hm, label, 16, ps->npatches, specs[i]);
        compare_follow_hint(hctx, dctx, hm, label, 16, ps->npatches + 5, specs[i]);
        /* Labels permuted, pairs of patches merged (groups up to 2 S, empty labels between),
         * one label past the hint. */
        for (mmx_index f = 0; f < ps->nfaces; f++) label[f] = (ps->face_patch[f] * 7) % ps->npatches;
        compare_follow_hint(hctx, dctx, hm, label, 16, ps->npatches, specs[i]);
        for (mmx_index f = 0; f < ps->nfaces; f++) label[f] = ps->face_patch[f] / 2 * 2 + 1;
        compare_follow_hint(hctx, dctx, hm, label, 16, ps->npatches + 1, specs[i]);
        label[ps->nfaces / 2] = ps->npatches + 1;
        compare_follow_hint(hctx, dctx, hm, label, 16, ps->npatches + 1, specs[i]);
        for (mmx_index f = 0; f < ps->nfaces; f++) label[f] = 2000000000 - 7919 * ps->face_patch[f];
        compare_follow(hctx, dctx, hm, label, 7, specs[i]);
        compare_follow_hint(hctx, dctx, hm, label, 7, ps->npatches, specs[i]);
        for (mmx_index f = 0; f < ps->nfaces; f++) label[f] = (f * 7) % 5;
        compare_follow(hctx, dctx, hm, label, 16, specs[i]);
        compare_follow_hint(hctx, dctx, hm, label, 16, 5, specs[i]); /* groups beyond the bound */
        memset(label, 0, (size_t)ps->nfaces * sizeof *label);
        compare_follow(hctx, dctx, hm, label, 512, specs[i]);
        compare_follow_hint(hctx, dctx, hm, label, 512, 1, specs[i]); /* one group: 768 faces (the
                                                                          torus) fill a run */
        free(label);
        mmx_patch_set_free(ps);
        mmx_mesh_free(hm);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(patch, gpu_follow_refusal_matches_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    mmx_mesh *hm = tu_shape(hctx, "icosphere:3"), *dm = NULL;
    const mmx_index F = hm->M->ncols;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_index *label = calloc((size_t)F, sizeof *label), *dl = NULL;
    cr_assert(label);
    label[900] = -5, label[1000] = -1, label[33] = 7;
    MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, (size_t)F * sizeof *dl, (void **)&dl));
    MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, dl, MMX_SPACE_DEVICE, label, MMX_SPACE_HOST, (size_t)F * sizeof *dl));
    mmx_patch_set *hs = NULL, *ds = NULL;
    cr_expect_eq(mmx_patch_set_follow(hctx, hm, label, NULL, NULL, &hs), MMX_ERR_ARG);
    cr_expect_eq(mmx_patch_set_follow(dctx, dm, dl, NULL, NULL, &ds), MMX_ERR_ARG);
    cr_expect_null(hs);
    cr_expect_null(ds);
    cr_expect_str_eq(mmx_ctx_error(dctx), mmx_ctx_error(hctx));
    cr_expect(strstr(mmx_ctx_error(hctx), "face 900 has label -5") != NULL, "%s", mmx_ctx_error(hctx));
    /* With the hint: the grouped cut finds the negative labels and the sorted one refuses. */
    for (mmx_index vouch = 0; vouch < 2; vouch++) {
        cr_expect_eq(mmx__patch_set_follow_hint(dctx, dm, dl, 8, vouch, NULL, NULL, &ds), MMX_ERR_ARG);
        cr_expect_null(ds);
        cr_expect_str_eq(mmx_ctx_error(dctx), mmx_ctx_error(hctx));
    }
    mmx_mem_free(dctx, MMX_SPACE_DEVICE, dl);
    free(label);
    mmx_mesh_free(dm), mmx_mesh_free(hm);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}
