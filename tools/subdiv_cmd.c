/* mmx subdiv: subdivision through the public API, with per-level sizes and times (the
 * report is shared with mmx demo). The scheme, level count, output format and output are
 * checked before any work; the library checks the mesh (face orders, manifoldness, sizes)
 * before it refines anything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

/* The path's name in JSON; the text says what the default is. */
static const char *path_name(mmx_subdiv_path path)
{
    return path == MMX_SUBDIV_PATH_ALGEBRAIC ? "algebraic"
           : path == MMX_SUBDIV_PATH_FUSED   ? "fused"
                                             : "default";
}

static const char *path_text(mmx_subdiv_path path)
{
    return path == MMX_SUBDIV_PATH_AUTO ? "default path (fused where it applies)"
           : path == MMX_SUBDIV_PATH_FUSED ? "fused path"
                                           : "algebraic path";
}

static const char *boundary_name(mmx_boundary b)
{
    return b == MMX_BOUNDARY_EDGE_AND_CORNER ? "edge-and-corner"
           : b == MMX_BOUNDARY_EDGE_ONLY     ? "edge-only"
           : b == MMX_BOUNDARY_NONE          ? "none"
                                             : "tagged";
}

static const char *crease_name(mmx_crease_method m)
{
    return m == MMX_CREASE_CHAIKIN ? "chaikin" : m == MMX_CREASE_UNIFORM ? "uniform" : "tagged";
}

/* The text report's table of levels and the whole time, from the trace. */
static void say_levels(const mmx_subdiv_level *trace, int levels, double total_ms)
{
    say("%-8s %12s %12s %12s %12s\n", "level", "vertices", "faces", "edges", "time (ms)");
    for (int l = 0; l < levels; l++)
        say("%-8d %12d %12d %12d %12.3f\n", l + 1, (int)trace[l].nverts, (int)trace[l].nfaces,
            (int)trace[l].nedges, trace[l].ms);
    row("subdivision time", "%.3f ms in all (checks and copies included)", total_ms);
}

/* The JSON report's "per_level" array: each level's counts and time, from the trace. */
static void js_levels(const mmx_subdiv_level *trace, int levels)
{
    js_array("per_level");
    for (int l = 0; l < levels; l++) {
        js_object(NULL);
        js_int("level", l + 1);
        js_int("vertices", trace[l].nverts);
        js_int("faces", trace[l].nfaces);
        js_int("edges", trace[l].nedges);
        js_ms("ms", trace[l].ms);
        js_end();
    }
    js_end();
}

int subdiv_report(mmx_ctx *ctx, mmx_scheme scheme, int levels, mmx_subdiv_options base,
                  const mmx_mesh *mesh, const char *name, double load_ms, mmx_mesh **fine)
{
    *fine = NULL;
    mmx_subdiv_level *trace = calloc(levels > 0 ? (size_t)levels : 1, sizeof *trace);
    if (!trace) return out_of_memory("the subdivision's trace");
    mmx_subdiv_options opts = base;
    opts.trace = trace;
    const mmx_subdiv_path path = base.path;
    const mmx_boundary boundary = base.boundary;
    const int nv = (int)mmx_mesh_nverts(mesh), nf = (int)mmx_mesh_nfaces(mesh);
    /* Creases are Loop's and Catmull-Clark's (OpenSubdiv's); sqrt3 and bilinear have none. */
    const int creased = scheme == MMX_SCHEME_LOOP || scheme == MMX_SCHEME_CATMULL_CLARK;
    char creases[64] = "";
    if (creased)
        snprintf(creases, sizeof creases, ", creases %s",
                 base.crease == MMX_CREASE_FROM_MESH ? "as tagged (else uniform)" : crease_name(base.crease));
    row("scheme", "%s, %d level%s, %s, %s boundaries%s, %s backend", mmx_scheme_name(scheme),
        levels, levels == 1 ? "" : "s", path_text(path),
        boundary == MMX_BOUNDARY_FROM_MESH ? "tagged (else edge-only)" : boundary_name(boundary),
        creases, backend_name(ctx));
    char counts[COUNTS_LEN];
    counts_text(counts, nv, nf);
    if (load_ms >= 0)
        row("input", "%s: %s (loaded in %.3f ms)", name, counts, load_ms);
    else
        row("input", "%s: %s", name, counts);
    double t0 = now_ms();
    mmx_status s = mmx_subdivide(ctx, scheme, mesh, levels, &opts, fine);
    double total_ms = now_ms() - t0;
    if (s) {
        free(trace);
        return fail(ctx, s, name);
    }
    say_levels(trace, levels, total_ms);

    js_str("scheme", mmx_scheme_name(scheme));
    js_int("levels", levels);
    js_str("path", path_name(path));
    js_str("boundary", boundary_name(boundary));
    js_str("creases", creased ? crease_name(base.crease) : NULL);
    js_input(name, nv, nf, load_ms);
    js_levels(trace, levels);
    js_ms("subdivision_ms", total_ms);
    free(trace);
    return EXIT_OK;
}

enum { O_SCHEME, O_LEVELS, O_PATH, O_BOUNDARY, O_CREASE, O_HOLES, O_TRIANGLES, O_UV, O_LIMIT,
       O_REORDER, O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT };

static const opt_spec subdiv_opts[O_COUNT] = {
    [O_SCHEME] = {"scheme", 0, "S",
                  "loop (triangles), sqrt3 (triangles; boundaries by\n"
                  "Kobbelt's rule),\n"
                  "catmull-clark (any polygons; also cc) or bilinear (any\n"
                  "polygons, linear positions); required"},
    [O_LEVELS] = {"levels", 0, "N", "how many times to subdivide (default 1; 0 copies)"},
    [O_PATH] = {"path", 0, "P",
                "fused or algebraic: the implementation (same result). By\n"
                "default the fused one, but for what only the algebraic one\n"
                "takes (edges of three faces or more, creases at a vertex of\n"
                "several fans) and sqrt3 with boundary (whose fused path\n"
                "takes each level's topology from the algebraic one)"},
    [O_BOUNDARY] = {"boundary", 0, "B",
                    "edge-only (boundary edges are creases) or edge-and-corner\n"
                    "(also: a boundary vertex on one face stays where it is), as\n"
                    "OpenSubdiv's VTX_BOUNDARY_* (Loop and Catmull-Clark), or\n"
                    "none (the faces at the boundary are holes: see --holes); by\n"
                    "default IN's 'interpolateboundary' tag, else edge-only"},
    [O_CREASE] = {"crease-method", 0, "M",
                  "uniform (a crease's children are 1 less sharp) or chaikin\n"
                  "(averaged with the creases around each end first), as\n"
                  "OpenSubdiv's CREASE_*; by default IN's 'creasemethod' tag,\n"
                  "else uniform. Creases are IN's 't crease' tags (Loop and\n"
                  "Catmull-Clark)"},
    [O_HOLES] = {"holes", 0, "H",
                 "remove (the default: the children of IN's 't hole' faces,\n"
                 "and the vertices only they use, are left out, as in\n"
                 "OpenSubdiv's refined surface) or keep (kept and tagged as\n"
                 "holes, for a later mmx subdiv to continue)"},
    [O_TRIANGLES] = {"triangles", 0, "T",
                     "catmark or smooth: Catmull-Clark's rule for edges beside\n"
                     "triangles (OpenSubdiv's TRI_SUB_*); by default IN's\n"
                     "'smoothtriangles' tag, else catmark"},
    [O_UV] = {"uv", 0, "U",
              "linear, smooth, corners or boundaries: how IN's texture\n"
              "coordinates are refined (OpenSubdiv's FVAR_LINEAR_ALL, _NONE,\n"
              "_CORNERS_ONLY, _BOUNDARIES); by default IN's\n"
              "'facevaryinginterpolateboundary' tag, else linear"},
    [O_LIMIT] = {"limit", 0, NULL,
                 "push the last level's vertices to the limit surface\n"
                 "(OpenSubdiv's limit masks; Loop, Catmull-Clark, bilinear)"},
    [O_REORDER] = {"reorder", 0, NULL,
                   "renumber IN first as mmx reorder does (RCM), for locality"},
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = OPT_SPEC_DISCARD,
};

/* IN with faces that name a vertex twice, which a mesh cannot hold: read as face lists,
 * refined by mmx_subdivide_faces (on the host, as OpenSubdiv refines them) and written as OBJ
 * face lists (the result may repeat vertices too). */
static int work_faces(mmx_ctx *ctx, mmx_scheme scheme, int levels, mmx_subdiv_options base,
                      int reorder, const tool_input *in, const tool_output *out)
{
    if (reorder || base.path != MMX_SUBDIV_PATH_AUTO) {
        fprintf(stderr, "mmx: %s: it has faces that name a vertex twice, which only the default "
                        "path refines, without --reorder (a mesh cannot hold them)\n", in->name);
        return EXIT_FAIL;
    }
    if (out->kind == OUT_STDOUT || (out->kind == OUT_FILE && out->fmt != MMX_FORMAT_OBJ)) {
        fprintf(stderr, "mmx: %s: faces that name a vertex twice are written to OBJ files only\n",
                out->name);
        return EXIT_FAIL;
    }
    mmx_faces *f = NULL, *r = NULL;
    mmx_subdiv_level *trace = calloc(levels > 0 ? (size_t)levels : 1, sizeof *trace);
    if (!trace) return out_of_memory("the subdivision's trace");
    double t0 = now_ms();
    mmx_status s = mmx_faces_read(ctx, in->arg, &f);
    const double load_ms = now_ms() - t0;
    if (s) {
        free(trace);
        return fail(ctx, s, in->name);
    }
    row("scheme", "%s, %d level%s, face lists (faces that repeat a vertex), %s boundaries, host",
        mmx_scheme_name(scheme), levels, levels == 1 ? "" : "s",
        base.boundary == MMX_BOUNDARY_FROM_MESH ? "tagged (else edge-only)" : boundary_name(base.boundary));
    char counts[COUNTS_LEN];
    row("input", "%s: %s (loaded in %.3f ms)", in->name, counts_text(counts, f->nverts, f->nfaces), load_ms);
    mmx_subdiv_options opts = base;
    opts.trace = trace;
    t0 = now_ms();
    s = mmx_subdivide_faces(ctx, scheme, f, levels, &opts, &r);
    const double total_ms = now_ms() - t0;
    const long long nv0 = f->nverts, nf0 = f->nfaces;
    mmx_faces_free(f);
    if (s) {
        free(trace);
        return fail(ctx, s, in->name);
    }
    say_levels(trace, levels, total_ms);
    js_str("backend", "host");
    js_str("scheme", mmx_scheme_name(scheme));
    js_int("levels", levels);
    js_str("path", "face lists");
    js_str("boundary", boundary_name(base.boundary));
    js_input(in->name, nv0, nf0, load_ms);
    js_levels(trace, levels);
    js_ms("subdivision_ms", total_ms);
    free(trace);
    counts_text(counts, r->nverts, r->nfaces);
    if (out->kind == OUT_DISCARD) {
        row("discarded", "the result: %s (--discard: nothing written)", counts);
    } else {
        t0 = now_ms();
        s = mmx_faces_write(ctx, r, out->path);
        if (s) {
            mmx_faces_free(r);
            return fail(ctx, s, out->name);
        }
        const double write_ms = now_ms() - t0;
        row("wrote", "%s: OBJ face lists, %s (%.3f ms)", out->name, counts, write_ms);
        js_output(out, r->nverts, r->nfaces, -1, write_ms);
    }
    mmx_faces_free(r);
    return EXIT_OK;
}

/* Refines IN and writes OUT, printing the report. */
static int work(mmx_ctx *ctx, mmx_scheme scheme, int levels, mmx_subdiv_options base,
                int reorder, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL, *fine = NULL;
    double load_ms = 0;
    mmx_status rs = input_read(ctx, in, &mesh, &load_ms);
    /* Faces that name a vertex twice (OpenSubdiv's non-manifold shapes): the face lists. */
    if (rs == MMX_ERR_MESH && strstr(mmx_ctx_error(ctx), "appears twice") &&
        strcmp(in->arg, "-") != 0)
        return work_faces(ctx, scheme, levels, base, reorder, in, out);
    if (rs) return input_failed(ctx, rs, in);
    if (!mesh->pos) {
        mmx_mesh_free(mesh);
        fprintf(stderr, "mmx: %s: the mesh has no vertex positions to subdivide\n", in->name);
        return EXIT_FAIL;
    }
    js_str("backend", backend_name(ctx));
    if (reorder) {
        mmx_mesh *r = NULL;
        double t0 = now_ms();
        mmx_status s = mmx_mesh_reorder(ctx, mesh, NULL, NULL, &r);
        mmx_mesh_free(mesh);
        if (s) return fail(ctx, s, in->name);
        mesh = r;
        double ms = now_ms() - t0;
        row("reordered", "vertices by reverse Cuthill-McKee, faces by their first vertex (%.3f ms)",
            ms);
        js_ms("reorder_ms", ms);
    }
    int rc = subdiv_report(ctx, scheme, levels, base, mesh, in->name, load_ms, &fine);
    mmx_mesh_free(mesh);
    if (rc) return rc;
    long long bytes = -1;
    double write_ms = 0;
    const int nv = (int)mmx_mesh_nverts(fine), nf = (int)mmx_mesh_nfaces(fine);
    rc = output_write_mesh(ctx, fine, out, &bytes, &write_ms);
    mmx_mesh_free(fine);
    if (rc) return rc;
    char counts[COUNTS_LEN];
    counts_text(counts, nv, nf);
    if (out->kind == OUT_DISCARD)
        row("discarded", "the result: %s (--discard: nothing written)", counts);
    else if (bytes >= 0)
        row("wrote", "%s: %s, %s, %lld bytes (%.3f ms)", out->name, format_name(out->fmt), counts,
            bytes, write_ms);
    else
        row("wrote", "%s: %s, %s (%.3f ms)", out->name, format_name(out->fmt), counts, write_ms);
    js_output(out, nv, nf, bytes, write_ms);
    return EXIT_OK;
}

/* An option's word and the value it names. */
typedef struct word {
    const char *name;
    int value;
} word;

/* *out = the value of the word `arg` among the n words (the first when arg is NULL); an
 * unknown word is a usage error naming the option and the words (EXIT_USAGE). */
static int pick(const char *option, const char *arg, const word *words, int n, int *out)
{
    *out = words[0].value;
    if (!arg) return 0;
    for (int k = 0; k < n; k++)
        if (strcmp(arg, words[k].name) == 0) {
            *out = words[k].value;
            return 0;
        }
    char list[160] = "";
    for (int k = 0; k < n; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", words[k].name);
    usage_error("unknown --%s '%s' (use %s)", option, arg, list);
    return EXIT_USAGE;
}

static int run(const tool_args *a)
{
    mmx_scheme scheme;
    int levels;
    if (parse_scheme(a->value[O_SCHEME], -1, &scheme)) return EXIT_USAGE;
    if (!parse_levels(a->value[O_LEVELS], 1, &levels))
        return usage_error("--levels needs a whole number from 0 to %d, got '%s'", MAX_LEVELS,
                           a->value[O_LEVELS]);
    /* Each option's words and the values they name; absent, the first (the default). */
    static const word paths[] = {{"default", MMX_SUBDIV_PATH_AUTO}, {"fused", MMX_SUBDIV_PATH_FUSED},
                                 {"algebraic", MMX_SUBDIV_PATH_ALGEBRAIC}};
    static const word bounds[] = {{"tagged", MMX_BOUNDARY_FROM_MESH}, {"edge-only", MMX_BOUNDARY_EDGE_ONLY},
                                  {"edge-and-corner", MMX_BOUNDARY_EDGE_AND_CORNER},
                                  {"none", MMX_BOUNDARY_NONE}};
    static const word creases[] = {{"tagged", MMX_CREASE_FROM_MESH}, {"uniform", MMX_CREASE_UNIFORM},
                                   {"chaikin", MMX_CREASE_CHAIKIN}};
    static const word holes[] = {{"remove", MMX_HOLES_REMOVE}, {"keep", MMX_HOLES_KEEP}};
    static const word tris[] = {{"tagged", MMX_TRIANGLES_FROM_MESH}, {"catmark", MMX_TRIANGLES_CATMARK},
                                {"smooth", MMX_TRIANGLES_SMOOTH}};
    static const word fvars[] = {{"tagged", MMX_FVAR_FROM_MESH}, {"linear", MMX_FVAR_LINEAR_ALL},
                                 {"smooth", MMX_FVAR_SMOOTH}, {"corners", MMX_FVAR_CORNERS_ONLY},
                                 {"boundaries", MMX_FVAR_BOUNDARIES}};
#define PICK(name, opt, words, out) pick(name, a->value[opt], words, (int)(sizeof words / sizeof *words), out)
    int path, boundary, crease, hole, tri, fvar;
    if (PICK("path", O_PATH, paths, &path) || PICK("boundary", O_BOUNDARY, bounds, &boundary) ||
        PICK("crease-method", O_CREASE, creases, &crease) || PICK("holes", O_HOLES, holes, &hole) ||
        PICK("triangles", O_TRIANGLES, tris, &tri) || PICK("uv", O_UV, fvars, &fvar))
        return EXIT_USAGE;
#undef PICK
    mmx_subdiv_options base = {0};
    base.path = (mmx_subdiv_path)path, base.boundary = (mmx_boundary)boundary;
    base.crease = (mmx_crease_method)crease, base.holes = (mmx_hole_mode)hole;
    base.triangles = (mmx_triangle_rule)tri, base.fvar = (mmx_fvar_mode)fvar;
    base.limit = a->value[O_LIMIT] != NULL;
    tool_input in;
    tool_output out;
    int rc = mesh_in_out(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                         a->value[O_FORMAT], &in, &out);
    if (rc) return rc;
    mmx_ctx *ctx = NULL;
    char why[512];
    if (open_context(a->global[G_BACKEND], 1, &ctx, why, sizeof why)) return EXIT_FAIL;
    rc = work(ctx, scheme, levels, base, a->value[O_REORDER] != NULL, &in, &out);
    mmx_ctx_free(ctx);
    return rc;
}

const tool_cmd subdiv_command = {
    .name = "subdiv",
    .summary = "subdivide a mesh: Loop, sqrt3, Catmull-Clark or bilinear",
    .synopsis = "subdiv --scheme S [--levels N] [--path P] [--boundary B] [--crease-method M] [--holes H] [--triangles T] [--uv U] [--limit] [--reorder] IN OUT",
    .help = "Subdivides IN N times (default 1) by scheme S, prints each level's sizes and\n"
            "time, and writes OUT as convert does (or nothing, with --discard). The input\n"
            "is checked first: Loop and sqrt3 take triangles only (sqrt3 refines a\n"
            "boundary by Kobbelt's rule, cutting boundary edges in three every second\n"
            "level, on every path), and non-manifold or\n"
            "inconsistently oriented input, or a level count whose result would not\n"
            "fit in 32-bit indices or in memory, is refused with the reason (exit 1).\n"
            "An OBJ file whose faces name a vertex twice (OpenSubdiv's non-manifold\n"
            "shapes) is refined as OpenSubdiv refines it, on face lists on the host\n"
            "(Loop, Catmull-Clark, bilinear; boundary tags only; default path), and\n"
            "written as OBJ; Loop on two-sided pillows takes that path too.\n"
            "Runs on the GPU when there is one, unless --backend host.\n"
            "Under `mpirun -n R` it runs partitioned over the ranks (docs/dist.md); IN may be\n"
            "part files, PREFIX.index (mmx partition's): each rank reads its part alone.\n"
            "--boundary, --crease-method, --triangles, --holes and --limit apply there too.\n"
            "Loop, Catmull-Clark and bilinear to an OBJ or PLY OUT are written by every\n"
            "rank, each numbering its share as one process does: the same file, no rank\n"
            "holding the result (Catmull-Clark level 7 of a large scan over 4 GPUs). sqrt3,\n"
            "a tagged mesh to OBJ, holes kept to OBJ, texture coordinates with --boundary\n"
            "none, and OFF, STL or standard output are gathered on rank 0 instead, its\n"
            "vertices (and texture coordinates) then numbered by first use in face order.\n"
            "--uv applies over ranks too; texture coordinates are refined there as here.",
    .opts = subdiv_opts,
    .nopts = O_COUNT,
    .flags = CMD_GPU_DEFAULT | CMD_JSON,
    .run = run,
};
