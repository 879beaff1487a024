/* mmx query: one of the eight first-order queries (VV, VE, VF, EV, EF, FV, FE, FF) of a mesh,
 * by the algebraic path (mmx_query), written as text: a '#' header line, then one line per
 * source element with its neighbours in the query's order (query.h), 0-based. */
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
    if (s) {
        free(colidx);
        free(rowptr);
        return fail(ctx, s, mesh);
    }
    char head[1024];
    int n = snprintf(head, sizeof head,
                     "# mmx query %s of %s: %d %s rows -> %s (%d of them), %d entries; one line "
                     "per %s, its %s in order, 0-based\n",
                     mmx_query_name(kind), mesh, (int)R->nrows, source_name(kind), target_name(kind),
                     (int)R->ncols, (int)R->nnz, source_name(kind), target_name(kind));
    text_put(t, head, (size_t)n < sizeof head ? (size_t)n : sizeof head - 1);
    for (mmx_index i = 0; i < R->nrows; i++) {
        const mmx_index a = R->order ? R->order * i : rowptr[i];
        const mmx_index b = R->order ? a + R->order : rowptr[i + 1];
        if (a == b) text_put(t, "\n", 1);
        for (mmx_index k = a; k < b; k++) put_int(t, colidx[k], k + 1 == b ? '\n' : ' ');
    }
    free(colidx);
    free(rowptr);
    return t->failed ? out_of_memory("query text") : EXIT_OK;
}

static int work(mmx_ctx *ctx, const void *what, const tool_input *in, const tool_output *out)
{
    const mmx_query_kind kind = *(const mmx_query_kind *)what;
    mmx_mesh *mesh = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    mmx_csr *R = NULL;
    const double t0 = now_ms();
    mmx_status s = mmx_query(ctx, mesh, NULL, kind, &R);
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
    row("query time", "%.3f ms (%s backend; adjacency included)", query_ms, backend);
    row("wrote", "%s", out->name);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_str("query", mmx_query_name(kind));
    js_int("rows", rows);
    js_int("entries", entries);
    js_ms("query_ms", query_ms);
    js_object("output");
    js_str("path", out->name);
    js_str("format", "text");
    js_end();
    return EXIT_OK;
}

enum { O_FORMAT, O_FROM, O_COUNT };

static const opt_spec query_opts[O_COUNT] = {
    [O_FORMAT] = {"format", 0, "obj|off|ply|stl", "the format of standard input (MESH given as -;\ntold by its content without it)"},
    [O_FROM] = OPT_SPEC_FROM,
};

static int run(const tool_args *a)
{
    if (a->npos < 2 || a->npos > 3)
        return usage_error("query takes KIND MESH [OUT], got %d argument%s", a->npos,
                           a->npos == 1 ? "" : "s");
    mmx_query_kind kind;
    if (mmx_query_parse(NULL, a->pos[0], &kind))
        return usage_error("unknown query kind '%s' (use VV, VE, VF, EV, EF, FV, FE or FF)",
                           a->pos[0]);
    return run_text_command(a, a->pos[1], a->npos == 3 ? a->pos[2] : NULL, a->value[O_FROM],
                            a->value[O_FORMAT], work, &kind);
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
            "the edge. KIND may be given in lower case.",
    .opts = query_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
