/* mmx smooth: smooths a mesh's positions (geom.h, mmx_smooth: uniform or cotangent Laplacian
 * steps, Taubin's lambda|mu, bilateral normal filtering, implicit mean curvature flow) and
 * writes the mesh. --noise first displaces every vertex along its normal by a seeded random
 * amount, so that the command also makes the noisy inputs it is shown on (with
 * --iterations 0 it writes the noisy mesh alone). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

enum {
    O_METHOD, O_ITER, O_LAMBDA, O_STEP, O_MU, O_FIX, O_PATH, O_SIGMA_C, O_SIGMA_S, O_NOISE, O_SEED,
    O_FORMAT, O_FROM, O_TO, O_DISCARD, O_COUNT
};

static const opt_spec smooth_opts[O_COUNT] = {
    [O_METHOD] = {"method", 0, "laplacian|cotan|taubin|bilateral|mcf",
                  "uniform or cotangent Laplacian steps, Taubin's lambda|mu,\n"
                  "bilateral normal filtering (Fleishman et al.), or implicit mean\n"
                  "curvature flow (A - hL) x' = A x by conjugate gradients\n"
                  "(default taubin: smooths without shrinking)"},
    [O_ITER] = {"iterations", 0, "N", "steps (taubin: lambda|mu pairs); default 10, mcf 1"},
    [O_LAMBDA] = {"lambda", 0, "X",
                  "lambda of the Laplacian and Taubin steps (default 0.5), or\n"
                  "mcf's h (default 1e-3 times the squared bounding-box diagonal)"},
    [O_STEP] = {"step", 0, "X", "the same as --lambda (its older name)"},
    [O_MU] = {"mu", 0, "X", "taubin's mu, negative (default -0.53)"},
    [O_FIX] = {"fix-boundary", 0, NULL, "keep the boundary vertices where they are, bit for bit"},
    [O_PATH] = {"path", 0, "assembled|patch|matrix-free",
                "how the operator is applied: assembled SpMVs (default), the\n"
                "VV patch reduction (laplacian, taubin) or a matrix-free CG\n"
                "operator (mcf)"},
    [O_SIGMA_C] = {"sigma-c", 0, "X", "bilateral closeness sigma (default: each one-ring's radius)"},
    [O_SIGMA_S] = {"sigma-s", 0, "X",
                   "bilateral similarity sigma (default: the spread of each\n"
                   "one-ring's offsets along the normal)"},
    [O_NOISE] = {"noise", 0, "A",
                 "before smoothing, move every vertex along its normal by a\n"
                 "uniform random amount in [-A, A] times the mean edge length"},
    [O_SEED] = {"seed", 0, "N", "the noise's seed (default 1)"},
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
    [O_TO] = OPT_SPEC_TO,
    [O_DISCARD] = OPT_SPEC_DISCARD,
};

/* Parsed by run before any work (mesh_work_fn takes no option values). */
static mmx_smooth_options options;
static double noise = 0.0;
static int seed = 1;

static const char *path_name(mmx_smooth_path p)
{
    return p == MMX_SMOOTH_PATCH ? "patch" : p == MMX_SMOOTH_MATRIX_FREE ? "matrix-free" : "assembled";
}

/* splitmix64: the same stream on every platform. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Moves every vertex along its (area-weighted) normal by u * amp * the mean edge length, u
 * uniform in [-1, 1] from the seed, vertex by vertex in order: on the host, whatever the
 * backend, so a seed gives the same noisy mesh everywhere. */
static mmx_status add_noise(mmx_ctx *ctx, mmx_mesh *mesh, double amp, uint64_t sd)
{
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t bytes = 3 * (size_t)nv * sizeof(float);
    mmx_index *start = NULL, *verts = NULL;
    float *p = malloc(bytes ? bytes : 1), *n = malloc(bytes ? bytes : 1), *dn = NULL;
    mmx_status s = p && n ? MMX_OK : MMX_ERR_NOMEM;
    if (!s) s = mmx_mesh_faces(ctx, mesh, &start, &verts);
    if (!s) s = mmx_mem_alloc(ctx, sp, bytes, (void **)&dn);
    if (!s) s = mmx_vertex_normals(ctx, mesh, MMX_NORMAL_AREA, dn);
    if (!s && nv > 0) s = mmx_mem_copy(ctx, n, MMX_SPACE_HOST, dn, sp, bytes);
    if (!s && nv > 0) s = mmx_mem_copy(ctx, p, MMX_SPACE_HOST, mesh->pos, sp, bytes);
    if (!s) {
        double len = 0.0;
        long long sides = 0;
        for (mmx_index f = 0; f < nf; f++)
            for (mmx_index c = start[f]; c < start[f + 1]; c++) {
                const mmx_index a = verts[c], b = verts[c + 1 < start[f + 1] ? c + 1 : start[f]];
                double d2 = 0.0;
                for (int d = 0; d < 3; d++) {
                    const double e = (double)p[3 * (size_t)a + d] - p[3 * (size_t)b + d];
                    d2 += e * e;
                }
                len += sqrt(d2), sides++;
            }
        const double scale = sides ? amp * len / (double)sides : 0.0;
        for (mmx_index v = 0; v < nv; v++) {
            const double u = (double)(next_random(&sd) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
            for (int d = 0; d < 3; d++)
                p[3 * (size_t)v + d] += (float)(scale * u * n[3 * (size_t)v + d]);
        }
        if (nv > 0) s = mmx_mem_copy(ctx, mesh->pos, sp, p, MMX_SPACE_HOST, bytes);
    }
    mmx_mem_free(ctx, sp, dn);
    free(start);
    free(verts);
    free(p);
    free(n);
    return s;
}

static int work(mmx_ctx *ctx, const tool_input *in, const tool_output *out)
{
    mmx_mesh *mesh = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    if (!mesh->pos) {
        mmx_mesh_free(mesh);
        fprintf(stderr, "mmx: %s: the mesh has no positions\n", in->name);
        return EXIT_FAIL;
    }
    mmx_status s = noise > 0.0 ? add_noise(ctx, mesh, noise, (uint64_t)seed) : MMX_OK;
    mmx_smooth_report rep;
    memset(&rep, 0, sizeof rep);
    /* In place: the mesh is written with its smoothed positions. */
    if (!s) s = mmx_smooth(ctx, mesh, &options, mesh->pos, &rep);
    if (s) {
        mmx_mesh_free(mesh);
        return fail(ctx, s, in->name);
    }
    /* CG stopping short is not an error to the library (mmx_smooth_report.cg_converged says
     * so); to the tool it is: the positions are not the flow's, so nothing is written. */
    if (options.method == MMX_SMOOTH_MCF && !rep.cg_converged) {
        mmx_mesh_free(mesh);
        fprintf(stderr, "mmx: %s: mean curvature flow: CG did not converge within %d iterations "
                        "a step (relative residual %.3g, wanted %g): nothing written; take a smaller "
                        "--step (h %g now)\n", in->name, options.cg_max_iter, rep.cg_residual,
                options.cg_rtol, rep.step);
        return EXIT_FAIL;
    }
    long long bytes = -1;
    double write_ms = 0;
    int rc = output_write_mesh(ctx, mesh, out, &bytes, &write_ms);
    mmx_mesh_free(mesh);
    if (rc) return rc;
    const char *backend = backend_name(ctx);
    const int mcf = options.method == MMX_SMOOTH_MCF;
    row("mesh", "%s", in->name);
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    row("vertices", "%d", (int)nv);
    row("faces", "%d", (int)nf);
    if (noise > 0.0) row("noise", "%g of the mean edge length along the normals (seed %d)", noise, seed);
    row("method", "%s", mmx_smooth_method_name(options.method));
    row("path", "%s", path_name(options.path));
    row("iterations", "%d", rep.iterations);
    if (options.method == MMX_SMOOTH_TAUBIN)
        row("step", "lambda %g, mu %g", (double)(float)rep.step, (double)(float)rep.mu);
    else if (mcf) row("step", "h %g", rep.step);
    else if (options.method != MMX_SMOOTH_BILATERAL) row("step", "lambda %g", (double)(float)rep.step);
    row("fixed vertices", "%d%s", rep.fixed, options.fix_boundary ? " (the boundary)" : "");
    if (mcf) {
        row("CG iterations", "%d (summed over the steps)", rep.cg_iterations);
        row("CG residual", "%.3g (last step, largest coordinate: ||b - Sx|| / ||b||)%s",
            rep.cg_residual, rep.cg_converged ? "" : ", not converged");
    }
    row("smoothing time", "%.3f ms (%s backend)", rep.ms, backend);
    row_output(out, bytes, write_ms);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_num("noise", noise);
    js_str("method", mmx_smooth_method_name(options.method));
    js_str("path", path_name(options.path));
    js_int("iterations", rep.iterations);
    /* lambda and mu are floats in the library (the shortest text of the float); mcf's h a
     * double; null where the method has none. */
    if (options.method == MMX_SMOOTH_BILATERAL) js_null("step");
    else if (mcf) js_num("step", rep.step);
    else js_float("step", (float)rep.step);
    if (options.method == MMX_SMOOTH_TAUBIN) js_float("mu", (float)rep.mu);
    else js_null("mu");
    js_bool("fix_boundary", options.fix_boundary);
    js_int("fixed", rep.fixed);
    if (mcf) {
        js_int("cg_iterations", rep.cg_iterations);
        js_num("cg_residual", rep.cg_residual);
        js_bool("cg_converged", rep.cg_converged);
    } else {
        js_null("cg_iterations");
        js_null("cg_residual");
        js_null("cg_converged");
    }
    js_ms("smooth_ms", rep.ms);
    js_output(out, nv, nf, bytes, write_ms);
    return EXIT_OK;
}

static int run(const tool_args *a)
{
    const char *m = a->value[O_METHOD] ? a->value[O_METHOD] : "taubin";
    mmx_smooth_method method;
    if (mmx_smooth_method_parse(NULL, m, &method))
        return usage_error("unknown --method '%s' (use laplacian, cotan, taubin, bilateral or mcf)", m);
    options = mmx_smooth_defaults(method);
    double v;
    if (a->value[O_ITER] && !parse_int(a->value[O_ITER], 0, 1000000, &options.iterations))
        return usage_error("--iterations wants a whole number from 0 to 1000000, not '%s'", a->value[O_ITER]);
    /* --lambda, or --step as it was called before; not both. */
    if (a->value[O_LAMBDA] && a->value[O_STEP])
        return usage_error("--lambda and --step are the same option: give one");
    const int lo = a->value[O_LAMBDA] ? O_LAMBDA : O_STEP;
    if (a->value[lo]) {
        if (!parse_real(a->value[lo], 0.0, 1e30, &v) || v == 0.0)
            return usage_error("--%s wants a positive number, not '%s'", smooth_opts[lo].name,
                               a->value[lo]);
        options.step = (float)v;
    }
    if (a->value[O_MU]) {
        if (!parse_real(a->value[O_MU], -1e30, 0.0, &v) || v == 0.0)
            return usage_error("--mu wants a negative number, not '%s'", a->value[O_MU]);
        options.mu = (float)v;
    }
    options.fix_boundary = a->value[O_FIX] != NULL;
    const char *p = a->value[O_PATH];
    if (p) {
        if (strcmp(p, "assembled") == 0) options.path = MMX_SMOOTH_ASSEMBLED;
        else if (strcmp(p, "patch") == 0) options.path = MMX_SMOOTH_PATCH;
        else if (strcmp(p, "matrix-free") == 0) options.path = MMX_SMOOTH_MATRIX_FREE;
        else return usage_error("unknown --path '%s' (use assembled, patch or matrix-free)", p);
        const int lap = method == MMX_SMOOTH_LAPLACIAN || method == MMX_SMOOTH_TAUBIN;
        if ((options.path == MMX_SMOOTH_PATCH && !lap) ||
            (options.path == MMX_SMOOTH_MATRIX_FREE && method != MMX_SMOOTH_MCF))
            return usage_error("--path %s does not apply to --method %s (patch: laplacian, taubin; "
                               "matrix-free: mcf)", p, m);
    }
    const int sig[2] = {O_SIGMA_C, O_SIGMA_S};
    for (int i = 0; i < 2; i++)
        if (a->value[sig[i]]) {
            if (!parse_real(a->value[sig[i]], 0.0, 1e30, &v))
                return usage_error("--%s wants a number >= 0, not '%s'", smooth_opts[sig[i]].name,
                                   a->value[sig[i]]);
            *(i ? &options.sigma_s : &options.sigma_c) = (float)v;
        }
    noise = 0.0;
    if (a->value[O_NOISE] && !parse_real(a->value[O_NOISE], 0.0, 1e6, &noise))
        return usage_error("--noise wants a number >= 0, not '%s'", a->value[O_NOISE]);
    if (a->value[O_SEED] && !parse_int(a->value[O_SEED], 0, 2147483647, &seed))
        return usage_error("--seed wants a whole number >= 0, not '%s'", a->value[O_SEED]);
    return run_mesh_command(a, a->value[O_DISCARD], a->value[O_FROM], a->value[O_TO],
                            a->value[O_FORMAT], work);
}

const tool_cmd smooth_command = {
    .name = "smooth",
    .summary = "smooth a mesh: Laplacian, cotangent, Taubin, bilateral, mean curvature flow",
    .synopsis = "smooth [--method M] [--iterations N] [--lambda X] [--mu X] [--fix-boundary] IN OUT",
    .help = "Smooths the positions of IN and writes OUT (same topology). laplacian and\n"
            "cotan take explicit steps x' = x + lambda D^-1 L x with the uniform or the\n"
            "cotangent Laplacian (lambda 0.5: OpenMesh's Jacobi Laplace smoother); taubin\n"
            "alternates lambda and mu steps, which removes noise without shrinking;\n"
            "bilateral moves each vertex along its normal by a weighted mean of its\n"
            "one-ring's offsets (Fleishman et al. 2003), keeping sharp features; mcf takes\n"
            "implicit mean curvature flow steps, (A - hL) x' = A x, solved by conjugate\n"
            "gradients with a Jacobi preconditioner (prints its iterations and residual).\n"
            "cotan and mcf need triangles (mmx triangulate makes them). The result is the\n"
            "same bit for bit from run to run. --noise A adds noise first (with\n"
            "--iterations 0: only that). Without --method: taubin.\n"
            "Under `mpirun -n R` it runs partitioned over the ranks (docs/dist.md); IN may be\n"
            "part files, PREFIX.index (mmx partition's): each rank reads its part alone. An\n"
            "OBJ or PLY OUT is written by every rank, each its block (MPI-IO), no rank\n"
            "holding the whole (from a mesh with tags, texture coordinates, colours or\n"
            "normals, and to OFF, STL or standard output, rank 0 gathers it and writes).",
    .opts = smooth_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
