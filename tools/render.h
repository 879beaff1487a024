/* A small software rasteriser for the tool's pictures of meshes (mmx render, mmx demo).
 *
 * The view is fixed: orthographic, looking at the mesh from 10 degrees above and 15 degrees
 * to the right of the +z axis, with +y up (the usual convention of OBJ files), the
 * mesh's projected extent fitted to the picture with a small margin. Faces are split into
 * triangles as fans from their first corner and drawn with a depth buffer at 2 x 2 samples per
 * pixel, averaged at the end. Each face is flat-shaded from its own normal (Newell's, so that
 * non-planar polygons get a fair one): a fixed light from the upper left, Lambert's cosine
 * taken two-sided (back faces are lit as front faces), plus ambient light. The background is
 * light grey.
 *
 * Options: the faces' edges may be drawn as thin dark lines (a sample of a face within half
 * a pixel of one of the face's own edges, not the diagonals of its fan, is drawn dark instead
 * of shaded, so a line shared by two faces is about one pixel wide; since this happens in the
 * depth-tested drawing of the face, hidden edges are never drawn), and the fitted picture may be magnified `zoom` times about a
 * point given in the fitted picture's normalised coordinates ((0, 0) its top-left corner,
 * (1, 1) its bottom-right), which becomes the picture's centre. */
#ifndef MMX_TOOL_RENDER_H
#define MMX_TOOL_RENDER_H

#include <stddef.h>
#include "meshmatrix.h"

#define RENDER_MIN_SIZE 16
#define RENDER_MAX_SIZE 4096
#define RENDER_MAX_ZOOM 100.0

/* How to draw: render_options_default() gives size 800, no edges, zoom 1 about the centre. */
typedef struct render_options {
    int size;             /* the picture's width and height, [RENDER_MIN_SIZE, RENDER_MAX_SIZE] */
    int edges;            /* nonzero: the faces' edges as thin dark lines */
    double zoom;          /* magnification, [1, RENDER_MAX_ZOOM] */
    double center[2];     /* the point magnified about, x right and y down, each in [0, 1] */
} render_options;

render_options render_options_default(void);

/* Draws `mesh` (in host memory, either form of the mesh matrix) into an o->size x o->size RGB
 * picture (3 bytes per pixel, rows top to bottom) as `o` says, allocated with malloc into *rgb
 * (release with free()). A mesh without faces or positions gives the empty background.
 * Returns 0, or -1 with the reason in why[0..n) (the mesh is on the device, an option out of
 * its range, out of memory). Cost: O(nverts + nnz + covered samples + lines scanned) time
 * (each triangle scans the lines across the short side of its box, in samples), 5
 * bytes per sample (4 samples a pixel) plus 12 bytes per vertex of memory (about 32 MiB for
 * 800 x 800 and 1.5M vertices). */
int render_mesh(const mmx_mesh *mesh, const render_options *o, unsigned char **rgb, char *why,
                size_t n);

#endif
