/* libFuzzer target for the subdivision: the input is an OBJ file after one control byte, which
 * picks the scheme (byte % 3) and the level count (1 + (byte / 3) % 3). The mesh is refined on
 * the host by both paths (the default and the algebraic), with its tags (creases, corners,
 * holes kept as tags, boundary modes), and whatever they do must be the same and sound:
 *   - both succeed or both fail, with the same status (but Loop on a pillow, which the
 *     algebraic path refuses and the default one refines on face lists);
 *   - on success: the counts that mmx_subdiv_predict gives, the same faces in the same order on
 *     both paths, positions within float rounding of each other (and finite when the input's
 *     are small enough for their sums to stay finite), and a result free of repeated faces,
 *     and, for an input without non-manifold edges (three faces or more, or two that run them
 *     the same way), without them and with the input's non-manifold vertices (corners) and no
 *     more (subdiv.h).
 * Then, for Loop and Catmull-Clark inputs of up to a few hundred corners, the limit table
 * (isolation 1, the control byte's caps): made or refused with a sentence (never the internal
 * error, a failure leaving no table), and on success every ptex face evaluated at one
 * (u, v) of the input's bytes, positions and derivatives finite where the input's coordinates
 * are small. Anything else aborts. Inputs above a few thousand corners are skipped to keep
 * runs fast. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "meshmatrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_CORNERS = 4096 };

/* The largest absolute coordinate, 0 without positions. */
static float max_abs(const mmx_mesh *m)
{
    float r = 0;
    for (mmx_index i = 0; m->pos && i < 3 * m->M->nrows; i++) r = fmaxf(r, fabsf(m->pos[i]));
    return r;
}

static void check_pair(mmx_ctx *ctx, mmx_scheme scheme, int levels, const mmx_mesh *in,
                       const mmx_mesh *a, const mmx_mesh *b)
{
    mmx_adjacency *adj = NULL;
    if (mmx_adjacency_compute(ctx, in, &adj)) abort();
    int64_t v, f;
    mmx_subdiv_predict(scheme, in->M->nrows, in->M->ncols, adj->nedges, in->M->nnz, levels, &v,
                       &f, NULL, NULL);
    /* sqrt3's boundary rule adds two points per boundary face on its odd levels, which the
     * closed form does not count (subdiv.h): there the two paths are held to each other. */
    const int counted = !(scheme == MMX_SCHEME_SQRT3 && adj->boundary_edges > 0);
    mmx_adjacency_free(adj);
    const mmx_csc *A = a->M, *B = b->M;
    if (!counted) v = A->nrows, f = A->ncols;
    if (A->nrows != v || A->ncols != f || B->nrows != v || B->ncols != f) abort();
    if (A->nnz != B->nnz ||
        (A->nnz && memcmp(A->rowidx, B->rowidx, (size_t)A->nnz * sizeof *A->rowidx)))
        abort();
    /* Positions: within a few float roundings of the input's scale of each other. */
    const float scale = max_abs(in), tol = 1e-4f * (scale > 1 ? scale : 1);
    const int finite = scale < 1e30f;
    for (mmx_index i = 0; i < 3 * A->nrows; i++) {
        const float x = a->pos[i], y = b->pos[i];
        if (finite && (!isfinite(x) || !isfinite(y) || fabsf(x - y) > tol)) abort();
    }
    /* Non-manifold vertices of the input stay (as corners), and the children of an edge of
     * three faces or more have as many faces: without such edges the result has none and as
     * many non-manifold vertices as the input; never an inconsistent edge or a repeated face. */
    mmx_mesh_stats st, st_in;
    if (mmx_mesh_stats_compute(ctx, a, &st) || mmx_mesh_stats_compute(ctx, in, &st_in)) abort();
    if (st.repeated_faces || (!st_in.inconsistent_edges && st.inconsistent_edges)) abort();
    if (!st_in.nonmanifold_edges && !st_in.inconsistent_edges &&
        (st.nonmanifold_edges || st.nonmanifold_verts != st_in.nonmanifold_verts))
        abort();
}

enum { MAX_LIMIT_CORNERS = 512 };

/* The limit table of `in` (see the header comment). */
static void check_limit(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *in, uint8_t ctl,
                        const uint8_t *data, size_t size)
{
    if (scheme == MMX_SCHEME_BILINEAR || in->M->nnz > MAX_LIMIT_CORNERS) return;
    mmx_limit_options o;
    memset(&o, 0, sizeof o);
    o.isolation = 1;
    o.caps = (ctl & 0x80) ? MMX_LIMIT_CAPS_OPENSUBDIV : MMX_LIMIT_CAPS_EXACT;
    mmx_limit_table *t = NULL;
    const mmx_status s = mmx_limit_table_create(ctx, scheme, in, &o, &t);
    if ((s != MMX_OK) != (t == NULL) || s == MMX_ERR_INTERNAL) abort();
    if (s) return;
    const mmx_index n = mmx_limit_table_nptex(t);
    mmx_index *face = malloc(((size_t)n + 1) * sizeof *face);
    float *uv = malloc(2 * ((size_t)n + 1) * sizeof *uv), *out = malloc(9 * ((size_t)n + 1) * sizeof *out);
    if (!face || !uv || !out) abort();
    for (mmx_index i = 0; i < n; i++) {
        const uint8_t a = data[(2 * (size_t)i) % size], b = data[(2 * (size_t)i + 1) % size];
        float u = (float)(a % 101) / 100.0f, v = (float)(b % 101) / 100.0f;
        if (scheme == MMX_SCHEME_LOOP && u + v > 1.0f) u = 1.0f - u, v = 1.0f - v;
        face[i] = i, uv[i] = u, uv[n + 1 + i] = v;
    }
    const mmx_status e = mmx_limit_table_eval(ctx, t, n, face, uv, uv + n + 1, out,
                                              out + 3 * (size_t)n, out + 6 * (size_t)n, NULL,
                                              NULL, NULL);
    if (e == MMX_ERR_INTERNAL) abort();
    if (!e && max_abs(in) < 1e6f)
        for (mmx_index i = 0; i < 9 * n; i++)
            if (!isfinite(out[i])) abort();
    free(face), free(uv), free(out);
    mmx_limit_table_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const mmx_scheme scheme = (mmx_scheme)(data[0] % 3);
    const int levels = 1 + (data[0] / 3) % 3;
    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx)) return 0;
    mmx_mesh *in = NULL, *out[2] = {NULL, NULL};
    if (mmx_mesh_read_mem(ctx, "fuzz.obj", data + 1, size - 1, MMX_FORMAT_OBJ, &in) != MMX_OK ||
        !in->pos || in->M->nnz > MAX_CORNERS) {
        mmx_mesh_free(in);
        mmx_ctx_free(ctx);
        return 0;
    }
    mmx_status s[2];
    for (int p = 0; p < 2; p++) {
        mmx_subdiv_options o = {0};
        /* The default path is the fused one but for creases around a vertex of several fans,
         * which it leaves to the algebraic one. Holes are kept (tagged), so that the counts
         * are the closed form's. */
        o.path = p ? MMX_SUBDIV_PATH_ALGEBRAIC : MMX_SUBDIV_PATH_AUTO;
        o.holes = MMX_HOLES_KEEP;
        s[p] = mmx_subdivide(ctx, scheme, in, levels, &o, &out[p]);
        if ((s[p] != MMX_OK) != (out[p] == NULL)) abort(); /* a failure leaves no mesh */
        /* A refusal is a sentence, never the internal error that says two checks disagree. */
        if (s[p] == MMX_ERR_INTERNAL) abort();
    }
    /* Loop's pillows: the algebraic path refuses them (a mesh matrix cannot hold their
     * children), the default one refines them on face lists, or refuses what that path does
     * not take (kept holes, creases: subdiv.h); then only the refusals are compared. */
    const int pillow = scheme == MMX_SCHEME_LOOP && s[1] == MMX_ERR_MESH &&
                       strstr(mmx_ctx_error(ctx), "pillow") != NULL;
    if (s[0] != s[1] && !pillow) abort();
    if (s[0] == MMX_OK && s[1] == MMX_OK) check_pair(ctx, scheme, levels, in, out[0], out[1]);
    check_limit(ctx, scheme, in, data[0], data, size);
    mmx_mesh_free(out[0]);
    mmx_mesh_free(out[1]);
    mmx_mesh_free(in);
    mmx_ctx_free(ctx);
    return 0;
}
