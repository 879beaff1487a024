/* The patch set's report rows, shared by `mmx info --patches` and the commands that keep a
 * set current through their edits (`mmx remesh --keep-patches`, `mmx delaunay
 * --keep-patches`): the figures of the set, and the check that every query computed on it
 * equals the algebraic path's (mmx_query), which tells from the shell that a kept set is
 * valid. */
#include <stdlib.h>
#include <string.h>
#include "tool.h"

void print_patch_stats(const mmx_patch_stats *ps, int S, int kept, double ms, const char *backend)
{
    if (kept)
        row("patches", "%d (S = %d; kept through edits, a patch grows to %d faces at most)",
            (int)ps->npatches, S, 2 * S < MMX_PATCH_MAX_FACES ? 2 * S : MMX_PATCH_MAX_FACES);
    else
        row("patches", "%d (S = %d faces at most)", (int)ps->npatches, S);
    row("patch faces", "%d .. %d owned, mean %.1f", (int)ps->min_faces, (int)ps->max_faces,
        ps->mean_faces);
    row("ribbon faces", "%lld (%.1f%% of local faces)", (long long)ps->ribbon_faces,
        100.0 * ps->ribbon_share);
    row("largest patch", "%d faces, %d edges, %d vertices (local)", (int)ps->max_local_faces,
        (int)ps->max_local_edges, (int)ps->max_local_verts);
    row("patch memory", "%lld bytes (%.1f per face); topology as RXMesh counts it %lld bytes (%.1f per face)",
        (long long)ps->bytes, ps->bytes_per_face, (long long)ps->topology_bytes,
        ps->topology_bytes_per_face);
    if (ms >= 0) row("patch time", "%.3f ms (%s backend)", ms, backend);
    const double dirty = ps->update_patches ? (double)ps->update_dirty / (double)ps->update_patches : 0;
    if (kept)
        row("patch updates", "%lld rounds, %lld incremental; %.1f%% of the patches rebuilt per round",
            (long long)ps->updates, (long long)ps->updates_incremental, 100.0 * dirty);
    js_object("patches");
    js_int("count", ps->npatches);
    js_int("min_faces", ps->min_faces);
    js_int("max_faces", ps->max_faces);
    js_num("mean_faces", ps->mean_faces);
    js_int("ribbon_faces", (long long)ps->ribbon_faces);
    js_num("ribbon_share", ps->ribbon_share);
    js_int("max_local_faces", ps->max_local_faces);
    js_int("max_local_edges", ps->max_local_edges);
    js_int("max_local_vertices", ps->max_local_verts);
    js_int("bytes", (long long)ps->bytes);
    js_num("bytes_per_face", ps->bytes_per_face);
    js_int("topology_bytes", (long long)ps->topology_bytes);
    js_num("topology_bytes_per_face", ps->topology_bytes_per_face);
    if (ms >= 0) js_ms("ms", ms);
    if (kept) {
        js_int("updates", (long long)ps->updates);
        js_int("updates_incremental", (long long)ps->updates_incremental);
        js_num("update_dirty_share", dirty);
    }
    js_end();
}

/* n entries of an array in `space` into host memory (malloc'd, or NULL after an error). */
static mmx_index *to_host(mmx_ctx *ctx, const mmx_index *a, mmx_space space, size_t n, mmx_status *s)
{
    mmx_index *h = malloc((n + 1) * sizeof *h);
    if (!h) {
        *s = MMX_ERR_NOMEM;
        return NULL;
    }
    if (n > 0) *s = mmx_mem_copy(ctx, h, MMX_SPACE_HOST, a, space, n * sizeof *h);
    if (*s) {
        free(h);
        return NULL;
    }
    return h;
}

/* Whether A and B hold the same pattern (either form, either space). */
static mmx_status same_csr(mmx_ctx *ctx, const mmx_csr *A, const mmx_csr *B, int *same)
{
    *same = A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz && A->order == B->order;
    if (!*same) return MMX_OK;
    mmx_status s = MMX_OK;
    const int n = 2 - (A->order > 0); /* colidx, and rowptr in the general form */
    for (int k = 0; k < n && *same && !s; k++) {
        const size_t len = k ? (size_t)A->nrows + 1 : (size_t)A->nnz;
        mmx_index *a = to_host(ctx, k ? A->rowptr : A->colidx, A->space, len, &s);
        mmx_index *b = s ? NULL : to_host(ctx, k ? B->rowptr : B->colidx, B->space, len, &s);
        if (!s) *same = memcmp(a, b, len * sizeof *a) == 0;
        free(a);
        free(b);
    }
    return s;
}

int check_patch_queries(mmx_ctx *ctx, const mmx_patch_set *ps, const mmx_mesh *mesh,
                        const char *name)
{
    int bad = -1;
    for (int k = 0; k < MMX_QUERY_COUNT && bad < 0; k++) {
        mmx_csr *P = NULL, *Q = NULL;
        int same = 0;
        mmx_status s = mmx_patch_query(ctx, ps, (mmx_query_kind)k, &P);
        if (!s) s = mmx_query(ctx, mesh, NULL, (mmx_query_kind)k, &Q);
        if (!s) s = same_csr(ctx, P, Q, &same);
        mmx_csr_free(P);
        mmx_csr_free(Q);
        if (s == MMX_ERR_MESH) same = 1; /* refused on both paths (an inconsistent orientation) */
        else if (s) return fail(ctx, s, name);
        if (!same) bad = k;
    }
    if (bad >= 0) {
        row("patch queries", "%s DIFFERS from the algebraic path", mmx_query_name((mmx_query_kind)bad));
        js_bool("patch_queries_equal", 0);
        fprintf(stderr, "mmx: %s: the kept patch set's %s query differs from the algebraic path\n",
                name, mmx_query_name((mmx_query_kind)bad));
        return EXIT_FAIL;
    }
    row("patch queries", "all %d equal to the algebraic path", MMX_QUERY_COUNT);
    js_bool("patch_queries_equal", 1);
    return EXIT_OK;
}
