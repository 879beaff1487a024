/*
 * mmx: the meshmatrix command-line tool.
 *
 *   mmx info [FILE]        what a mesh is made of: counts, face orders, boundary, manifoldness,
 *                          orientation, components, Euler characteristic and genus, bounding
 *                          box, whether the reduced form applies, and how long loading took
 *   mmx convert IN OUT     reads IN and writes OUT, the format taken from OUT's extension
 *   mmx reorder IN OUT     renumbers IN's vertices by reverse Cuthill-McKee and its faces by
 *                          their smallest vertex (thesis 4.3.4), shows the bandwidth figures
 *                          before and after, and writes OUT
 *   mmx subdiv --scheme S [--levels N] IN OUT
 *                          Loop, sqrt3 or Catmull-Clark subdivision (subdiv_cmd.c)
 *   mmx render IN OUT.png  a picture of a mesh, drawn by the tool (render_cmd.c, render.c,
 *                          png.c, deflate.c)
 *   mmx demo [DIR]         the main job: each scheme on a real cage to millions of faces,
 *                          pictures and meshes written to DIR (demo_cmd.c)
 *
 * FILE and IN are mesh files (.obj, .off, .ply) or builtin:SPEC for mmx_mesh_shape's shapes.
 * It uses only the public API, so it is also an example of it. Exit status: 0 success, 1 when
 * the input is bad or an operation fails (the context's detail goes to stderr), 2 for a usage
 * error. Commands that write check their output's folder before any work, so a mistyped
 * path fails at once rather than after minutes of subdivision.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "tool.h"
#define DEFAULT_INPUT "builtin:torus"

const char tool_usage_line[] =
    "usage: mmx [--backend host|cuda] info [FILE] | convert IN OUT | reorder IN OUT |\n"
    "       subdiv --scheme loop|sqrt3|catmull-clark [--levels N] [--path fused|algebraic]\n"
    "              [--reorder] IN OUT | render IN OUT.png [--size N] |\n"
    "       demo [--data FILE] [--levels N] [DIR] | help | --version";

static void print_help(void)
{
    printf("mmx %d.%d.%d: inspect, convert, subdivide (Loop, sqrt3, Catmull-Clark) and render\n"
           "polygon meshes (meshmatrix)\n\n"
           "usage:\n"
           "  mmx info [FILE]        counts, face orders, boundary, manifoldness, orientation,\n"
           "                         components, Euler characteristic, genus, bounding box\n"
           "  mmx convert IN OUT     read IN and write OUT; OUT's extension picks the format\n"
           "  mmx reorder IN OUT     renumber vertices (reverse Cuthill-McKee) and faces (by\n"
           "                         smallest vertex) for locality, show the bandwidth of the\n"
           "                         vertex adjacency and the spreads of the mesh matrix\n"
           "                         before and after, and write OUT like convert\n"
           "  mmx subdiv --scheme S [--levels N] [--path P] [--reorder] IN OUT\n"
           "                         subdivide IN N times (default 1) by scheme S: loop\n"
           "                         (triangles), sqrt3 (closed triangle meshes) or\n"
           "                         catmull-clark (any polygons); print each level's sizes\n"
           "                         and time, and write OUT like convert. --path fused (the\n"
           "                         default) or algebraic picks the implementation (same\n"
           "                         result); --reorder renumbers IN first as mmx reorder\n"
           "                         does (RCM), for locality\n"
           "  mmx render IN OUT.png [--size N]\n"
           "                         draw IN as an N x N PNG picture (default 800): a fixed\n"
           "                         view from the front right and above, +y up, flat-shaded\n"
           "  mmx demo [--data FILE] [--levels N] [DIR]\n"
           "                         the main job: Catmull-Clark on a real cage (Bay Raitt's\n"
           "                         Bigguy, 1,450 quads; or FILE), Loop and sqrt3 on it split\n"
           "                         into triangles, to millions of faces (on the host 5, 5\n"
           "                         and 6 levels; on a GPU 6, 6 and 7; or N); says which\n"
           "                         backend runs and why, and writes pictures of the cage and\n"
           "                         of each result, and each result as binary PLY, into DIR\n"
           "                         (default .), which must exist\n"
           "  mmx help, mmx --help   this text\n"
           "  mmx --version          the version and whether the CUDA backend is built\n\n"
           "FILE, IN:  a .obj, .off or .ply file, or builtin:SPEC, one of the built-in shapes\n"
           "           tetrahedron, cube, icosphere[:L], torus[:U:V], grid[:NX:NY], mixed;\n"
           "           'mmx info' without FILE inspects " DEFAULT_INPUT ".\n"
           "OUT:       .obj (text), .off (text) or .ply (binary little endian); its folder must\n"
           "           exist and be writable (checked before any work).\n\n"
           "options:\n"
           "  --backend host|cuda    where the work runs (default: cuda for subdiv and demo\n"
           "                         when a GPU is present, else host); cuda needs a GPU and\n"
           "                         a build with the CUDA backend. render draws on the host\n"
           "                         either way\n"
           "  --scheme S, --levels N, --path P, --reorder   for subdiv (--levels for demo too)\n"
           "  --size N               render's picture size in pixels (16 to 4096)\n"
           "  --data FILE            demo's cage\n"
           "  -h, --help             this text\n"
           "  -V, --version          the version\n\n"
           "exit status: 0 success, 1 bad input or a failed operation, 2 usage error\n",
           MMX_VERSION_MAJOR, MMX_VERSION_MINOR, MMX_VERSION_PATCH);
}

/* ---- mmx info ----------------------------------------------------------------------------- */

static const char *order_name(mmx_index c)
{
    switch (c) {
    case 3: return "triangles";
    case 4: return "quads";
    case 5: return "pentagons";
    case 6: return "hexagons";
    default: return NULL;
    }
}

static void print_orders(const mmx_mesh_stats *st)
{
    if (st->nfaces == 0) {
        row("face orders", "none (no faces)");
        return;
    }
    int w = snprintf(NULL, 0, "%d", (int)st->nfaces);
    const char *label = "face orders";
    for (int c = 3; c < MMX_STATS_ORDERS; c++) {
        mmx_index n = st->order_hist[c];
        if (!n) continue;
        char key[8];
        snprintf(key, sizeof key, c == MMX_STATS_ORDERS - 1 ? "%d+:" : "%d:", c);
        row(label, "%-4s %*d  (%5.1f%%)", key, w, (int)n, 100.0 * n / st->nfaces);
        label = "";
    }
}

static void print_genus(const mmx_mesh_stats *st)
{
    if (st->nfaces == 0) row("genus", "n/a (no faces)");
    else if (st->genus_valid && st->components > 1)
        row("genus", "%d (sum over %d components)", (int)st->genus, (int)st->components);
    else if (st->genus_valid) row("genus", "%d", (int)st->genus);
    else if (!st->manifold) row("genus", "n/a (non-manifold)");
    else if (!st->oriented) row("genus", "n/a (inconsistently oriented)");
    else row("genus", "n/a (boundary loops could not be counted)");
}

static void print_reduced(const mmx_mesh_stats *st)
{
    if (st->nfaces == 0) {
        row("reduced form", "no (no faces)");
    } else if (st->uniform_order > 0) {
        const char *name = order_name(st->uniform_order);
        if (name) row("reduced form", "yes (%s)", name);
        else row("reduced form", "yes (faces of order %d)", (int)st->uniform_order);
    } else {
        row("reduced form", "no (mixed orders %d..%d)", (int)st->min_order, (int)st->max_order);
    }
}

static int cmd_info(mmx_ctx *ctx, const char *src, int is_default)
{
    mmx_mesh *mesh = NULL;
    double load_ms;
    mmx_status s = load(ctx, src, &mesh, &load_ms);
    if (s) return fail(ctx, s, src);
    mmx_mesh_stats st;
    double t0 = now_ms();
    s = mmx_mesh_stats_compute(ctx, mesh, &st);
    double stats_ms = now_ms() - t0;
    /* The edge figures come from the adjacency by algebra (E = M·Mᵀ with the edge map), on the
     * context's backend; the stats count them another way, so the two must agree. */
    mmx_adjacency *adj = NULL;
    double adj_ms = 0;
    if (!s) {
        t0 = now_ms();
        s = mmx_adjacency_compute(ctx, mesh, &adj);
        adj_ms = now_ms() - t0;
    }
    mmx_mesh_free(mesh);
    if (s) return fail(ctx, s, src);
    const mmx_adjacency a = *adj; /* the counts; the arrays are not read here */
    mmx_adjacency_free(adj);
    if (a.nedges != st.nedges || a.boundary_edges != st.boundary_edges ||
        a.nonmanifold_edges != st.nonmanifold_edges) {
        fprintf(stderr,
                "mmx: %s: internal error: the adjacency counts %d edges, %d boundary, %d "
                "non-manifold, but the mesh statistics count %d, %d, %d\n",
                src, (int)a.nedges, (int)a.boundary_edges, (int)a.nonmanifold_edges,
                (int)st.nedges, (int)st.boundary_edges, (int)st.nonmanifold_edges);
        return EXIT_FAIL;
    }

    const char *backend = backend_name(ctx);
    if (is_default) row("mesh", "%s (the default input; give a FILE to inspect another)", src);
    else row("mesh", "%s", src);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    row("vertices", "%d", (int)st.nverts);
    row("faces", "%d", (int)st.nfaces);
    row("edges", "%d", (int)a.nedges);
    row("corners", "%lld", (long long)st.ncorners);
    print_orders(&st);
    row("max valence", "%d", (int)a.max_valence);
    row("boundary edges", "%d", (int)a.boundary_edges);
    row("boundary vertices", "%d", (int)a.boundary_verts);
    row("boundary loops", "%d", (int)st.boundary_loops);
    row("non-manifold edges", "%d", (int)a.nonmanifold_edges);
    row("non-manifold verts", "%d", (int)st.nonmanifold_verts);
    row("inconsistent edges", "%d%s", (int)st.inconsistent_edges,
        st.inconsistent_edges ? " (faces on both sides run the edge the same way)" : "");
    if (st.repeated_faces == 0) row("repeated faces", "0");
    else
        row("repeated faces", "%d (faces %d and %d have the same vertices, %s)",
            (int)st.repeated_faces, (int)st.repeated_face[0], (int)st.repeated_face[1],
            st.repeated_orientation == 1    ? "in the same order: a duplicated face"
            : st.repeated_orientation == -1 ? "in opposite orders: a two-sided pillow"
                                            : "in another order");
    row("isolated vertices", "%d", (int)st.isolated_verts);
    row("components", "%d", (int)st.components);
    row("euler characteristic", "%lld", (long long)st.euler);
    print_genus(&st);
    row("bounding box", "x [%g, %g]  y [%g, %g]  z [%g, %g]", (double)st.bbox_min[0],
        (double)st.bbox_max[0], (double)st.bbox_min[1], (double)st.bbox_max[1],
        (double)st.bbox_min[2], (double)st.bbox_max[2]);
    print_reduced(&st);
    row("stats time", "%.3f ms (host)", stats_ms);
    row("adjacency time", "%.3f ms (%s backend)", adj_ms, backend);
    return EXIT_OK;
}

/* ---- mmx convert -------------------------------------------------------------------------- */

static int cmd_convert(mmx_ctx *ctx, const char *in, const char *out)
{
    mmx_format fmt = mmx_format_from_path(out);
    if (fmt == MMX_FORMAT_AUTO)
        return usage_error("%s: unknown output format (use a .obj, .off or .ply name)", out);
    if (check_output_file(out)) return EXIT_FAIL;
    mmx_mesh *mesh = NULL;
    double load_ms;
    mmx_status s = load(ctx, in, &mesh, &load_ms);
    if (s) return fail(ctx, s, in);
    int nv = (int)mmx_mesh_nverts(mesh), nf = (int)mmx_mesh_nfaces(mesh);
    double t0 = now_ms();
    s = mmx_mesh_write(ctx, mesh, out, fmt);
    double write_ms = now_ms() - t0;
    mmx_mesh_free(mesh);
    if (s) return fail(ctx, s, out);
    struct stat sb;
    long long bytes = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
    printf("read  %s: %d vertices, %d faces (%.3f ms)\n", in, nv, nf, load_ms);
    printf("wrote %s: %s, %d vertices, %d faces, %lld bytes (%.3f ms)\n", out,
           format_name(fmt), nv, nf, bytes, write_ms);
    return EXIT_OK;
}

/* ---- mmx reorder -------------------------------------------------------------------------- */

/* The locality figures of a mesh: bandwidth and profile of its vertex adjacency E, and how
 * far apart M stores a face's vertices (column spread) and a vertex's faces (row spread). */
typedef struct locality { mmx_band adj, m; } locality;

static mmx_status measure(mmx_ctx *ctx, const mmx_mesh *mesh, locality *out)
{
    mmx_adjacency *adj = NULL;
    mmx_status s = mmx_adjacency_compute(ctx, mesh, &adj);
    if (!s) s = mmx_csc_band(ctx, adj->E, &out->adj);
    if (!s) s = mmx_csc_band(ctx, mesh->M, &out->m);
    mmx_adjacency_free(adj);
    return s;
}

static int cmd_reorder(mmx_ctx *ctx, const char *in, const char *out)
{
    mmx_format fmt = mmx_format_from_path(out);
    if (fmt == MMX_FORMAT_AUTO)
        return usage_error("%s: unknown output format (use a .obj, .off or .ply name)", out);
    if (check_output_file(out)) return EXIT_FAIL;
    mmx_mesh *mesh = NULL, *re = NULL;
    double load_ms;
    mmx_status s = load(ctx, in, &mesh, &load_ms);
    if (s) return fail(ctx, s, in);
    locality before, after;
    double t0 = 0, reorder_ms = 0;
    s = measure(ctx, mesh, &before);
    if (!s) {
        t0 = now_ms();
        s = mmx_mesh_reorder(ctx, mesh, NULL, NULL, &re);
        reorder_ms = now_ms() - t0;
    }
    if (!s) s = measure(ctx, re, &after);
    mmx_mesh_free(mesh);
    if (s) {
        mmx_mesh_free(re);
        return fail(ctx, s, in);
    }
    int nv = (int)mmx_mesh_nverts(re), nf = (int)mmx_mesh_nfaces(re);
    t0 = now_ms();
    s = mmx_mesh_write(ctx, re, out, fmt);
    double write_ms = now_ms() - t0;
    mmx_mesh_free(re);
    if (s) return fail(ctx, s, out);
    struct stat sb;
    long long bytes = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
    const char *backend = backend_name(ctx);
    row("mesh", "%s", in);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    row("vertices", "%d", nv);
    row("faces", "%d", nf);
    row("adjacency bandwidth", "%d -> %d", (int)before.adj.bandwidth, (int)after.adj.bandwidth);
    row("adjacency profile", "%lld -> %lld", (long long)before.adj.profile,
        (long long)after.adj.profile);
    row("face spread", "%d -> %d (largest gap between a face's vertex numbers)",
        (int)before.m.col_spread, (int)after.m.col_spread);
    row("vertex spread", "%d -> %d (largest gap between the face numbers at a vertex)",
        (int)before.m.row_spread, (int)after.m.row_spread);
    row("reorder time", "%.3f ms (%s backend; adjacency, RCM on the host, permutation)",
        reorder_ms, backend);
    row("wrote", "%s: %s, %lld bytes (%.3f ms)", out, format_name(fmt), bytes, write_ms);
    return EXIT_OK;
}

/* ---- the command line --------------------------------------------------------------------- */

/* The exit status after making sure stdout got everything: a full disk or a closed pipe is a
 * failure too, not a silent success. */
static int finish(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mmx: cannot write to standard output\n");
        return rc ? rc : EXIT_FAIL;
    }
    return rc;
}

int main(int argc, char **argv)
{
    const char *pos[4];
    int npos = 0, help = 0, version = 0, options_done = 0;
    const char *backend = NULL, *scheme = NULL, *levels = NULL, *path = NULL, *size = NULL,
               *data = NULL;
    int reorder = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || a[1] == '\0') {
            if (npos == (int)(sizeof pos / sizeof pos[0]))
                return usage_error("too many arguments (from '%s' on)", a);
            pos[npos++] = a;
        } else if (strcmp(a, "--") == 0) {
            options_done = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help = 1;
        } else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            version = 1;
        } else if (strcmp(a, "--backend") == 0) {
            if (i + 1 >= argc) return usage_error("--backend needs a value: host or cuda");
            backend = argv[++i];
        } else if (strncmp(a, "--backend=", 10) == 0) {
            backend = a + 10;
        } else if (strcmp(a, "--scheme") == 0 || strcmp(a, "--levels") == 0) {
            if (i + 1 >= argc) return usage_error("%s needs a value", a);
            *(a[2] == 's' ? &scheme : &levels) = argv[++i];
        } else if (strncmp(a, "--scheme=", 9) == 0) {
            scheme = a + 9;
        } else if (strncmp(a, "--levels=", 9) == 0) {
            levels = a + 9;
        } else if (strcmp(a, "--path") == 0) {
            if (i + 1 >= argc) return usage_error("--path needs a value: fused or algebraic");
            path = argv[++i];
        } else if (strncmp(a, "--path=", 7) == 0) {
            path = a + 7;
        } else if (strcmp(a, "--reorder") == 0) {
            reorder = 1;
        } else if (strcmp(a, "--size") == 0 || strcmp(a, "--data") == 0) {
            if (i + 1 >= argc) return usage_error("%s needs a value", a);
            *(a[2] == 's' ? &size : &data) = argv[++i];
        } else if (strncmp(a, "--size=", 7) == 0) {
            size = a + 7;
        } else if (strncmp(a, "--data=", 7) == 0) {
            data = a + 7;
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    if (help) {
        print_help();
        return finish(EXIT_OK);
    }
    if (version) {
        printf("mmx %d.%d.%d (meshmatrix; CUDA backend %s)\n", MMX_VERSION_MAJOR,
               MMX_VERSION_MINOR, MMX_VERSION_PATCH, mmx_has_cuda() ? "built" : "not built");
        return finish(EXIT_OK);
    }
    if (backend && strcmp(backend, "cuda") != 0 && strcmp(backend, "host") != 0)
        return usage_error("unknown backend '%s' (use host or cuda)", backend);
    if (npos == 0) return usage_error("no command given");

    const char *cmd = pos[0];
    if (strcmp(cmd, "help") == 0) {
        print_help();
        return finish(EXIT_OK);
    }
    if (strcmp(cmd, "info") == 0) {
        if (npos > 2) return usage_error("info takes one FILE, got %d", npos - 1);
    } else if (strcmp(cmd, "convert") == 0) {
        if (npos < 3) return usage_error("convert needs IN and OUT");
        if (npos > 3) return usage_error("convert takes IN and OUT, got %d arguments", npos - 1);
    } else if (strcmp(cmd, "reorder") == 0) {
        if (npos < 3) return usage_error("reorder needs IN and OUT");
        if (npos > 3) return usage_error("reorder takes IN and OUT, got %d arguments", npos - 1);
    } else if (strcmp(cmd, "subdiv") == 0) {
        if (npos != 3) return usage_error("subdiv needs IN and OUT, got %d arguments", npos - 1);
    } else if (strcmp(cmd, "render") == 0) {
        if (npos != 3)
            return usage_error("render needs IN and OUT.png, got %d arguments", npos - 1);
    } else if (strcmp(cmd, "demo") == 0) {
        if (npos > 2) return usage_error("demo takes one DIR, got %d arguments", npos - 1);
    } else {
        return usage_error("unknown command '%s'", cmd);
    }
    const int is_subdiv = strcmp(cmd, "subdiv") == 0, is_demo = strcmp(cmd, "demo") == 0;
    if ((scheme || path || reorder) && !is_subdiv)
        return usage_error("--scheme, --path and --reorder belong to subdiv");
    if (levels && !is_subdiv && !is_demo) return usage_error("--levels belongs to subdiv and demo");
    if (size && strcmp(cmd, "render") != 0) return usage_error("--size belongs to render");
    if (data && !is_demo) return usage_error("--data belongs to demo");

    mmx_ctx *ctx = NULL;
    mmx_status s = mmx_ctx_create(&ctx);
    if (s) return fail(NULL, s, NULL);
    /* subdiv and demo run on the GPU when there is one and no backend was asked for. */
    char why[512];
    if (choose_backend(ctx, backend, is_subdiv || is_demo, why, sizeof why)) {
        mmx_ctx_free(ctx);
        return EXIT_FAIL;
    }
    int rc = strcmp(cmd, "info") == 0 ? cmd_info(ctx, npos == 2 ? pos[1] : DEFAULT_INPUT, npos < 2)
           : strcmp(cmd, "reorder") == 0 ? cmd_reorder(ctx, pos[1], pos[2])
           : strcmp(cmd, "render") == 0 ? cmd_render(ctx, pos[1], pos[2], size)
           : is_subdiv ? cmd_subdiv(ctx, scheme, levels, path, reorder, pos[1], pos[2])
           : is_demo ? cmd_demo(ctx, why, data, levels, npos == 2 ? pos[1] : ".")
                     : cmd_convert(ctx, pos[1], pos[2]);
    mmx_ctx_free(ctx);
    return finish(rc);
}
