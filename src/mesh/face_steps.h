/* Per-face steps of the mesh checks, written once for the host loops (validate.c,
 * repeated.c) and the kernels (stats.cu), so that both backends decide each face alike: the
 * degenerate-face test of mmx_mesh_validate and the order-free hash of a face's vertex set by
 * which repeated faces are found. */
#ifndef MMX_MESH_FACE_STEPS_H
#define MMX_MESH_FACE_STEPS_H

#include <math.h>
#include <stdint.h>
#include "core/hd.h"
#include "meshmatrix/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the face of vertices v[0..n) has (near) zero area: the Newell normal, summed in
 * double, against the longest edge, so the test does not depend on the mesh's scale. The
 * operations are rounded as written (MMX__DMUL), so a kernel decides as the host does. */
static inline MMX__HD int mmx__face_degenerate(const float *pos, const mmx_index *v, mmx_index n)
{
    double nx = 0, ny = 0, nz = 0, longest = 0;
    for (mmx_index i = 0; i < n; i++) {
        const float *p = pos + 3 * (size_t)v[i], *q = pos + 3 * (size_t)v[(i + 1) % n];
        nx = MMX__DADD(nx, MMX__DMUL(MMX__DSUB((double)p[1], q[1]), MMX__DADD((double)p[2], q[2])));
        ny = MMX__DADD(ny, MMX__DMUL(MMX__DSUB((double)p[2], q[2]), MMX__DADD((double)p[0], q[0])));
        nz = MMX__DADD(nz, MMX__DMUL(MMX__DSUB((double)p[0], q[0]), MMX__DADD((double)p[1], q[1])));
        const double dx = MMX__DSUB((double)q[0], p[0]), dy = MMX__DSUB((double)q[1], p[1]),
                     dz = MMX__DSUB((double)q[2], p[2]);
        const double l2 = MMX__DADD(MMX__DADD(MMX__DMUL(dx, dx), MMX__DMUL(dy, dy)), MMX__DMUL(dz, dz));
        if (l2 > longest) longest = l2;
    }
    const double area = MMX__DMUL(0.5, sqrt(MMX__DADD(MMX__DADD(MMX__DMUL(nx, nx), MMX__DMUL(ny, ny)),
                                                      MMX__DMUL(nz, nz))));
    return area <= MMX__DMUL(1e-12, longest);
}

/* A 64-bit mix of a vertex number (splitmix64's finaliser constants), so that sums and xors
 * of different sets rarely collide. */
static inline MMX__HD uint64_t mmx__face_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The hash of the face of vertices v[0..n): a sum and a xor of the mixed vertex numbers, and
 * the order, so it does not depend on where the face starts or which way it runs. Faces with
 * one vertex set (counted with repeats) hash alike. */
static inline MMX__HD uint64_t mmx__face_set_hash(const mmx_index *v, mmx_index n)
{
    uint64_t sum = 0, x = 0;
    for (mmx_index i = 0; i < n; i++) {
        const uint64_t h = mmx__face_mix((uint64_t)(uint32_t)v[i]);
        sum += h, x ^= h * 0x2545f4914f6cdd1dull;
    }
    return sum ^ (x >> 1) ^ mmx__face_mix((uint64_t)n);
}

#ifdef __cplusplus
}
#endif

#endif
