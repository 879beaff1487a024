/* mmx_mesh_validate: the invariants a mesh edit must keep (DESIGN.md, Correctness: manifold,
 * oriented, no degenerate faces, Euler characteristic) checked in one call. Everything
 * topological is mmx_mesh_stats_compute's; only the areas are computed here, since the stats
 * read no positions but the bounding box. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "face_steps.h"
#include "mesh_internal.h"

/* Counts the degenerate faces of a host mesh. */
static void count_degenerate(const mmx_mesh *hm, mmx_mesh_validation *r)
{
    const mmx_csc *M = hm->M;
    for (mmx_index f = 0; f < M->ncols; f++) {
        const mmx_index b = M->order ? M->order * f : M->colptr[f];
        const mmx_index e = M->order ? b + M->order : M->colptr[f + 1];
        if (mmx__face_degenerate(hm->pos, M->rowidx + b, e - b)) {
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
    if (!s && mesh->pos && mesh->space == MMX_SPACE_DEVICE && mmx_ctx_space(ctx) == MMX_SPACE_DEVICE) {
        /* On the device where the mesh is: a host copy of a large mesh costs more than the
         * check. */
        s = mmx__mesh_degenerate_cuda(ctx, mesh, &report->degenerate_faces,
                                      &report->first_degenerate_face);
        report->positions_checked = !s;
    } else if (!s && mesh->pos) {
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
