/* The software rasteriser: see render.h. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"

#define SS 2              /* samples per pixel side */
#define MARGIN 0.05f      /* of the picture's side, on each edge */
#define AZIMUTH 15.0      /* degrees, from +z towards +x */
#define ELEVATION 10.0    /* degrees above the xz plane */
#define AMBIENT 0.22f
#define EDGE_HALF_WIDTH 1.0f /* in samples: half a pixel on each side of an edge */
#define EDGE_MARK 0          /* an edge sample's shade: faces' are >= AMBIENT * 255 > 0 */
#define PI 3.14159265358979323846
#define NARROW 8.0f          /* in samples: a triangle narrower along its lines scans them whole */

/* Plain comparisons: fminf and fmaxf are library calls (NaN rules) in the hot loop, and the
 * coordinates here are finite. */
#define MIN2(a, b) ((a) < (b) ? (a) : (b))
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define MIN3(a, b, c) MIN2(a, MIN2(b, c))
#define MAX3(a, b, c) MAX2(a, MAX2(b, c))

/* Colours (sRGB bytes): a light grey background and a warm clay for the surface. */
static const float background[3] = {242, 242, 242};
static const float surface[3] = {226, 178, 136};
static const float edge_colour[3] = {48, 40, 36};

render_options render_options_default(void)
{
    render_options o = {800, 0, 1.0, {0.5, 0.5}};
    return o;
}

/* The view: right, up and towards-the-viewer unit vectors, and the light in the same frame. */
typedef struct view {
    float r[3], u[3], d[3], light[3];
} view;

static float dot3(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void make_view(view *v)
{
    double az = AZIMUTH * PI / 180, el = ELEVATION * PI / 180;
    v->d[0] = (float)(sin(az) * cos(el));
    v->d[1] = (float)sin(el);
    v->d[2] = (float)(cos(az) * cos(el));
    /* r = y x d, normalised; u = d x r completes a right-handed frame with +y up. */
    float rl = sqrtf(v->d[2] * v->d[2] + v->d[0] * v->d[0]);
    v->r[0] = v->d[2] / rl;
    v->r[1] = 0;
    v->r[2] = -v->d[0] / rl;
    v->u[0] = v->d[1] * v->r[2] - v->d[2] * v->r[1];
    v->u[1] = v->d[2] * v->r[0] - v->d[0] * v->r[2];
    v->u[2] = v->d[0] * v->r[1] - v->d[1] * v->r[0];
    /* From the upper left and in front, as a photographer's key light. */
    const float lr = -0.45f, lu = 0.6f, ld = 0.66f;
    float ll = sqrtf(lr * lr + lu * lu + ld * ld);
    for (int k = 0; k < 3; k++) v->light[k] = (lr * v->r[k] + lu * v->u[k] + ld * v->d[k]) / ll;
}

/* The sample buffers: depth (larger is nearer, -FLT_MAX where nothing was drawn) and the
 * shade of the face drawn there. */
typedef struct target {
    int s;                   /* samples per side */
    float *depth;
    unsigned char *shade;
} target;

/* The first and last sample index (centres at i + 0.5) in [lo, hi], clipped to [0, n - 1]
 * (first > last when none), computed in float before any conversion, so that a coordinate far
 * outside the target (a large zoom) cannot overflow an int. */
static void sample_range(float lo, float hi, int n, int *first, int *last)
{
    const float f = ceilf(lo - 0.5f), l = floorf(hi - 0.5f);
    *first = f < 0 ? 0 : f > (float)n ? n : (int)f;
    *last = l > (float)(n - 1) ? n - 1 : l < -1 ? -1 : (int)l;
}

/* Draws a triangle given in sample coordinates (x right, y down, z towards the viewer) with
 * one shade. A sample belongs to it when its centre is inside or on an edge, so a closed mesh
 * leaves no gaps; the depth test keeps the nearest face where two claim a sample. Bit k of
 * `lines` asks for the edge opposite corner k (p1p2, p2p0, p0p1) to be drawn: samples within
 * EDGE_HALF_WIDTH of it get EDGE_MARK instead of the shade.
 *
 * Cost: O(1 + the lines scanned + the samples covered). The triangle is scanned along the
 * shorter side of its bounding box (rows, or columns when it is taller than wide), and on each
 * line only the span its three edges leave (widened by a sample each side against the
 * division's rounding; each sample is then tested exactly), so a sliver (a fan's spoke, the
 * fan of a many-sided polygon) costs its short extent, not its bounding box. */
static void draw_triangle(target *t, const float *q0, const float *q1, const float *q2,
                          unsigned char shade, unsigned lines)
{
    float xmin = MIN3(q0[0], q1[0], q2[0]), xmax = MAX3(q0[0], q1[0], q2[0]);
    float ymin = MIN3(q0[1], q1[1], q2[1]), ymax = MAX3(q0[1], q1[1], q2[1]);
    /* In the scan's frame, u runs along a line and v across the lines: (u, v) = (x, y), or
     * (y, x) for a triangle taller than wide. A sample (u, v) is t's (x, y) at v * sv + u * su. */
    const int cols = xmax - xmin < ymax - ymin;
    const int u_ = cols, v_ = 1 - cols;
    const size_t su = cols ? (size_t)t->s : 1, sv = cols ? 1 : (size_t)t->s;
    const float p0[3] = {q0[u_], q0[v_], q0[2]}, p1[3] = {q1[u_], q1[v_], q1[2]},
                p2[3] = {q2[u_], q2[v_], q2[2]};
    const float *c0 = p0, *c1 = p1, *c2 = p2;
    float area = (c1[0] - c0[0]) * (c2[1] - c0[1]) - (c2[0] - c0[0]) * (c1[1] - c0[1]);
    if (area == 0 || !isfinite(area)) return;
    if (area < 0) { /* drawn from both sides (and mirrored by the swap): one way round */
        const float *tmp = c1;
        c1 = c2;
        c2 = tmp;
        area = -area;
        /* p2p0 and p0p1 trade places; p1p2 stays opposite corner 0. */
        lines = (lines & 1u) | ((lines & 2u) << 1) | ((lines & 4u) >> 1);
    }
    int v0, v1;
    sample_range(MIN3(c0[1], c1[1], c2[1]), MAX3(c0[1], c1[1], c2[1]), t->s, &v0, &v1);
    const float umin = MIN3(c0[0], c1[0], c2[0]), umax = MAX3(c0[0], c1[0], c2[0]);
    /* Edge functions e_k(p) = (b - a) x (p - a) of the edge opposite corner k: all three are
     * >= 0 inside, and e_k / area is corner k's barycentric weight. Along a line e_k is
     * row_k + eu_k (pu - a_u): increasing in pu where eu_k > 0 (a lower bound of the span),
     * decreasing where eu_k < 0 (an upper bound), constant where eu_k = 0. */
    const float *a[3] = {c1, c2, c0}, *b[3] = {c2, c0, c1};
    float eu[3], ev[3], near[3];
    for (int k = 0; k < 3; k++) {
        eu[k] = -(b[k][1] - a[k][1]);
        ev[k] = b[k][0] - a[k][0];
        /* e_k is the distance to edge k times its length: a sample is on a drawn edge when
         * e_k < near[k]; -1 never holds inside (e_k >= 0) for the edges not drawn. */
        near[k] = (lines >> k) & 1u ? EDGE_HALF_WIDTH * sqrtf(eu[k] * eu[k] + ev[k] * ev[k])
                                    : -1.0f;
    }
    /* Edge k bounds the span at u = a_u + slope_k (pv - a_v), slope_k = -ev_k / eu_k: from
     * below where eu_k > 0, from above where eu_k < 0; an edge with eu_k = 0 (along the
     * lines) empties the line where row_k < 0. */
    float slope[3];
    int side[3];
    for (int k = 0; k < 3; k++) {
        side[k] = eu[k] > 0 ? 1 : eu[k] < 0 ? -1 : 0;
        slope[k] = side[k] ? -ev[k] / eu[k] : 0.0f;
    }
    const float inv = 1.0f / area;
    const float z0 = c0[2] * inv, z1 = c1[2] * inv, z2 = c2[2] * inv;
    /* A narrow triangle's lines are tested whole: the span would cost more than it saves. */
    const int spans = umax - umin > NARROW;
    for (int v = v0; v <= v1; v++) {
        const float pv = (float)v + 0.5f;
        float row[3], lo = umin, hi = umax;
        int empty = 0;
        for (int k = 0; k < 3; k++) {
            row[k] = ev[k] * (pv - a[k][1]);
            if (!spans) continue;
            const float bound = a[k][0] + slope[k] * (pv - a[k][1]);
            if (side[k] > 0) lo = MAX2(lo, bound);
            else if (side[k] < 0) hi = MIN2(hi, bound);
            else empty |= row[k] < 0;
        }
        if (empty || !(lo <= hi + 2.0f)) continue;
        int u0, u1;
        sample_range(spans ? lo - 1.0f : lo, spans ? hi + 1.0f : hi, t->s, &u0, &u1);
        float *depth = t->depth + (size_t)v * sv;
        unsigned char *shades = t->shade + (size_t)v * sv;
        for (int u = u0; u <= u1; u++) {
            const float pu = (float)u + 0.5f;
            const float e0 = row[0] + eu[0] * (pu - a[0][0]), e1 = row[1] + eu[1] * (pu - a[1][0]),
                        e2 = row[2] + eu[2] * (pu - a[2][0]);
            if (e0 < 0 || e1 < 0 || e2 < 0) continue;
            const float z = e0 * z0 + e1 * z1 + e2 * z2;
            const size_t i = (size_t)u * su;
            if (z > depth[i]) {
                depth[i] = z;
                shades[i] = e0 < near[0] || e1 < near[1] || e2 < near[2] ? EDGE_MARK : shade;
            }
        }
    }
}

/* The shade (0..255) of a face from its Newell normal: ambient plus two-sided Lambert. */
static unsigned char face_shade(const view *v, const float *pos, const mmx_index *vs, mmx_index c)
{
    float n[3] = {0, 0, 0};
    for (mmx_index i = 0; i < c; i++) {
        const float *p = pos + 3 * (size_t)vs[i], *q = pos + 3 * (size_t)vs[i + 1 < c ? i + 1 : 0];
        n[0] += (p[1] - q[1]) * (p[2] + q[2]);
        n[1] += (p[2] - q[2]) * (p[0] + q[0]);
        n[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
    float len = sqrtf(dot3(n, n));
    float lambert = len > 0 ? fabsf(dot3(n, v->light)) / len : 0;
    float s = AMBIENT + (1 - AMBIENT) * lambert;
    return (unsigned char)(s * 255 + 0.5f);
}

/* Averages each pixel's samples into the picture, blending surface and background. */
static void resolve(const target *t, int size, unsigned char *rgb)
{
    for (int y = 0; y < size; y++) {
        for (int x = 0; x < size; x++) {
            float acc[3] = {0, 0, 0};
            for (int sy = 0; sy < SS; sy++) {
                size_t i = (size_t)(y * SS + sy) * (size_t)t->s + (size_t)x * SS;
                for (int sx = 0; sx < SS; sx++, i++) {
                    if (t->depth[i] == -FLT_MAX) {
                        for (int k = 0; k < 3; k++) acc[k] += background[k];
                    } else if (t->shade[i] == EDGE_MARK) {
                        for (int k = 0; k < 3; k++) acc[k] += edge_colour[k];
                    } else {
                        float s = t->shade[i] / 255.0f;
                        for (int k = 0; k < 3; k++) acc[k] += surface[k] * s;
                    }
                }
            }
            unsigned char *px = rgb + 3 * ((size_t)y * (size_t)size + (size_t)x);
            for (int k = 0; k < 3; k++) px[k] = (unsigned char)(acc[k] / (SS * SS) + 0.5f);
        }
    }
}

int render_mesh(const mmx_mesh *mesh, const render_options *o, unsigned char **rgb, char *why,
                size_t n)
{
    *rgb = NULL;
    const int size = o->size;
    if (size < RENDER_MIN_SIZE || size > RENDER_MAX_SIZE) {
        snprintf(why, n, "picture size %d outside [%d, %d]", size, RENDER_MIN_SIZE,
                 RENDER_MAX_SIZE);
        return -1;
    }
    /* Written so that NaN fails too. */
    if (!(o->zoom >= 1 && o->zoom <= RENDER_MAX_ZOOM) || !(o->center[0] >= 0 && o->center[0] <= 1)
        || !(o->center[1] >= 0 && o->center[1] <= 1)) {
        snprintf(why, n, "zoom %g outside [1, %g] or centre (%g, %g) outside [0, 1]", o->zoom,
                 RENDER_MAX_ZOOM, o->center[0], o->center[1]);
        return -1;
    }
    if (mesh->space != MMX_SPACE_HOST) {
        snprintf(why, n, "the mesh must be in host memory (copy it with mmx_mesh_copy)");
        return -1;
    }
    const mmx_csc *M = mesh->M;
    size_t nv = (size_t)M->nrows, ns = (size_t)size * SS;
    target t = {(int)ns, malloc(ns * ns * sizeof(float)), malloc(ns * ns)};
    float *proj = mesh->pos && nv ? malloc(nv * 3 * sizeof(float)) : NULL;
    unsigned char *out = malloc((size_t)size * (size_t)size * 3);
    if (!t.depth || !t.shade || !out || (mesh->pos && nv && !proj)) {
        free(t.depth);
        free(t.shade);
        free(proj);
        free(out);
        snprintf(why, n, "out of memory for a %d x %d picture of %zu vertices", size, size, nv);
        return -1;
    }
    for (size_t i = 0; i < ns * ns; i++) t.depth[i] = -FLT_MAX;
    memset(t.shade, 0, ns * ns);

    view v;
    make_view(&v);
    if (proj) {
        /* Project, then fit the projected extent into the picture, keeping the aspect. */
        float lo[2] = {FLT_MAX, FLT_MAX}, hi[2] = {-FLT_MAX, -FLT_MAX};
        for (size_t i = 0; i < nv; i++) {
            const float *p = mesh->pos + 3 * i;
            float *q = proj + 3 * i;
            q[0] = dot3(p, v.r);
            q[1] = dot3(p, v.u);
            q[2] = dot3(p, v.d);
            for (int k = 0; k < 2; k++) {
                lo[k] = MIN2(lo[k], q[k]);
                hi[k] = MAX2(hi[k], q[k]);
            }
        }
        float ext = MAX2(hi[0] - lo[0], hi[1] - lo[1]);
        float scale = ext > 0 ? (float)ns * (1 - 2 * MARGIN) / ext : 1;
        float cx = 0.5f * (lo[0] + hi[0]), cy = 0.5f * (lo[1] + hi[1]), half = 0.5f * (float)ns;
        /* The zoom: the fitted picture's point `center` (in samples: fx, fy) goes to the
         * middle and distances from it grow `zoom` times; folded into one scale and offset,
         * which for zoom 1 about the middle are exactly the fitted view's (ox = oy = half). */
        float zoom = (float)o->zoom, zscale = scale * zoom;
        float fx = (float)o->center[0] * (float)ns, fy = (float)o->center[1] * (float)ns;
        float ox = half - (fx - half) * zoom, oy = half - (fy - half) * zoom;
        for (size_t i = 0; i < nv; i++) {
            float *q = proj + 3 * i;
            q[0] = (q[0] - cx) * zscale + ox;
            q[1] = oy - (q[1] - cy) * zscale; /* picture rows run downwards */
        }
        for (mmx_index f = 0; f < M->ncols; f++) {
            mmx_index b = M->order ? M->order * f : M->colptr[f];
            mmx_index c = M->order ? M->order : M->colptr[f + 1] - b;
            const mmx_index *vs = M->rowidx + b;
            unsigned char shade = face_shade(&v, mesh->pos, vs, c);
            for (mmx_index i = 1; i + 1 < c; i++) {
                /* The fan's triangle (0, i, i + 1) holds the face's edges (i, i + 1), and
                 * (i + 1, 0) for the last triangle and (0, i) for the first: the diagonals
                 * inside the face are not drawn. */
                unsigned lines = o->edges ? 1u | (i + 2 == c ? 2u : 0u) | (i == 1 ? 4u : 0u)
                                          : 0u;
                draw_triangle(&t, proj + 3 * (size_t)vs[0], proj + 3 * (size_t)vs[i],
                              proj + 3 * (size_t)vs[i + 1], shade, lines);
            }
        }
    }
    resolve(&t, size, out);
    free(t.depth);
    free(t.shade);
    free(proj);
    *rgb = out;
    return 0;
}
