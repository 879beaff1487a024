/* libFuzzer target for the options that fuzz_subdiv and fuzz_ops leave at their defaults: the
 * input is HEADER control bytes, then an OBJ file. The control bytes scale the positions (up to
 * near FLT_MAX), add tags (creases, corners, holes, the boundary mode) and texture coordinates,
 * then pick one operation and every one of its options:
 *   - mmx_smooth: each method and path, iterations, the step and mu (extreme values included:
 *     0, tiny, huge, negative, infinite, NaN), the fixed boundary, the mass, CG's tolerance,
 *     cap and variants, the bilateral sigmas;
 *   - mmx_remesh: the target length (a multiple of the bounding-box diagonal, or zero,
 *     negative, infinite, NaN), the iterations, the feature angle (in and out of [0, 180]),
 *     with the validator after every round;
 *   - mmx_subdivide: each scheme, 0 to 3 levels, the path, the boundary mode, the crease
 *     method, holes kept or removed, the triangle rule, the face-varying mode, the limit.
 * Whatever the options, a call either succeeds with finite output (positions, texture
 * coordinates) or fails with a status other than MMX_ERR_INTERNAL and a non-empty sentence in
 * the context (and, for the calls that make a mesh, no mesh). Anything else aborts. Inputs
 * above a few thousand corners are skipped, and the levels bounded, to keep runs fast. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "meshmatrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The header: OPTS bytes read in a fixed order (scale, tags, texture coordinates, operation,
 * then the operation's options), then SHARP bytes for the sharpness of the tags, one per tag
 * in turn. */
enum { OPTS = 24, SHARP = 8, HEADER = OPTS + SHARP, MAX_CORNERS = 4096, MAX_REFINED_CORNERS = 1 << 16 };

/* With MMX_FUZZ_VERBOSE set in the environment, each call's options and outcome go to stderr:
 * to read what a finding does (build-fuzz/fuzz/fuzz_opts crash-...). */
static int verbose = -1;

static void outcome(mmx_ctx *ctx, const char *call, mmx_status s)
{
    if (verbose) fprintf(stderr, "%s: %s%s%s\n", call, mmx_status_str(s), s ? ": " : "", s ? mmx_ctx_error(ctx) : "");
}

/* The control bytes, read in order; 0 once they run out. */
typedef struct bytes {
    const uint8_t *p;
    size_t n, at;
} bytes;

static unsigned take(bytes *b)
{
    return b->at < b->n ? b->p[b->at++] : 0u;
}

static const float odd[] = {0.0f, -0.0f, 1e-30f, FLT_MIN, -1.0f, 5.0f, 1e30f, FLT_MAX,
                            -FLT_MAX, INFINITY, -INFINITY, NAN};

/* A float from a table of the values that break arithmetic, or one of the input's own bits. */
static float extreme(bytes *b, const float *usual, int nusual)
{
    const unsigned k = take(b);
    if (k < 128) return usual[k % (unsigned)nusual];
    if (k < 240) return odd[k % (sizeof odd / sizeof odd[0])];
    uint32_t u = 0;
    for (int i = 0; i < 4; i++) u = u << 8 | take(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int all_finite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* A failure is a status with a sentence; MMX_ERR_INTERNAL says two checks disagree. */
static void refused(mmx_ctx *ctx, mmx_status s)
{
    if (s == MMX_OK || s == MMX_ERR_INTERNAL || s < MMX_ERR_INTERNAL) abort();
    const char *why = mmx_ctx_error(ctx);
    if (!why || !*why) abort();
}

/* Corner k of face f at position `pos` (1-based) in its face, as a vertex number; -1 if none. */
static mmx_index corner(const mmx_csc *M, mmx_index f, mmx_index pos)
{
    if (M->order) return pos <= M->order ? M->rowidx[(size_t)f * M->order + pos - 1] : -1;
    for (mmx_index k = M->colptr[f]; k < M->colptr[f + 1]; k++)
        if (M->val[k] == pos) return M->rowidx[k];
    return -1;
}

/* Scales the positions so that the largest coordinate is the chosen size (1e-20 to 3e38, or
 * left alone). Returns 0 when the result is not finite (the input is then skipped). */
static int scale(bytes *b, mmx_mesh *m)
{
    static const double to[] = {0, 0, 0, 0, 1e-20, 1e-3, 1e3, 1e20, 1e30, 1e37, 1e38, 3e38};
    const double want = to[take(b) % (sizeof to / sizeof to[0])];
    const size_t n = 3 * (size_t)m->M->nrows;
    double big = 0;
    for (size_t i = 0; i < n; i++) big = fmax(big, fabs(m->pos[i]));
    if (want == 0 || big == 0) return 1;
    for (size_t i = 0; i < n; i++) m->pos[i] = (float)(m->pos[i] * (want / big));
    return all_finite(m->pos, n);
}

/* Tags from the control bytes (added to the file's own when it has none): creases on a
 * face's first edge, corners, holes, each sharpness from the extreme table, and the boundary
 * mode. Returns the status of mmx_mesh_set_tags (the input is skipped when it fails). */
static mmx_status add_tags(mmx_ctx *ctx, bytes *b, const uint8_t *sharp_bytes, mmx_mesh *m)
{
    const unsigned what = take(b), step = take(b), ib = take(b), cm = take(b), st = take(b);
    if (!(what & 1) || m->tags) return MMX_OK;
    const mmx_csc *M = m->M;
    const mmx_index nf = M->ncols, nv = M->nrows, every = 1 + (mmx_index)(step % 4);
    static const float sharp[] = {1.0f, 2.0f, 2.5f, 10.0f, 0.5f, 3.0f, 1.0f, 10.0f};
    unsigned next = 0; /* the next of the SHARP bytes, in turn */
#define SHARPNESS() \
    (sharp_bytes[next % SHARP] < 200 ? sharp[sharp_bytes[next++ % SHARP] % 8] \
                                     : odd[sharp_bytes[next++ % SHARP] % (sizeof odd / sizeof odd[0])])
    mmx_mesh_tags t;
    memset(&t, 0, sizeof t);
    t.interpolate_boundary = (int)(ib % 4) - 1; /* -1: none given */
    t.fvar_interpolate_boundary = t.fvar_propagate_corners = -1;
    t.crease_method = (int)(cm % 3) - 1;
    t.smooth_triangles = (int)(st % 3) - 1;
    mmx_index *cv = malloc(2 * (size_t)nf * sizeof *cv + 1), *co = malloc((size_t)nv * sizeof *co + 1),
              *ho = malloc((size_t)nf * sizeof *ho + 1);
    float *cs = malloc((size_t)nf * sizeof *cs + 1), *os = malloc((size_t)nv * sizeof *os + 1);
    if (!cv || !co || !ho || !cs || !os) abort();
    if (what & 2) /* creases */
        for (mmx_index f = 0; f < nf; f += every) {
            const mmx_index a = corner(M, f, 1), c = corner(M, f, 2);
            if (a < 0 || c < 0) continue;
            /* an edge once: the crease list must not repeat one */
            int seen = 0;
            for (mmx_index i = 0; i < t.ncreases && !seen; i++)
                seen = (cv[2 * i] == a && cv[2 * i + 1] == c) || (cv[2 * i] == c && cv[2 * i + 1] == a);
            if (seen) continue;
            cv[2 * t.ncreases] = a, cv[2 * t.ncreases + 1] = c;
            cs[t.ncreases++] = SHARPNESS();
        }
    if (what & 4) /* corners */
        for (mmx_index v = 0; v < nv; v += every) {
            co[t.ncorners] = v;
            os[t.ncorners++] = SHARPNESS();
        }
    if (what & 8) /* holes */
        for (mmx_index f = every - 1; f < nf; f += every + 1) ho[t.nholes++] = f;
#undef SHARPNESS
    t.crease_verts = cv, t.crease_sharpness = cs;
    t.corner_verts = co, t.corner_sharpness = os;
    t.holes = ho;
    const mmx_status s = mmx_mesh_set_tags(ctx, m, &t);
    free(cv), free(cs), free(co), free(os), free(ho);
    return s;
}

/* Texture coordinates when the file has none: one per vertex (its x and y before scaling: a
 * mesh without seams; 0 for an isolated vertex) or one per corner (every edge a seam). */
static void add_uv(bytes *b, mmx_mesh *m)
{
    const unsigned how = take(b) % 3;
    /* Not on a mesh without faces: an empty set, which no reader makes (mmx_subdivide then
     * copies its NULL index with memcpy, src/subdiv/uv.c, undefined even for 0 bytes). */
    if (how == 0 || m->uv || m->M->nnz == 0) return;
    const mmx_csc *M = m->M;
    mmx_mesh_uv *uv = calloc(1, sizeof *uv);
    if (!uv) abort();
    uv->nvalues = how == 1 ? M->nrows : M->nnz;
    uv->values = calloc(2 * (size_t)uv->nvalues + 1, sizeof *uv->values);
    uv->index = malloc((size_t)M->nnz * sizeof *uv->index + 1);
    if (!uv->values || !uv->index) abort();
    for (mmx_index k = 0; k < M->nnz; k++) {
        const mmx_index v = M->rowidx[k], at = how == 1 ? v : k;
        uv->index[k] = at;
        uv->values[2 * at] = m->pos[3 * v];
        uv->values[2 * at + 1] = m->pos[3 * v + 1];
    }
    m->uv = uv;
}

static void smooth(mmx_ctx *ctx, bytes *b, const mmx_mesh *m)
{
    static const float steps[] = {0.0f, 0.5f, 0.33f, 1.0f, 0.1f, 1e-3f};
    static const float mus[] = {0.0f, -0.53f, -0.6f, -1.0f, -0.34f};
    static const float sigmas[] = {0.0f, 0.1f, 1.0f, 1e-3f};
    static const double rtols[] = {1e-5, 1e-2, 1e-12, 0.0, -1.0, 1e30, NAN};
    mmx_smooth_options o = mmx_smooth_defaults((mmx_smooth_method)(take(b) % 5));
    o.path = (mmx_smooth_path)(take(b) % 3);
    o.iterations = (int)(take(b) % 6);
    o.step = extreme(b, steps, 6);
    o.mu = extreme(b, mus, 5);
    const unsigned flags = take(b);
    o.fix_boundary = flags & 1;
    o.mass = (mmx_mass_kind)((flags >> 1) & 1);
    o.mcf_uniform = (flags >> 2) & 1;
    o.cg_rel_initial = (flags >> 3) & 1;
    o.cg_rtol = rtols[take(b) % (sizeof rtols / sizeof rtols[0])];
    const unsigned cap = take(b);
    o.cg_max_iter = cap < 250 ? 1 + (int)(cap % 50) : 250 - (int)cap; /* 0 and -5 at the end */
    o.sigma_c = extreme(b, sigmas, 4);
    o.sigma_s = extreme(b, sigmas, 4);
    const size_t n = 3 * (size_t)m->M->nrows;
    float *x = malloc(n * sizeof *x + 1);
    if (!x) abort();
    mmx_smooth_report r;
    if (verbose)
        fprintf(stderr, "mmx_smooth: %s path %d, %d iterations, step %g, mu %g, fixed boundary %d, mass %d, "
                "uniform %d, CG rtol %g (relative to the initial residual %d), cap %d, sigmas %g %g\n",
                mmx_smooth_method_name(o.method), (int)o.path, o.iterations, (double)o.step, (double)o.mu,
                o.fix_boundary, (int)o.mass, o.mcf_uniform, o.cg_rtol, o.cg_rel_initial, o.cg_max_iter,
                (double)o.sigma_c, (double)o.sigma_s);
    const mmx_status s = mmx_smooth(ctx, m, &o, x, &r);
    outcome(ctx, "mmx_smooth", s);
    if (s) refused(ctx, s);
    else if (!all_finite(x, n)) abort();
    free(x);
}

static void remesh(mmx_ctx *ctx, bytes *b, const mmx_mesh *m)
{
    static const float lengths[] = {0.0f, 0.1f, 0.25f, 0.05f, 0.5f, 1.0f, 4.0f};
    static const float angles[] = {60.0f, 0.0f, 30.0f, 90.0f, 180.0f, 179.9f};
    const size_t n = 3 * (size_t)m->M->nrows;
    /* the bounding-box diagonal, in double (the positions may be near FLT_MAX) */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, d = 0;
    for (size_t i = 0; i < n; i++) lo[i % 3] = fmin(lo[i % 3], m->pos[i]), hi[i % 3] = fmax(hi[i % 3], m->pos[i]);
    for (int k = 0; k < 3 && n; k++) d += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    mmx_remesh_options o = mmx_remesh_defaults();
    /* A positive finite value is a multiple of the diagonal, at least 1/20 of it (a tiny length
     * would split the mesh into millions of faces: a slow run, not a finding); zero (the
     * default), negative, infinite and NaN values are passed as they are. */
    const float f = extreme(b, lengths, 7);
    o.target_length = f > 0 && isfinite(f) ? fmax(f, 0.05) * sqrt(d) : f;
    o.iterations = (int)(take(b) % 4);
    const unsigned out_of_range = take(b);
    if (out_of_range == 254) o.iterations = -1;
    if (out_of_range == 255) o.iterations = MMX_REMESH_MAX_ITERATIONS + 1;
    o.feature_angle = extreme(b, angles, 6);
    o.validate = 1;
    mmx_mesh *out = NULL;
    mmx_remesh_report r;
    if (verbose)
        fprintf(stderr, "mmx_remesh: length %g, %d iterations, feature angle %g\n", o.target_length,
                o.iterations, o.feature_angle);
    const mmx_status s = mmx_remesh(ctx, m, &o, &out, &r);
    outcome(ctx, "mmx_remesh", s);
    if (s) {
        refused(ctx, s);
        if (out) abort();
    } else if (!out || !all_finite(out->pos, 3 * (size_t)out->M->nrows)) {
        abort();
    }
    mmx_mesh_free(out);
}

static void subdivide(mmx_ctx *ctx, bytes *b, const mmx_mesh *m)
{
    const mmx_scheme scheme = (mmx_scheme)(take(b) % 4);
    int levels = (int)(take(b) % 4);
    /* each level multiplies the corners by at most 4 */
    while (levels > 0 && ((int64_t)m->M->nnz << (2 * levels)) > MAX_REFINED_CORNERS) levels--;
    mmx_subdiv_options o;
    memset(&o, 0, sizeof o);
    o.path = (mmx_subdiv_path)(take(b) % 3);
    o.boundary = (mmx_boundary)(take(b) % 4);
    o.crease = (mmx_crease_method)(take(b) % 3);
    o.holes = (mmx_hole_mode)(take(b) % 2);
    o.triangles = (mmx_triangle_rule)(take(b) % 3);
    o.fvar = (mmx_fvar_mode)(take(b) % 5);
    o.limit = take(b) & 1;
    mmx_mesh *out = NULL;
    if (verbose)
        fprintf(stderr, "mmx_subdivide: scheme %d, %d levels, path %d, boundary %d, crease %d, holes %d, "
                "triangles %d, uv mode %d (uv %s), limit %d\n", (int)scheme, levels, (int)o.path,
                (int)o.boundary, (int)o.crease, (int)o.holes, (int)o.triangles, (int)o.fvar,
                m->uv ? "given" : "none", o.limit);
    const mmx_status s = mmx_subdivide(ctx, scheme, m, levels, &o, &out);
    outcome(ctx, "mmx_subdivide", s);
    if (s) {
        refused(ctx, s);
        if (out) abort();
    } else {
        if (!out || !all_finite(out->pos, 3 * (size_t)out->M->nrows)) abort();
        if (out->uv && out->uv->space == MMX_SPACE_HOST &&
            !all_finite(out->uv->values, 2 * (size_t)out->uv->nvalues))
            abort();
    }
    mmx_mesh_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (verbose < 0) verbose = getenv("MMX_FUZZ_VERBOSE") != NULL;
    if (size < HEADER) return 0;
    bytes b = {data, OPTS, 0};
    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx)) return 0;
    mmx_mesh *m = NULL;
    if (mmx_mesh_read_mem(ctx, "fuzz.obj", data + HEADER, size - HEADER, MMX_FORMAT_OBJ, &m) != MMX_OK ||
        !m->pos || m->M->nnz > MAX_CORNERS) {
        if (verbose) fprintf(stderr, "skipped: not read (%s), no positions or too big\n", mmx_ctx_error(ctx));
        mmx_mesh_free(m);
        mmx_ctx_free(ctx);
        return 0;
    }
    add_uv(&b, m);
    if (!scale(&b, m) || add_tags(ctx, &b, data + OPTS, m) != MMX_OK) {
        if (verbose) fprintf(stderr, "skipped: positions not finite once scaled, or tags refused\n");
        mmx_mesh_free(m);
        mmx_ctx_free(ctx);
        return 0;
    }
    /* The operation's call is the first on the context that may fail, so a failure's sentence
     * is its own. */
    switch (take(&b) % 3) {
    case 0: smooth(ctx, &b, m); break;
    case 1: remesh(ctx, &b, m); break;
    default: subdivide(ctx, &b, m); break;
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
    return 0;
}
