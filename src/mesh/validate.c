/* mmx_mesh_validate: the invariants a mesh edit must keep (DESIGN.md, Correctness: manifold,
 * oriented, no degenerate faces, Euler characteristic) checked in one call. Everything
 * topological is mmx_mesh_stats_compute's; only the areas are computed here, since the stats
 * read no positions but the bounding box. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mesh_internal.h"

/* 1 when face f (vertices v[0..n)) has (near) zero area: the Newell normal, summed in double,
 * against the longest edge, so the test does not depend on the mesh's scale. */
static int degenerate(const float *pos, const mmx_index *v, mmx_index n)
{
    double nx = 0, ny = 0, nz = 0, longest = 0;
    for (mmx_index i = 0; i < n; i++) {
        const float *p = pos + 3 * (size_t)v[i], *q = pos + 3 * (size_t)v[(i + 1) % n];
        nx += ((double)p[1] - q[1]) * ((double)p[2] + q[2]);
        ny += ((double)p[2] - q[2]) * ((double)p[0] + q[0]);
        nz += ((double)p[0] - q[0]) * ((double)p[1] + q[1]);
        const double dx = (double)q[0] - p[0], dy = (double)q[1] - p[1], dz = (double)q[2] - p[2];
        const double l2 = dx * dx + dy * dy + dz * dz;
        if (l2 > longest) longest = l2;
    }
    const double area = 0.5 * sqrt(nx * nx + ny * ny + nz * nz);
    return area <= 1e-12 * longest;
}

/* Counts the degenerate faces of a host mesh. */
static void count_degenerate(const mmx_mesh *hm, mmx_mesh_validation *r)
{
    const mmx_csc *M = hm->M;
    for (mmx_index f = 0; f < M->ncols; f++) {
        const mmx_index b = M->order ? M->order * f : M->colptr[f];
        const mmx_index e = M->order ? b + M->order : M->colptr[f + 1];
        if (degenerate(hm->pos, M->rowidx + b, e - b)) {
            if (r->first_degenerate_face < 0) r->first_degenerate_face = f;
            r->degenerate_faces++;
        }
    }
}

/* Writes the first violation into r->problem (the order of the header). */
static void first_problem(mmx_mesh_validation *r, const mmx_mesh_expect *x)
{
    const mmx_mesh_stats *st = &r->stats;
    char *p = r->problem;
    const size_t n = sizeof r->problem;
    p[0] = '\0';
    if (st->nonmanifold_edges || st->nonmanifold_verts)
        snprintf(p, n, "vertex %d is non-manifold (%d non-manifold edges, %d non-manifold vertices)",
                 (int)st->first_nonmanifold_vert, (int)st->nonmanifold_edges,
                 (int)st->nonmanifold_verts);
    else if (st->inconsistent_edges)
        snprintf(p, n, "edge %d-%d: its two faces run it the same way (inconsistent orientation, "
                 "%d such edges)", (int)st->inconsistent_edge[0], (int)st->inconsistent_edge[1],
                 (int)st->inconsistent_edges);
    else if (r->degenerate_faces)
        snprintf(p, n, "face %d is degenerate (zero area; %d such faces)",
                 (int)r->first_degenerate_face, (int)r->degenerate_faces);
    else if (st->repeated_faces)
        snprintf(p, n, "face %d repeats face %d (%d repeated faces)", (int)st->repeated_face[1],
                 (int)st->repeated_face[0], (int)st->repeated_faces);
    else if (x && x->check_euler && st->euler != x->euler)
        snprintf(p, n, "Euler characteristic %lld, expected %lld", (long long)st->euler,
                 (long long)x->euler);
    else if (x && x->check_boundary_loops && st->boundary_loops != x->boundary_loops)
        snprintf(p, n, "%d boundary loops, expected %d", (int)st->boundary_loops,
                 (int)x->boundary_loops);
}

mmx_status mmx_mesh_validate(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_mesh_expect *expect,
                             mmx_mesh_validation *report)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !report)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_validate: NULL argument");
    memset(report, 0, sizeof *report);
    report->first_degenerate_face = -1;
    mmx_status s = mmx_mesh_stats_compute(ctx, mesh, &report->stats);
    if (!s && mesh->pos) {
        const mmx_mesh *hm = NULL;
        s = mmx__mesh_host_view(ctx, mesh, &hm);
        if (!s) {
            report->positions_checked = 1;
            count_degenerate(hm, report);
            mmx__mesh_host_release(mesh, hm);
        }
    }
    if (s) {
        memset(report, 0, sizeof *report);
        return s;
    }
    first_problem(report, expect);
    report->valid = report->problem[0] == '\0';
    if (expect && !report->valid)
        return mmx__fail(ctx, MMX_ERR_MESH, "mmx_mesh_validate: %s", report->problem);
    return MMX_OK;
}
