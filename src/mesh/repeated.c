/* Repeated faces: faces with the same set of vertices as a face of a smaller number, in either
 * cyclic order. Two triangles on the same three vertices share all three edges: with the same
 * orientation they are a duplicated face, with opposite ones a two-sided "pillow" that is a
 * legal closed surface but whose refinement by Loop or sqrt3 joins two faces' children along
 * the same new edge (mmx_subdivide refuses it; see subdiv.h).
 *
 * Each face gets a hash of its vertex set that does not depend on the order of its vertices (a
 * sum and a xor of mixed vertex numbers), so no per-face sort is needed; the faces are sorted by
 * (hash, face) (the core's radix sort) and only faces of equal hash and order are compared,
 * exactly, on sorted copies. Cost: O(nnz + F) time, 24 bytes per face. */
#include <stdlib.h>
#include "face_steps.h"
#include "mesh_internal.h"

static int index_cmp(const void *pa, const void *pb)
{
    const mmx_index a = *(const mmx_index *)pa, b = *(const mmx_index *)pb;
    return (a > b) - (a < b);
}

static const mmx_index *face_verts(const mmx_csc *M, mmx_index f, mmx_index *n)
{
    const mmx_index a = M->order ? M->order * f : M->colptr[f];
    *n = M->order ? M->order : M->colptr[f + 1] - a;
    return M->rowidx + a;
}

/* Whether faces f and g (of equal order n) have the same vertex set; sa and sb hold n each. */
static int same_set(const mmx_csc *M, mmx_index f, mmx_index g, mmx_index *sa, mmx_index *sb)
{
    mmx_index n, m;
    const mmx_index *a = face_verts(M, f, &n), *b = face_verts(M, g, &m);
    if (n != m) return 0;
    for (mmx_index i = 0; i < n; i++) sa[i] = a[i], sb[i] = b[i];
    qsort(sa, (size_t)n, sizeof *sa, index_cmp);
    qsort(sb, (size_t)n, sizeof *sb, index_cmp);
    for (mmx_index i = 0; i < n; i++)
        if (sa[i] != sb[i]) return 0;
    return 1;
}

/* How face g runs face f's vertices (same set, no vertex twice): 1 in the same cyclic order, -1
 * in the opposite one, 0 in another. */
static int cyclic_relation(const mmx_csc *M, mmx_index f, mmx_index g)
{
    mmx_index n, j = 0;
    const mmx_index *a = face_verts(M, f, &n), *b = face_verts(M, g, &n);
    while (j < n && b[j] != a[0]) j++;
    int fwd = 1, bwd = 1;
    for (mmx_index i = 0; i < n; i++) {
        fwd &= a[i] == b[(j + i) % n];
        bwd &= a[i] == b[(j + n - i) % n];
    }
    return fwd ? 1 : bwd ? -1 : 0;
}

mmx_status mmx__repeated_scan(mmx_ctx *ctx, const mmx_csc *M, const uint64_t *hk,
                              const mmx_index *fk, mmx__repeated *out)
{
    out->count = 0;
    out->first = out->second = -1;
    out->relation = 0;
    const size_t nf = (size_t)M->ncols;
    mmx_index maxn = 0, *sa = NULL, *sb = NULL;
    for (size_t f = 0; f < nf; f++) {
        mmx_index n;
        face_verts(M, (mmx_index)f, &n);
        if (n > maxn) maxn = n;
    }
    mmx_status s = mmx__host_alloc(ctx, (size_t)maxn + 1, sizeof *sa, (void **)&sa);
    if (!s) s = mmx__host_alloc(ctx, (size_t)maxn + 1, sizeof *sb, (void **)&sb);
    /* In a run of equal hash, in face order, a face is repeated when an earlier face of the run
     * has its set (and so its order); the pair kept is the one whose later face is smallest. */
    for (size_t r = 0; !s && r < nf;) {
        size_t e = r + 1;
        while (e < nf && hk[e] == hk[r]) e++;
        for (size_t i = r + 1; i < e; i++) {
            for (size_t j = r; j < i; j++) {
                if (!same_set(M, fk[j], fk[i], sa, sb)) continue;
                out->count++;
                if (out->second < 0 || fk[i] < out->second) out->first = fk[j], out->second = fk[i];
                break;
            }
        }
        r = e;
    }
    if (!s && out->count) out->relation = cyclic_relation(M, out->first, out->second);
    free(sa);
    free(sb);
    return s;
}

mmx_status mmx__mesh_repeated_faces(mmx_ctx *ctx, const mmx_csc *M, mmx__repeated *out)
{
    out->count = 0;
    out->first = out->second = -1;
    out->relation = 0;
    const size_t nf = (size_t)M->ncols;
    if (nf < 2) return MMX_OK;
    uint64_t *hash = NULL, *htmp = NULL;
    mmx_index *face = NULL, *ftmp = NULL;
    mmx_status s = mmx__host_alloc(ctx, nf, sizeof *hash, (void **)&hash);
    if (!s) s = mmx__host_alloc(ctx, nf, sizeof *htmp, (void **)&htmp);
    if (!s) s = mmx__host_alloc(ctx, nf, sizeof *face, (void **)&face);
    if (!s) s = mmx__host_alloc(ctx, nf, sizeof *ftmp, (void **)&ftmp);
    for (size_t f = 0; !s && f < nf; f++) {
        mmx_index n;
        const mmx_index *v = face_verts(M, (mmx_index)f, &n);
        hash[f] = mmx__face_set_hash(v, n);
        face[f] = (mmx_index)f;
    }
    if (!s) {
        /* By hash, stably: the faces of one hash stay in face order. */
        mmx_index *fk;
        const uint64_t *hk = mmx__radix_sort_u64(hash, htmp, face, ftmp, nf, 0, 64, &fk);
        s = mmx__repeated_scan(ctx, M, hk, fk, out);
    }
    free(hash);
    free(htmp);
    free(face);
    free(ftmp);
    return s;
}
