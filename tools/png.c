/* The PNG writer: see png.h. */
#include <stdlib.h>
#include <string.h>
#include "deflate.h"
#include "png.h"

#define PNG_MAX_SIDE 16384

uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    /* Four bits at a time through a 16-entry table of the reflected polynomial 0xedb88320,
     * built here (64 steps): small, and fast enough for an IDAT of a few hundred kilobytes. */
    uint32_t t[16];
    for (uint32_t i = 0; i < 16; i++) {
        uint32_t c = i;
        for (int k = 0; k < 4; k++) c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
        t[i] = c;
    }
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ t[crc & 15];
        crc = (crc >> 4) ^ t[crc & 15];
    }
    return ~crc;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Appends a chunk (length, type, data, CRC of type and data) at dst; returns its size. */
static size_t put_chunk(unsigned char *dst, const char type[4], const unsigned char *data, size_t n)
{
    put32(dst, (uint32_t)n);
    memcpy(dst + 4, type, 4);
    if (n) memcpy(dst + 8, data, n);
    put32(dst + 8 + n, crc32_update(0, dst + 4, n + 4));
    return n + 12;
}

/* The Paeth predictor: whichever of left, up and up-left is closest to left + up - up-left. */
static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Filters one row of `len` bytes with filter type f (1 to 4) into out; prev is the row above
 * (zeros for the first row). Returns the sum of the residuals read as signed bytes, the usual
 * estimate of how well a row will compress. */
static unsigned long filter_row(int f, const unsigned char *row, const unsigned char *prev,
                                size_t len, unsigned char *out)
{
    unsigned long cost = 0;
    for (size_t i = 0; i < len; i++) {
        int a = i >= 3 ? row[i - 3] : 0, b = prev[i], c = i >= 3 ? prev[i - 3] : 0;
        int pred = f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : f == 4 ? paeth(a, b, c) : 0;
        unsigned char r = (unsigned char)(row[i] - pred);
        out[i] = r;
        cost += r < 128 ? r : 256u - r;
    }
    return cost;
}

int png_encode_rgb(const unsigned char *rgb, int w, int h, unsigned char **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    if (w < 1 || h < 1 || w > PNG_MAX_SIDE || h > PNG_MAX_SIDE) return -1;
    size_t stride = (size_t)w * 3, rowbytes = stride + 1;
    unsigned char *filt = malloc(rowbytes * (size_t)h);
    unsigned char *zero = calloc(stride, 1), *trial = malloc(stride);
    if (!filt || !zero || !trial) {
        free(filt);
        free(zero);
        free(trial);
        return -1;
    }
    for (int y = 0; y < h; y++) {
        const unsigned char *row = rgb + stride * (size_t)y;
        const unsigned char *prev = y ? row - stride : zero;
        unsigned char *dst = filt + rowbytes * (size_t)y;
        unsigned long best = 0;
        int bestf = 0;
        for (size_t i = 0; i < stride; i++) best += row[i] < 128 ? row[i] : 256u - row[i];
        memcpy(dst + 1, row, stride);
        for (int f = 1; f <= 4; f++) {
            unsigned long c = filter_row(f, row, prev, stride, trial);
            if (c < best) {
                best = c;
                bestf = f;
                memcpy(dst + 1, trial, stride);
            }
        }
        dst[0] = (unsigned char)bestf;
    }
    free(zero);
    free(trial);
    unsigned char *z = NULL;
    size_t zlen = 0;
    int rc = zlib_compress(filt, rowbytes * (size_t)h, &z, &zlen);
    free(filt);
    if (rc) return -1;

    size_t total = 8 + (12 + 13) + (12 + zlen) + 12;
    unsigned char *png = malloc(total);
    if (!png) {
        free(z);
        return -1;
    }
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)w);
    put32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;  /* bits per sample */
    ihdr[9] = 2;  /* colour type: RGB */
    ihdr[10] = 0; /* compression: deflate */
    ihdr[11] = 0; /* filter method: the five adaptive filters */
    ihdr[12] = 0; /* no interlace */
    size_t o = 0;
    memcpy(png, sig, 8);
    o += 8;
    o += put_chunk(png + o, "IHDR", ihdr, sizeof ihdr);
    o += put_chunk(png + o, "IDAT", z, zlen);
    o += put_chunk(png + o, "IEND", NULL, 0);
    free(z);
    *out = png;
    *outlen = o;
    return 0;
}
