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

/* Draws a triangle given in sample coordinates (x right, y down, z towards the viewer) with
 * one shade. A sample belongs to it when its centre is inside or on an edge, so a closed mesh
 * leaves no gaps; the depth test keeps the nearest face where two claim a sample. Bit k of
 * `lines` asks for the edge opposite corner k (p1p2, p2p0, p0p1) to be drawn: samples within
 * EDGE_HALF_WIDTH of it get EDGE_MARK instead of the shade. */
static void draw_triangle(target *t, const float *p0, const float *p1, const float *p2,
                          unsigned char shade, unsigned lines)
{
    float area = (p1[0] - p0[0]) * (p2[1] - p0[1]) - (p2[0] - p0[0]) * (p1[1] - p0[1]);
    if (area == 0 || !isfinite(area)) return;
    if (area < 0) { /* drawn from both sides: make the corners run one way */
        const float *tmp = p1;
        p1 = p2;
        p2 = tmp;
        area = -area;
        /* p2p0 and p0p1 trade places; p1p2 stays opposite corner 0. */
        lines = (lines & 1u) | ((lines & 2u) << 1) | ((lines & 4u) >> 1);
    }
    float xmin = MIN3(p0[0], p1[0], p2[0]), xmax = MAX3(p0[0], p1[0], p2[0]);
    float ymin = MIN3(p0[1], p1[1], p2[1]), ymax = MAX3(p0[1], p1[1], p2[1]);
    /* The sample centres (i + 0.5) inside the bounding box, clipped to the target. */
    int x0 = (int)ceilf(xmin - 0.5f), x1 = (int)floorf(xmax - 0.5f);
    int y0 = (int)ceilf(ymin - 0.5f), y1 = (int)floorf(ymax - 0.5f);
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > t->s - 1) x1 = t->s - 1;
    if (y1 > t->s - 1) y1 = t->s - 1;
    if (x0 > x1 || y0 > y1) return;
    /* Edge functions e_k(p) = (b - a) x (p - a) of the edge opposite corner k: all three are
     * >= 0 inside, and e_k / area is corner k's barycentric weight. */
    const float *a[3] = {p1, p2, p0}, *b[3] = {p2, p0, p1};
    float ex[3], ey[3], e_row[3], near[3];
    float px = (float)x0 + 0.5f, py = (float)y0 + 0.5f;
    for (int k = 0; k < 3; k++) {
        ex[k] = -(b[k][1] - a[k][1]);
        ey[k] = b[k][0] - a[k][0];
        e_row[k] = ey[k] * (py - a[k][1]) + ex[k] * (px - a[k][0]);
        /* e_k is the distance to edge k times its length: a sample is on a drawn edge when
         * e_k < near[k]; -1 never holds inside (e_k >= 0) for the edges not drawn. */
        near[k] = (lines >> k) & 1u ? EDGE_HALF_WIDTH * sqrtf(ex[k] * ex[k] + ey[k] * ey[k])
                                    : -1.0f;
    }
    float inv = 1.0f / area;
    float z0 = p0[2] * inv, z1 = p1[2] * inv, z2 = p2[2] * inv;
    for (int y = y0; y <= y1; y++) {
        float e0 = e_row[0], e1 = e_row[1], e2 = e_row[2];
        float *depth = t->depth + (size_t)y * (size_t)t->s;
        unsigned char *shades = t->shade + (size_t)y * (size_t)t->s;
        for (int x = x0; x <= x1; x++) {
            if (e0 >= 0 && e1 >= 0 && e2 >= 0) {
                float z = e0 * z0 + e1 * z1 + e2 * z2;
                if (z > depth[x]) {
                    depth[x] = z;
                    shades[x] = e0 < near[0] || e1 < near[1] || e2 < near[2] ? EDGE_MARK : shade;
                }
            }
            e0 += ex[0];
            e1 += ex[1];
            e2 += ex[2];
        }
        for (int k = 0; k < 3; k++) e_row[k] += ey[k];
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
