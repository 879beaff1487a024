/* A zlib stream encoder (RFC 1950 around RFC 1951 deflate data) for the tool's PNG writer:
 * LZ77 over a 32 KiB window with hash chains and one step of lazy matching, then each block
 * coded with its own Huffman codes (or the fixed codes where those come out shorter).
 * Written for pictures of a few megabytes; it trades a little ratio for speed and brevity. */
#ifndef MMX_TOOL_DEFLATE_H
#define MMX_TOOL_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

/* The Adler-32 checksum of n bytes, continuing from `a` (start with 1). */
uint32_t adler32(uint32_t a, const unsigned char *p, size_t n);

/* Compresses n bytes into a complete zlib stream (2-byte header, deflate blocks, Adler-32),
 * allocated with malloc into *out (release with free()) with its length in *outlen.
 * Returns 0, or -1 when memory runs out or n exceeds 2^31 - 259 (then *out is NULL).
 * Cost: O(n) time with a bounded search per position; memory: the output plus 384 KiB. */
int zlib_compress(const unsigned char *in, size_t n, unsigned char **out, size_t *outlen);

#endif
