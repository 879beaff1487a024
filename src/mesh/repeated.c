/* Repeated faces: faces with the same set of vertices as a face of a smaller number, in either
 * cyclic order. Two triangles on the same three vertices share all three edges: with the same
 * orientation they are a duplicated face, with opposite ones a two-sided "pillow" that is a
 * legal closed surface but whose refinement by Loop or sqrt3 joins two faces' children along
 * the same new edge (mmx_subdivide refuses it; see subdiv.h).
 *
 * Each face gets a hash of its vertex set that does not depend on the order of its vertices (a
 * sum and a xor of mixed vertex numbers), so no per-face sort is needed; the faces are sorted by
 * (hash, face) (a radix sort) and only faces of equal hash and order are compared, exactly, on
 * sorted copies. Cost: O(nnz + F) time, 32 bytes per face. */
#include <stdlib.h>
#include "mesh_internal.h"

typedef struct face_key {
    uint64_t hash;
    mmx_index order, face;
} face_key;

/* A 64-bit mix of a vertex number (splitmix64's finaliser constants), so that sums and xors
 * of different sets rarely collide. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Sorts key[0..n) by hash, stably (faces of equal hash stay in face order): an LSD radix sort
 * on the hash's 8 bytes through tmp (n keys); linear, where a comparison sort was the larger
 * part of the statistics' time. */
static void sort_by_hash(face_key *key, face_key *tmp, size_t n)
{
    face_key *src = key, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++) count[((src[i].hash >> shift) & 0xff) + 1]++;
        if (count[((src[0].hash >> shift) & 0xff) + 1] == n) continue; /* one digit: in order */
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++) dst[count[(src[i].hash >> shift) & 0xff]++] = src[i];
        face_key *t = src;
        src = dst, dst = t;
    }
    if (src != key)
        for (size_t i = 0; i < n; i++) key[i] = src[i];
}

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
    mmx_index n;
    const mmx_index *a = face_verts(M, f, &n), *b = face_verts(M, g, &n);
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

mmx_status mmx__mesh_repeated_faces(mmx_ctx *ctx, const mmx_csc *M, mmx__repeated *out)
{
    out->count = 0;
    out->first = out->second = -1;
    out->relation = 0;
    const size_t nf = (size_t)M->ncols;
    if (nf < 2) return MMX_OK;
    face_key *key = NULL, *tmp = NULL;
    mmx_index *sa = NULL, *sb = NULL, maxn = 0;
    mmx_status s = mmx__host_alloc(ctx, nf, sizeof *key, (void **)&key);
    if (!s) s = mmx__host_alloc(ctx, nf, sizeof *tmp, (void **)&tmp);
    for (size_t f = 0; !s && f < nf; f++) {
        mmx_index n;
        const mmx_index *v = face_verts(M, (mmx_index)f, &n);
        uint64_t sum = 0, x = 0;
        for (mmx_index i = 0; i < n; i++) {
            const uint64_t h = mix((uint64_t)(uint32_t)v[i]);
            sum += h, x ^= h * 0x2545f4914f6cdd1dull;
        }
        key[f].hash = sum ^ (x >> 1) ^ mix((uint64_t)n);
        key[f].order = n, key[f].face = (mmx_index)f;
        if (n > maxn) maxn = n;
    }
    if (!s) s = mmx__host_alloc(ctx, (size_t)maxn, sizeof *sa, (void **)&sa);
    if (!s) s = mmx__host_alloc(ctx, (size_t)maxn, sizeof *sb, (void **)&sb);
    if (s) goto done;
    sort_by_hash(key, tmp, nf);
    /* In a run of equal hash, sorted by face, a face is repeated when an earlier face of the
     * run has its order and its set; the pair kept is the one whose later face is smallest. */
    for (size_t r = 0; r < nf;) {
        size_t e = r + 1;
        while (e < nf && key[e].hash == key[r].hash) e++;
        for (size_t i = r + 1; i < e; i++) {
            for (size_t j = r; j < i; j++) {
                if (key[j].order != key[i].order || !same_set(M, key[j].face, key[i].face, sa, sb))
                    continue;
                out->count++;
                if (out->second < 0 || key[i].face < out->second)
                    out->first = key[j].face, out->second = key[i].face;
                break;
            }
        }
        r = e;
    }
    if (out->count) out->relation = cyclic_relation(M, out->first, out->second);
done:
    free(key);
    free(tmp);
    free(sa);
    free(sb);
    return s;
}
