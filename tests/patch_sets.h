/* What the patch suites share: two host patch sets compared array by array. */
#ifndef MMX_TEST_PATCH_SETS_H
#define MMX_TEST_PATCH_SETS_H

#include <string.h>
#include <criterion/criterion.h>
#include "patch/patch_internal.h"

/* Asserts that two host sets hold the same arrays (sizes, owned counts, maps, blocks, face
 * owners) and host fields (the inconsistent edge, the maxima, the statistics of the set);
 * `what` names the case in a failure. */
static inline void tu_expect_same_patch_sets(const mmx_patch_set *a, const mmx_patch_set *b,
                                             const char *what)
{
    cr_assert_eq(a->npatches, b->npatches, "%s: %d patches vs %d", what, a->npatches, b->npatches);
    const size_t np = (size_t)a->npatches;
#define SAME(f, n) cr_assert(memcmp(a->f, b->f, (n) * sizeof *a->f) == 0, "%s: " #f " differs", what)
    SAME(face_off, np + 1);
    SAME(edge_off, np + 1);
    SAME(vert_off, np + 1);
    SAME(corner_off, np + 1);
    SAME(owned, 3 * np);
    SAME(l2g_f, (size_t)a->face_off[np]);
    SAME(l2g_e, (size_t)a->edge_off[np]);
    SAME(l2g_v, (size_t)a->vert_off[np]);
    SAME(fe, (size_t)a->corner_off[np]);
    SAME(ev, 2 * (size_t)a->edge_off[np]);
    SAME(face_patch, (size_t)a->nfaces);
#undef SAME
    cr_assert_eq(a->bad_edge, b->bad_edge, "%s: inconsistent edge %d vs %d", what, a->bad_edge,
                 b->bad_edge);
    cr_assert(a->bad_ends[0] == b->bad_ends[0] && a->bad_ends[1] == b->bad_ends[1],
              "%s: the inconsistent edge's ends differ", what);
    cr_assert(a->max_corners == b->max_corners && a->max_scratch == b->max_scratch &&
              a->stats.max_local_faces == b->stats.max_local_faces &&
              a->stats.max_local_edges == b->stats.max_local_edges &&
              a->stats.max_local_verts == b->stats.max_local_verts &&
              a->stats.bytes == b->stats.bytes && a->stats.min_faces == b->stats.min_faces &&
              a->stats.max_faces == b->stats.max_faces, "%s: the host fields differ", what);
}

#endif
