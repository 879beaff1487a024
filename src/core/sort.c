/* The host's radix sort of 64-bit keys (core_internal.h), for the passes whose comparison sorts
 * would cost O(n log n): the statistics' high-valence vertex stars, the repeated faces. */
#include "core_internal.h"

uint64_t *mmx__radix_sort_u64(uint64_t *key, uint64_t *ktmp, mmx_index *val, mmx_index *vtmp,
                              size_t n, unsigned lo, unsigned hi, mmx_index **val_out)
{
    for (unsigned sh = lo; sh < hi; sh += 8) {
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++) cnt[((key[i] >> sh) & 255) + 1]++;
        /* A byte that every key shares leaves the order as it is: skip the pass. */
        if (n && cnt[((key[0] >> sh) & 255) + 1] == n) continue;
        for (int d = 0; d < 256; d++) cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++) {
            const size_t to = cnt[(key[i] >> sh) & 255]++;
            ktmp[to] = key[i];
            if (val) vtmp[to] = val[i];
        }
        uint64_t *kt = key;
        key = ktmp, ktmp = kt;
        mmx_index *vt = val;
        val = vtmp, vtmp = vt;
    }
    if (val_out) *val_out = val;
    return key;
}
