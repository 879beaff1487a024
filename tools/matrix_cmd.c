/* mmx matrix: one of a mesh's operators (geom.h, mmx_operator: the adjacency, the uniform and
 * cotangent Laplacians, the mass matrices, the incidences d0 and d1) written as a Matrix
 * Market file, the exchange format SciPy (scipy.io.mmread), MATLAB and Eigen read:
 * coordinate real, symmetric (the lower triangle) or general as the operator is, 1-based, each
 * value in the fewest digits that read back as the same float, and the rows' and columns'
 * meaning in '%' comment lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

/* The shortest %g form of v that strtof reads back as v (at most 9 significant digits). */
static int shortest(char *buf, size_t n, float v)
{
    int len = 0;
    for (int p = 1; p <= 9; p++) {
        len = snprintf(buf, n, "%.*g", p, (double)v);
        if (strtof(buf, NULL) == v) break;
    }
    return len;
}

/* Whether the operator is symmetric (written as its lower triangle), and what its rows and
 * columns are. */
static int symmetric(mmx_operator_kind k)
{
    return k != MMX_OPERATOR_EV && k != MMX_OPERATOR_FE;
}

static const char *meaning(mmx_operator_kind k)
{
    switch (k) {
    case MMX_OPERATOR_ADJACENCY:
        return "% rows: vertices, columns: vertices (row/column v+1 is vertex v of the file)\n"
               "% A(i,j) = 1 for every edge {i,j}, no diagonal\n";
    case MMX_OPERATOR_UNIFORM:
        return "% rows: vertices, columns: vertices (row/column v+1 is vertex v of the file)\n"
               "% the uniform Laplacian: L(i,j) = 1 for every edge {i,j}, L(i,i) = -(edges at i)\n";
    case MMX_OPERATOR_COTAN:
        return "% rows: vertices, columns: vertices (row/column v+1 is vertex v of the file)\n"
               "% the cotangent Laplacian (libigl's cotmatrix): L(i,j) = (cot a + cot b)/2 for\n"
               "% the angles opposite the edge {i,j}, L(i,i) = -(sum of row i's other entries)\n";
    case MMX_OPERATOR_MASS:
        return "% rows: vertices, columns: vertices (row/column v+1 is vertex v of the file)\n"
               "% the barycentric mass matrix: diagonal, M(v,v) = sum over v's faces of area/order\n";
    case MMX_OPERATOR_MASS_VORONOI:
        return "% rows: vertices, columns: vertices (row/column v+1 is vertex v of the file)\n"
               "% the mixed Voronoi mass matrix (libigl's massmatrix, Meyer et al. 2003): diagonal\n";
    case MMX_OPERATOR_EV:
        return "% rows: edges, columns: vertices (column v+1 is vertex v of the file; edge e+1\n"
               "% is the e-th edge numbered by its higher vertex, then its lower one)\n"
               "% d0(e,lo) = -1, d0(e,hi) = +1: (d0 x)(e) = x(hi) - x(lo)\n";
    default:
        return "% rows: faces (row f+1 is face f of the file), columns: edges (edge e+1 is the\n"
               "% e-th edge numbered by its higher vertex, then its lower one)\n"
               "% d1(f,e) = +1 where face f runs edge e from its lower vertex to its higher\n"
               "% one, -1 the other way: d1 d0 = 0\n";
    }
}

/* The matrix as Matrix Market text; its arrays copied to the host first. */
static int format_mtx(mmx_ctx *ctx, const mmx_csc *A, mmx_operator_kind kind, const char *mesh,
                      text *t, long long *written)
{
    mmx_csc *H = NULL;
    mmx_status s = mmx_csc_copy(ctx, A, MMX_SPACE_HOST, &H);
    if (s) return fail(ctx, s, mesh);
    const int sym = symmetric(kind);
    long long n = 0;
    for (mmx_index j = 0; j < H->ncols; j++) {
        const mmx_index a = H->order ? H->order * j : H->colptr[j];
        const mmx_index b = H->order ? a + H->order : H->colptr[j + 1];
        for (mmx_index q = a; q < b; q++) n += !sym || H->rowidx[q] >= j;
    }
    char buf[256];
    int len = snprintf(buf, sizeof buf, "%%%%MatrixMarket matrix coordinate real %s\n"
                       "%% mmx matrix --kind %s of %s\n",
                       sym ? "symmetric" : "general", mmx_operator_name(kind), mesh);
    text_put(t, buf, (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1);
    const char *m = meaning(kind);
    text_put(t, m, strlen(m));
    if (sym) {
        const char *lo = "% symmetric: the lower triangle (row >= column) is written\n";
        text_put(t, lo, strlen(lo));
    }
    len = snprintf(buf, sizeof buf, "%d %d %lld\n", (int)H->nrows, (int)H->ncols, n);
    text_put(t, buf, (size_t)len);
    for (mmx_index j = 0; j < H->ncols; j++) {
        const mmx_index a = H->order ? H->order * j : H->colptr[j];
        const mmx_index b = H->order ? a + H->order : H->colptr[j + 1];
        for (mmx_index q = a; q < b; q++) {
            if (sym && H->rowidx[q] < j) continue;
            char v[32];
            shortest(v, sizeof v, H->x[q]);
            len = snprintf(buf, sizeof buf, "%d %d %s\n", (int)H->rowidx[q] + 1, (int)j + 1, v);
            text_put(t, buf, (size_t)len);
        }
    }
    mmx_csc_free(H);
    *written = n;
    return t->failed ? out_of_memory("matrix text") : EXIT_OK;
}

static int work(mmx_ctx *ctx, const void *what, const tool_input *in, const tool_output *out)
{
    const mmx_operator_kind kind = *(const mmx_operator_kind *)what;
    mmx_mesh *mesh = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    mmx_csc *A = NULL;
    const double t0 = now_ms();
    mmx_status s = mmx_operator(ctx, mesh, NULL, kind, &A);
    if (!s) s = mmx_ctx_sync(ctx); /* the time covers the queued work */
    const double op_ms = now_ms() - t0;
    mmx_mesh_free(mesh);
    if (s) {
        mmx_csc_free(A);
        return fail(ctx, s, in->name);
    }
    text t = {NULL, 0, 0, 0};
    long long entries = 0;
    int rc = format_mtx(ctx, A, kind, in->name, &t, &entries);
    const long long rows = A->nrows, cols = A->ncols, nnz = A->nnz;
    mmx_csc_free(A);
    if (!rc) rc = output_write_bytes(out, t.data, t.len);
    free(t.data);
    if (rc) return rc;
    const char *backend = backend_name(ctx);
    row("mesh", "%s", in->name);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    row("operator", "%s: %lld x %lld, %lld entries (%lld written)", mmx_operator_name(kind),
        rows, cols, nnz, entries);
    row("operator time", "%.3f ms (%s backend; adjacency included)", op_ms, backend);
    row("wrote", "%s", out->name);
    js_str("mesh", in->name);
    js_str("backend", backend);
    js_str("kind", mmx_operator_name(kind));
    js_int("rows", rows);
    js_int("cols", cols);
    js_int("nnz", nnz);
    js_num("load_ms", load_ms);
    js_num("operator_ms", op_ms);
    js_str("output", out->name);
    return EXIT_OK;
}

enum { O_KIND, O_FORMAT, O_FROM, O_COUNT };

static const opt_spec matrix_opts[O_COUNT] = {
    [O_KIND] = {"kind", 0, "adjacency|uniform|cotan|mass|mass-voronoi|ev|fe",
                "the operator (required): see the command's help"},
    [O_FORMAT] = {"format", 0, "obj|off|ply", "the format of standard input (IN given as -)"},
    [O_FROM] = OPT_SPEC_FROM,
};

static int run(const tool_args *a)
{
    if (a->npos < 1 || a->npos > 2)
        return usage_error("matrix takes IN [OUT.mtx], got %d arguments", a->npos);
    const char *k = a->value[O_KIND];
    if (!k) return usage_error("matrix needs --kind (adjacency, uniform, cotan, mass, "
                               "mass-voronoi, ev or fe)");
    mmx_operator_kind kind;
    if (mmx_operator_parse(NULL, k, &kind))
        return usage_error("unknown --kind '%s' (use adjacency, uniform, cotan, mass, "
                           "mass-voronoi, ev or fe)", k);
    return run_text_command(a, a->pos[0], a->npos == 2 ? a->pos[1] : NULL, a->value[O_FROM],
                            a->value[O_FORMAT], work, &kind);
}

const tool_cmd matrix_command = {
    .name = "matrix",
    .summary = "a mesh operator (Laplacian, mass, incidence) as a Matrix Market file",
    .synopsis = "matrix --kind KIND IN [OUT.mtx]",
    .help = "Computes operator KIND of the mesh IN (a file, builtin:SPEC or -) by the algebra\n"
            "(valued products of the mesh matrix) and writes it as a Matrix Market file\n"
            "(coordinate real; symmetric operators as their lower triangle; 1-based; each\n"
            "value in the fewest digits that read back as the same float), with its rows'\n"
            "and columns' meaning in '%' comment lines; to OUT, or to standard output when\n"
            "OUT is absent or -. SciPy (scipy.io.mmread), MATLAB and Eigen read it. KIND:\n"
            "  adjacency     vertices x vertices, 1 per edge (both ways), no diagonal\n"
            "  uniform       the uniform Laplacian: 1 per edge, minus the edge count on the\n"
            "                diagonal\n"
            "  cotan         the cotangent Laplacian, libigl's cotmatrix (triangles only)\n"
            "  mass          the barycentric mass matrix (diagonal: area / order per face)\n"
            "  mass-voronoi  the mixed Voronoi mass matrix, libigl's massmatrix (triangles)\n"
            "  ev            edges x vertices, d0: -1 at an edge's lower vertex, +1 at its\n"
            "                higher one (edges numbered by their higher vertex, then lower)\n"
            "  fe            faces x edges, d1: +1 where the face runs the edge from its\n"
            "                lower vertex, -1 the other way (d1 d0 = 0)",
    .opts = matrix_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
