/* A zlib stream encoder: see deflate.h. The format is RFC 1950 (zlib) and RFC 1951
 * (deflate); the code below is written from those texts. */
#include <stdlib.h>
#include <string.h>
#include "deflate.h"

#define WSIZE 32768          /* deflate's largest distance */
#define WMASK (WSIZE - 1)
#define HBITS 15
#define HSIZE (1 << HBITS)
#define MIN_MATCH 3
#define MAX_MATCH 258
#define MAX_CHAIN 64         /* earlier positions tried per search: bounds the time per byte */
#define NICE_MATCH 128       /* a match this long is good enough to stop searching */
#define LAZY_MAX 32          /* a match this long is taken without looking one byte ahead */
#define BLOCK_SYMS 32768     /* symbols per block: lets the codes follow the picture's content */
#define NLIT 286             /* literal/length symbols that may occur (286, 287 never do) */
#define NDIST 30
#define NCL 19               /* the code-length alphabet */

/* ---- the bit writer: deflate packs bits from the least significant end of each byte ------ */

typedef struct bitw {
    unsigned char *buf;
    size_t len, cap;
    uint64_t acc;            /* pending bits, the oldest lowest */
    int nacc;
    int err;                 /* set when growing the buffer failed; later writes are dropped */
} bitw;

static void put_byte(bitw *w, unsigned char b)
{
    if (w->err) return;
    if (w->len == w->cap) {
        size_t cap = w->cap * 2 + 1024;
        unsigned char *nb = realloc(w->buf, cap);
        if (!nb) {
            w->err = 1;
            return;
        }
        w->buf = nb;
        w->cap = cap;
    }
    w->buf[w->len++] = b;
}

/* Appends the n low bits of v (n <= 32), least significant first. */
static void put_bits(bitw *w, uint32_t v, int n)
{
    w->acc |= (uint64_t)v << w->nacc;
    w->nacc += n;
    while (w->nacc >= 8) {
        put_byte(w, (unsigned char)(w->acc & 0xff));
        w->acc >>= 8;
        w->nacc -= 8;
    }
}

/* Pads the last partial byte with zeros. */
static void align_byte(bitw *w)
{
    if (w->nacc > 0) put_byte(w, (unsigned char)(w->acc & 0xff));
    w->acc = 0;
    w->nacc = 0;
}

/* ---- the length and distance alphabets (RFC 1951, 3.2.5) --------------------------------- */

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10,  11,  13,
                                      15, 17, 19, 23, 27, 31, 35, 43,  51,  59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,     2,     3,    4,    5,    7,    9,    13,
                                       17,    25,    33,   49,   65,   97,   129,  193,
                                       257,   385,   513,  769,  1025, 1537, 2049, 3073,
                                       4097,  6145,  8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The code (0..28, to add to 257) of a match length in [3, 258]. */
static int len_code(unsigned len)
{
    int c = 28;
    while (len_base[c] > len) c--;
    return c;
}

/* The code (0..29) of a distance in [1, 32768]. */
static int dist_code(unsigned dist)
{
    int c = 29;
    while (dist_base[c] > dist) c--;
    return c;
}

/* ---- Huffman codes ------------------------------------------------------------------------ */

/* Code lengths of a Huffman code for the counts freq[0..n) (n <= 288), none longer than
 * maxbits; unused symbols get 0. At least two symbols get a code, so that every code is
 * complete (inflaters refuse most incomplete ones). When the optimal code is too deep the
 * counts are halved (kept above zero) and the code rebuilt: the simplest limit that works. */
static void huff_lengths(const uint32_t *freq_in, int n, int maxbits, uint8_t *len)
{
    uint32_t freq[288];
    int sym[288], parent[2 * 288], depth[2 * 288];
    uint64_t weight[2 * 288];
    memcpy(freq, freq_in, (size_t)n * sizeof *freq);
    int used = 0;
    for (int i = 0; i < n; i++) used += freq[i] != 0;
    for (int i = 0; i < n && used < 2; i++)
        if (!freq[i]) {
            freq[i] = 1;
            used++;
        }
    for (;;) {
        /* The used symbols by ascending count (insertion sort: n is at most 288). */
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (!freq[i]) continue;
            int k = m++;
            while (k > 0 && freq[sym[k - 1]] > freq[i]) {
                sym[k] = sym[k - 1];
                k--;
            }
            sym[k] = i;
        }
        /* Two queues: the sorted leaves, and the merged nodes, which come out in ascending
         * weight by construction; each step merges the two lightest heads. */
        for (int k = 0; k < m; k++) weight[k] = freq[sym[k]];
        int leaf = 0, inner = m;
        for (int next = m; next < 2 * m - 1; next++) {
            int pick[2];
            for (int j = 0; j < 2; j++) {
                if (leaf < m && (inner >= next || weight[leaf] <= weight[inner])) pick[j] = leaf++;
                else pick[j] = inner++;
            }
            weight[next] = weight[pick[0]] + weight[pick[1]];
            parent[pick[0]] = parent[pick[1]] = next;
        }
        /* Parents come after their children, so one backward pass gives every depth. */
        depth[2 * m - 2] = 0;
        for (int k = 2 * m - 3; k >= 0; k--) depth[k] = depth[parent[k]] + 1;
        int maxd = 0;
        for (int k = 0; k < m; k++) maxd = depth[k] > maxd ? depth[k] : maxd;
        if (maxd <= maxbits) {
            memset(len, 0, (size_t)n);
            for (int k = 0; k < m; k++) len[sym[k]] = (uint8_t)depth[k];
            return;
        }
        for (int i = 0; i < n; i++)
            if (freq[i]) freq[i] = (freq[i] >> 1) | 1;
    }
}

/* The canonical codes of the lengths (RFC 1951, 3.2.2), bit-reversed so that put_bits sends
 * them most significant bit first as deflate wants. */
static void huff_codes(const uint8_t *len, int n, uint16_t *code)
{
    int count[16] = {0}, next[16];
    for (int i = 0; i < n; i++) count[len[i]]++;
    count[0] = 0;
    int c = 0;
    for (int b = 1; b < 16; b++) {
        c = (c + count[b - 1]) << 1;
        next[b] = c;
    }
    for (int i = 0; i < n; i++) {
        code[i] = 0;
        if (!len[i]) continue;
        unsigned v = (unsigned)next[len[i]]++, r = 0;
        for (int b = 0; b < len[i]; b++) r |= ((v >> b) & 1u) << (len[i] - 1 - b);
        code[i] = (uint16_t)r;
    }
}

/* ---- blocks ------------------------------------------------------------------------------- */

/* One LZ77 output: a literal byte (dist 0) or a match of `lit` bytes `dist` back. */
typedef struct lzsym {
    uint16_t lit, dist;
} lzsym;

/* The order in which the code-length code's lengths are sent (RFC 1951, 3.2.7). */
static const uint8_t cl_order[NCL] = {16, 17, 18, 0,  8, 7,  9, 6,  10, 5,
                                      11, 4,  12, 3, 13, 2, 14, 1, 15};

/* The code lengths of both alphabets as the run-length coded sequence that a dynamic block's
 * header sends: codes 0..15 are lengths, 16 repeats the previous length 3..6 times, 17 and 18
 * give 3..10 and 11..138 zeros. Returns the number of items. */
static int rle_lengths(const uint8_t *all, int total, uint8_t *rc, uint8_t *rx)
{
    int nr = 0, prev = -1;
    for (int i = 0; i < total;) {
        int v = all[i], run = 1;
        while (i + run < total && all[i + run] == v) run++;
        if (v == 0 && run >= 3) {
            int r = run > 138 ? 138 : run;
            rc[nr] = r >= 11 ? 18 : 17;
            rx[nr++] = (uint8_t)(r >= 11 ? r - 11 : r - 3);
            i += r;
            prev = -1; /* keeps 16 from relying on what 17 and 18 leave behind */
        } else if (v == prev && run >= 3) {
            int r = run > 6 ? 6 : run;
            rc[nr] = 16;
            rx[nr++] = (uint8_t)(r - 3);
            i += r;
        } else {
            rc[nr] = (uint8_t)v;
            rx[nr++] = 0;
            prev = v;
            i++;
        }
    }
    return nr;
}

/* Writes the symbols as one block, with codes fitted to them (dynamic) or with the fixed
 * codes, whichever takes fewer bits; `final` marks the last block. */
static void write_block(bitw *w, const lzsym *s, size_t ns, int final)
{
    uint32_t lf[288] = {0}, df[NDIST] = {0};
    for (size_t i = 0; i < ns; i++) {
        if (!s[i].dist) {
            lf[s[i].lit]++;
        } else {
            lf[257 + len_code(s[i].lit)]++;
            df[dist_code(s[i].dist)]++;
        }
    }
    lf[256] = 1;

    uint8_t ll[288] = {0}, dl[NDIST], fl[288], cl[NCL];
    huff_lengths(lf, NLIT, 15, ll);
    huff_lengths(df, NDIST, 15, dl);
    int nlit = NLIT, ndist = NDIST;
    while (nlit > 257 && !ll[nlit - 1]) nlit--;
    while (ndist > 1 && !dl[ndist - 1]) ndist--;
    uint8_t all[NLIT + NDIST], rc[NLIT + NDIST], rx[NLIT + NDIST];
    memcpy(all, ll, (size_t)nlit);
    memcpy(all + nlit, dl, (size_t)ndist);
    int nr = rle_lengths(all, nlit + ndist, rc, rx);
    uint32_t cf[NCL] = {0};
    for (int i = 0; i < nr; i++) cf[rc[i]]++;
    huff_lengths(cf, NCL, 7, cl);
    int ncl = NCL;
    while (ncl > 4 && !cl[cl_order[ncl - 1]]) ncl--;

    /* The fixed codes (RFC 1951, 3.2.6): literals 0..143 8 bits, 144..255 9, 256..279 7,
     * 280..287 8; distances 5 bits. */
    for (int i = 0; i < 288; i++) fl[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    uint64_t dyn = 14 + 3 * (uint64_t)ncl, fix = 0;
    for (int i = 0; i < nr; i++)
        dyn += cl[rc[i]] + (rc[i] == 16 ? 2 : rc[i] == 17 ? 3 : rc[i] == 18 ? 7 : 0);
    for (int i = 0; i < NLIT; i++) {
        dyn += (uint64_t)lf[i] * ll[i];
        fix += (uint64_t)lf[i] * fl[i];
    }
    for (int i = 0; i < NDIST; i++) {
        dyn += (uint64_t)df[i] * dl[i];
        fix += (uint64_t)df[i] * 5;
    }

    uint16_t lcode[288], dcode[NDIST];
    const uint8_t *lbits, *dbits;
    uint8_t fdl[NDIST];
    put_bits(w, final ? 1u : 0u, 1);
    if (fix <= dyn) {
        memset(fdl, 5, sizeof fdl);
        put_bits(w, 1, 2);
        lbits = fl;
        dbits = fdl;
    } else {
        uint16_t ccode[NCL];
        huff_codes(cl, NCL, ccode);
        put_bits(w, 2, 2);
        put_bits(w, (uint32_t)(nlit - 257), 5);
        put_bits(w, (uint32_t)(ndist - 1), 5);
        put_bits(w, (uint32_t)(ncl - 4), 4);
        for (int i = 0; i < ncl; i++) put_bits(w, cl[cl_order[i]], 3);
        for (int i = 0; i < nr; i++) {
            put_bits(w, ccode[rc[i]], cl[rc[i]]);
            if (rc[i] >= 16) put_bits(w, rx[i], rc[i] == 16 ? 2 : rc[i] == 17 ? 3 : 7);
        }
        lbits = ll;
        dbits = dl;
    }
    huff_codes(lbits, 288, lcode);
    huff_codes(dbits, NDIST, dcode);
    for (size_t i = 0; i < ns; i++) {
        if (!s[i].dist) {
            put_bits(w, lcode[s[i].lit], lbits[s[i].lit]);
            continue;
        }
        int lc = len_code(s[i].lit), dc = dist_code(s[i].dist);
        put_bits(w, lcode[257 + lc], lbits[257 + lc]);
        put_bits(w, s[i].lit - len_base[lc], len_extra[lc]);
        put_bits(w, dcode[dc], dbits[dc]);
        put_bits(w, s[i].dist - dist_base[dc], dist_extra[dc]);
    }
    put_bits(w, lcode[256], lbits[256]);
}

/* ---- LZ77 --------------------------------------------------------------------------------- */

typedef struct lz {
    const unsigned char *in;
    size_t n;
    int32_t *head;           /* per hash of 3 bytes: the latest position, -1 if none */
    int32_t *prev;           /* per position (mod WSIZE): the previous one with its hash */
} lz;

static unsigned hash3(const unsigned char *p)
{
    return (((unsigned)p[0] << 10) ^ ((unsigned)p[1] << 5) ^ p[2]) & (HSIZE - 1);
}

static void lz_insert(lz *z, size_t p)
{
    if (p + MIN_MATCH > z->n) return;
    unsigned h = hash3(z->in + p);
    z->prev[p & WMASK] = z->head[h];
    z->head[h] = (int32_t)p;
}

/* The longest match for position p among the earlier positions with its hash (up to
 * MAX_CHAIN of them); its length (0 if under MIN_MATCH) and distance. */
static unsigned lz_find(const lz *z, size_t p, unsigned *dist)
{
    if (p + MIN_MATCH > z->n) return 0;
    size_t limit = z->n - p < MAX_MATCH ? z->n - p : MAX_MATCH;
    const unsigned char *b = z->in + p;
    int32_t cand = z->head[hash3(b)];
    size_t best = 0;
    for (int chain = MAX_CHAIN; cand >= 0 && p - (size_t)cand <= WSIZE && chain > 0; chain--) {
        const unsigned char *a = z->in + cand;
        if (a[best] == b[best] && a[0] == b[0]) {
            size_t l = 0;
            while (l < limit && a[l] == b[l]) l++;
            if (l > best) {
                best = l;
                *dist = (unsigned)(p - (size_t)cand);
                if (l >= NICE_MATCH || l == limit) break;
            }
        }
        int32_t nx = z->prev[cand & WMASK];
        if (nx >= cand) break; /* the slot was reused by a later position: the chain ends */
        cand = nx;
    }
    return best >= MIN_MATCH ? (unsigned)best : 0;
}

/* ---- the zlib stream ---------------------------------------------------------------------- */

uint32_t adler32(uint32_t a, const unsigned char *p, size_t n)
{
    uint32_t s1 = a & 0xffff, s2 = a >> 16;
    while (n) {
        /* 5552 bytes is the most that cannot overflow 32 bits before the reduction. */
        size_t k = n < 5552 ? n : 5552;
        n -= k;
        while (k--) {
            s1 += *p++;
            s2 += s1;
        }
        s1 %= 65521;
        s2 %= 65521;
    }
    return (s2 << 16) | s1;
}

int zlib_compress(const unsigned char *in, size_t n, unsigned char **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    if (n > (size_t)INT32_MAX - MAX_MATCH) return -1;
    lz z = {in, n, malloc(HSIZE * sizeof(int32_t)), malloc(WSIZE * sizeof(int32_t))};
    lzsym *syms = calloc(BLOCK_SYMS, sizeof *syms);
    bitw w = {0};
    w.cap = n / 2 + 1024;
    w.buf = malloc(w.cap);
    if (!z.head || !z.prev || !syms || !w.buf) {
        free(z.head);
        free(z.prev);
        free(syms);
        free(w.buf);
        return -1;
    }
    for (int i = 0; i < HSIZE; i++) z.head[i] = -1;

    put_byte(&w, 0x78); /* deflate with a 32 KiB window */
    put_byte(&w, 0x9c); /* default level, no dictionary; 0x789c is a multiple of 31 */
    size_t ns = 0;
    for (size_t p = 0; p < n;) {
        unsigned dist = 0, len = lz_find(&z, p, &dist);
        lz_insert(&z, p);
        /* Lazy step: a longer match one byte on is worth a literal first. */
        if (len && len < LAZY_MAX && p + 1 < n) {
            unsigned d2 = 0, l2 = lz_find(&z, p + 1, &d2);
            if (l2 > len) {
                syms[ns++] = (lzsym){in[p], 0};
                p++;
                lz_insert(&z, p);
                len = l2;
                dist = d2;
            }
        }
        if (len) {
            syms[ns++] = (lzsym){(uint16_t)len, (uint16_t)dist};
            for (unsigned k = 1; k < len; k++) lz_insert(&z, p + k);
            p += len;
        } else {
            syms[ns++] = (lzsym){in[p], 0};
            p++;
        }
        if (ns >= BLOCK_SYMS - 2) {
            write_block(&w, syms, ns, 0);
            ns = 0;
        }
    }
    write_block(&w, syms, ns, 1);
    align_byte(&w);
    uint32_t a = adler32(1, in, n);
    for (int k = 3; k >= 0; k--) put_byte(&w, (unsigned char)(a >> (8 * k)));
    free(z.head);
    free(z.prev);
    free(syms);
    if (w.err) {
        free(w.buf);
        return -1;
    }
    *out = w.buf;
    *outlen = w.len;
    return 0;
}
