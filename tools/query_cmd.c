/* mmx query: one of the eight first-order queries (VV, VE, VF, EV, EF, FV, FE, FF) of a mesh,
 * by one of the library's three paths (--path: the algebraic mmx_query, the patch set's
 * mmx_patch_query, or a query plan), written as text: a '#' header line, then one line per
 * source element with its neighbours in the query's order (query.h), 0-based. The three give
 * the same arrays, so the same text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

static void put_int(text *t, long long x, char after)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld%c", x, after);
    text_put(t, buf, (size_t)n);
}

/* What the rows and columns of each kind are. */
static const char *source_name(mmx_query_kind k)
{
    return k <= MMX_QUERY_VF ? "vertex" : k <= MMX_QUERY_EF ? "edge" : "face";
}

static const char *target_name(mmx_query_kind k)
{
    static const char *const t[MMX_QUERY_COUNT] = {"vertices", "edges", "faces", "vertices",
                                                   "faces", "vertices", "edges", "faces"};
    return t[k];
}

int query_text(text *t, mmx_query_kind kind, const char *mesh, long long nrows, long long ncols,
               long long nnz, int order, const mmx_index *rowptr, const mmx_index *colidx)
{
    char head[1024];
    int n = snprintf(head, sizeof head,
                     "# mmx query %s of %s: %d %s rows -> %s (%d of them), %d entries; one line "
                     "per %s, its %s in order, 0-based\n",
                     mmx_query_name(kind), mesh, (int)nrows, source_name(kind), target_name(kind),
                     (int)ncols, (int)nnz, source_name(kind), target_name(kind));
    text_put(t, head, (size_t)n < sizeof head ? (size_t)n : sizeof head - 1);
    for (long long i = 0; i < nrows; i++) {
        const long long a = order ? (long long)order * i : rowptr[i];
        const long long b = order ? a + order : rowptr[i + 1];
        if (a == b) text_put(t, "\n", 1);
        for (long long k = a; k < b; k++) put_int(t, colidx[k], k + 1 == b ? '\n' : ' ');
    }
    return t->failed ? out_of_memory("query text") : EXIT_OK;
}

/* The result as text; its arrays copied to the host first when they live on the device. */
static int format_rows(mmx_ctx *ctx, const mmx_csr *R, mmx_query_kind kind, const char *mesh,
                       text *t)
{
    mmx_index *rowptr = NULL, *colidx = malloc(((size_t)R->nnz + 1) * sizeof *colidx);
    if (!colidx) return out_of_memory("query result");
    mmx_status s = MMX_OK;
    if (R->nnz)
        s = mmx_mem_copy(ctx, colidx, MMX_SPACE_HOST, R->colidx, R->space,
                         (size_t)R->nnz * sizeof *colidx);
    if (!s && !R->order) {
        rowptr = malloc(((size_t)R->nrows + 1) * sizeof *rowptr);
        if (!rowptr) {
            free(colidx);
            return out_of_memory("query result");
        }
        s = mmx_mem_copy(ctx, rowptr, MMX_SPACE_HOST, R->rowptr, R->space,
                         ((size_t)R->nrows + 1) * sizeof *rowptr);
    }
    int rc = s ? fail(ctx, s, mesh)
               : query_text(t, kind, mesh, R->nrows, R->ncols, R->nnz, R->order, rowptr, colidx);
    free(colidx);
    free(rowptr);
    return rc;
}

/* The paths of --path, in the order of its help. */
typedef enum { PATH_ALGEBRAIC, PATH_PATCH, PATH_PLAN, PATH_COUNT } query_path;

static const char *const path_names[PATH_COUNT] = {"algebraic", "patch", "plan"};

typedef struct query_job {
    mmx_query_kind kind;
    query_path path;
} query_job;

/* The query by `path`, with what that path builds first (the adjacency, then the patch set or
 * the plan) inside the timed call: a one-shot query pays for it. */
static mmx_status compute(mmx_ctx *ctx, const mmx_mesh *mesh, const query_job *job, mmx_csr **R)
{
    if (job->path == PATH_ALGEBRAIC) return mmx_query(ctx, mesh, NULL, job->kind, R);
    mmx_adjacency *adj = NULL;
    mmx_status s = mmx_adjacency_compute(ctx, mesh, &adj);
    if (!s && job->path == PATH_PATCH) {
        mmx_patch_set *ps = NULL;
        s = mmx_patch_set_create(ctx, mesh, adj, NULL, &ps);
        if (!s) s = mmx_patch_query(ctx, ps, job->kind, R);
        mmx_patch_set_free(ps);
    } else if (!s) {
        mmx_query_plan *plan = NULL;
        s = mmx_query_plan_create(ctx, mesh, adj, &plan);
        if (!s) s = mmx_query_plan_alloc(ctx, plan, job->kind, R);
        if (!s) s = mmx_query_plan_run(ctx, plan, job->kind, *R);
        if (!s) s = mmx_ctx_sync(ctx); /* the plan reads adj until its run is done */
        mmx_query_plan_free(plan);
    }
    mmx_adjacency_free(adj);
    return s;
}

static int work(mmx_ctx *ctx, const void *what, const tool_input *in, const tool_output *out)
{
    const query_job *job = what;
    const mmx_query_kind kind = job->kind;
    mmx_mesh *mesh = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    mmx_csr *R = NULL;
    const double t0 = now_ms();
    mmx_status s = compute(ctx, mesh, job, &R);
    if (!s) s = mmx_ctx_sync(ctx); /* the time covers the queued work */
    const double query_ms = now_ms() - t0;
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    mmx_mesh_free(mesh);
    if (s) {
        mmx_csr_free(R);
        return fail(ctx, s, in->name);
    }
    text t = {NULL, 0, 0, 0};
    int rc = format_rows(ctx, R, kind, in->name, &t);
    const long long rows = R->nrows, entries = R->nnz;
    mmx_csr_free(R);
    if (!rc) rc = output_write_bytes(out, t.data, t.len);
    free(t.data);
    if (rc) return rc;
    const char *backend = backend_name(ctx);
    row("mesh", "%s", in->name);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    row("query", "%s: %lld %s rows, %lld entries", mmx_query_name(kind), rows, source_name(kind),
        entries);
    row("query time", "%.3f ms (%s backend, %s path; adjacency%s included)", query_ms, backend,
        path_names[job->path], job->path == PATH_PATCH ? " and patch set"
                               : job->path == PATH_PLAN ? " and plan" : "");
    row("wrote", "%s", out->name);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_str("query", mmx_query_name(kind));
    js_str("path", path_names[job->path]);
    js_int("rows", rows);
    js_int("entries", entries);
    js_ms("query_ms", query_ms);
    js_object("output");
    js_str("path", out->name);
    js_str("format", "text");
    js_end();
    return EXIT_OK;
}

enum { O_FORMAT, O_FROM, O_PATH, O_COUNT };

static const opt_spec query_opts[O_COUNT] = {
    [O_FORMAT] = {"format", 0, "obj|off|ply|stl", "the format of standard input (MESH given as -;\ntold by its content without it)"},
    [O_FROM] = OPT_SPEC_FROM,
    [O_PATH] = {"path", 0, "algebraic|patch|plan",
                "how the query is computed (default algebraic, the\nfastest for one query); every path gives the same bytes"},
};

static int run(const tool_args *a)
{
    if (a->npos < 2 || a->npos > 3)
        return usage_error("query takes KIND MESH [OUT], got %d argument%s", a->npos,
                           a->npos == 1 ? "" : "s");
    query_job job = {MMX_QUERY_VV, PATH_ALGEBRAIC};
    if (mmx_query_parse(NULL, a->pos[0], &job.kind))
        return usage_error("unknown query kind '%s' (use VV, VE, VF, EV, EF, FV, FE or FF)",
                           a->pos[0]);
    if (a->value[O_PATH]) {
        int found = 0;
        for (int i = 0; i < PATH_COUNT && !found; i++)
            if (strcmp(a->value[O_PATH], path_names[i]) == 0) job.path = (query_path)i, found = 1;
        if (!found)
            return usage_error("unknown --path '%s' (use algebraic, patch or plan)", a->value[O_PATH]);
    }
    return run_text_command(a, a->pos[1], a->npos == 3 ? a->pos[2] : NULL, a->value[O_FROM],
                            a->value[O_FORMAT], work, &job);
}

const tool_cmd query_command = {
    .name = "query",
    .summary = "a first-order query (VV, VE, VF, EV, EF, FV, FE, FF) of a mesh, as text",
    .synopsis = "query KIND MESH [OUT]",
    .help = "Computes query KIND of MESH (a file, builtin:SPEC or -) by algebra from the mesh\n"
            "matrix and its adjacency, and writes one line per source element (vertex, edge\n"
            "or face) with its neighbours separated by spaces, 0-based, after a '#' header\n"
            "line; to OUT, or to standard output when OUT is absent or -. The order is fixed:\n"
            "FV and FE in the face's cyclic order (FE entry i joins its vertices i and i+1);\n"
            "EV the smaller vertex first; EF ascending; FF edge by edge in FE's order; VV, VE\n"
            "and VF counter-clockwise around the vertex, starting after the boundary (or at\n"
            "the smallest face), fan after fan. Edges are numbered by their higher vertex,\n"
            "then their lower one. VV, VE and VF refuse inconsistently oriented faces, naming\n"
            "the edge. KIND may be given in lower case.\n"
            "--path picks how: algebraic (the default) composes the query from the mesh\n"
            "matrix and its adjacency (mmx_query); patch cuts the faces into patches and\n"
            "computes it from their 16-bit blocks (mmx_patch_query); plan builds a query plan\n"
            "and runs it (mmx_query_plan_run). Each path builds what it needs for this one\n"
            "query, so algebraic, which builds the least, is the fastest here; the patch set\n"
            "and the plan pay off over many queries, in a program. Every path writes the same\n"
            "bytes.\n"
            "Under `mpirun -n R` (R > 1) the mesh is partitioned over the ranks\n"
            "(mmx_dist_query: each rank answers its owned rows, the edges numbered as one\n"
            "process numbers them) and rank 0 writes the same bytes; --path is not taken.\n"
            "MESH may be part files, PREFIX.index (mmx partition's): each rank reads its\n"
            "part alone.",
    .opts = query_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
