/* mmx normals: computes a mesh's vertex normals (area-, angle- or uniformly weighted, geom.h)
 * and writes the mesh with them: OBJ 'vn' lines with 'v//vn' corners, PLY nx ny nz vertex
 * properties (OFF carries none). */
#include <stdio.h>
#include <stdlib.h>
#include "tool.h"

enum { O_WEIGHT, O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT };

static const opt_spec normals_opts[O_COUNT] = {
    [O_WEIGHT] = {"weight", 0, "area|angle|uniform",
                  "how the faces at a vertex weigh in its normal: by their area\n"
                  "(the default), by the corner's angle, or alike"},
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = OPT_SPEC_DISCARD,
};

/* The weighting, parsed by run before any work (mesh_work_fn takes no option values). */
static mmx_normal_weight weighting = MMX_NORMAL_AREA;

/* Vertices whose normal came out zero (in no face, or their faces cancel or are degenerate). */
static long long count_zero(const float *n, mmx_index nv)
{
    long long z = 0;
    for (mmx_index v = 0; v < nv; v++)
        z += n[3 * (size_t)v] == 0.0f && n[3 * (size_t)v + 1] == 0.0f && n[3 * (size_t)v + 2] == 0.0f;
    return z;
}

static int work(mmx_ctx *ctx, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    const mmx_space sp = mmx_ctx_space(ctx);
    float *n = NULL;
    mmx_status s = MMX_OK;
    if (!mesh->pos) s = MMX_ERR_ARG;
    if (s) {
        mmx_mesh_free(mesh);
        fprintf(stderr, "mmx: %s: the mesh has no positions\n", in->name);
        return EXIT_FAIL;
    }
    s = mmx_mem_alloc(ctx, sp, 3 * (size_t)nv * sizeof *n, (void **)&n);
    double t0 = now_ms(), normals_ms = 0;
    if (!s) s = mmx_vertex_normals(ctx, mesh, weighting, n);
    if (!s) s = mmx_ctx_sync(ctx); /* the time includes the queued kernels */
    normals_ms = now_ms() - t0;
    /* The mesh keeps its normals in host memory (mesh.h), which the writers read. */
    if (!s) s = mmx_mesh_set_normals(ctx, mesh, n, sp);
    mmx_mem_free(ctx, sp, n);
    if (s) {
        mmx_mesh_free(mesh);
        return fail(ctx, s, in->name);
    }
    const long long zero = count_zero(mesh->normals, nv);
    long long bytes = -1;
    double write_ms = 0;
    int rc = output_write_mesh(ctx, mesh, out, &bytes, &write_ms);
    mmx_mesh_free(mesh);
    if (rc) return rc;
    const char *backend = backend_name(ctx);
    row("mesh", "%s", in->name);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    row("vertices", "%d", (int)nv);
    row("faces", "%d", (int)nf);
    row("weighting", "%s", mmx_normal_weight_name(weighting));
    row("zero normals", "%lld (vertices in no face, or whose faces cancel)", zero);
    row("normals time", "%.3f ms (%s backend)", normals_ms, backend);
    if (out->kind == OUT_DISCARD)
        row("discarded", "the result (--discard: nothing written)");
    else if (out->fmt == MMX_FORMAT_OFF || out->fmt == MMX_FORMAT_STL || out->fmt == MMX_FORMAT_STL_ASCII)
        row("wrote", "%s: %s, without the normals (%s has no place for vertex normals)", out->name,
            format_name(out->fmt), out->fmt == MMX_FORMAT_OFF ? "OFF" : "STL");
    else if (bytes >= 0)
        row("wrote", "%s: %s, %lld bytes (%.3f ms)", out->name, format_name(out->fmt), bytes, write_ms);
    else
        row("wrote", "%s: %s (%.3f ms)", out->name, format_name(out->fmt), write_ms);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_str("weight", mmx_normal_weight_name(weighting));
    js_int("zero_normals", zero);
    js_ms("normals_ms", normals_ms);
    js_output(out, nv, nf, bytes, write_ms);
    return EXIT_OK;
}

static int run(const tool_args *a)
{
    const char *w = a->value[O_WEIGHT];
    if (w && mmx_normal_weight_parse(NULL, w, &weighting))
        return usage_error("unknown --weight '%s' (use area, angle or uniform)", w);
    return run_mesh_command(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                            a->value[O_FORMAT], work);
}

const tool_cmd normals_command = {
    .name = "normals",
    .summary = "compute vertex normals and write the mesh with them",
    .synopsis = "normals [--weight area|angle|uniform] IN OUT",
    .help = "Computes the vertex normals of IN (any face order) by the algebra: each face's\n"
            "Newell normal, weighted by its area (the default), by the angle at the vertex's\n"
            "corner, or uniformly, summed over the faces at each vertex through the\n"
            "transposed mesh matrix and normalised; a vertex in no face gets a zero normal.\n"
            "Writes OUT with them: OBJ as 'vn' lines with 'v//vn' corners ('v/vt/vn' with\n"
            "texture coordinates), PLY as nx ny nz vertex properties; OFF has no place for\n"
            "them and is written without.\n"
            "Under `mpirun -n R` it runs partitioned over the ranks (docs/dist.md); IN may be\n"
            "part files, PREFIX.index (mmx partition's): each rank reads its part alone. An\n"
            "OBJ or PLY OUT is written by every rank, each its block (MPI-IO), no rank\n"
            "holding the whole (from a mesh with tags, texture coordinates or colours, and\n"
            "to OFF, STL or standard output, rank 0 gathers it and writes).",
    .opts = normals_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
