/* mmx reorder: renumbers a mesh's vertices by reverse Cuthill-McKee and its faces by their
 * smallest vertex (thesis 4.3.4), shows the locality figures before and after, and writes the
 * result as convert does. */
#include <stdio.h>
#include "tool.h"

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

/* A figure before and after, as {"before": B, "after": A}. */
static void json_pair(const char *key, long long before, long long after)
{
    js_object(key);
    js_int("before", before);
    js_int("after", after);
    js_end();
}

static int work(mmx_ctx *ctx, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL, *re = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    locality before, after;
    double t0 = 0, reorder_ms = 0;
    mmx_status s = measure(ctx, mesh, &before);
    if (!s) {
        t0 = now_ms();
        s = mmx_mesh_reorder(ctx, mesh, NULL, NULL, &re);
        reorder_ms = now_ms() - t0;
    }
    if (!s) s = measure(ctx, re, &after);
    mmx_mesh_free(mesh);
    if (s) {
        mmx_mesh_free(re);
        return fail(ctx, s, in->name);
    }
    const int nv = (int)mmx_mesh_nverts(re), nf = (int)mmx_mesh_nfaces(re);
    long long bytes = -1;
    double write_ms = 0;
    int rc = output_write_mesh(ctx, re, out, &bytes, &write_ms);
    mmx_mesh_free(re);
    if (rc) return rc;
    const char *backend = backend_name(ctx);
    row("mesh", "%s", in->name);
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
    row_output(out, bytes, write_ms);

    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    json_pair("adjacency_bandwidth", before.adj.bandwidth, after.adj.bandwidth);
    json_pair("adjacency_profile", (long long)before.adj.profile, (long long)after.adj.profile);
    json_pair("face_spread", before.m.col_spread, after.m.col_spread);
    json_pair("vertex_spread", before.m.row_spread, after.m.row_spread);
    js_ms("reorder_ms", reorder_ms);
    js_output(out, nv, nf, bytes, write_ms);
    return EXIT_OK;
}

enum { O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT };

static const opt_spec reorder_opts[O_COUNT] = {
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = OPT_SPEC_DISCARD,
};

static int run(const tool_args *a)
{
    return run_mesh_command(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                            a->value[O_FORMAT], work);
}

const tool_cmd reorder_command = {
    .name = "reorder",
    .summary = "renumber a mesh for locality (reverse Cuthill-McKee)",
    .synopsis = "reorder IN OUT",
    .help = "Renumbers the vertices of IN by reverse Cuthill-McKee on the vertex adjacency and\n"
            "the faces by their smallest vertex (thesis 4.3.4), shows the bandwidth and\n"
            "profile of the vertex adjacency and the spreads of the mesh matrix before and\n"
            "after, and writes OUT as convert does.",
    .opts = reorder_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
