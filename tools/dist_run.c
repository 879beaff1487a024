/* mmx under `mpirun -n R` (R > 1): normals, smooth, subdiv and query on the mesh partitioned
 * over the ranks (dist.h), on the host, or with --backend cuda each rank on the GPU of its local
 * rank. Every rank reads the whole input and cuts its part (the library's simple first
 * construction), computes it with its ghost rings, and the result is written once: to an OBJ
 * or PLY file by every rank, each its block (normals and smooth: mmx_dist_write_obj, _ply;
 * subdiv: mmx_dist_subdivide_write, the single process's numbers), else gathered on rank 0
 * and written there (query: the single process's text, byte for byte). Usage errors are said
 * by rank 0 alone (usage_error). The report (rank 0's) adds the ranks, each rank's part and halo, its time
 * and the bytes it sent; with --json one object whose "ranks" is R. A failure on any rank is
 * agreed over the ranks (mmx_dist_agree): every rank exits 1, and rank 0 prints the sentence,
 * which names the rank. */
#include <stdlib.h>
#include <string.h>
#include "dist_run.h"
#ifdef MMX_HAVE_MPI
#include <mpi.h>
#endif

int dist_launched(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0) return atoi(v);
    }
    return 1;
}

/* The part files' index named as IN (normals, smooth and subdiv: the first positional
 * argument; query: the second), or NULL. */
static const char *parts_index(const tool_cmd *cmd, const tool_args *a)
{
    static const char *const cmds[] = {"normals", "smooth", "subdiv", "query"};
    const int at = !strcmp(cmd->name, "query");
    int known = 0;
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) known |= !strcmp(cmd->name, cmds[i]);
    if (!known || a->npos <= at) return NULL;
    const char *in = a->pos[at];
    const size_t n = strlen(in);
    return n > 6 && !strcmp(in + n - 6, ".index") ? in : NULL;
}

int dist_parts_input(const tool_cmd *cmd, const tool_args *a)
{
    return parts_index(cmd, a) != NULL;
}

/* An option's value by its name in the command's table (NULL: not given). */
static const char *value(const tool_cmd *cmd, const tool_args *a, const char *name)
{
    for (int i = 0; i < cmd->nopts; i++)
        if (!strcmp(cmd->opts[i].name, name)) return a->value[i];
    return NULL;
}

/* Every option given is one of `ok` (a NULL-ended list), else a usage error naming it. */
static int only(const tool_cmd *cmd, const tool_args *a, const char *const *ok, int R)
{
    for (int i = 0; i < cmd->nopts; i++) {
        if (!a->value[i]) continue;
        int found = 0;
        for (const char *const *o = ok; *o && !found; o++) found = !strcmp(*o, cmd->opts[i].name);
        if (!found)
            return usage_error("--%s does not run over MPI ranks yet (%d ranks): run mmx %s "
                               "without mpirun for it", cmd->opts[i].name, R, cmd->name);
    }
    return 0;
}

/* An option's word among names (n of them) as its value in vals; absent: *out unchanged.
 * Unknown: a usage error listing the words. */
static int word(const char *opt, const char *arg, const char *const *names, const int *vals,
                int n, int *out)
{
    if (!arg) return 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(arg, names[i])) return *out = vals[i], 0;
    char list[200] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return usage_error("unknown --%s '%s' (use %s)", opt, arg, list);
}

#ifdef MMX_HAVE_MPI

/* One rank's figures, gathered on rank 0 for the report. */
typedef struct rank_row {
    long long owned_faces, ghost_faces, owned_verts, local_verts, halo_verts, sent_bytes;
    long long out_faces;
    double ms;
} rank_row;

static void report_ranks(const rank_row *rows, int R, int rings, double total_ms)
{
    long long sent = 0, halo = 0;
    for (int q = 0; q < R; q++) sent += rows[q].sent_bytes, halo += rows[q].halo_verts;
    row("ranks", "%d (MPI), %d ghost ring%s; halo %lld vertices; %lld bytes exchanged and "
        "gathered; %.3f ms", R, rings, rings == 1 ? "" : "s", halo, sent, total_ms);
    for (int q = 0; q < R; q++) {
        char label[32];
        snprintf(label, sizeof label, "rank %d", q);
        row(label, "%lld faces + %lld ghosts, %lld of %lld vertices owned, halo %lld, %s%.3f ms, "
            "%lld bytes sent", rows[q].owned_faces, rows[q].ghost_faces, rows[q].owned_verts,
            rows[q].local_verts, rows[q].halo_verts, "", rows[q].ms, rows[q].sent_bytes);
    }
    js_int("ranks", R);
    js_int("rings", rings);
    js_int("exchanged_bytes", sent);
    js_ms("dist_ms", total_ms);
    js_array("per_rank");
    for (int q = 0; q < R; q++) {
        js_object(NULL);
        js_int("owned_faces", rows[q].owned_faces);
        js_int("ghost_faces", rows[q].ghost_faces);
        js_int("owned_verts", rows[q].owned_verts);
        js_int("local_verts", rows[q].local_verts);
        js_int("halo_verts", rows[q].halo_verts);
        js_int("sent_bytes", rows[q].sent_bytes);
        if (rows[q].out_faces >= 0) js_int("result_faces", rows[q].out_faces);
        js_ms("ms", rows[q].ms);
        js_end();
    }
    js_end();
}

typedef struct job {
    const tool_cmd *cmd;
    const tool_args *a;
    int R, me;
    mmx_ctx *ctx;  /* where the partitioned mesh computes: the host, or the rank's GPU */
    mmx_ctx *hctx; /* the host: reading the input, the gathered values, writing */
    mmx_dist *d;
    mmx_query_kind kind; /* query's */
    const char *parts;   /* the part files' prefix when IN is PREFIX.index, else NULL */
} job;

/* The agreed status as the tool's exit: rank 0 prints the sentence. */
static int agreed(job *j, mmx_status s, const char *what)
{
    s = mmx_dist_agree(j->ctx, j->d, s);
    if (!s) return EXIT_OK;
    if (j->me == 0) fail(j->ctx, s, what);
    return EXIT_FAIL;
}

/* Rank 0's text of the gathered query (the single process's bytes: query_text) to OUT, and the
 * report's rows but the ranks'. info: after the query (the edges' count). */
static int write_query(mmx_query_kind kind, int64_t nrows, const mmx_index *rowptr,
                       const mmx_index *colidx, const mmx_dist_info *info,
                       const tool_input *in, const tool_output *out, double load_ms)
{
    const long long nnz = rowptr[nrows];
    const long long nverts = info->global_verts, nfaces = info->global_faces;
    const long long ncols = kind == MMX_QUERY_VE || kind == MMX_QUERY_FE ? info->global_edges
                            : kind == MMX_QUERY_VF || kind == MMX_QUERY_EF || kind == MMX_QUERY_FF
                                ? nfaces
                                : nverts;
    text t = {NULL, 0, 0, 0};
    int rc = query_text(&t, kind, in->name, nrows, ncols, nnz, 0, rowptr, colidx);
    if (!rc) rc = output_write_bytes(out, t.data, t.len);
    const size_t bytes = t.len;
    free(t.data);
    if (rc) return rc;
    char counts[COUNTS_LEN];
    row("input", "%s: %s (loaded in %.3f ms on each rank)", in->name,
        counts_text(counts, nverts, nfaces), load_ms);
    row("operation", "query %s: %lld rows, %lld entries, each rank answering its owned rows, "
        "rank 0 gathering", mmx_query_name(kind), (long long)nrows, nnz);
    row("wrote", "%s: text, %zu bytes", out->name, bytes);
    js_input(in->name, nverts, nfaces, load_ms);
    js_str("query", mmx_query_name(kind));
    js_int("rows", nrows);
    js_int("entries", nnz);
    js_object("output");
    js_str("path", out->name);
    js_str("format", "text");
    js_int("bytes", (long long)bytes);
    js_end();
    return EXIT_OK;
}

/* query's KIND MESH [OUT] (as query_cmd.c takes them): OUT a file, checked before any work, or
 * standard output when absent or - (the report then goes to stderr). */
static int query_in_out(const tool_cmd *cmd, const tool_args *a, mmx_query_kind *kind,
                        tool_input *in, tool_output *out)
{
    if (a->npos < 2 || a->npos > 3)
        return usage_error("query takes KIND MESH [OUT], got %d argument%s", a->npos,
                           a->npos == 1 ? "" : "s");
    if (mmx_query_parse(NULL, a->pos[0], kind))
        return usage_error("unknown query kind '%s' (use VV, VE, VF, EV, EF, FV, FE or FF)",
                           a->pos[0]);
    if (input_resolve(a->pos[1], value(cmd, a, "from"), value(cmd, a, "format"), in))
        return EXIT_USAGE;
    const char *o = a->npos == 3 ? a->pos[2] : NULL;
    if (o && strcmp(o, "-")) {
        *out = (tool_output){OUT_FILE, o, o, MMX_FORMAT_AUTO};
        return check_output_file(o);
    }
    *out = (tool_output){OUT_STDOUT, "-", "<stdout>", MMX_FORMAT_AUTO};
    report_to_stderr();
    return EXIT_OK;
}

static int run_job(job *j, const tool_input *in, const tool_output *out)
{
    const tool_cmd *cmd = j->cmd;
    const tool_args *a = j->a;
    const int is_subdiv = !strcmp(cmd->name, "subdiv"), is_smooth = !strcmp(cmd->name, "smooth");
    const int is_query = !strcmp(cmd->name, "query");
    /* The operation's parameters, parsed before any work. */
    mmx_scheme scheme = MMX_SCHEME_CATMULL_CLARK;
    int levels = 1, rings = 1, limit = 0;
    mmx_hole_mode holes = MMX_HOLES_REMOVE;
    int boundary = MMX_BOUNDARY_FROM_MESH, crease = MMX_CREASE_FROM_MESH;
    int tris = MMX_TRIANGLES_FROM_MESH, fvar = MMX_FVAR_FROM_MESH;
    mmx_normal_weight weight = MMX_NORMAL_AREA;
    mmx_smooth_options so = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    if (is_subdiv) {
        if (parse_scheme(value(cmd, a, "scheme"), -1, &scheme)) return EXIT_USAGE;
        if (!parse_levels(value(cmd, a, "levels"), 1, &levels))
            return usage_error("--levels needs a whole number from 0 to %d", MAX_LEVELS);
        limit = value(cmd, a, "limit") != NULL;
        const char *h = value(cmd, a, "holes");
        if (h && strcmp(h, "remove") && strcmp(h, "keep"))
            return usage_error("unknown --holes '%s' (use remove, keep)", h);
        holes = h && !strcmp(h, "keep") ? MMX_HOLES_KEEP : MMX_HOLES_REMOVE;
        /* The library takes every boundary, crease and triangle rule over ranks (the local
         * refinement applies them, the ghost ring holding what they read). */
        static const char *const bn[] = {"tagged", "edge-only", "edge-and-corner", "none"};
        static const int bv[] = {MMX_BOUNDARY_FROM_MESH, MMX_BOUNDARY_EDGE_ONLY,
                                 MMX_BOUNDARY_EDGE_AND_CORNER, MMX_BOUNDARY_NONE};
        static const char *const cn[] = {"tagged", "uniform", "chaikin"};
        static const int cv[] = {MMX_CREASE_FROM_MESH, MMX_CREASE_UNIFORM, MMX_CREASE_CHAIKIN};
        static const char *const tn[] = {"tagged", "catmark", "smooth"};
        static const int tv[] = {MMX_TRIANGLES_FROM_MESH, MMX_TRIANGLES_CATMARK, MMX_TRIANGLES_SMOOTH};
        if (word("boundary", value(cmd, a, "boundary"), bn, bv, 4, &boundary) ||
            word("crease-method", value(cmd, a, "crease-method"), cn, cv, 3, &crease) ||
            word("triangles", value(cmd, a, "triangles"), tn, tv, 3, &tris))
            return EXIT_USAGE;
        static const char *const un[] = {"tagged", "linear", "smooth", "corners", "boundaries"};
        static const int uvv[] = {MMX_FVAR_FROM_MESH, MMX_FVAR_LINEAR_ALL, MMX_FVAR_SMOOTH,
                                  MMX_FVAR_CORNERS_ONLY, MMX_FVAR_BOUNDARIES};
        if (word("uv", value(cmd, a, "uv"), un, uvv, 5, &fvar)) return EXIT_USAGE;
        char name[40];
        snprintf(name, sizeof name, "subdiv:%s%d", scheme == MMX_SCHEME_SQRT3 ? "sqrt3:" : "", levels);
        rings = mmx_dist_rings(name);
    } else if (is_smooth) {
        const char *m = value(cmd, a, "method"), *it = value(cmd, a, "iterations");
        const char *lam = value(cmd, a, "lambda") ? value(cmd, a, "lambda") : value(cmd, a, "step");
        const char *mu = value(cmd, a, "mu");
        mmx_smooth_method method = MMX_SMOOTH_TAUBIN;
        if (m && mmx_smooth_method_parse(NULL, m, &method))
            return usage_error("unknown --method '%s'", m);
        so = mmx_smooth_defaults(method);
        if (it && !parse_int(it, 0, 1000000, &so.iterations))
            return usage_error("--iterations needs a whole number from 0 to 1000000, got '%s'", it);
        char *end = NULL;
        if (lam && ((so.step = strtof(lam, &end)), !end || *end))
            return usage_error("--lambda needs a number, got '%s'", lam);
        if (mu && ((so.mu = strtof(mu, &end)), !end || *end))
            return usage_error("--mu needs a number, got '%s'", mu);
        so.fix_boundary = value(cmd, a, "fix-boundary") != NULL;
        char name[40];
        snprintf(name, sizeof name, "smooth:%s", mmx_smooth_method_name(method));
        rings = mmx_dist_rings(name);
        if (rings < 0)
            return usage_error("--method %s does not run over MPI ranks yet", mmx_smooth_method_name(method));
    } else if (is_query) {
        rings = mmx_dist_rings("query");
    } else {
        const char *w = value(cmd, a, "weight");
        if (w && mmx_normal_weight_parse(NULL, w, &weight))
            return usage_error("unknown --weight '%s' (use area, angle or uniform)", w);
    }

    mmx_mesh *mesh = NULL, *result = NULL;
    mmx_dist_mesh *dm = NULL;
    float *loc = NULL, *whole = NULL;
    double load_ms = 0, t0 = 0;
    int rc = EXIT_OK;
    mmx_status s = MMX_OK;
    if (j->parts) {
        /* Each rank reads its part (the time of that is the load); no whole mesh anywhere. */
        t0 = now_ms();
        s = mmx_dist_mesh_read_parts(j->ctx, j->d, j->parts, &dm);
        load_ms = now_ms() - t0;
        if (s) {
            if (j->me == 0) fail(j->ctx, s, in->name);
            return EXIT_FAIL;
        }
        /* The mesh rank 0 writes normals or positions into is gathered from the parts, whose
         * tags are in local numbers: said once when some part has tags (dist.h). */
        int tagged = mmx_dist_mesh_local(dm)->tags != NULL;
        MPI_Allreduce(MPI_IN_PLACE, &tagged, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (j->me == 0 && tagged && !is_subdiv && !is_query)
            fprintf(stderr, "mmx: warning: %s: the parts' crease and corner tags are not written "
                    "with the result (run on the mesh itself to keep them)\n", in->name);
        t0 = now_ms();
    } else {
        rc = input_load(j->hctx, in, &mesh, &load_ms) ? EXIT_FAIL : EXIT_OK;
        /* The reading rank printed its failure; the others learn of it here. */
        s = rc ? MMX_ERR_IO : MMX_OK;
        if (!s && !mesh->pos) s = MMX_ERR_ARG;
        if (mmx_dist_agree(j->ctx, j->d, s)) {
            mmx_mesh_free(mesh);
            if (j->me == 0 && !rc) fprintf(stderr, "mmx: %s: the input could not be read on every rank, or has no positions\n", in->name);
            return EXIT_FAIL;
        }
        t0 = now_ms();
        s = mmx_dist_mesh_create(j->ctx, j->d, mesh, NULL, rings, &dm);
        if (s) {
            mmx_mesh_free(mesh);
            if (j->me == 0) fail(j->ctx, s, in->name);
            return EXIT_FAIL;
        }
    }
    mmx_dist_info info;
    mmx_dist_mesh_info(dm, &info);
    const long long in_verts = info.global_verts, in_faces = info.global_faces;
    rings = info.rings;
    const mmx_mesh *local = mmx_dist_mesh_local(dm);
    const mmx_index nl = mmx_mesh_nverts(local);
    long long out_faces = -1;
    /* To an OBJ or PLY file all ranks write it (mmx_dist_write_obj, _ply): no rank gathers
     * the whole. The single process writes what the input carries beside positions and faces
     * (tags, texture coordinates, colours; smooth: the input's normals), which the parts do
     * not hold: from a mesh that has any, rank 0 gathers and writes as before (the same on
     * every rank: every rank read the same mesh). */
    const int plain = j->parts || (!mesh->tags && !mesh->uv && !mesh->colors &&
                                   (!is_smooth || !mesh->normals));
    const int ply = out->fmt == MMX_FORMAT_PLY;
    /* subdiv: mmx_dist_subdivide_write, the single process's numbers, texture coordinates
     * included; where it refuses (sqrt3, holes, an OBJ of a tagged mesh, texture coordinates
     * with boundary mode none: MMX_ERR_UNSUPPORTED on every rank, before any work) rank 0
     * gathers (mmx_dist_subdivide: texture coordinates too, numbered by first use). */
    int direct = out->kind == OUT_FILE && (out->fmt == MMX_FORMAT_OBJ || ply) &&
                 (is_subdiv || (plain && !is_query));
    long long direct_bytes = -1;
    double direct_ms = 0;
    s = MMX_OK;
    if (!is_subdiv && !is_query) {
        /* The local values in the context's space (device memory on CUDA); the gathered
         * whole in host memory. */
        s = mmx_mem_alloc(j->ctx, mmx_ctx_space(j->ctx), 3 * (size_t)nl * sizeof *loc + 4, (void **)&loc);
        if (j->me == 0 && !direct) whole = malloc(3 * (size_t)in_verts * sizeof *whole + 4);
        if (!s && j->me == 0 && !direct && !whole) s = MMX_ERR_NOMEM;
    }
    rc = agreed(j, s, "out of memory");
    mmx_smooth_report sr;
    memset(&sr, 0, sizeof sr);
    mmx_dist_subdiv_report dr;
    memset(&dr, 0, sizeof dr);
    int64_t qrows = 0;
    mmx_index *qrow = NULL, *qcol = NULL;
    if (!rc) {
        if (is_subdiv) {
            mmx_subdiv_options o;
            memset(&o, 0, sizeof o);
            o.limit = limit, o.holes = holes, o.boundary = (mmx_boundary)boundary;
            o.crease = (mmx_crease_method)crease, o.triangles = (mmx_triangle_rule)tris;
            o.fvar = (mmx_fvar_mode)fvar;
            if (direct) {
                int64_t b = 0;
                s = mmx_dist_subdivide_write(j->ctx, dm, scheme, levels, &o, out->path, out->fmt, &b, &dr);
                direct_bytes = b, direct_ms = dr.gather_ms;
                if (s == MMX_ERR_UNSUPPORTED) direct = 0;
            }
            if (!direct) s = mmx_dist_subdivide(j->ctx, dm, scheme, levels, &o, &result, &dr);
        } else if (is_query) {
            s = mmx_dist_query(j->ctx, dm, j->kind, &qrows, &qrow, &qcol);
        } else if (is_smooth) {
            s = mmx_dist_smooth(j->ctx, dm, &so, loc, &sr);
        } else {
            s = mmx_dist_vertex_normals(j->ctx, dm, weight, loc);
        }
        if (!s && direct && !is_subdiv) {
            const double w0 = now_ms();
            int64_t b = 0;
            s = (ply ? mmx_dist_write_ply : mmx_dist_write_obj)(j->ctx, dm, is_smooth ? loc : local->pos,
                                                                is_smooth ? NULL : loc, out->path, &b);
            direct_bytes = b, direct_ms = now_ms() - w0;
        }
        if (!s && !is_subdiv && !is_query && !direct) s = mmx_dist_gather(j->ctx, dm, loc, 3, whole);
        /* From part files, the mesh the values go into, on rank 0. */
        if (!s && !is_subdiv && !is_query && j->parts && !direct)
            s = mmx_dist_mesh_gather(j->ctx, dm, &mesh);
        if (s) {
            if (j->me == 0) fail(j->ctx, s, in->name);
            rc = EXIT_FAIL;
        }
    }
    const double ms = now_ms() - t0;
    if (!rc && j->me == 0 && !is_subdiv && !is_query && !direct) {
        /* The gathered values into rank 0's whole mesh. */
        if (is_smooth) {
            memcpy(mesh->pos, whole, 3 * (size_t)in_verts * sizeof *whole);
            s = MMX_OK;
        } else {
            s = mmx_mesh_set_normals(j->hctx, mesh, whole, MMX_SPACE_HOST);
        }
        if (s) rc = fail(j->hctx, s, in->name);
    }
    if (is_subdiv) out_faces = dr.owned_faces;
    /* The per-rank figures to rank 0. */
    mmx_dist_mesh_info(dm, &info);
    rank_row mine = {info.owned_faces, info.ghost_faces, info.owned_verts, info.local_verts,
                     info.halo_recv_verts, info.exchanged_bytes, out_faces, ms};
    rank_row *rows = j->me == 0 ? calloc((size_t)j->R, sizeof *rows) : NULL;
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, rows, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (!rc && j->me == 0 && is_query) {
        rc = write_query(j->kind, qrows, qrow, qcol, &info, in, out, load_ms);
        if (!rc) report_ranks(rows, j->R, rings, ms);
    } else if (!rc && j->me == 0) {
        const mmx_mesh *res = is_subdiv ? result : mesh;
        long long bytes = direct_bytes;
        double write_ms = direct_ms;
        if (!direct) rc = output_write_mesh(is_subdiv ? j->ctx : j->hctx, res, out, &bytes, &write_ms);
        const long long res_verts = !direct ? mmx_mesh_nverts(res) : is_subdiv ? dr.written_verts : in_verts;
        const long long res_faces = !direct ? mmx_mesh_nfaces(res) : is_subdiv ? dr.written_faces : in_faces;
        if (!rc) {
            char counts[COUNTS_LEN];
            row("input", "%s: %s (%s in %.3f ms on each rank)", in->name,
                counts_text(counts, in_verts, in_faces), j->parts ? "its part read" : "loaded", load_ms);
            if (is_subdiv)
                row("operation", "%s, %d level%s%s, each rank refining its part and %d ghost "
                    "ring%s with no exchange, %s", mmx_scheme_name(scheme), levels,
                    levels == 1 ? "" : "s", limit ? ", limit positions" : "", rings, rings == 1 ? "" : "s",
                    direct ? "numbering its share as one process does" : "rank 0 gathering");
            else if (is_smooth)
                row("operation", "%s, %d iteration%s, a halo exchange per step",
                    mmx_smooth_method_name(so.method), sr.iterations, sr.iterations == 1 ? "" : "s");
            else
                row("operation", "vertex normals (%s), one halo exchange", mmx_normal_weight_name(weight));
            row("result", "%s%s", counts_text(counts, res_verts, res_faces),
                direct ? " (written by every rank, each its block: MPI-IO)" : "");
            report_ranks(rows, j->R, rings, ms);
            row_output(out, bytes, write_ms);
            js_input(in->name, in_verts, in_faces, load_ms);
            js_output(out, res_verts, res_faces, bytes, write_ms);
        }
    }
    /* rank 0's write decides the exit status of every rank */
    int r0 = rc;
    MPI_Bcast(&r0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!rc) rc = r0;
    free(rows), free(whole), free(qrow), free(qcol);
    mmx_mem_free(j->ctx, mmx_ctx_space(j->ctx), loc);
    mmx_mesh_free(result);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(mesh);
    return rc;
}

int dist_partition(const tool_cmd *cmd, const tool_args *a)
{
    int rings = 1;
    const char *rv = a->value[DIST_PARTITION_RINGS];
    if (rv && !parse_int(rv, 1, 64, &rings))
        return usage_error("--rings needs a whole number from 1 to 64, got '%s'", rv);
    if (a->npos != 2) return usage_error("%s needs IN and PREFIX", cmd->name);
    tool_input in;
    int rc = input_resolve(a->pos[0], a->value[DIST_PARTITION_FROM], NULL, &in);
    if (rc) return rc;
    const char *prefix = a->pos[1];
    int provided = 0;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
    job j = {cmd, a, 1, 0, NULL, NULL, NULL, MMX_QUERY_VV, NULL};
    if (mmx_ctx_create(&j.ctx) || mmx_dist_create(j.ctx, NULL, &j.d)) {
        fprintf(stderr, "mmx: %s\n", mmx_ctx_error(j.ctx));
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
    }
    j.me = mmx_dist_rank(j.d), j.R = mmx_dist_size(j.d);
    if (j.me != 0) report_begin(REPORT_QUIET, cmd->name);
    mmx_mesh *mesh = NULL;
    mmx_dist_mesh *dm = NULL;
    double load_ms = 0;
    /* Every rank reads IN (the reading rank prints its failure; the others learn of it). */
    rc = input_load(j.ctx, &in, &mesh, &load_ms) ? EXIT_FAIL : EXIT_OK;
    if (mmx_dist_agree(j.ctx, j.d, rc ? MMX_ERR_IO : MMX_OK)) {
        if (j.me == 0 && !rc) fprintf(stderr, "mmx: %s: the input could not be read on every rank\n", in.name);
        rc = EXIT_FAIL;
    }
    /* The part files hold no texture coordinates (dist.h): said, and left out. */
    if (!rc && mesh->uv) {
        if (j.me == 0)
            fprintf(stderr, "mmx: warning: %s: texture coordinates are not written to part files "
                    "(left out)\n", in.name);
        mmx_mesh_uv_free(mesh->uv);
        mesh->uv = NULL;
    }
    const double t0 = now_ms();
    if (!rc) {
        mmx_status s = mmx_dist_mesh_create(j.ctx, j.d, mesh, NULL, rings, &dm);
        if (!s) s = mmx_dist_mesh_write_parts(j.ctx, dm, prefix);
        if (s) {
            if (j.me == 0) fail(j.ctx, s, s == MMX_ERR_IO ? prefix : in.name);
            rc = EXIT_FAIL;
        }
    }
    const double ms = now_ms() - t0;
    if (!rc) {
        mmx_dist_info info;
        mmx_dist_mesh_info(dm, &info);
        rank_row mine = {info.owned_faces, info.ghost_faces, info.owned_verts, info.local_verts,
                         info.halo_recv_verts, info.exchanged_bytes, -1, ms};
        rank_row *rows = j.me == 0 ? calloc((size_t)j.R, sizeof *rows) : NULL;
        MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, rows, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (j.me == 0) {
            char counts[COUNTS_LEN];
            row("input", "%s: %s (loaded in %.3f ms on each rank)", in.name,
                counts_text(counts, mmx_mesh_nverts(mesh), mmx_mesh_nfaces(mesh)), load_ms);
            row("wrote", "%s.0.part .. %s.%d.part and %s.index", prefix, prefix, j.R - 1, prefix);
            report_ranks(rows, j.R, rings, ms);
            js_input(in.name, mmx_mesh_nverts(mesh), mmx_mesh_nfaces(mesh), load_ms);
            js_str("prefix", prefix);
        }
        free(rows);
    }
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(mesh);
    mmx_dist_free(j.d);
    mmx_ctx_free(j.ctx);
    MPI_Finalize();
    return rc;
}

int dist_run(const tool_cmd *cmd, const tool_args *a)
{
    if (!strcmp(cmd->name, "partition")) return dist_partition(cmd, a);
    static const char *const subdiv_ok[] = {"scheme", "levels", "limit", "holes", "boundary",
                                            "crease-method", "triangles", "uv", "format", "from",
                                            "to", "discard", NULL};
    static const char *const smooth_ok[] = {"method", "iterations", "lambda", "step", "mu",
                                            "fix-boundary", "format", "from", "to", "discard", NULL};
    static const char *const normals_ok[] = {"weight", "format", "from", "to", "discard", NULL};
    static const char *const query_ok[] = {"format", "from", NULL};
    const int R = dist_launched();
    const int is_query = !strcmp(cmd->name, "query");
    const char *const *ok = !strcmp(cmd->name, "subdiv")    ? subdiv_ok
                            : !strcmp(cmd->name, "smooth")  ? smooth_ok
                            : !strcmp(cmd->name, "normals") ? normals_ok
                            : is_query                      ? query_ok
                                                            : NULL;
    if (!ok)
        return usage_error("mmx %s does not run over MPI ranks (started by mpirun with %d ranks): "
                           "normals, smooth, subdiv and query do", cmd->name, R);
    if (only(cmd, a, ok, R)) return EXIT_USAGE;
    /* IN as part files: PREFIX.index names them; every rank reads its part. */
    const char *index = parts_index(cmd, a);
    char parts[4096] = "";
    if (index) {
        if (value(cmd, a, "from"))
            return usage_error("--from does not apply to part files (%s)", index);
        if (strlen(index) - 6 >= sizeof parts) return usage_error("%s: the name is too long", index);
        memcpy(parts, index, strlen(index) - 6);
    }
    const char *backend = a->global[G_BACKEND];
    if (backend && strcmp(backend, "host") && strcmp(backend, "cuda"))
        return usage_error("unknown --backend '%s' (host or cuda)", backend);
    const int cuda = backend && !strcmp(backend, "cuda");
    tool_input in;
    tool_output out;
    mmx_query_kind kind = MMX_QUERY_VV;
    int rc = is_query ? query_in_out(cmd, a, &kind, &in, &out)
                      : mesh_in_out(a, value(cmd, a, "discard"), value(cmd, a, "from"),
                                    value(cmd, a, "to"), value(cmd, a, "format"), &in, &out);
    if (rc) return rc;
    int provided = 0;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
    job j = {cmd, a, R, 0, NULL, NULL, NULL, kind, index ? parts : NULL};
    if (mmx_ctx_create(&j.hctx) || mmx_ctx_create(&j.ctx) || mmx_dist_create(j.ctx, NULL, &j.d)) {
        fprintf(stderr, "mmx: %s\n", mmx_ctx_error(j.ctx));
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
    }
    j.me = mmx_dist_rank(j.d), j.R = mmx_dist_size(j.d);
    if (cuda) {
        /* One GPU per rank: the device of the rank's number on its node (the ranks sharing
         * memory with it), modulo the node's devices. */
        MPI_Comm node;
        int local = 0, count = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
        mmx_status s = mmx_cuda_device_count(j.ctx, &count);
        /* With no device, mmx_ctx_use_cuda's refusal says why. */
        if (!s) s = mmx_ctx_use_cuda(j.ctx, count > 0 ? local % count : 0);
        if (mmx_dist_agree(j.ctx, j.d, s)) {
            if (j.me == 0) fprintf(stderr, "mmx: --backend cuda over MPI ranks: %s\n", mmx_ctx_error(j.ctx));
            mmx_dist_free(j.d);
            mmx_ctx_free(j.ctx);
            mmx_ctx_free(j.hctx);
            MPI_Finalize();
            return EXIT_FAIL;
        }
    }
    /* One report, rank 0's; the others print only what fails before the ranks agree. */
    if (j.me != 0) report_begin(REPORT_QUIET, cmd->name);
    rc = run_job(&j, &in, &out);
    mmx_dist_free(j.d);
    mmx_ctx_free(j.ctx);
    mmx_ctx_free(j.hctx);
    MPI_Finalize();
    return rc;
}

#else

int dist_partition(const tool_cmd *cmd, const tool_args *a)
{
    (void)a;
    return usage_error("mmx %s needs MPI, and this mmx was built without it (meson "
                       "-Dmpi=enabled; Debian: libopenmpi-dev)", cmd->name);
}

int dist_run(const tool_cmd *cmd, const tool_args *a)
{
    static const char *const none[] = {NULL};
    (void)only, (void)value, (void)a, (void)none;
    if (dist_launched() == 1)
        return usage_error("%s names part files, which mmx %s reads over MPI ranks, and "
                           "this mmx was built without MPI (meson -Dmpi=enabled; Debian: "
                           "libopenmpi-dev)", parts_index(cmd, a), cmd->name);
    return usage_error("mmx %s was started by mpirun with %d ranks, but this mmx was built "
                       "without MPI (meson -Dmpi=enabled; Debian: libopenmpi-dev)",
                       cmd->name, dist_launched());
}

#endif
