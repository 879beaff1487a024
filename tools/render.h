/* A small software rasteriser for the tool's pictures of meshes (mmx render, mmx demo).
 *
 * The view is fixed: orthographic, looking at the mesh from 10 degrees above and 15 degrees
 * to the right of the +z axis, with +y up (the usual convention of OBJ files), the
 * mesh's projected extent fitted to the picture with a small margin. Faces are split into
 * triangles as fans from their first corner and drawn with a depth buffer at 2 x 2 samples per
 * pixel, averaged at the end. Each face is flat-shaded from its own normal (Newell's, so that
 * non-planar polygons get a fair one): a fixed light from the upper left, Lambert's cosine
 * taken two-sided (back faces are lit as front faces), plus ambient light. The background is
 * light grey. */
#ifndef MMX_TOOL_RENDER_H
#define MMX_TOOL_RENDER_H

#include <stddef.h>
#include "meshmatrix.h"

#define RENDER_MIN_SIZE 16
#define RENDER_MAX_SIZE 4096

/* Draws `mesh` (in host memory, either form of the mesh matrix) into a size x size RGB
 * picture (size in [RENDER_MIN_SIZE, RENDER_MAX_SIZE]; 3 bytes per pixel, rows top to bottom),
 * allocated with malloc into *rgb (release with free()). A mesh without faces or positions
 * gives the empty background. Returns 0, or -1 with the reason in why[0..n) (the mesh is on
 * the device, a bad size, out of memory). Cost: O(nverts + nnz + covered samples) time, 5
 * bytes per sample (4 samples a pixel) plus 12 bytes per vertex of memory (about 32 MiB for
 * 800 x 800 and 1.5M vertices). */
int render_mesh(const mmx_mesh *mesh, int size, unsigned char **rgb, char *why, size_t n);

#endif
