/* mmx subdiv: subdivision through the public API, with per-level sizes and times (the
 * report is shared with mmx demo). The scheme, level count, output format and output folder
 * are checked before any work; the library checks the mesh (face orders, manifoldness,
 * sizes) before it refines anything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

int subdiv_report(mmx_ctx *ctx, mmx_scheme scheme, int levels, mmx_subdiv_path path,
                  const mmx_mesh *mesh, const char *name, double load_ms, mmx_mesh **fine)
{
    *fine = NULL;
    mmx_subdiv_level *trace = calloc(levels > 0 ? (size_t)levels : 1, sizeof *trace);
    if (!trace) {
        fprintf(stderr, "mmx: out of memory\n");
        return EXIT_FAIL;
    }
    mmx_subdiv_options opts = {0};
    opts.trace = trace;
    opts.path = path;
    row("scheme", "%s, %d level%s, %s path, %s backend", mmx_scheme_name(scheme), levels,
        levels == 1 ? "" : "s", path == MMX_SUBDIV_PATH_ALGEBRAIC ? "algebraic" : "fused",
        backend_name(ctx));
    if (load_ms >= 0)
        row("input", "%s: %d vertices, %d faces (loaded in %.3f ms)", name,
            (int)mmx_mesh_nverts(mesh), (int)mmx_mesh_nfaces(mesh), load_ms);
    else
        row("input", "%s: %d vertices, %d faces", name, (int)mmx_mesh_nverts(mesh),
            (int)mmx_mesh_nfaces(mesh));
    double t0 = now_ms();
    mmx_status s = mmx_subdivide(ctx, scheme, mesh, levels, &opts, fine);
    double total_ms = now_ms() - t0;
    if (s) {
        free(trace);
        return fail(ctx, s, name);
    }
    printf("%-8s %12s %12s %12s %12s\n", "level", "vertices", "faces", "edges", "time (ms)");
    for (int l = 0; l < levels; l++)
        printf("%-8d %12d %12d %12d %12.3f\n", l + 1, (int)trace[l].nverts, (int)trace[l].nfaces,
               (int)trace[l].nedges, trace[l].ms);
    free(trace);
    row("subdivision time", "%.3f ms in all (checks and copies included)", total_ms);
    return EXIT_OK;
}

/* Refines `in` and writes `out`, printing the report. */
static int run(mmx_ctx *ctx, mmx_scheme scheme, int levels, mmx_subdiv_path path, int reorder,
               const char *in, const char *out, mmx_format fmt)
{
    mmx_mesh *mesh = NULL, *fine = NULL;
    double load_ms = 0;
    mmx_status s = load(ctx, in, &mesh, &load_ms);
    if (s) return fail(ctx, s, in);
    if (!mesh->pos) {
        mmx_mesh_free(mesh);
        fprintf(stderr, "mmx: %s: the mesh has no vertex positions to subdivide\n", in);
        return EXIT_FAIL;
    }
    if (reorder) {
        mmx_mesh *r = NULL;
        double t0 = now_ms();
        s = mmx_mesh_reorder(ctx, mesh, NULL, NULL, &r);
        mmx_mesh_free(mesh);
        if (s) return fail(ctx, s, in);
        mesh = r;
        row("reordered", "vertices by reverse Cuthill-McKee, faces by their first vertex (%.3f ms)",
            now_ms() - t0);
    }
    int rc = subdiv_report(ctx, scheme, levels, path, mesh, in, load_ms, &fine);
    mmx_mesh_free(mesh);
    if (rc) return rc;
    double t0 = now_ms();
    s = mmx_mesh_write(ctx, fine, out, fmt);
    double write_ms = now_ms() - t0;
    int nv = (int)mmx_mesh_nverts(fine), nf = (int)mmx_mesh_nfaces(fine);
    mmx_mesh_free(fine);
    if (s) return fail(ctx, s, out);
    row("wrote", "%s: %s, %d vertices, %d faces, %lld bytes (%.3f ms)", out, format_name(fmt), nv,
        nf, file_bytes(out), write_ms);
    return EXIT_OK;
}

int cmd_subdiv(mmx_ctx *ctx, const char *scheme_arg, const char *levels_arg, const char *path_arg,
               int reorder, const char *in, const char *out)
{
    mmx_scheme scheme;
    int levels;
    if (!scheme_arg) return usage_error("subdiv needs --scheme loop|sqrt3|catmull-clark");
    if (mmx_scheme_parse(scheme_arg, &scheme))
        return usage_error("unknown scheme '%s' (use loop, sqrt3 or catmull-clark)", scheme_arg);
    if (!parse_levels(levels_arg, 1, &levels))
        return usage_error("--levels needs a whole number from 0 to %d, got '%s'", MAX_LEVELS,
                           levels_arg);
    mmx_format fmt = mmx_format_from_path(out);
    if (fmt == MMX_FORMAT_AUTO)
        return usage_error("%s: unknown output format (use a .obj, .off or .ply name)", out);
    mmx_subdiv_path path = MMX_SUBDIV_PATH_FUSED;
    if (path_arg && strcmp(path_arg, "algebraic") == 0) path = MMX_SUBDIV_PATH_ALGEBRAIC;
    else if (path_arg && strcmp(path_arg, "fused") != 0)
        return usage_error("unknown --path '%s' (use fused or algebraic)", path_arg);
    if (check_output_file(out)) return EXIT_FAIL;
    return run(ctx, scheme, levels, path, reorder, in, out, fmt);
}
