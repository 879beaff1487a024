/* mmx bench: the products and the subdivision that bench/ measures, on one mesh, in one run,
 * against cuSPARSE and the bandwidth floor where there is a GPU.
 *
 * The cage (MESH, default Bigguy) is subdivided --levels times by --scheme into the product
 * mesh, on which the products are timed:
 *   Mᵀp/c   face points: each face's centroid, mmx_spmv op T (a gather per column) with the
 *           map 1/c, on the reduced mesh matrix where the faces allow it (bench/spmv_peers.c);
 *   M f     the vertex scatter of 3-component face data, mmx_spmv op N (bench/spmv_peers.c),
 *           and a row saying whether 10 more runs gave the same bytes (read back each time);
 *   M·Mᵀ    the implicit product, mmx_mesh_product for E and F, and the whole
 *           mmx_adjacency_compute (bench/mmt_peers.c);
 * then the subdivision itself, cage to product mesh, on the fused path (end to end, and the
 * sum of its levels) and the algebraic one (bench/subdiv_fused.c).
 * On the GPU the peers run in the same process on the same matrix (bench_gpu.c): cuSPARSE
 * SpMV with explicit values in CSR and CSC form, and SpGEMM for the binary M·Mᵀ; and each
 * product is held to its floor, the fewest bytes it must move over the device-to-device copy
 * bandwidth measured in the same run. Times are medians of repeats after warm-up runs, each
 * between CUDA events on the context's stream (mmx_timer) on the GPU, the monotonic clock on
 * the host. On the host only our figures are shown, and the report says why the GPU part was
 * skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "bench_clock.h"
#include "tool.h"

/* ---- the table and the timing loop --------------------------------------------------------- */

void bench_add(bench_table *t, bench_product p, int ours, const char *impl, double ms,
               const char *note)
{
    if (t->n >= BENCH_MAX_ROWS) return;
    bench_row *r = &t->rows[t->n++];
    r->product = p;
    r->ours = ours;
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    r->ms = ms;
    r->floor_ms = t->floor_ms[p];
    snprintf(r->note, sizeof r->note, "%s", note ? note : "");
}

int bench_time(mmx_ctx *ctx, int warm, int reps, bench_fn fn, void *arg, double *ms)
{
    *ms = -1;
    mmx_timer *timer = NULL;
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t) {
        out_of_memory("the benchmark's times");
        return -1;
    }
    if (mmx_timer_create(ctx, &timer)) {
        free(t);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < warm && !rc; i++) rc = fn(arg);
    for (int i = 0; i < reps && !rc; i++)
        rc = mmx_timer_start(timer) || fn(arg) || mmx_timer_stop(timer, &t[i]);
    if (!rc) *ms = bc_median(t, reps);
    mmx_timer_free(timer);
    free(t);
    return rc ? -1 : 0;
}

/* ---- what is measured ---------------------------------------------------------------------- */

typedef struct bench {
    mmx_ctx *ctx;
    mmx_scheme scheme;
    int levels;
    const mmx_mesh *cage;  /* what the subdivision starts from */
    mmx_mesh *mesh;        /* the product mesh: the cage after `levels` levels */
    mmx_map map;           /* 1/c for every entry of M */
    float *order_table;    /* the map's table when the faces have several orders (ctx space) */
    float *yf, *yv;        /* face points (nfaces x 3) and the vertex scatter (nverts x 3) */
    mmx_csc *E, *F;        /* the last results of the products */
    mmx_adjacency *adj;
    mmx_query_kind kind;   /* the query run_query times */
    mmx_csr *query;        /* its last result */
    mmx_mesh *fine;        /* the last subdivision result */
    mmx_subdiv_path path;
    mmx_subdiv_level *trace; /* NULL, or `levels` entries for the traced runs */
    mmx_mesh *tri;         /* the product mesh in triangles, for the Delaunay row */
    mmx_mesh *flipped;     /* the last Delaunay result */
    mmx_delaunay_report drep;
    mmx_mesh *coarse;      /* the mesh two levels coarser in triangles, for the remeshing row */
    mmx_mesh *remeshed;    /* the last remeshing result */
    mmx_remesh_report rrep;
    mmx_mesh *simplified;  /* the last simplification result */
    mmx_simplify_report srep;
    mmx_normals_plan *plan;  /* the product mesh's vertex-normal plan */
    float *nrm;              /* normals, or smoothed positions (nverts x 3) */
    mmx_smooth_options smooth;
} bench;

static int run_face_points(void *p)
{
    bench *b = p;
    return mmx_spmv(b->ctx, MMX_OP_T, 1.0f, b->mesh->M, b->map, b->mesh->pos, 3, 0.0f, b->yf) !=
           MMX_OK;
}

static int run_vertex_scatter(void *p)
{
    bench *b = p;
    return mmx_spmv(b->ctx, MMX_OP_N, 1.0f, b->mesh->M, b->map, b->yf, 3, 0.0f, b->yv) != MMX_OK;
}

/* E = M <CYCLE_BOTH 1, MAP, SUM> Mᵀ and F = M <CYCLE 1, K, MIN> Mᵀ, as the adjacency needs
 * them. The previous results are freed first, in stream order, so the pool reuses their
 * blocks (the free is part of the time, as in bench/mmt_peers.c). */
static int run_mesh_product(void *p)
{
    bench *b = p;
    mmx_csc_free(b->E);
    mmx_csc_free(b->F);
    b->E = b->F = NULL;
    const mmx_gemm_map e = {{MMX_REL_CYCLE_BOTH, 1, NULL, 0}, MMX_COLL_MAP, MMX_MONOID_SUM};
    const mmx_gemm_map f = {{MMX_REL_CYCLE, 1, NULL, 0}, MMX_COLL_K, MMX_MONOID_MIN};
    return mmx_mesh_product(b->ctx, b->mesh->M, e, &b->E) != MMX_OK ||
           mmx_mesh_product(b->ctx, b->mesh->M, f, &b->F) != MMX_OK;
}

static int run_adjacency(void *p)
{
    bench *b = p;
    mmx_adjacency_free(b->adj);
    b->adj = NULL;
    return mmx_adjacency_compute(b->ctx, b->mesh, &b->adj) != MMX_OK;
}

/* One query by algebra on the product mesh, its adjacency given (computed by the adjacency
 * row), so the time is the query's alone; the previous result is freed first. */
static int run_query(void *p)
{
    bench *b = p;
    mmx_csr_free(b->query);
    b->query = NULL;
    return mmx_query(b->ctx, b->mesh, b->adj, b->kind, &b->query) != MMX_OK;
}

static int run_normals(void *p)
{
    bench *b = p;
    return mmx_vertex_normals(b->ctx, b->mesh, MMX_NORMAL_AREA, b->nrm) != MMX_OK;
}

static int run_normals_planned(void *p)
{
    bench *b = p;
    return mmx_vertex_normals_planned(b->ctx, b->plan, b->mesh->pos, MMX_NORMAL_AREA, b->nrm) != MMX_OK;
}

static int run_smooth(void *p)
{
    bench *b = p;
    return mmx_smooth(b->ctx, b->mesh, &b->smooth, b->nrm, NULL) != MMX_OK;
}

static int run_subdivide(void *p)
{
    bench *b = p;
    mmx_mesh_free(b->fine);
    b->fine = NULL;
    mmx_subdiv_options o = {0};
    o.path = b->path;
    o.trace = b->trace;
    return mmx_subdivide(b->ctx, b->scheme, b->cage, b->levels, &o, &b->fine) != MMX_OK;
}

/* The map 1/c: a constant on the reduced form, a table by face order on the general one. */
static mmx_status make_map(bench *b)
{
    const mmx_csc *M = b->mesh->M;
    if (M->order > 0) {
        b->map = mmx_map_const(1.0f / (float)M->order);
        return MMX_OK;
    }
    const mmx_index len = M->maxcol + 1;
    float *h = malloc((size_t)len * sizeof *h);
    if (!h) return MMX_ERR_NOMEM;
    h[0] = 0.0f;
    for (mmx_index c = 1; c < len; c++) h[c] = 1.0f / (float)c;
    const mmx_space space = mmx_ctx_space(b->ctx);
    mmx_status s = mmx_mem_alloc(b->ctx, space, (size_t)len * sizeof *h, (void **)&b->order_table);
    if (!s)
        s = mmx_mem_copy(b->ctx, b->order_table, space, h, MMX_SPACE_HOST, (size_t)len * sizeof *h);
    free(h);
    b->map = mmx_map_table(MMX_MAP_BY_ORDER, b->order_table, len);
    return s;
}

/* Delaunay flips until none is left (dynamic.h), the previous result freed first. */
static int run_delaunay(void *p)
{
    bench *b = p;
    mmx_mesh_free(b->flipped);
    b->flipped = NULL;
    return mmx_delaunay_flip(b->ctx, b->tri, &b->flipped, &b->drep) != MMX_OK;
}

/* Isotropic remeshing with the defaults (dynamic.h), the previous result freed first. */
static int run_remesh(void *p)
{
    bench *b = p;
    mmx_mesh_free(b->remeshed);
    b->remeshed = NULL;
    return mmx_remesh(b->ctx, b->coarse, NULL, &b->remeshed, &b->rrep) != MMX_OK;
}

/* QEM simplification of the remeshing row's mesh to 10% of its faces, the previous result
 * freed first. */
static int run_simplify(void *p)
{
    bench *b = p;
    mmx_mesh_free(b->simplified);
    b->simplified = NULL;
    mmx_simplify_options o = mmx_simplify_defaults();
    o.ratio = 0.1;
    return mmx_simplify(b->ctx, b->coarse, &o, &b->simplified, &b->srep) != MMX_OK;
}

static void bench_release(bench *b)
{
    const mmx_space space = mmx_ctx_space(b->ctx);
    mmx_mesh_free(b->simplified);
    mmx_mesh_free(b->coarse);
    mmx_mesh_free(b->remeshed);
    mmx_mesh_free(b->tri);
    mmx_mesh_free(b->flipped);
    mmx_csc_free(b->E);
    mmx_csc_free(b->F);
    mmx_adjacency_free(b->adj);
    mmx_csr_free(b->query);
    mmx_mesh_free(b->fine);
    mmx_mem_free(b->ctx, space, b->order_table);
    mmx_mem_free(b->ctx, space, b->yf);
    mmx_mem_free(b->ctx, space, b->yv);
    mmx_mem_free(b->ctx, space, b->nrm);
    mmx_normals_plan_free(b->plan);
    mmx_mesh_free(b->mesh);
    free(b->trace);
}

/* ---- the floors ------------------------------------------------------------------------------ */

/* Each product's floor in ms at `tbps` TB/s: the bytes it must move at the least. */
static void set_floors(bench_table *t, const bench *b, const mmx_mesh_stats *cage, double tbps)
{
    const mmx_csc *M = b->mesh->M;
    const double nv = M->nrows, nf = M->ncols, nnz = M->nnz, gb_per_ms = tbps * 1e9;
    /* M's indices (and column pointers in the general form), the input and the output. */
    const double m_bytes = 4.0 * nnz + (M->order > 0 ? 0.0 : 4.0 * (nf + 1));
    const double spmv = m_bytes + 12.0 * nv + 12.0 * nf;
    t->floor_ms[BP_FACE_POINTS] = spmv / gb_per_ms;
    /* Normals: positions and M read, normals written; a Laplacian step: positions read and
     * written and the VV pattern (about 2 neighbours per corner, 4 bytes each) read. The
     * smoothing rows are one call of 10 Taubin iterations: 20 steps. */
    t->floor_ms[BP_NORMALS] = (24.0 * nv + m_bytes) / gb_per_ms;
    t->floor_ms[BP_SMOOTHING] = 20.0 * (24.0 * nv + 8.0 * nnz) / gb_per_ms;
    t->floor_ms[BP_VERTEX_SCATTER] = spmv / gb_per_ms;
    /* M read once, E and F written: column pointers, rows and values. */
    const double e_nnz = b->E ? b->E->nnz : 0, f_nnz = b->F ? b->F->nnz : 0;
    t->floor_ms[BP_MESH_PRODUCT] =
        (m_bytes + 8.0 * (nv + 1) + 8.0 * (e_nnz + f_nnz)) / gb_per_ms;
    /* Per level, the parent's matrix and positions read and the child's written (as
     * bench/subdiv_fused.c counts it). */
    double sub = 0;
    for (int l = 1; l <= b->levels; l++) {
        int64_t v0, c0, v1, c1;
        if (mmx_subdiv_predict(b->scheme, cage->nverts, cage->nfaces, cage->nedges,
                               cage->ncorners, l - 1, &v0, NULL, NULL, &c0) ||
            mmx_subdiv_predict(b->scheme, cage->nverts, cage->nfaces, cage->nedges,
                               cage->ncorners, l, &v1, NULL, NULL, &c1))
            break;
        sub += 4.0 * (double)c0 + 12.0 * (double)v0 + 12.0 * (double)v1 + 4.0 * (double)c1;
    }
    t->floor_ms[BP_SUBDIVISION] = sub / gb_per_ms;
}

/* ---- the report ------------------------------------------------------------------------------ */

static const char *const product_label[BP_COUNT] = {
    "M^T p/c (face points)", "M f (vertex scatter)", "M M^T (adjacency)",
    "first-order queries", "vertex normals", "smoothing", "subdivision", "Delaunay flips",
    "isotropic remeshing", "QEM simplification"};
static const char *const product_key[BP_COUNT] = {"face_points", "vertex_scatter",
                                                  "mesh_product", "queries", "normals",
                                                  "smoothing", "subdivision", "delaunay",
                                                  "remesh", "simplify"};

/* A figure right-aligned in `width` columns with `prec` decimals, or "-" where it is not. */
static void cell(char *buf, size_t n, double v, int width, int prec)
{
    if (v < 0 || !isfinite(v)) snprintf(buf, n, "%*s", width, "-");
    else snprintf(buf, n, "%*.*f", width, prec, v);
}

static void print_table(const bench_table *t)
{
    say("\n%-22s %-44s %10s %10s %8s %8s\n", "product", "implementation", "ms", "floor ms",
        "x floor", "vs ours");
    double ours = -1;
    for (int i = 0; i < t->n; i++) {
        const bench_row *r = &t->rows[i];
        const int first = i == 0 || t->rows[i - 1].product != r->product;
        if (first) ours = r->ms;
        char ms[32], fl[32], xf[32], vs[32];
        cell(ms, sizeof ms, r->ms, 10, 4);
        cell(fl, sizeof fl, r->floor_ms, 10, 4);
        cell(xf, sizeof xf, r->ms >= 0 && r->floor_ms > 0 ? r->ms / r->floor_ms : -1, 8, 2);
        /* The queries are eight operations, not rivals: no ratio between them. */
        cell(vs, sizeof vs, r->ms >= 0 && ours > 0 && r->product != BP_QUERIES ? r->ms / ours : -1, 8, 2);
        say("%-22s %-44s %s %s %s %s%s%s\n", first ? product_label[r->product] : "", r->impl, ms,
            fl, xf, vs, r->note[0] ? "  " : "", r->note);
    }
}

static void json_table(const bench_table *t)
{
    js_array("rows");
    double ours = -1;
    for (int i = 0; i < t->n; i++) {
        const bench_row *r = &t->rows[i];
        if (i == 0 || t->rows[i - 1].product != r->product) ours = r->ms;
        js_object(NULL);
        js_str("product", product_key[r->product]);
        js_str("implementation", r->impl);
        js_bool("ours", r->ours);
        js_num_or_null("ms", r->ms);
        js_num_or_null("floor_ms", r->floor_ms);
        js_num_or_null("x_floor", r->ms >= 0 && r->floor_ms > 0 ? r->ms / r->floor_ms : -1);
        js_num_or_null("vs_ours", r->ms >= 0 && ours > 0 && r->product != BP_QUERIES ? r->ms / ours : -1);
        js_str("note", r->note[0] ? r->note : NULL);
        js_end();
    }
    js_end();
}

/* ---- the run --------------------------------------------------------------------------------- */

enum { O_SCHEME, O_LEVELS, O_REPEATS, O_FORMAT, O_COUNT };

static const opt_spec bench_opts[O_COUNT] = {
    [O_SCHEME] = {"scheme", 0, "S",
                  "the subdivision measured, which also makes the product mesh:\n"
                  "loop, sqrt3, catmull-clark (the default) or bilinear"},
    [O_LEVELS] = {"levels", 0, "N",
                  "levels from MESH to the product mesh (default on a GPU: 6\n"
                  "for Catmull-Clark and Loop, 7 for sqrt3, millions of faces\n"
                  "from Bigguy; on the host 4, 4 and 5)"},
    [O_REPEATS] = {"repeats", 0, "R",
                   "timed runs of each figure, whose median is shown (default 20\n"
                   "on a GPU, 5 on the host; after 3 and 1 warm-up runs)"},
    [O_FORMAT] = {"format", 0, "obj|off|ply|stl", "the format of standard input (MESH given as -;\ntold by its content without it)"},
};

/* Whether `runs` more vertex scatters give the bytes of the last one (read back to the host
 * after each): *same = 1 if they all do. */
static int same_bytes_runs(bench *b, int runs, int *same)
{
    const size_t n = 3 * (size_t)b->mesh->M->nrows;
    const mmx_space sp = mmx_ctx_space(b->ctx);
    float *first = malloc(n * sizeof *first + 1), *got = malloc(n * sizeof *got + 1);
    int rc = !first || !got;
    if (rc) out_of_memory("the scatter's results");
    rc = rc || mmx_mem_copy(b->ctx, first, MMX_SPACE_HOST, b->yv, sp, n * sizeof *first);
    *same = 1;
    for (int r = 0; r < runs && !rc; r++) {
        rc = run_vertex_scatter(b) || mmx_mem_copy(b->ctx, got, MMX_SPACE_HOST, b->yv, sp, n * sizeof *got);
        if (!rc && memcmp(first, got, n * sizeof *got)) *same = 0;
    }
    free(first);
    free(got);
    return rc ? -1 : 0;
}

/* A failed measurement: what was being done and the context's detail. */
static int failed(mmx_ctx *ctx, const char *name, const char *what)
{
    const char *d = mmx_ctx_error(ctx);
    fprintf(stderr, "mmx: %s: %s failed%s%s\n", name, what, d[0] ? ": " : "", d);
    return EXIT_FAIL;
}

/* Times our implementations, then the peers on the GPU, into t. */
static int measure(bench *b, const mmx_mesh_stats *cage_st, int warm, int reps, double tbps,
                   bench_table *t, const char *name)
{
    mmx_ctx *ctx = b->ctx;
    const int gpu = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    double ms[4];
    /* One untimed run of the products first: their sizes set the M·Mᵀ floor. */
    if (run_mesh_product(b)) return failed(ctx, name, "mmx_mesh_product");
    for (int p = 0; p < BP_COUNT; p++) t->floor_ms[p] = -1;
    if (gpu) set_floors(t, b, cage_st, tbps);
    const char *form = b->mesh->M->order > 0 ? "reduced M" : "general M";
    char impl[96], note[120];

    if (bench_time(ctx, warm, reps, run_face_points, b, &ms[0]))
        return failed(ctx, name, "mmx_spmv (face points)");
    snprintf(impl, sizeof impl, "mmx_spmv op T, 3 columns (%s)", form);
    bench_add(t, BP_FACE_POINTS, 1, impl, ms[0], NULL);
    if (bench_time(ctx, warm, reps, run_vertex_scatter, b, &ms[1]))
        return failed(ctx, name, "mmx_spmv (vertex scatter)");
    snprintf(impl, sizeof impl, "mmx_spmv op N, 3 columns (%s)", form);
    bench_add(t, BP_VERTEX_SCATTER, 1, impl, ms[1], NULL);
    int same = 0;
    if (same_bytes_runs(b, 10, &same)) return failed(ctx, name, "mmx_spmv (vertex scatter, 10 runs)");
    bench_add(t, BP_VERTEX_SCATTER, 1, "mmx_spmv op N: 10 runs give the same bytes", -1,
              same ? "yes" : "NO: the results differ from run to run");
    if (bench_time(ctx, warm, reps, run_mesh_product, b, &ms[2]))
        return failed(ctx, name, "mmx_mesh_product");
    snprintf(note, sizeof note, "E: %d, F: %d entries", (int)b->E->nnz, (int)b->F->nnz);
    bench_add(t, BP_MESH_PRODUCT, 1, "mmx_mesh_product: E and F", ms[2], note);
    if (bench_time(ctx, warm, reps, run_adjacency, b, &ms[3]))
        return failed(ctx, name, "mmx_adjacency_compute");
    snprintf(note, sizeof note, "%d edges; also numbers them, EV, FE, valence, boundary",
             (int)b->adj->nedges);
    bench_add(t, BP_MESH_PRODUCT, 1, "mmx_adjacency_compute", ms[3], note);
    /* The queries, given that adjacency. A mesh that a vertex query refuses (inconsistent
     * faces) gets its row with the reason, not a failed run. */
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        double qms = -1;
        b->kind = (mmx_query_kind)k;
        snprintf(impl, sizeof impl, "mmx_query %s (given the adjacency)", mmx_query_name(b->kind));
        mmx_csr_free(b->query);
        b->query = NULL;
        const mmx_status qs = mmx_query(ctx, b->mesh, b->adj, b->kind, &b->query);
        if (qs && qs != MMX_ERR_MESH) return failed(ctx, name, "mmx_query");
        if (qs) {
            snprintf(note, sizeof note, "refused: %.100s", mmx_ctx_error(ctx));
            bench_add(t, BP_QUERIES, 1, impl, -1, note);
            continue;
        }
        if (bench_time(ctx, warm, reps, run_query, b, &qms)) return failed(ctx, name, "mmx_query");
        snprintf(note, sizeof note, "%d rows, %d entries", (int)b->query->nrows, (int)b->query->nnz);
        bench_add(t, BP_QUERIES, 1, impl, qms, note);
    }
    /* Vertex normals (a plan made once, then one kernel; and the call that makes its own)
     * and smoothing (10 Taubin iterations, one call each, set-up included). */
    if (mmx_mem_alloc(ctx, mmx_ctx_space(ctx), 3 * (size_t)b->mesh->M->nrows * sizeof(float),
                      (void **)&b->nrm) ||
        mmx_normals_plan_create(ctx, b->mesh, &b->plan))
        return failed(ctx, name, "the normals' plan");
    double nms = -1;
    if (bench_time(ctx, warm, reps, run_normals_planned, b, &nms))
        return failed(ctx, name, "mmx_vertex_normals_planned");
    bench_add(t, BP_NORMALS, 1, "mmx_vertex_normals_planned (plan made once)", nms,
              "one gather per vertex, no allocation, no wait");
    if (bench_time(ctx, warm, reps, run_normals, b, &nms)) return failed(ctx, name, "mmx_vertex_normals");
    bench_add(t, BP_NORMALS, 1, "mmx_vertex_normals", nms, "makes its plan (the transpose of M)");
    for (int p = 0; p < 2; p++) {
        b->smooth = mmx_smooth_defaults(p ? MMX_SMOOTH_LAPLACIAN : MMX_SMOOTH_TAUBIN);
        b->smooth.iterations = p ? 20 : 10;
        if (bench_time(ctx, warm, reps, run_smooth, b, &nms)) return failed(ctx, name, "mmx_smooth");
        bench_add(t, BP_SMOOTHING, 1, p ? "mmx_smooth laplacian x20, assembled" : "mmx_smooth taubin x10, assembled",
                  nms, "one call: adjacency and L made in it, then one kernel per step");
    }
    if (gpu && bench_peers(ctx, b->mesh, b->mesh->pos, b->yf, b->yf, b->yv, warm, reps, t))
        return EXIT_FAIL;
    /* The peers' rows were added after ours per product: put each product's rows together. */
    bench_table sorted = *t;
    sorted.n = 0;
    for (int p = 0; p < BP_COUNT; p++)
        for (int i = 0; i < t->n; i++)
            if (t->rows[i].product == (bench_product)p) sorted.rows[sorted.n++] = t->rows[i];
    *t = sorted;

    /* The subdivision, cage to product mesh: end to end on each path, and the fused path's
     * levels alone (the sum of its trace; on the GPU each level is timed between two
     * synchronisations of the stream). */
    double fused = -1, chain = -1, alg = -1;
    b->path = MMX_SUBDIV_PATH_FUSED;
    if (bench_time(ctx, warm, reps, run_subdivide, b, &fused))
        return failed(ctx, name, "mmx_subdivide (fused path)");
    b->trace = calloc(b->levels > 0 ? (size_t)b->levels : 1, sizeof *b->trace);
    double *sums = malloc((size_t)reps * sizeof *sums);
    if (!b->trace || !sums) {
        free(sums);
        return out_of_memory("the subdivision's trace");
    }
    for (int i = 0; i < reps; i++) {
        if (run_subdivide(b)) {
            free(sums);
            return failed(ctx, name, "mmx_subdivide (fused path, traced)");
        }
        sums[i] = 0;
        for (int l = 0; l < b->levels; l++) sums[i] += b->trace[l].ms;
    }
    chain = bc_median(sums, reps);
    free(sums);
    free(b->trace);
    b->trace = NULL;
    b->path = MMX_SUBDIV_PATH_ALGEBRAIC;
    if (bench_time(ctx, warm, reps, run_subdivide, b, &alg))
        return failed(ctx, name, "mmx_subdivide (algebraic path)");
    snprintf(note, sizeof note, "%s, %d level%s to %d faces", mmx_scheme_name(b->scheme),
             b->levels, b->levels == 1 ? "" : "s", (int)mmx_mesh_nfaces(b->mesh));
    bench_add(t, BP_SUBDIVISION, 1, "mmx_subdivide, fused path", fused, note);
    bench_add(t, BP_SUBDIVISION, 1, "fused path, its levels alone (trace sum)", chain, NULL);
    bench_add(t, BP_SUBDIVISION, 1, "mmx_subdivide, algebraic path", alg, NULL);

    /* Delaunay flips to the end on the product mesh, quads split along their shorter
     * diagonals (the split is not timed). */
    double dms = -1;
    mmx_index order = 0;
    if (mmx_mesh_uniform_order(ctx, b->mesh, &order)) return failed(ctx, name, "the face order");
    if (order != 3 && triangulate(ctx, b->mesh, name, &b->tri)) return EXIT_FAIL;
    if (order == 3 && mmx_mesh_copy(ctx, b->mesh, mmx_ctx_space(ctx), &b->tri))
        return failed(ctx, name, "a copy of the product mesh");
    if (bench_time(ctx, warm, reps, run_delaunay, b, &dms))
        return failed(ctx, name, "mmx_delaunay_flip");
    snprintf(note, sizeof note, "%d triangles: %d rounds, %lld flips, %d left",
             (int)mmx_mesh_nfaces(b->tri), b->drep.rounds, (long long)b->drep.flips,
             (int)b->drep.remaining);
    bench_add(t, BP_DELAUNAY, 1, "mmx_delaunay_flip", dms, note);

    /* Isotropic remeshing (the defaults: 3 iterations towards the mean edge length) of the
     * cage refined two levels fewer, in triangles: one run, whose set-up (on the host) and
     * rounds take seconds on the product mesh itself. */
    mmx_mesh *coarse = NULL;
    const int cl = b->levels > 2 ? b->levels - 2 : 0;
    if (mmx_subdivide(ctx, b->scheme, b->cage, cl, NULL, &coarse))
        return failed(ctx, name, "the mesh for remeshing");
    int rc = mmx_mesh_uniform_order(ctx, coarse, &order) ? failed(ctx, name, "the face order") : 0;
    if (!rc && order == 3) b->coarse = coarse, coarse = NULL;
    else if (!rc) rc = triangulate(ctx, coarse, name, &b->coarse);
    mmx_mesh_free(coarse);
    if (rc) return EXIT_FAIL;
    double rms = -1;
    if (bench_time(ctx, 0, 1, run_remesh, b, &rms)) return failed(ctx, name, "mmx_remesh");
    double rounds = 0;
    for (int i = 0; i < b->rrep.iterations; i++) rounds += b->rrep.per_iteration[i].ms;
    snprintf(note, sizeof note, "%d -> %d triangles, one run; its rounds %.1f ms",
             (int)mmx_mesh_nfaces(b->coarse), (int)mmx_mesh_nfaces(b->remeshed), rounds);
    bench_add(t, BP_REMESH, 1, "mmx_remesh (3 iterations)", rms, note);

    /* QEM simplification of the remeshing row's input (the mesh two levels coarser, in
     * triangles) to 10% of its faces: one run, as remeshing. */
    double sms = -1;
    if (bench_time(ctx, 0, 1, run_simplify, b, &sms)) return failed(ctx, name, "mmx_simplify");
    snprintf(note, sizeof note, "%d -> %d triangles, one run; %d rounds, error %.2e of the diagonal",
             (int)mmx_mesh_nfaces(b->coarse), (int)mmx_mesh_nfaces(b->simplified), b->srep.rounds,
             b->srep.max_error);
    bench_add(t, BP_SIMPLIFY, 1, "mmx_simplify (to 10%)", sms, note);
    return EXIT_OK;
}

/* The cage: MESH, or Bigguy (split into triangles for Loop and sqrt3); its name for the report
 * goes to name[0..n). */
static int get_cage(mmx_ctx *ctx, const tool_input *in, mmx_scheme scheme, mmx_mesh **cage,
                    char *name, size_t n)
{
    double ms = 0;
    *cage = NULL;
    if (in) {
        snprintf(name, n, "%s", in->name);
        return input_load(ctx, in, cage, &ms);
    }
    mmx_mesh *quads = NULL;
    const char *src = NULL;
    if (load_cage(ctx, NULL, &quads, &src, &ms)) return EXIT_FAIL;
    if (scheme == MMX_SCHEME_CATMULL_CLARK || scheme == MMX_SCHEME_BILINEAR) {
        snprintf(name, n, "%s", src);
        *cage = quads;
        return EXIT_OK;
    }
    snprintf(name, n, "%s split into triangles", src);
    int rc = triangulate(ctx, quads, src, cage);
    mmx_mesh_free(quads);
    return rc;
}

static int work(mmx_ctx *ctx, const char *why, const tool_input *in, mmx_scheme scheme,
                int levels, int reps)
{
    const int gpu = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    const int warm = gpu ? 3 : 1;
    bench b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.scheme = scheme;
    b.levels = levels;
    mmx_mesh *cage = NULL;
    char name[4200];
    if (get_cage(ctx, in, scheme, &cage, name, sizeof name)) return EXIT_FAIL;
    b.cage = cage;
    mmx_mesh_stats st;
    mmx_index order = 0;
    mmx_status s = mmx_mesh_stats_compute(ctx, cage, &st);
    if (!s) s = mmx_subdivide(ctx, scheme, cage, levels, NULL, &b.mesh);
    if (!s) s = mmx_mesh_uniform_order(ctx, b.mesh, &order);
    if (!s && order > 0) s = mmx_mesh_reduce(ctx, b.mesh);
    if (!s) s = make_map(&b);
    if (!s) {
        const mmx_space space = mmx_ctx_space(ctx);
        s = mmx_mem_alloc(ctx, space, 12 * (size_t)mmx_mesh_nfaces(b.mesh), (void **)&b.yf);
        if (!s) s = mmx_mem_alloc(ctx, space, 12 * (size_t)mmx_mesh_nverts(b.mesh), (void **)&b.yv);
    }
    int rc = s ? fail(ctx, s, name) : EXIT_OK;

    double tbps = -1;
    char gpu_name[300] = "";
    if (!rc && gpu) {
        bench_gpu_describe(gpu_name, sizeof gpu_name);
        if (bench_copy_tbps(ctx, &tbps)) rc = EXIT_FAIL;
    }
    bench_table t;
    memset(&t, 0, sizeof t);
    if (!rc) rc = measure(&b, &st, warm, reps, tbps, &t, name);
    if (!rc) {
        const mmx_csc *M = b.mesh->M;
        row("backend", "%s", why);
        if (gpu) {
            row("gpu", "%s", gpu_name);
            row("copy bandwidth", "%.2f TB/s (device to device, read + write; the floors' "
                "measure)", tbps);
        }
        row("mesh", "%s: %d vertices, %d faces", name, (int)st.nverts, (int)st.nfaces);
        row("product mesh", "%s, %d level%s: %d vertices, %d faces, M has %d entries (%s)",
            mmx_scheme_name(scheme), levels, levels == 1 ? "" : "s", (int)M->nrows, (int)M->ncols,
            (int)M->nnz, M->order > 0 ? "reduced form" : "general form");
        row("timing", "median of %d run%s after %d warm-up run%s (%s)", reps, reps == 1 ? "" : "s",
            warm, warm == 1 ? "" : "s", gpu ? "CUDA events on the stream" : "host clock");
        print_table(&t);
        /* Why the GPU part is skipped: the backend line without its "host: ". */
        const char *skip = strncmp(why, "host: ", 6) == 0 ? why + 6 : why;
        if (!gpu)
            say("\nGPU part skipped: %s; so no cuSPARSE peers and no floor (they need the CUDA "
                "backend and a GPU)\n", skip);
        else
            say("\nx floor: time over the floor (the fewest bytes the product moves over the copy "
                "bandwidth);\nvs ours: time over the first meshmatrix row of the product\n");

        js_str("backend", backend_name(ctx));
        js_str("backend_reason", why);
        js_str("gpu", gpu ? gpu_name : NULL);
        js_str("gpu_skipped", gpu ? NULL : skip);
        js_num_or_null("copy_tbps", tbps);
        js_input(name, st.nverts, st.nfaces, -1);
        js_str("scheme", mmx_scheme_name(scheme));
        js_int("levels", levels);
        js_object("product_mesh");
        js_int("vertices", M->nrows);
        js_int("faces", M->ncols);
        js_int("entries", M->nnz);
        js_end();
        js_int("warmup", warm);
        js_int("repeats", reps);
        json_table(&t);
    }
    bench_release(&b);
    mmx_mesh_free(cage);
    return rc;
}

static int run(const tool_args *a)
{
    mmx_scheme scheme;
    int levels = -1, reps = -1;
    if (parse_scheme(a->value[O_SCHEME], MMX_SCHEME_CATMULL_CLARK, &scheme)) return EXIT_USAGE;
    if (a->value[O_LEVELS] && !parse_levels(a->value[O_LEVELS], 0, &levels))
        return usage_error("--levels needs a whole number from 0 to %d, got '%s'", MAX_LEVELS,
                           a->value[O_LEVELS]);
    if (a->value[O_REPEATS] && !parse_int(a->value[O_REPEATS], 1, 1000, &reps))
        return usage_error("--repeats needs a whole number from 1 to 1000, got '%s'",
                           a->value[O_REPEATS]);
    if (a->npos > 1) return usage_error("bench takes one MESH, got %d", a->npos);
    tool_input in;
    if (a->npos == 1 && input_resolve(a->pos[0], NULL, a->value[O_FORMAT], &in)) return EXIT_USAGE;
    mmx_ctx *ctx = NULL;
    char why[512];
    if (open_context(a->global[G_BACKEND], 1, &ctx, why, sizeof why)) return EXIT_FAIL;
    /* Repeated timed runs: no progress lines between them (nor a call inside a timing). */
    mmx_ctx_set_progress(ctx, NULL, NULL);
    const int gpu = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    /* Millions of faces from Bigguy on a GPU; a few hundred thousand on the host. */
    if (levels < 0) levels = (scheme == MMX_SCHEME_SQRT3 ? 1 : 0) + (gpu ? 6 : 4);
    if (reps < 0) reps = gpu ? 20 : 5;
    int rc = work(ctx, why, a->npos == 1 ? &in : NULL, scheme, levels, reps);
    mmx_ctx_free(ctx);
    return rc;
}

const tool_cmd bench_command = {
    .name = "bench",
    .summary = "time the products, normals, smoothing, the subdivision, Delaunay flips, remeshing and simplification, against cuSPARSE and the floor",
    .synopsis = "bench [--scheme S] [--levels N] [--repeats R] [MESH]",
    .help =
        "Subdivides MESH (default: the Bigguy cage, split into triangles for Loop and sqrt3)\n"
        "N levels by S into the product mesh, and times on it, as bench/ does:\n"
        "  M^T p/c  the face points (mmx_spmv op T, a gather per column, map 1/c);\n"
        "  M f      the vertex scatter of 3-component face data (mmx_spmv op N), and\n"
        "           whether 10 more runs of it give the same bytes;\n"
        "  M M^T    the implicit product: mmx_mesh_product for E and F, and the whole\n"
        "           mmx_adjacency_compute;\n"
        "  the eight first-order queries; area-weighted vertex normals (with a plan made\n"
        "           once, and mmx_vertex_normals); smoothing, one mmx_smooth call each of\n"
        "           10 Taubin and 20 Laplacian steps (assembled path);\n"
        "and the subdivision itself, MESH to the product mesh, on the fused path (end to end,\n"
        "and its levels alone) and on the algebraic path, and Delaunay edge flips to the end\n"
        "(mmx_delaunay_flip) on the product mesh, quads split along their shorter diagonals,\n"
        "isotropic remeshing (mmx_remesh, 3 iterations, one run) of the mesh two levels\n"
        "coarser in triangles, and QEM simplification (mmx_simplify, one run) of that mesh\n"
        "to 10% of its faces.\n"
        "Each time is the median of R runs\n"
        "after warm-up runs. On a GPU the times are taken with CUDA events on the context's\n"
        "stream, and the peers run on the same matrix: cuSPARSE SpMV with explicit float\n"
        "values 1/c, one call per coordinate, with M in CSR and in CSC form, and cuSPARSE\n"
        "SpGEMM for the binary M M^T; each row shows its floor, the fewest bytes the product\n"
        "must move over the device-to-device copy bandwidth measured in the same run, the\n"
        "time over the floor (x floor) and over ours (vs ours). On the host, or in a build\n"
        "without CUDA, only our host figures are shown, with the reason the GPU part was\n"
        "skipped. Runs on the GPU when there is one, unless --backend host.",
    .opts = bench_opts,
    .nopts = O_COUNT,
    .flags = CMD_GPU_DEFAULT | CMD_JSON,
    .run = run,
};
