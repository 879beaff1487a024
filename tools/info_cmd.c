/* mmx info: what a mesh is made of: counts, face orders, boundary, manifoldness, orientation,
 * components, Euler characteristic and genus, bounding box, whether the reduced form applies,
 * and how long loading took. The edge figures come from the adjacency by algebra (E = M·Mᵀ)
 * on the context's backend, the rest from the host statistics, and the two must agree. */
#include <stdio.h>
#include "tool.h"

#define DEFAULT_INPUT "builtin:torus"

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

/* The names of the tags' options (mesh.h, OpenSubdiv's values), NULL for -1 (not given). */
static const char *tag_word(int v, const char *const *words, int n)
{
    return v >= 0 && v < n ? words[v] : NULL;
}
static const char *const interp_words[] = {"none", "edge-and-corner", "edge-only"};
static const char *const crease_words[] = {"uniform", "chaikin"};
static const char *const tri_words[] = {"catmark", "smooth"};
static const char *const fvar_words[] = {"none", "corners-only", "corners-plus1",
                                         "corners-plus2", "boundaries", "all"};
#define TAG_WORD(v, words) tag_word(v, words, (int)(sizeof words / sizeof *words))

/* The same figures as one JSON object's members (keys as the rows' labels, with '_'). */
static void json_figures(const mmx_mesh_stats *st, const mmx_adjacency *a)
{
    js_int("edges", a->nedges);
    js_int("corners", (long long)st->ncorners);
    js_object("face_orders"); /* "3": triangles, ...; the last key counts that order and more */
    for (int c = 3; c < MMX_STATS_ORDERS; c++) {
        if (!st->order_hist[c]) continue;
        char key[8];
        snprintf(key, sizeof key, c == MMX_STATS_ORDERS - 1 ? "%d+" : "%d", c);
        js_int(key, st->order_hist[c]);
    }
    js_end();
    js_int("max_valence", a->max_valence);
    js_int("boundary_edges", a->boundary_edges);
    js_int("boundary_vertices", a->boundary_verts);
    js_int("boundary_loops", st->boundary_loops);
    js_int("nonmanifold_edges", a->nonmanifold_edges);
    js_int("nonmanifold_vertices", st->nonmanifold_verts);
    js_int("inconsistent_edges", st->inconsistent_edges);
    js_int("repeated_faces", st->repeated_faces);
    js_int("isolated_vertices", st->isolated_verts);
    js_int("components", st->components);
    js_int("euler_characteristic", (long long)st->euler);
    if (st->nfaces > 0 && st->genus_valid) js_int("genus", st->genus);
    else js_null("genus");
    js_object("bounding_box");
    js_array("min");
    for (int i = 0; i < 3; i++) js_float(NULL, st->bbox_min[i]);
    js_end();
    js_array("max");
    for (int i = 0; i < 3; i++) js_float(NULL, st->bbox_max[i]);
    js_end();
    js_end();
    /* The common face order when the reduced form applies, else null. */
    if (st->nfaces > 0 && st->uniform_order > 0) js_int("reduced_order", st->uniform_order);
    else js_null("reduced_order");
}

static int work(mmx_ctx *ctx, const tool_input *in, int is_default, int patches)
{
    const char *src = in->name;
    mmx_mesh *mesh = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    mmx_mesh_stats st;
    double t0 = now_ms();
    mmx_status s = mmx_mesh_stats_compute(ctx, mesh, &st);
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
    /* The patch set (--patches), built from the mesh and its adjacency on the backend. */
    mmx_patch_stats pst;
    double patch_ms = 0;
    if (!s && patches) {
        mmx_patch_set *set = NULL;
        t0 = now_ms();
        s = mmx_patch_set_create(ctx, mesh, adj, NULL, &set);
        if (!s) s = mmx_patch_set_stats(ctx, set, &pst);
        patch_ms = now_ms() - t0;
        mmx_patch_set_free(set);
    }
    /* (The reader checked them: a file with bad tags is refused, naming the line.) */
    mmx_mesh_tags *tags = NULL;
    const mmx_index uv_values = mesh->uv ? mesh->uv->nvalues : -1;
    if (!s && mesh->tags) s = mmx_mesh_tags_parse(ctx, mesh, &tags);
    mmx_mesh_free(mesh);
    if (s) {
        mmx_adjacency_free(adj);
        return fail(ctx, s, src);
    }
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
    if (uv_values >= 0) row("texture coords", "%d values, one on every corner", (int)uv_values);
    if (!tags) {
        row("tags", "none");
    } else {
        const char *ib = TAG_WORD(tags->interpolate_boundary, interp_words);
        const char *cm = TAG_WORD(tags->crease_method, crease_words);
        const char *st3 = TAG_WORD(tags->smooth_triangles, tri_words);
        row("tags", "%d crease%s, %d corner%s, %d hole%s; interpolateboundary %s, creasemethod %s, "
            "smoothtriangles %s", (int)tags->ncreases, tags->ncreases == 1 ? "" : "s",
            (int)tags->ncorners, tags->ncorners == 1 ? "" : "s", (int)tags->nholes,
            tags->nholes == 1 ? "" : "s", ib ? ib : "not given", cm ? cm : "not given",
            st3 ? st3 : "not given");
    }
    row("stats time", "%.3f ms (host)", stats_ms);
    row("adjacency time", "%.3f ms (%s backend)", adj_ms, backend);
    if (patches) print_patch_stats(&pst, MMX_PATCH_DEFAULT_FACES, 0, patch_ms, backend);

    js_str("backend", backend);
    js_input(src, st.nverts, st.nfaces, load_ms);
    json_figures(&st, &a);
    if (tags) { /* the options by name, null where the file gives none */
        js_object("tags");
        js_int("creases", tags->ncreases);
        js_int("corners", tags->ncorners);
        js_int("holes", tags->nholes);
        js_str("interpolateboundary", TAG_WORD(tags->interpolate_boundary, interp_words));
        js_str("creasemethod", TAG_WORD(tags->crease_method, crease_words));
        js_str("smoothtriangles", TAG_WORD(tags->smooth_triangles, tri_words));
        js_str("facevaryinginterpolateboundary",
               TAG_WORD(tags->fvar_interpolate_boundary, fvar_words));
        if (tags->fvar_propagate_corners >= 0)
            js_bool("facevaryingpropagatecorners", tags->fvar_propagate_corners);
        else js_null("facevaryingpropagatecorners");
        js_end();
    } else {
        js_null("tags");
    }
    mmx_mesh_tags_free(tags);
    js_ms("stats_ms", stats_ms);
    js_ms("adjacency_ms", adj_ms);
    return EXIT_OK;
}

enum { O_FORMAT, O_FROM, O_PATCHES, O_COUNT };

static const opt_spec info_opts[O_COUNT] = {
    [O_FORMAT] = {"format", 0, "obj|off|ply|stl", "the format of standard input (FILE given as -;\ntold by its content without it)"},
    [O_FROM] = OPT_SPEC_FROM,
    [O_PATCHES] = {"patches", 0, NULL, "also build the patch set (RXMesh patches of at most 512\n"
                                       "faces with ribbons) and print its figures"},
};

static int run(const tool_args *a)
{
    if (a->npos > 1) return usage_error("info takes one FILE, got %d", a->npos);
    tool_input in;
    const int is_default = a->npos == 0;
    if (input_resolve(is_default ? DEFAULT_INPUT : a->pos[0], a->value[O_FROM],
                      a->value[O_FORMAT], &in))
        return EXIT_USAGE;
    mmx_ctx *ctx = NULL;
    char why[512];
    if (open_context(a->global[G_BACKEND], 0, &ctx, why, sizeof why)) return EXIT_FAIL;
    int rc = work(ctx, &in, is_default, a->value[O_PATCHES] != NULL);
    mmx_ctx_free(ctx);
    return rc;
}

const tool_cmd info_command = {
    .name = "info",
    .summary = "what a mesh is made of: counts, boundary, manifoldness, genus, ...",
    .synopsis = "info [FILE]",
    .help = "Prints the counts (vertices, faces, edges, corners, face orders), the boundary\n"
            "(edges, vertices, loops), non-manifold edges and vertices, inconsistently oriented\n"
            "edges, repeated faces, isolated vertices, components, Euler characteristic and\n"
            "genus, the bounding box, whether the reduced form applies, and the times. The\n"
            "edge figures come from the adjacency computed by algebra (E and F from M·Mᵀ) on\n"
            "the chosen backend. A non-manifold or badly oriented mesh is reported, not\n"
            "refused. Without FILE it inspects " DEFAULT_INPUT "; FILE - reads standard input\n"
            "(with --format). With --patches it also builds the patch set and prints its\n"
            "patches, owned faces per patch, ribbon share, largest patch, memory and time.\n"
            "Its memory is all the set holds (blocks, maps, offsets, face owners), then its\n"
            "topology counted as RXMesh counts its own (blocks, offsets, the ribbon's map\n"
            "entries: not the owned elements' maps, which give the mesh's own numbering and\n"
            "which RXMesh, naming elements by patch and local index, does not keep).",
    .opts = info_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
