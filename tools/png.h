/* A PNG writer for the tool's pictures: 8-bit RGB, no interlace, each row given the filter
 * (none, sub, up, average or Paeth) that leaves the smallest residuals, and the filtered rows
 * compressed as one zlib stream (deflate.h) in one IDAT chunk. Written from the PNG
 * specification (ISO/IEC 15948). */
#ifndef MMX_TOOL_PNG_H
#define MMX_TOOL_PNG_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of n bytes (ISO 3309, as PNG chunks use), continuing from `crc` (start with 0). */
uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n);

/* Encodes a w x h picture (rgb: 3 bytes per pixel, rows top to bottom, w and h from 1 to
 * 16384) as a PNG file image in memory, allocated with malloc into *out (release with
 * free()). Returns 0, or -1 for bad sizes or when memory runs out. */
int png_encode_rgb(const unsigned char *rgb, int w, int h, unsigned char **out, size_t *outlen);

#endif
