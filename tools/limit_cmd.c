/* mmx limit: the limit surface of a cage at parametric points (face, u, v), through a limit
 * table (subdiv.h), written as CSV: positions, and with --derivatives the first and second
 * derivatives. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

enum { O_SCHEME, O_ISOLATION, O_CAPS, O_POINTS, O_RANDOM, O_SEED, O_DERIVATIVES, O_FORMAT,
       O_FROM, O_COUNT };

static const opt_spec limit_opts[O_COUNT] = {
    [O_SCHEME] = {"scheme", 's', "catmull-clark|loop", "the scheme (default catmull-clark)"},
    [O_ISOLATION] = {"isolation", 0, "N",
                     "levels of adaptive refinement around extraordinary vertices\n"
                     "and creases, 1 to 8 (default 2): the end caps shrink by half\n"
                     "a level each"},
    [O_CAPS] = {"caps", 0, "exact|opensubdiv",
                "the end caps at semi-sharp creases still sharp at the last\n"
                "level: exact limits at their corners (default), or\n"
                "OpenSubdiv's Gregory patches, which ignore that sharpness"},
    [O_POINTS] = {"points", 0, "FILE",
                  "the points: one 'face u v' per line (ptex face, see below;\n"
                  "spaces or commas; '#' starts a comment)"},
    [O_RANDOM] = {"random", 0, "N", "N points drawn uniformly over the ptex faces instead"},
    [O_SEED] = {"seed", 0, "S", "the seed of --random (default 1)"},
    [O_DERIVATIVES] = {"derivatives", 'd', NULL,
                       "also write the first (du, dv) and second (duu, duv, dvv)\n"
                       "derivatives"},
    [O_FORMAT] = OPT_SPEC_FORMAT,
    [O_FROM] = OPT_SPEC_FROM,
};

/* What run parsed, for work. */
typedef struct limit_job {
    mmx_scheme scheme;
    int isolation;
    mmx_limit_caps caps;
    const char *points; /* NULL: random */
    long long random;
    unsigned long long seed;
    int derivatives;
} limit_job;

/* splitmix64: the random points, the same on every platform. */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float unit_rand(uint64_t *s)
{
    return (float)(next_rand(s) >> 40) / (float)(1u << 24);
}

/* Reads FILE's points into growing arrays; returns EXIT_OK or EXIT_FAIL after saying why. */
static int read_points(const char *path, mmx_index **f, float **u, float **v, long long *n)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "mmx: %s: cannot read the points: %s\n", path, strerror(errno));
        return EXIT_FAIL;
    }
    long long cap = 0, line = 0;
    char buf[1024];
    int rc = EXIT_OK;
    *n = 0;
    while (rc == EXIT_OK && fgets(buf, sizeof buf, fp)) {
        line++;
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        for (char *c = buf; *c; c++)
            if (*c == ',') *c = ' ';
        long face;
        double a, b;
        char extra;
        const int got = sscanf(buf, "%ld %lf %lf %c", &face, &a, &b, &extra);
        if (got <= 0) continue; /* blank or a comment */
        if (got != 3 || face < 0 || face > INT32_MAX) {
            fprintf(stderr, "mmx: %s:%lld: expected 'face u v' (a face number and two numbers)\n",
                    path, line);
            rc = EXIT_FAIL;
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            mmx_index *nf = realloc(*f, (size_t)cap * sizeof *nf);
            if (nf) *f = nf;
            float *nu = realloc(*u, (size_t)cap * sizeof *nu);
            if (nu) *u = nu;
            float *nv = realloc(*v, (size_t)cap * sizeof *nv);
            if (nv) *v = nv;
            if (!nf || !nu || !nv) {
                rc = out_of_memory("the points");
                break;
            }
        }
        (*f)[*n] = (mmx_index)face, (*u)[*n] = (float)a, (*v)[*n] = (float)b;
        ++*n;
    }
    if (rc == EXIT_OK && ferror(fp)) {
        fprintf(stderr, "mmx: %s: cannot read the points\n", path);
        rc = EXIT_FAIL;
    }
    fclose(fp);
    return rc;
}

static const char *const names[6] = {"", "du", "dv", "duu", "duv", "dvv"};

static int work(mmx_ctx *ctx, const void *what, const tool_input *in, const tool_output *out)
{
    const limit_job *job = what;
    mmx_mesh *mesh = NULL;
    double load_ms;
    if (input_load(ctx, in, &mesh, &load_ms)) return EXIT_FAIL;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_limit_options o;
    memset(&o, 0, sizeof o);
    o.isolation = job->isolation, o.caps = job->caps;
    mmx_limit_table *t = NULL;
    double t0 = now_ms();
    mmx_status s = mmx_limit_table_create(ctx, job->scheme, mesh, &o, &t);
    const double table_ms = now_ms() - t0;
    const long long nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    mmx_mesh_free(mesh);
    if (s) return fail(ctx, s, in->name);
    mmx_index *f = NULL;
    float *u = NULL, *v = NULL;
    long long n = 0;
    int rc = EXIT_OK;
    if (job->points) {
        rc = read_points(job->points, &f, &u, &v, &n);
    } else {
        n = job->random;
        f = malloc((size_t)(n ? n : 1) * sizeof *f);
        u = malloc((size_t)(n ? n : 1) * sizeof *u);
        v = malloc((size_t)(n ? n : 1) * sizeof *v);
        if (!f || !u || !v) rc = out_of_memory("the points");
        uint64_t seed = job->seed;
        const uint64_t np = (uint64_t)mmx_limit_table_nptex(t);
        for (long long i = 0; rc == EXIT_OK && i < n; i++) {
            f[i] = np ? (mmx_index)(next_rand(&seed) % np) : 0;
            u[i] = unit_rand(&seed), v[i] = unit_rand(&seed);
            if (job->scheme == MMX_SCHEME_LOOP && u[i] + v[i] > 1.0f)
                u[i] = 1.0f - u[i], v[i] = 1.0f - v[i];
        }
    }
    if (rc == EXIT_OK && n > INT32_MAX) {
        fprintf(stderr, "mmx: more points than 32-bit indices hold\n");
        rc = EXIT_FAIL;
    }
    const int nout = job->derivatives ? 6 : 1;
    float *res = NULL, *dres = NULL;
    mmx_index *df = NULL;
    float *du = NULL, *dv = NULL;
    double eval_ms = 0;
    if (rc == EXIT_OK) {
        res = malloc(3 * (size_t)nout * (size_t)(n ? n : 1) * sizeof *res);
        if (!res) rc = out_of_memory("the results");
    }
    if (rc == EXIT_OK) {
        /* The points and results in the context's space (copied on CUDA). */
        const size_t bn = (size_t)n * sizeof(float);
        s = MMX_OK;
        if (sp == MMX_SPACE_HOST) {
            df = f, du = u, dv = v, dres = res;
        } else {
            s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof *df + 1, (void **)&df);
            if (!s) s = mmx_mem_alloc(ctx, sp, bn + 1, (void **)&du);
            if (!s) s = mmx_mem_alloc(ctx, sp, bn + 1, (void **)&dv);
            if (!s) s = mmx_mem_alloc(ctx, sp, 3 * nout * bn + 1, (void **)&dres);
            if (!s) s = mmx_mem_copy(ctx, df, sp, f, MMX_SPACE_HOST, (size_t)n * sizeof *df);
            if (!s) s = mmx_mem_copy(ctx, du, sp, u, MMX_SPACE_HOST, bn);
            if (!s) s = mmx_mem_copy(ctx, dv, sp, v, MMX_SPACE_HOST, bn);
            if (!s) s = mmx_ctx_sync(ctx);
        }
        float *q[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
        for (int k = 0; k < nout; k++) q[k] = dres + 3 * (size_t)n * k;
        t0 = now_ms();
        if (!s) s = mmx_limit_table_eval(ctx, t, (mmx_index)n, df, du, dv, q[0], q[1], q[2], q[3], q[4], q[5]);
        if (!s) s = mmx_ctx_sync(ctx);
        eval_ms = now_ms() - t0;
        if (!s && sp != MMX_SPACE_HOST) {
            s = mmx_mem_copy(ctx, res, MMX_SPACE_HOST, dres, sp, 3 * nout * bn);
            if (!s) s = mmx_ctx_sync(ctx);
        }
        if (sp != MMX_SPACE_HOST) {
            mmx_mem_free(ctx, sp, df), mmx_mem_free(ctx, sp, du), mmx_mem_free(ctx, sp, dv);
            mmx_mem_free(ctx, sp, dres);
        }
        if (s) rc = fail(ctx, s, job->points ? job->points : in->name);
    }
    const mmx_index nptex = mmx_limit_table_nptex(t);
    mmx_limit_table_free(t);
    text tx = {NULL, 0, 0, 0};
    if (rc == EXIT_OK) {
        char buf[512];
        int len = snprintf(buf, sizeof buf, "face,u,v,x,y,z");
        text_put(&tx, buf, (size_t)len);
        for (int k = 1; k < nout; k++) {
            len = snprintf(buf, sizeof buf, ",%sx,%sy,%sz", names[k], names[k], names[k]);
            text_put(&tx, buf, (size_t)len);
        }
        text_put(&tx, "\n", 1);
        for (long long i = 0; i < n; i++) {
            len = snprintf(buf, sizeof buf, "%d,%.9g,%.9g", (int)f[i], (double)u[i], (double)v[i]);
            text_put(&tx, buf, (size_t)len);
            for (int k = 0; k < nout; k++) {
                const float *r = res + 3 * ((size_t)n * k + (size_t)i);
                len = snprintf(buf, sizeof buf, ",%.9g,%.9g,%.9g", (double)r[0], (double)r[1],
                               (double)r[2]);
                text_put(&tx, buf, (size_t)len);
            }
            text_put(&tx, "\n", 1);
        }
        if (tx.failed) rc = out_of_memory("the CSV text");
    }
    if (rc == EXIT_OK) rc = output_write_bytes(out, tx.data, tx.len);
    free(tx.data), free(res), free(f), free(u), free(v);
    if (rc) return rc;
    const char *backend = backend_name(ctx);
    char counts[COUNTS_LEN];
    row("mesh", "%s: %s", in->name, counts_text(counts, nv, nf));
    row("load time", "%.3f ms (%s backend)", load_ms, backend);
    row("scheme", "%s, isolation %d (%d ptex faces)", mmx_scheme_name(job->scheme),
        job->isolation ? job->isolation : 2, (int)nptex);
    row("table time", "%.3f ms (refinement and patches, on the host)", table_ms);
    row("points", "%lld (%s)", n, job->points ? job->points : "random");
    row("eval time", "%.3f ms (%s backend)", eval_ms, backend);
    row("wrote", "%s", out->name);
    js_str("backend", backend);
    js_input(in->name, nv, nf, load_ms);
    js_str("scheme", mmx_scheme_name(job->scheme));
    js_int("isolation", job->isolation ? job->isolation : 2);
    js_int("ptex_faces", nptex);
    js_int("points", n);
    js_ms("table_ms", table_ms);
    js_ms("eval_ms", eval_ms);
    js_object("output");
    js_str("path", out->name);
    js_str("format", "csv");
    js_end();
    return EXIT_OK;
}

static int run(const tool_args *a)
{
    if (a->npos < 1 || a->npos > 2)
        return usage_error("limit takes IN [OUT.csv], got %d arguments", a->npos);
    limit_job job;
    memset(&job, 0, sizeof job);
    job.seed = 1;
    if (parse_scheme(a->value[O_SCHEME], MMX_SCHEME_CATMULL_CLARK, &job.scheme)) return EXIT_USAGE;
    if (job.scheme != MMX_SCHEME_CATMULL_CLARK && job.scheme != MMX_SCHEME_LOOP)
        return usage_error("limit takes --scheme catmull-clark or loop");
    if (a->value[O_ISOLATION] && !parse_int(a->value[O_ISOLATION], 1, 8, &job.isolation))
        return usage_error("--isolation takes a whole number from 1 to 8, not '%s'",
                           a->value[O_ISOLATION]);
    if (a->value[O_CAPS]) {
        if (!strcmp(a->value[O_CAPS], "opensubdiv")) job.caps = MMX_LIMIT_CAPS_OPENSUBDIV;
        else if (strcmp(a->value[O_CAPS], "exact"))
            return usage_error("--caps takes exact or opensubdiv, not '%s'", a->value[O_CAPS]);
    }
    job.points = a->value[O_POINTS];
    if (!job.points == !a->value[O_RANDOM])
        return usage_error("limit needs one of --points FILE and --random N");
    if (a->value[O_RANDOM]) {
        int r;
        if (!parse_int(a->value[O_RANDOM], 0, INT32_MAX, &r))
            return usage_error("--random takes a whole number of points, not '%s'",
                               a->value[O_RANDOM]);
        job.random = r;
    }
    if (a->value[O_SEED]) {
        int sd;
        if (!parse_int(a->value[O_SEED], 0, INT32_MAX, &sd))
            return usage_error("--seed takes a whole number, not '%s'", a->value[O_SEED]);
        job.seed = (unsigned long long)sd;
    }
    job.derivatives = a->value[O_DERIVATIVES] != NULL;
    return run_text_command(a, a->pos[0], a->npos == 2 ? a->pos[1] : NULL, a->value[O_FROM],
                            a->value[O_FORMAT], work, &job);
}

const tool_cmd limit_command = {
    .name = "limit",
    .summary = "the limit surface at parametric points (face, u, v), as CSV",
    .synopsis = "limit (--points FILE | --random N [--seed S]) [--derivatives] IN [OUT.csv]",
    .help = "Evaluates the Catmull-Clark (or Loop, --scheme loop) limit surface of the cage\n"
            "IN at parametric points, as OpenSubdiv's patch evaluation (Far::PatchTable with\n"
            "Gregory-basis end caps) does: regular faces are bicubic B-spline (Loop:\n"
            "box-spline) patches; the others are refined adaptively, up to --isolation levels\n"
            "(creases, corners, boundaries as mmx subdiv refines them), where the faces at\n"
            "smooth vertices become Gregory patches (Loop: Gregory triangles) and those at\n"
            "semi-sharp creases interpolate their corners' exact limit positions (--caps).\n"
            "Writes CSV to OUT, or to standard output when OUT is absent or -:\n"
            "'face,u,v,x,y,z', then with --derivatives du, dv, duu, duv and dvv (x, y, z\n"
            "each). A point's face is a ptex face (OpenSubdiv's): a quad or a Loop triangle\n"
            "is one, numbered in face order, and a Catmull-Clark face of n corners is n (one\n"
            "per corner, u towards the next corner's edge midpoint, v towards the previous\n"
            "one's, the centre at (1, 1)). A quad's (u, v) runs from its corner 0 along the\n"
            "edges to corners 1 and 3, in [0, 1]; a triangle's from corner 0 to corners 1 and\n"
            "2, u + v <= 1. A point outside is refused, naming it.",
    .opts = limit_opts,
    .nopts = O_COUNT,
    .flags = CMD_JSON,
    .run = run,
};
