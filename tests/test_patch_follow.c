/* Criterion suite "patch_follow": patch sets kept current through dynamic edits
 * (mmx_patch_set_update, mmx_cavity_user_face_origin, mmx_delaunay_flip_patches, mmx_remesh's
 * opts->patches). After every round of every kind (edge flips, splits, collapses, face splits,
 * moves, vertex removal, user cavities) the kept set must hold a fresh cut's invariants (every
 * face, edge and vertex owned exactly once, ribbons complete, patches connected and within
 * the bound), every query must equal mmx_query's, the set must be mmx_patch_set_follow's for
 * the labels read through the round's origins, and no patch may mix two old patches' faces.
 * On CUDA (GPU tests, skipped without a device) the kept set is the host's, array for array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "patch_sets.h"
#include "patch/patch_internal.h"
#include "dynamic/patch_keep.h"

/* ---- meshes ---------------------------------------------------------------------------------- */

/* An nx x ny grid of unit squares cut into triangles, the interior vertices moved by up to
 * `jitter` (deterministic), so that Delaunay rounds have edges to flip. */
static mmx_mesh *grid(mmx_ctx *ctx, mmx_index nx, mmx_index ny, float jitter)
{
    const mmx_index nv = (nx + 1) * (ny + 1), nf = 2 * nx * ny;
    mmx_index *verts = malloc(3 * (size_t)nf * sizeof *verts);
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    cr_assert(verts && pos);
    uint32_t seed = 5;
    for (mmx_index j = 0; j <= ny; j++)
        for (mmx_index i = 0; i <= nx; i++) {
            const mmx_index v = j * (nx + 1) + i;
            const int inner = i > 0 && j > 0 && i < nx && j < ny;
            const float dx = inner ? jitter * ((float)(tu_rng(&seed) % 1001) / 500.0f - 1.0f) : 0;
            const float dy = inner ? jitter * ((float)(tu_rng(&seed) % 1001) / 500.0f - 1.0f) : 0;
            pos[3 * v] = (float)i + dx, pos[3 * v + 1] = (float)j + dy, pos[3 * v + 2] = 0;
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

/* ---- the checks ------------------------------------------------------------------------------ */

/* Faces of host face f: [*a, *b) of rowidx. */
static void face_range(const mmx_csc *M, mmx_index f, int64_t *a, int64_t *b)
{
    *a = M->order ? (int64_t)M->order * f : M->colptr[f];
    *b = M->order ? *a + M->order : M->colptr[f + 1];
}

/* A fresh cut's invariants on host set ps of host mesh m, patches within `bound` faces:
 * every face, edge and vertex in a face owned once (by the patch the local maps say), every
 * face at a vertex of an owned face local to the patch (the ribbon), every patch connected,
 * and every query equal to mmx_query's. */
static void check_set(mmx_ctx *ctx, const mmx_mesh *m, const mmx_patch_set *ps, mmx_index bound,
                      const char *what)
{
    const mmx_csc *M = m->M;
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index F = M->ncols, V = M->nrows, E = adj->nedges, np = ps->npatches;
    cr_assert_eq(ps->nfaces, F, "%s: faces", what);
    cr_assert_eq(ps->nverts, V, "%s: vertices", what);
    cr_assert_eq(ps->nedges, E, "%s: edges", what);
    /* Owned once: each element's owner lists it among its owned locals, and the owned counts
     * add up to the element counts. */
    int64_t of = 0, oe = 0, ov = 0;
    for (mmx_index p = 0; p < np; p++) {
        cr_assert(ps->owned[3 * p] >= 1 && ps->owned[3 * p] <= bound, "%s: patch %d owns %d faces "
                  "(bound %d)", what, p, ps->owned[3 * p], bound);
        of += ps->owned[3 * p], oe += ps->owned[3 * p + 1], ov += ps->owned[3 * p + 2];
    }
    cr_assert_eq(of, F, "%s: owned faces", what);
    cr_assert_eq(oe, E, "%s: owned edges", what);
    unsigned char *in_face = calloc((size_t)V + 1, 1);
    cr_assert(in_face);
    for (int64_t c = 0; c < M->nnz; c++) in_face[M->rowidx[c]] = 1;
    int64_t vin = 0;
    for (mmx_index v = 0; v < V; v++) vin += in_face[v];
    cr_assert_eq(ov, vin, "%s: owned vertices", what);
    /* Each element appears exactly once among the owned parts of the maps (a built set keeps
     * no per-edge or per-vertex owner array: the owned parts are their inverse), and a face's
     * owner is face_patch's. */
    mmx_index *seen_f = malloc(((size_t)F + 1) * sizeof *seen_f);
    mmx_index *seen_e = malloc(((size_t)E + 1) * sizeof *seen_e);
    mmx_index *seen_v = malloc(((size_t)V + 1) * sizeof *seen_v);
    cr_assert(seen_f && seen_e && seen_v);
    for (mmx_index f = 0; f < F; f++) seen_f[f] = -1;
    for (mmx_index e = 0; e < E; e++) seen_e[e] = -1;
    for (mmx_index v = 0; v < V; v++) seen_v[v] = -1;
    for (mmx_index p = 0; p < np; p++) {
        for (mmx_index l = 0; l < ps->owned[3 * p]; l++) {
            const mmx_index f = ps->l2g_f[ps->face_off[p] + l];
            cr_assert(f >= 0 && f < F && seen_f[f] == -1, "%s: face %d owned twice", what, f);
            seen_f[f] = p;
        }
        for (mmx_index l = 0; l < ps->owned[3 * p + 1]; l++) {
            const mmx_index e = ps->l2g_e[ps->edge_off[p] + l];
            cr_assert(e >= 0 && e < E && seen_e[e] == -1, "%s: edge %d owned twice", what, e);
            seen_e[e] = p;
        }
        for (mmx_index l = 0; l < ps->owned[3 * p + 2]; l++) {
            const mmx_index v = ps->l2g_v[ps->vert_off[p] + l];
            cr_assert(v >= 0 && v < V && seen_v[v] == -1, "%s: vertex %d owned twice", what, v);
            seen_v[v] = p;
        }
    }
    for (mmx_index f = 0; f < F; f++)
        cr_assert(seen_f[f] >= 0 && seen_f[f] == ps->face_patch[f], "%s: face %d", what, f);
    for (mmx_index e = 0; e < E; e++) cr_assert(seen_e[e] >= 0, "%s: edge %d not owned", what, e);
    for (mmx_index v = 0; v < V; v++)
        cr_assert((seen_v[v] >= 0) == (in_face[v] != 0), "%s: vertex %d %s", what, v,
                  in_face[v] ? "not owned" : "isolated but owned");
    free(seen_f), free(seen_e), free(seen_v);
    /* Faces at each vertex. */
    mmx_index *vs = calloc((size_t)V + 2, sizeof *vs), *vf = malloc(((size_t)M->nnz + 1) * sizeof *vf);
    cr_assert(vs && vf);
    for (int64_t c = 0; c < M->nnz; c++) vs[M->rowidx[c] + 2]++;
    for (mmx_index v = 0; v < V; v++) vs[v + 2] += vs[v + 1];
    for (mmx_index f = 0; f < F; f++) {
        int64_t a, b;
        face_range(M, f, &a, &b);
        for (int64_t c = a; c < b; c++) vf[vs[M->rowidx[c] + 1]++] = f;
    }
    /* Ribbons: every face at a vertex of an owned face is a local face of the patch. */
    mmx_index *mark = malloc(((size_t)F + 1) * sizeof *mark);
    cr_assert(mark);
    for (mmx_index f = 0; f < F; f++) mark[f] = -1;
    for (mmx_index p = 0; p < np; p++) {
        for (mmx_index i = ps->face_off[p]; i < ps->face_off[p + 1]; i++) mark[ps->l2g_f[i]] = p;
        for (mmx_index i = 0; i < ps->owned[3 * p]; i++) {
            int64_t a, b;
            face_range(M, ps->l2g_f[ps->face_off[p] + i], &a, &b);
            for (int64_t c = a; c < b; c++)
                for (mmx_index q = vs[M->rowidx[c]]; q < vs[M->rowidx[c] + 1]; q++)
                    cr_assert_eq(mark[vf[q]], p, "%s: patch %d's ribbon misses face %d", what, p, vf[q]);
        }
    }
    /* Connected: a walk from each patch's first owned face across edges within the patch
     * reaches all its owned faces. */
    mmx_index *es = calloc((size_t)E + 2, sizeof *es), *ef = malloc(((size_t)M->nnz + 1) * sizeof *ef);
    mmx_index *stack = malloc(((size_t)F + 1) * sizeof *stack);
    cr_assert(es && ef && stack);
    for (int64_t c = 0; c < M->nnz; c++) es[(adj->fe[c] >> 1) + 2]++;
    for (mmx_index e = 0; e < E; e++) es[e + 2] += es[e + 1];
    for (mmx_index f = 0; f < F; f++) {
        int64_t a, b;
        face_range(M, f, &a, &b);
        for (int64_t c = a; c < b; c++) ef[es[(adj->fe[c] >> 1) + 1]++] = f;
    }
    for (mmx_index f = 0; f < F; f++) mark[f] = 0;
    for (mmx_index p = 0; p < np; p++) {
        mmx_index top = 0, seen = 1;
        stack[top++] = ps->l2g_f[ps->face_off[p]];
        mark[stack[0]] = 1;
        while (top > 0) {
            const mmx_index f = stack[--top];
            int64_t a, b;
            face_range(M, f, &a, &b);
            for (int64_t c = a; c < b; c++) {
                const mmx_index e = adj->fe[c] >> 1;
                for (mmx_index q = es[e]; q < es[e + 1]; q++) {
                    const mmx_index g = ef[q];
                    if (mark[g] || ps->face_patch[g] != p) continue;
                    mark[g] = 1, seen++;
                    stack[top++] = g;
                }
            }
        }
        cr_assert_eq(seen, ps->owned[3 * p], "%s: patch %d is not connected", what, p);
    }
    free(es), free(ef), free(stack), free(mark), free(vs), free(vf), free(in_face);
    mmx_adjacency_free(adj);
    /* Every query, the patch path against the algebraic one. */
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        mmx_csr *P = NULL, *Q = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_patch_query(ctx, ps, (mmx_query_kind)k, &P));
        MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, (mmx_query_kind)k, &Q));
        cr_assert(P->nrows == Q->nrows && P->nnz == Q->nnz && P->order == Q->order,
                  "%s: query %s differs in shape", what, mmx_query_name((mmx_query_kind)k));
        if (!P->order)
            cr_assert(memcmp(P->rowptr, Q->rowptr, ((size_t)P->nrows + 1) * sizeof *P->rowptr) == 0,
                      "%s: query %s rows", what, mmx_query_name((mmx_query_kind)k));
        cr_assert(memcmp(P->colidx, Q->colidx, (size_t)P->nnz * sizeof *P->colidx) == 0,
                  "%s: query %s entries", what, mmx_query_name((mmx_query_kind)k));
        mmx_csr_free(P), mmx_csr_free(Q);
    }
}

/* The kept set ps (updated from the set whose owners were old_fp, np_old patches, through
 * origin: NULL for the identity) on the round's output m: the invariants above, the bound of
 * mmx_patch_set_follow, the very set mmx_patch_set_follow gives for the labels, and no patch
 * that mixes two old patches. */
static void check_kept(mmx_ctx *ctx, const mmx_mesh *m, const mmx_patch_set *ps,
                       const mmx_index *old_fp, const mmx_index *origin, const char *what)
{
    const mmx_index F = m->M->ncols;
    check_set(ctx, m, ps, mmx__patch_follow_bound(ps->max_faces), what);
    mmx_index *label = malloc(((size_t)F + 1) * sizeof *label);
    cr_assert(label);
    for (mmx_index f = 0; f < F; f++) label[f] = old_fp[origin ? origin[f] : f];
    mmx_patch_options o = {ps->max_faces};
    mmx_patch_set *fresh = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_follow(ctx, m, label, NULL, &o, &fresh));
    tu_expect_same_patch_sets(ps, fresh, what);
    mmx_patch_set_free(fresh);
    mmx_index *first = malloc(((size_t)ps->npatches + 1) * sizeof *first);
    cr_assert(first);
    for (mmx_index p = 0; p < ps->npatches; p++) first[p] = -1;
    for (mmx_index f = 0; f < F; f++) {
        const mmx_index p = ps->face_patch[f];
        if (first[p] < 0) first[p] = label[f];
        cr_assert_eq(first[p], label[f], "%s: patch %d mixes old patches %d and %d", what, p,
                     first[p], label[f]);
    }
    free(first), free(label);
}

/* ---- the rounds ------------------------------------------------------------------------------ */

enum { R_FLIP, R_SPLIT, R_COLLAPSE, R_FACE_SPLIT, R_MOVE, R_REMOVE, R_USER, R_KINDS };
static const char *const round_name[R_KINDS] = {"flip", "split", "collapse", "face split",
                                                "move", "vertex removal", "user cavities"};

/* Round `kind` number `round` on mesh m (the context's space; host seeds built from the host
 * copy hm): every edge, face or vertex a seed (moves: every third vertex, nudged; user
 * cavities: the faces at every fifth vertex). *origin (host, malloc'd): the output faces'
 * origins, NULL for a round that keeps the face ids. Returns the output, in m's space. */
static mmx_mesh *run_sd(mmx_ctx *ctx, const mmx_mesh *m, const mmx_mesh *hm, int kind,
                        uint32_t round, mmx_index **origin, mmx_cavity_seed **sd_out,
                        mmx_index *n_out, mmx_index *kept_out)
{
    mmx_ctx *hctx = tu_host_ctx();
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(hctx, mmx_adjacency_compute(hctx, hm, &adj));
    const mmx_index E = adj->nedges, F = hm->M->ncols, V = hm->M->nrows;
    mmx_adjacency_free(adj);
    const mmx_index n = kind == R_FACE_SPLIT ? F : kind == R_MOVE || kind == R_REMOVE ? V
                        : kind == R_USER ? (V + 4) / 5 : E;
    mmx_index *seeds = malloc(((size_t)n + 1) * sizeof *seeds);
    mmx_cavity_seed *sd = malloc(((size_t)n + 1) * sizeof *sd);
    cr_assert(seeds && sd);
    for (mmx_index i = 0; i < n; i++) seeds[i] = i;
    mmx_mesh *out = NULL;
    mmx_cavity_counts c = {0, 0, 0, 0};
    const mmx_cavity_kind edge_kind[3] = {MMX_CAVITY_EDGE_FLIP, MMX_CAVITY_EDGE_SPLIT,
                                          MMX_CAVITY_EDGE_COLLAPSE};
    mmx_index *ptr = NULL, *faces = NULL;
    *origin = NULL;
    switch (kind) {
    case R_FLIP: case R_SPLIT: case R_COLLAPSE:
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, edge_kind[kind], seeds, n, round, &out, &c, sd));
        break;
    case R_FACE_SPLIT:
        MMX_OK_OR_FAIL(ctx, mmx_cavity_face_split_round(ctx, m, seeds, n, round, &out, &c, sd));
        break;
    case R_MOVE: {
        mmx_index k = 0;
        float *t = malloc((3 * (size_t)n + 1) * sizeof *t);
        cr_assert(t);
        for (mmx_index v = 0; v < V; v += 3, k++) {
            seeds[k] = v;
            for (int d = 0; d < 3; d++) t[3 * k + d] = hm->pos[3 * v + d] + (d == 2 ? 0.0f : 0.01f);
        }
        MMX_OK_OR_FAIL(ctx, mmx_cavity_relocate_round(ctx, m, seeds, t, k, round, &out, &c, sd));
        free(t);
        break;
    }
    case R_REMOVE:
        MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, m, seeds, n, round, &out, &c, sd));
        break;
    default: {
        mmx_csr *VF = NULL;
        MMX_OK_OR_FAIL(hctx, mmx_query(hctx, hm, NULL, MMX_QUERY_VF, &VF));
        ptr = malloc(((size_t)n + 1) * sizeof *ptr);
        faces = malloc(((size_t)VF->nnz + 1) * sizeof *faces);
        cr_assert(ptr && faces);
        ptr[0] = 0;
        for (mmx_index i = 0; i < n; i++) {
            const mmx_index v = 5 * i;
            const mmx_index a = VF->order ? VF->order * v : VF->rowptr[v];
            const mmx_index b = VF->order ? a + VF->order : VF->rowptr[v + 1];
            ptr[i + 1] = ptr[i];
            for (mmx_index j = a; j < b; j++) faces[ptr[i + 1]++] = VF->colidx[j];
        }
        mmx_csr_free(VF);
        MMX_OK_OR_FAIL(ctx, mmx_cavity_user_round(ctx, m, ptr, faces, n, NULL, round, &out, &c, sd));
        break;
    }
    }
    cr_assert_gt(c.kept, 0, "round %u (%s) kept nothing", round, round_name[kind]);
    const mmx_index F2 = out->M->ncols;
    if (kind != R_FLIP && kind != R_MOVE) {
        *origin = malloc(((size_t)F2 + 1) * sizeof **origin);
        cr_assert(*origin);
        if (kind == R_USER) {
            MMX_OK_OR_FAIL(ctx, mmx_cavity_user_face_origin(ctx, m, ptr, faces, n, sd, out, *origin));
        } else {
            const mmx_cavity_kind k = kind == R_FACE_SPLIT ? MMX_CAVITY_FACE_SPLIT
                                      : kind == R_REMOVE   ? MMX_CAVITY_VERTEX_REMOVE
                                                           : edge_kind[kind];
            MMX_OK_OR_FAIL(ctx, mmx_cavity_face_origin(ctx, k, F, sd, n, F2, *origin));
        }
    }
    free(ptr), free(faces), free(seeds);
    if (sd_out) *sd_out = sd, *n_out = kind == R_MOVE ? (V + 2) / 3 : n, *kept_out = c.kept;
    else free(sd);
    mmx_ctx_free(hctx);
    return out;
}

static mmx_mesh *run(mmx_ctx *ctx, const mmx_mesh *m, const mmx_mesh *hm, int kind, uint32_t round,
                     mmx_index **origin)
{
    return run_sd(ctx, m, hm, kind, round, origin, NULL, NULL, NULL);
}

/* The sequence of rounds every test runs: each kind, twice over. */
static const int sequence[] = {R_SPLIT, R_FLIP, R_COLLAPSE, R_FACE_SPLIT, R_MOVE, R_REMOVE, R_USER,
                               R_SPLIT, R_SPLIT, R_FLIP, R_COLLAPSE, R_USER, R_REMOVE};
#define NSEQ ((int)(sizeof sequence / sizeof sequence[0]))

/* The sequence on host mesh m0 with a set of S faces, each round's set checked. */
static void host_rounds(mmx_mesh *m0, int S, const char *name)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_patch_options o = {S};
    mmx_patch_set *ps = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m0, NULL, &o, &ps));
    mmx_mesh *m = m0;
    int grew = 0;
    for (int r = 0; r < NSEQ; r++) {
        char what[96];
        snprintf(what, sizeof what, "%s S %d round %d (%s)", name, S, r, round_name[sequence[r]]);
        mmx_index *origin = NULL;
        mmx_mesh *next = run(ctx, m, m, sequence[r], (uint32_t)r, &origin);
        mmx_index *old_fp = malloc(((size_t)ps->nfaces + 1) * sizeof *old_fp);
        cr_assert(old_fp);
        memcpy(old_fp, ps->face_patch, (size_t)ps->nfaces * sizeof *old_fp);
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_update(ctx, ps, next, origin, NULL));
        check_kept(ctx, next, ps, old_fp, origin, what);
        for (mmx_index p = 0; p < ps->npatches; p++) grew |= ps->owned[3 * p] > S;
        free(old_fp), free(origin);
        mmx_mesh_free(m);
        m = next;
    }
    cr_expect(grew, "%s S %d: no patch grew past S (the rounds should make some)", name, S);
    mmx_patch_set_free(ps);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch_follow, every_kind_of_round_on_a_grid)
{
    mmx_ctx *ctx = tu_host_ctx();
    host_rounds(grid(ctx, 24, 16, 0.2f), 16, "grid");
    host_rounds(grid(ctx, 12, 10, 0.0f), 40, "flat grid");
    mmx_ctx_free(ctx);
}

Test(patch_follow, every_kind_of_round_on_a_sphere)
{
    mmx_ctx *ctx = tu_host_ctx();
    host_rounds(tu_shape(ctx, "icosphere:3"), 24, "icosphere");
    mmx_ctx_free(ctx);
}

/* ---- incremental updates -------------------------------------------------------------------- */

/* bigguy's quads (tests/data) cut into triangles. */
static mmx_mesh *bigguy(mmx_ctx *ctx)
{
    mmx_mesh *q = NULL, *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("bigguy_quads.obj"), MMX_FORMAT_AUTO, &q));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_triangulate(ctx, q, &t));
    mmx_mesh_free(q);
    return t;
}

/* Host edge {a, b}'s number in adj (binary search of column max(a, b) of E), or -1. */
static mmx_index edge_of(const mmx_adjacency *adj, mmx_index a, mmx_index b)
{
    const mmx_index i = a < b ? a : b, j = a < b ? b : a;
    const mmx_csc *E = adj->E;
    int64_t lo, hi;
    face_range(E, j, &lo, &hi);
    for (int64_t k = lo; k < hi && E->rowidx[k] < j; k++)
        if (E->rowidx[k] == i) return adj->edge_ptr[j] + (mmx_index)(k - lo);
    return -1;
}

/* A round of `kind` on host mesh m with sparse seeds (every `stride`-th edge, face or vertex
 * from `first`): the output, *origin (malloc'd, NULL for a flip) and in *touched (malloc'd,
 * per vertex of m) 1 for every vertex of a kept seed's faces (the faces the round replaced:
 * a split's or flip's cavity; touched NULL: not asked, as for a device mesh). */
static mmx_mesh *sparse_round(mmx_ctx *ctx, const mmx_mesh *m, mmx_cavity_kind kind,
                              mmx_index stride, mmx_index first, uint32_t round,
                              mmx_index **origin, unsigned char **touched)
{
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index F = m->M->ncols, V = m->M->nrows;
    const mmx_index total = kind == MMX_CAVITY_FACE_SPLIT ? F
                            : kind == MMX_CAVITY_VERTEX_REMOVE ? V : adj->nedges;
    mmx_adjacency_free(adj);
    mmx_index n = 0;
    mmx_index *seeds = malloc(((size_t)total / (size_t)stride + 2) * sizeof *seeds);
    mmx_cavity_seed *sd = malloc(((size_t)total / (size_t)stride + 2) * sizeof *sd);
    cr_assert(seeds && sd);
    for (mmx_index i = first; i < total; i += stride) seeds[n++] = i;
    mmx_mesh *out = NULL;
    mmx_cavity_counts c;
    if (kind == MMX_CAVITY_FACE_SPLIT)
        MMX_OK_OR_FAIL(ctx, mmx_cavity_face_split_round(ctx, m, seeds, n, round, &out, &c, sd));
    else if (kind == MMX_CAVITY_VERTEX_REMOVE)
        MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, m, seeds, n, round, &out, &c, sd));
    else
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, kind, seeds, n, round, &out, &c, sd));
    cr_assert_gt(c.kept, 0, "kind %d kept nothing", (int)kind);
    *origin = NULL;
    if (kind != MMX_CAVITY_EDGE_FLIP) {
        *origin = malloc(((size_t)out->M->ncols + 1) * sizeof **origin);
        cr_assert(*origin);
        MMX_OK_OR_FAIL(ctx, mmx_cavity_face_origin(ctx, kind, F, sd, n, out->M->ncols, *origin));
    }
    if (!touched) { /* a device round: the caller compares sets only */
        free(seeds), free(sd);
        return out;
    }
    *touched = calloc((size_t)V + 1, 1);
    cr_assert(*touched);
    for (mmx_index i = 0; i < n; i++) {
        if (sd[i].outcome != MMX_CAVITY_KEPT) continue;
        for (int h = 0; h < 2; h++) {
            if (sd[i].faces[h] < 0) continue;
            int64_t a, b;
            face_range(m->M, sd[i].faces[h], &a, &b);
            for (int64_t k = a; k < b; k++) (*touched)[m->M->rowidx[k]] = 1;
        }
    }
    free(seeds), free(sd);
    return out;
}

/* For a round that keeps the vertex and surviving face ids (splits, flips): every old patch
 * none of whose local faces has a vertex the round touched is in the new set unchanged, its
 * blocks byte for byte and its maps the old ones (edges renumbered through their ends).
 * Returns how many such patches there were. */
static mmx_index expect_untouched_kept(const mmx_patch_set *was, const mmx_mesh *before,
                                       const mmx_patch_set *ps, const mmx_mesh *after,
                                       const unsigned char *touched, const char *what)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, after, &adj));
    mmx_index same = 0;
    for (mmx_index p = 0; p < was->npatches; p++) {
        const mmx_index f0 = was->face_off[p], nf = was->face_off[p + 1] - f0;
        int hit = 0;
        for (mmx_index l = 0; l < nf && !hit; l++) {
            int64_t a, b;
            face_range(before->M, was->l2g_f[f0 + l], &a, &b);
            for (int64_t k = a; k < b; k++) hit |= touched[before->M->rowidx[k]];
        }
        if (hit) continue;
        same++;
        const mmx_index q = ps->face_patch[was->l2g_f[f0]];
        const mmx_index e0 = was->edge_off[p], ne = was->edge_off[p + 1] - e0;
        const mmx_index v0 = was->vert_off[p], nv = was->vert_off[p + 1] - v0;
        const mmx_index c0 = was->corner_off[p], nc = was->corner_off[p + 1] - c0;
        cr_assert_eq(ps->face_off[q + 1] - ps->face_off[q], nf, "%s: patch %d's faces", what, p);
        cr_assert_eq(ps->edge_off[q + 1] - ps->edge_off[q], ne, "%s: patch %d's edges", what, p);
        cr_assert_eq(ps->vert_off[q + 1] - ps->vert_off[q], nv, "%s: patch %d's vertices", what, p);
        cr_assert_eq(ps->corner_off[q + 1] - ps->corner_off[q], nc, "%s: patch %d's corners", what, p);
        cr_assert(memcmp(ps->owned + 3 * q, was->owned + 3 * p, 3 * sizeof *ps->owned) == 0,
                  "%s: patch %d's owned counts", what, p);
        cr_assert(memcmp(ps->fe + ps->corner_off[q], was->fe + c0, (size_t)nc * sizeof *ps->fe) == 0,
                  "%s: patch %d's FE block", what, p);
        cr_assert(memcmp(ps->ev + 2 * (size_t)ps->edge_off[q], was->ev + 2 * (size_t)e0,
                         2 * (size_t)ne * sizeof *ps->ev) == 0, "%s: patch %d's EV block", what, p);
        cr_assert(memcmp(ps->l2g_f + ps->face_off[q], was->l2g_f + f0, (size_t)nf * sizeof *ps->l2g_f) == 0,
                  "%s: patch %d's faces moved", what, p);
        cr_assert(memcmp(ps->l2g_v + ps->vert_off[q], was->l2g_v + v0, (size_t)nv * sizeof *ps->l2g_v) == 0,
                  "%s: patch %d's vertices moved", what, p);
        for (mmx_index i = 0; i < ne; i++) {
            const uint16_t *ev = was->ev + 2 * (size_t)(e0 + i);
            const mmx_index g = edge_of(adj, was->l2g_v[v0 + ev[0]], was->l2g_v[v0 + ev[1]]);
            cr_assert_eq(ps->l2g_e[ps->edge_off[q] + i], g, "%s: patch %d's edge %d", what, p, i);
        }
    }
    mmx_adjacency_free(adj);
    mmx_ctx_free(ctx);
    return same;
}

/* A copy of a host set's arrays that expect_untouched_kept reads (the old set). */
static mmx_patch_set *copy_set(mmx_ctx *ctx, const mmx_mesh *m, const mmx_patch_set *ps)
{
    mmx_index *fp = malloc(((size_t)ps->nfaces + 1) * sizeof *fp);
    cr_assert(fp);
    memcpy(fp, ps->face_patch, (size_t)ps->nfaces * sizeof *fp);
    mmx_patch_options o = {ps->max_faces};
    mmx_patch_set *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_follow(ctx, m, fp, NULL, &o, &c));
    tu_expect_same_patch_sets(c, ps, "copy");
    free(fp);
    return c;
}

/* The sparse rounds' templates and seed strides. */
static const mmx_cavity_kind sparse_kinds[] = {MMX_CAVITY_EDGE_SPLIT, MMX_CAVITY_EDGE_FLIP,
                                               MMX_CAVITY_EDGE_COLLAPSE, MMX_CAVITY_FACE_SPLIT,
                                               MMX_CAVITY_VERTEX_REMOVE, MMX_CAVITY_EDGE_SPLIT,
                                               MMX_CAVITY_EDGE_COLLAPSE, MMX_CAVITY_EDGE_FLIP};
static const mmx_index sparse_strides[] = {397, 211, 389, 307, 263, 151, 233, 113};
#define NSPARSE ((int)(sizeof sparse_kinds / sizeof sparse_kinds[0]))

/* Sparse rounds of every template on a grid and on bigguy (tests/data): each update is
 * incremental and rebuilds a part of the patches only; the set is mmx_patch_set_follow's for
 * the round's labels with a fresh cut's invariants and every query equal to mmx_query's
 * (check_kept); and, for the rounds that keep vertex ids, every patch the round did not
 * touch is in the new set as it was. */
static void sparse_rounds(mmx_mesh *m, int S, const char *name)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_patch_options o = {S};
    mmx_patch_set *ps = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
    mmx_index untouched = 0;
    for (int r = 0; r < NSPARSE; r++) {
        char what[96];
        snprintf(what, sizeof what, "%s S %d sparse round %d (kind %d)", name, S, r,
                 (int)sparse_kinds[r]);
        mmx_index *origin = NULL;
        unsigned char *touched = NULL;
        mmx_mesh *next = sparse_round(ctx, m, sparse_kinds[r], sparse_strides[r], r % 7,
                                      (uint32_t)r, &origin, &touched);
        mmx_patch_set *was = copy_set(ctx, m, ps);
        const mmx_patch_stats before = ps->stats;
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_update(ctx, ps, next, origin, NULL));
        cr_assert_eq(ps->stats.updates, before.updates + 1, "%s", what);
        cr_assert_eq(ps->stats.updates_incremental, before.updates_incremental + 1,
                     "%s: the update ran the whole cut", what);
        const int64_t dirty = ps->stats.update_dirty - before.update_dirty;
        cr_assert_eq(ps->stats.update_patches - before.update_patches, was->npatches, "%s", what);
        cr_assert(dirty > 0 && dirty < was->npatches / 2 + 1, "%s: %lld of %d patches rebuilt", what,
                  (long long)dirty, was->npatches);
        check_kept(ctx, next, ps, was->face_patch, origin, what);
        if (sparse_kinds[r] == MMX_CAVITY_EDGE_SPLIT || sparse_kinds[r] == MMX_CAVITY_EDGE_FLIP ||
            sparse_kinds[r] == MMX_CAVITY_FACE_SPLIT)
            untouched += expect_untouched_kept(was, m, ps, next, touched, what);
        mmx_patch_set_free(was);
        free(origin), free(touched);
        mmx_mesh_free(m);
        m = next;
    }
    cr_expect_gt(untouched, 0, "%s: no patch was left untouched", name);
    mmx_patch_set_free(ps);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(patch_follow, sparse_rounds_rebuild_only_the_dirty_patches)
{
    mmx_ctx *ctx = tu_host_ctx();
    sparse_rounds(grid(ctx, 60, 40, 0.2f), 32, "grid");
    sparse_rounds(bigguy(ctx), 24, "bigguy");
    mmx_ctx_free(ctx);
}

/* Mixed face orders (house.obj, tests/data: pentagons and quads, and bigguy's quads): the
 * update without a round keeps the set, and one that drops faces (every seventh; the output
 * mesh built from the survivors) is incremental and gives mmx_patch_set_follow's set, face
 * starts included. */
Test(patch_follow, mixed_orders_update_incrementally)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *files[2] = {"house.obj", "bigguy_quads.obj"};
    for (int t = 0; t < 2; t++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data(files[t]), MMX_FORMAT_AUTO, &m));
        mmx_patch_options o = {t ? 24 : 2};
        mmx_patch_set *ps = NULL, *ref = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ref));
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_update(ctx, ps, m, NULL, NULL));
        tu_expect_same_patch_sets(ps, ref, files[t]);
        cr_expect_eq(ps->stats.updates_incremental, 1, "%s", files[t]);
        cr_expect_eq(ps->stats.update_dirty, 0, "%s: an update without edits rebuilt patches", files[t]);
        /* Drop every seventh face. */
        mmx_index *start = NULL, *verts = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
        const mmx_index F = mmx_mesh_nfaces(m);
        mmx_index *ns = malloc(((size_t)F + 1) * sizeof *ns), *nv = malloc(((size_t)start[F] + 1) * sizeof *nv);
        mmx_index *origin = malloc(((size_t)F + 1) * sizeof *origin);
        cr_assert(ns && nv && origin);
        mmx_index nf = 0;
        ns[0] = 0;
        for (mmx_index f = 0; f < F; f++) {
            if (f % 7 == 3) continue;
            origin[nf] = f;
            ns[nf + 1] = ns[nf];
            for (mmx_index k = start[f]; k < start[f + 1]; k++) nv[ns[nf + 1]++] = verts[k];
            nf++;
        }
        mmx_mesh *next = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, mmx_mesh_nverts(m), nf, ns, nv, m->pos, &next));
        mmx_index *old_fp = malloc(((size_t)F + 1) * sizeof *old_fp);
        cr_assert(old_fp);
        memcpy(old_fp, ps->face_patch, (size_t)F * sizeof *old_fp);
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_update(ctx, ps, next, origin, NULL));
        cr_expect_eq(ps->stats.updates_incremental, 2, "%s", files[t]);
        check_kept(ctx, next, ps, old_fp, origin, files[t]);
        free(start), free(verts), free(ns), free(nv), free(origin), free(old_fp);
        mmx_patch_set_free(ps), mmx_patch_set_free(ref);
        mmx_mesh_free(next), mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* A round that keeps the face ids (a flip) updates from the owners alone; an update without
 * origin is refused for another face count, an origin outside the old faces is named, and a
 * refused update leaves the set as it was. */
Test(patch_follow, update_arguments)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = grid(ctx, 8, 6, 0.2f), *big = grid(ctx, 9, 6, 0.2f);
    mmx_patch_options o = {12};
    mmx_patch_set *ps = NULL, *ref = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ref));
    cr_expect_eq(mmx_patch_set_update(ctx, NULL, m, NULL, NULL), MMX_ERR_ARG);
    cr_expect_eq(mmx_patch_set_update(ctx, ps, NULL, NULL, NULL), MMX_ERR_ARG);
    cr_expect_eq(mmx_patch_set_update(ctx, ps, big, NULL, NULL), MMX_ERR_ARG);
    cr_expect(strstr(mmx_ctx_error(ctx), "faces") != NULL, "%s", mmx_ctx_error(ctx));
    mmx_index *origin = calloc((size_t)big->M->ncols, sizeof *origin);
    cr_assert(origin);
    origin[7] = m->M->ncols;
    cr_expect_eq(mmx_patch_set_update(ctx, ps, big, origin, NULL), MMX_ERR_ARG);
    cr_expect(strstr(mmx_ctx_error(ctx), "face 7") != NULL, "%s", mmx_ctx_error(ctx));
    tu_expect_same_patch_sets(ps, ref, "after refusals");
    /* The identity: the same set again. */
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_update(ctx, ps, m, NULL, NULL));
    tu_expect_same_patch_sets(ps, ref, "identity");
    /* A set of another mesh is refused by the runs of rounds. */
    mmx_remesh_options ro = mmx_remesh_defaults();
    ro.patches = ps;
    mmx_mesh *out = NULL;
    cr_expect_eq(mmx_remesh(ctx, big, &ro, &out, NULL), MMX_ERR_ARG);
    cr_expect_eq(mmx_delaunay_flip_patches(ctx, big, ps, &out, NULL), MMX_ERR_ARG);
    cr_expect_null(out);
    /* A user-cavity origin of a mesh that is not the round's output. */
    const mmx_index ptr[2] = {0, 1}, faces[1] = {0};
    mmx_cavity_seed sd = {MMX_CAVITY_KEPT, {-1, -1}, {-1, -1}, m->M->nrows, 0};
    cr_expect_eq(mmx_cavity_user_face_origin(ctx, m, ptr, faces, 1, &sd, m, origin), MMX_ERR_ARG);
    free(origin);
    mmx_patch_set_free(ps), mmx_patch_set_free(ref);
    mmx_mesh_free(m), mmx_mesh_free(big);
    mmx_ctx_free(ctx);
}

/* The Delaunay loop with a set: the set after it is the chain of updates through the rounds
 * (mmx_delaunay_round, then mmx_patch_set_update with the face ids kept), and a fresh cut's
 * invariants hold. */
Test(patch_follow, delaunay_keeps_the_set)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = grid(ctx, 30, 20, 0.35f);
    mmx_patch_options o = {20};
    mmx_patch_set *ps = NULL, *chain = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &chain));
    mmx_mesh *out = NULL;
    mmx_delaunay_report r;
    MMX_OK_OR_FAIL(ctx, mmx_delaunay_flip_patches(ctx, m, ps, &out, &r));
    cr_assert_gt(r.rounds, 1, "the grid should take a few rounds");
    mmx_mesh *cur = m;
    for (int k = 0; k < r.rounds; k++) {
        mmx_mesh *next = NULL;
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_delaunay_round(ctx, cur, (uint32_t)k, &next, &c));
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_update(ctx, chain, next, NULL, NULL));
        if (cur != m) mmx_mesh_free(cur);
        cur = next;
    }
    tu_expect_same_patch_sets(ps, chain, "delaunay");
    check_set(ctx, out, ps, mmx__patch_follow_bound(20), "delaunay");
    /* Every update incremental; the late rounds flip few edges, so over the loop fewer
     * patches were rebuilt than the set holds per round. */
    cr_expect_gt(ps->stats.updates, 0);
    cr_expect_eq(ps->stats.updates_incremental, ps->stats.updates);
    cr_expect_lt(ps->stats.update_dirty, ps->stats.update_patches, "%lld of %lld",
                 (long long)ps->stats.update_dirty, (long long)ps->stats.update_patches);
    mmx_mesh_free(cur);
    mmx_mesh_free(out), mmx_mesh_free(m);
    mmx_patch_set_free(ps), mmx_patch_set_free(chain);
    mmx_ctx_free(ctx);
}

/* Remeshing with a set: the kept set is valid for the result, the same bytes on a second run,
 * and (checked round by round through opts->validate's mesh checks) the remesher's result is
 * the one without patches. */
Test(patch_follow, remesh_keeps_the_set)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *shapes[3] = {"icosphere:3", "jittered grid", "bigguy"};
    for (int t = 0; t < 3; t++) {
        mmx_mesh *m = t == 2 ? bigguy(ctx) : t ? grid(ctx, 20, 14, 0.2f) : tu_shape(ctx, shapes[t]);
        mmx_patch_options o = {32};
        mmx_patch_set *a = NULL, *b = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &a));
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &b));
        mmx_remesh_options ro = mmx_remesh_defaults();
        ro.iterations = 2;
        ro.validate = 1;
        mmx_mesh *plain = NULL, *oa = NULL, *ob = NULL;
        mmx_remesh_report rep;
        ro.iterations = 0; /* to read the mean edge length */
        MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &ro, &plain, &rep));
        mmx_mesh_free(plain);
        ro.iterations = 2;
        ro.target_length = 0.6 * rep.target_length; /* below the mean: splits, then collapses */
        MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &ro, &plain, NULL));
        ro.patches = a;
        MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &ro, &oa, &rep));
        cr_assert_gt(rep.per_iteration[0].splits, 0, "%s", shapes[t]);
        cr_assert_gt(rep.per_iteration[0].collapses + rep.per_iteration[1].collapses, 0, "%s", shapes[t]);
        ro.patches = b;
        MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &ro, &ob, NULL));
        cr_assert_eq(oa->M->nnz, plain->M->nnz);
        cr_assert(memcmp(oa->M->rowidx, plain->M->rowidx, (size_t)oa->M->nnz * sizeof *oa->M->rowidx) == 0,
                  "%s: patches changed the remeshing", shapes[t]);
        check_set(ctx, oa, a, mmx__patch_follow_bound(32), shapes[t]);
        tu_expect_same_patch_sets(a, b, shapes[t]);
        mmx_mesh_free(plain), mmx_mesh_free(oa), mmx_mesh_free(ob);
        mmx_patch_set_free(a), mmx_patch_set_free(b);
        /* After one and after three iterations as well. */
        for (int iters = 1; iters <= 3; iters += 2) {
            char what[64];
            snprintf(what, sizeof what, "%s, %d iterations", shapes[t], iters);
            MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &a));
            ro.patches = a;
            ro.iterations = iters;
            MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &ro, &oa, NULL));
            check_set(ctx, oa, a, mmx__patch_follow_bound(32), what);
            /* Every round's update was incremental. */
            cr_expect_gt(a->stats.updates, 0, "%s", what);
            cr_expect_eq(a->stats.updates_incremental, a->stats.updates, "%s", what);
            mmx_mesh_free(oa);
            mmx_patch_set_free(a);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* ---- CUDA against the host -------------------------------------------------------------------- */

/* A device set's arrays against a host set's. */
static void expect_same_device(mmx_ctx *dctx, const mmx_patch_set *h, const mmx_patch_set *d,
                               const char *what)
{
    cr_assert_eq(d->space, MMX_SPACE_DEVICE);
    cr_assert_eq(h->npatches, d->npatches, "%s: %d patches vs %d", what, h->npatches, d->npatches);
    /* The host fields (the CUDA build reads them back with the sizes), but the counters of
     * updates, which count what each backend's update did. */
    const mmx_patch_stats *a = &h->stats, *b = &d->stats;
    cr_expect(h->max_corners == d->max_corners && h->max_scratch == d->max_scratch &&
                  h->nlf == d->nlf && h->nle == d->nle && h->nlv == d->nlv && h->nlc == d->nlc &&
                  h->bad_edge == d->bad_edge && a->min_faces == b->min_faces &&
                  a->max_faces == b->max_faces && a->mean_faces == b->mean_faces &&
                  a->ribbon_faces == b->ribbon_faces && a->max_local_faces == b->max_local_faces &&
                  a->max_local_edges == b->max_local_edges && a->max_local_verts == b->max_local_verts &&
                  a->bytes == b->bytes && a->topology_bytes == b->topology_bytes,
              "%s: the host fields differ", what);
    const size_t np = (size_t)h->npatches;
    struct {
        const void *h, *d;
        size_t bytes;
        const char *name;
    } arr[] = {
        {h->face_off, d->face_off, (np + 1) * 4, "face_off"},
        {h->edge_off, d->edge_off, (np + 1) * 4, "edge_off"},
        {h->vert_off, d->vert_off, (np + 1) * 4, "vert_off"},
        {h->corner_off, d->corner_off, (np + 1) * 4, "corner_off"},
        {h->owned, d->owned, 3 * np * 4, "owned"},
        {h->l2g_f, d->l2g_f, (size_t)h->face_off[np] * 4, "l2g_f"},
        {h->l2g_e, d->l2g_e, (size_t)h->edge_off[np] * 4, "l2g_e"},
        {h->l2g_v, d->l2g_v, (size_t)h->vert_off[np] * 4, "l2g_v"},
        {h->fe, d->fe, (size_t)h->corner_off[np] * 2, "fe"},
        {h->ev, d->ev, 2 * (size_t)h->edge_off[np] * 2, "ev"},
        {h->face_patch, d->face_patch, (size_t)h->nfaces * 4, "face_patch"},
    };
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++) {
        if (arr[i].bytes == 0) continue;
        void *c = malloc(arr[i].bytes);
        cr_assert(c);
        MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, c, MMX_SPACE_HOST, arr[i].d, MMX_SPACE_DEVICE, arr[i].bytes));
        cr_assert(memcmp(c, arr[i].h, arr[i].bytes) == 0, "%s: %s differs from the host's", what, arr[i].name);
        free(c);
    }
}

static mmx_mesh *to_host(mmx_ctx *dctx, const mmx_mesh *d)
{
    mmx_mesh *h = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, d, MMX_SPACE_HOST, &h));
    return h;
}

/* The sequence of rounds on both backends from host mesh hm (taken), each round's kept sets
 * compared: the device set updated by mmx_patch_set_update (the host's origins), and a second
 * one by the device labels of the remesher (mmx__keep_patches on the round's records copied
 * to the device). Both go through the CUDA build's grouped cut (the labels are the old
 * owners), and through the sorted one in the rounds where a patch outgrew the bound. */
static void gpu_rounds(mmx_ctx *hctx, mmx_ctx *dctx, mmx_mesh *hm, int S, const char *name)
{
    mmx_mesh *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_patch_options o = {S};
    mmx_patch_set *hs = NULL, *ds = NULL, *ks = NULL;
    MMX_OK_OR_FAIL(hctx, mmx_patch_set_create(hctx, hm, NULL, &o, &hs));
    MMX_OK_OR_FAIL(dctx, mmx_patch_set_create(dctx, dm, NULL, &o, &ds));
    MMX_OK_OR_FAIL(dctx, mmx_patch_set_create(dctx, dm, NULL, &o, &ks));
    const mmx_cavity_kind kinds[R_KINDS] = {MMX_CAVITY_EDGE_FLIP, MMX_CAVITY_EDGE_SPLIT,
                                            MMX_CAVITY_EDGE_COLLAPSE, MMX_CAVITY_FACE_SPLIT,
                                            MMX_CAVITY_VERTEX_MOVE, MMX_CAVITY_VERTEX_REMOVE,
                                            MMX_CAVITY_EDGE_FLIP /* not used */};
    for (int r = 0; r < NSEQ; r++) {
        char what[96];
        snprintf(what, sizeof what, "%s S %d round %d (%s)", name, S, r, round_name[sequence[r]]);
        mmx_index *ho = NULL, *dor = NULL, n = 0, kept = 0;
        mmx_cavity_seed *sd = NULL, *dsd = NULL;
        mmx_mesh *hn = run(hctx, hm, hm, sequence[r], (uint32_t)r, &ho);
        mmx_mesh *dcopy = to_host(dctx, dm);
        mmx_mesh *dn = run_sd(dctx, dm, dcopy, sequence[r], (uint32_t)r, &dor, &sd, &n, &kept);
        mmx_mesh_free(dcopy);
        cr_assert_eq(ho == NULL, dor == NULL);
        if (ho) cr_assert(memcmp(ho, dor, (size_t)hn->M->ncols * sizeof *ho) == 0, "%s: origins", what);
        MMX_OK_OR_FAIL(hctx, mmx_patch_set_update(hctx, hs, hn, ho, NULL));
        MMX_OK_OR_FAIL(dctx, mmx_patch_set_update(dctx, ds, dn, dor, NULL));
        expect_same_device(dctx, hs, ds, what);
        if (sequence[r] != R_USER) {
            MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, ((size_t)n + 1) * sizeof *dsd, (void **)&dsd));
            MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, dsd, MMX_SPACE_DEVICE, sd, MMX_SPACE_HOST, (size_t)n * sizeof *sd));
            MMX_OK_OR_FAIL(dctx, mmx__keep_patches(dctx, ks, kinds[sequence[r]], dm->M->nrows,
                                                   dm->M->ncols, kept, dsd, n, MMX_SPACE_DEVICE, dn, NULL));
            mmx_mem_free(dctx, MMX_SPACE_DEVICE, dsd);
        } else {
            MMX_OK_OR_FAIL(dctx, mmx_patch_set_update(dctx, ks, dn, dor, NULL));
        }
        expect_same_device(dctx, hs, ks, what);
        free(ho), free(dor), free(sd);
        mmx_mesh_free(hm), mmx_mesh_free(dm);
        hm = hn, dm = dn;
    }
    mmx_patch_set_free(hs), mmx_patch_set_free(ds), mmx_patch_set_free(ks);
    mmx_mesh_free(hm), mmx_mesh_free(dm);
}

Test(patch_follow, gpu_rounds_match_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    if (!dctx) return;
    mmx_ctx *hctx = tu_host_ctx();
    gpu_rounds(hctx, dctx, grid(hctx, 24, 16, 0.2f), 16, "grid");
    gpu_rounds(hctx, dctx, grid(hctx, 12, 10, 0.0f), 40, "flat grid");
    gpu_rounds(hctx, dctx, tu_shape(hctx, "icosphere:3"), 24, "icosphere");
    mmx_ctx_free(hctx), mmx_ctx_free(dctx);
}

/* mmx_remesh and mmx_delaunay_flip_patches with a device set: the host's set, array for
 * array. */
Test(patch_follow, gpu_remesh_and_delaunay_match_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    if (!dctx) return;
    mmx_ctx *hctx = tu_host_ctx();
    mmx_mesh *hm = tu_shape(hctx, "icosphere:3"), *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_patch_options o = {32};
    mmx_patch_set *hs = NULL, *ds = NULL;
    MMX_OK_OR_FAIL(hctx, mmx_patch_set_create(hctx, hm, NULL, &o, &hs));
    MMX_OK_OR_FAIL(dctx, mmx_patch_set_create(dctx, dm, NULL, &o, &ds));
    mmx_remesh_options ro = mmx_remesh_defaults();
    ro.iterations = 2;
    mmx_mesh *ho = NULL, *dout = NULL;
    ro.patches = hs;
    MMX_OK_OR_FAIL(hctx, mmx_remesh(hctx, hm, &ro, &ho, NULL));
    ro.patches = ds;
    MMX_OK_OR_FAIL(dctx, mmx_remesh(dctx, dm, &ro, &dout, NULL));
    expect_same_device(dctx, hs, ds, "remesh");
    mmx_mesh_free(ho), mmx_mesh_free(dout), mmx_mesh_free(hm), mmx_mesh_free(dm);
    mmx_patch_set_free(hs), mmx_patch_set_free(ds);

    hm = grid(hctx, 30, 20, 0.35f);
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    MMX_OK_OR_FAIL(hctx, mmx_patch_set_create(hctx, hm, NULL, &o, &hs));
    MMX_OK_OR_FAIL(dctx, mmx_patch_set_create(dctx, dm, NULL, &o, &ds));
    MMX_OK_OR_FAIL(hctx, mmx_delaunay_flip_patches(hctx, hm, hs, &ho, NULL));
    MMX_OK_OR_FAIL(dctx, mmx_delaunay_flip_patches(dctx, dm, ds, &dout, NULL));
    expect_same_device(dctx, hs, ds, "delaunay");
    mmx_mesh_free(ho), mmx_mesh_free(dout), mmx_mesh_free(hm), mmx_mesh_free(dm);
    mmx_patch_set_free(hs), mmx_patch_set_free(ds);
    mmx_ctx_free(hctx), mmx_ctx_free(dctx);
}

/* Sparse rounds on both backends (a grid and bigguy, tests/data): the host's incremental
 * update and the device's update give the same set, array for array, after every round. */
static void gpu_sparse(mmx_ctx *hctx, mmx_ctx *dctx, mmx_mesh *hm, int S, const char *name)
{
    mmx_mesh *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_patch_options o = {S};
    mmx_patch_set *hs = NULL, *ds = NULL;
    MMX_OK_OR_FAIL(hctx, mmx_patch_set_create(hctx, hm, NULL, &o, &hs));
    MMX_OK_OR_FAIL(dctx, mmx_patch_set_create(dctx, dm, NULL, &o, &ds));
    for (int r = 0; r < NSPARSE; r++) {
        char what[96];
        snprintf(what, sizeof what, "%s sparse round %d (kind %d)", name, r, (int)sparse_kinds[r]);
        mmx_index *ho = NULL, *dor = NULL;
        mmx_mesh *hn = sparse_round(hctx, hm, sparse_kinds[r], sparse_strides[r], r % 7,
                                    (uint32_t)r, &ho, NULL);
        mmx_mesh *dn = sparse_round(dctx, dm, sparse_kinds[r], sparse_strides[r], r % 7,
                                    (uint32_t)r, &dor, NULL);
        cr_assert_eq(ho == NULL, dor == NULL);
        if (ho) cr_assert(memcmp(ho, dor, (size_t)hn->M->ncols * sizeof *ho) == 0, "%s: origins", what);
        const int64_t inc = hs->stats.updates_incremental;
        MMX_OK_OR_FAIL(hctx, mmx_patch_set_update(hctx, hs, hn, ho, NULL));
        MMX_OK_OR_FAIL(dctx, mmx_patch_set_update(dctx, ds, dn, dor, NULL));
        cr_assert_eq(hs->stats.updates_incremental, inc + 1, "%s: not incremental", what);
        expect_same_device(dctx, hs, ds, what);
        free(ho), free(dor);
        mmx_mesh_free(hm), mmx_mesh_free(dm);
        hm = hn, dm = dn;
    }
    mmx_patch_set_free(hs), mmx_patch_set_free(ds);
    mmx_mesh_free(hm), mmx_mesh_free(dm);
}

Test(patch_follow, gpu_sparse_rounds_match_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    if (!dctx) return;
    mmx_ctx *hctx = tu_host_ctx();
    gpu_sparse(hctx, dctx, grid(hctx, 60, 40, 0.2f), 32, "grid");
    gpu_sparse(hctx, dctx, bigguy(hctx), 24, "bigguy");
    mmx_ctx_free(hctx), mmx_ctx_free(dctx);
}
