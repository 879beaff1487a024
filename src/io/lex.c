/* Scanning shared by the text readers (decimal numbers without the C library's locale or
 * NUL-terminated strings), location-prefixed errors, growable arrays and the face check that
 * every reader runs once after parsing. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "io_internal.h"

/* Powers of ten that are exact in a double (10^22 < 2^53 * 2^22 with trailing zeros). */
static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Case-insensitive match of the lower-case word w at p. */
static int word_at(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - p) < n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != w[i]) return 0;
    return 1;
}

int mmx__lex_double(const char **pp, const char *end, double *out)
{
    const char *p = *pp;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    if (p < end && ((*p | 0x20) == 'n' || (*p | 0x20) == 'i')) {
        double v;
        if (word_at(p, end, "nan")) {
            v = NAN;
            p += 3;
        } else if (word_at(p, end, "infinity")) {
            v = INFINITY;
            p += 8;
        } else if (word_at(p, end, "inf")) {
            v = INFINITY;
            p += 3;
        } else {
            return 0;
        }
        *out = neg ? -v : v;
        *pp = p;
        return 1;
    }

    /* Up to 19 significant digits go into m exactly; later digits only move the exponent (in
     * the integer part) or are dropped, and a dropped non-zero digit marks the value inexact.
     * Leading zeros are not significant, so 0.000123 keeps all its digits. */
    uint64_t m = 0;
    int nd = 0, any = 0, inexact = 0;
    int64_t e10 = 0;
    while (p < end && (unsigned)(*p - '0') < 10u) {
        unsigned d = (unsigned)(*p - '0');
        if (nd < 19) {
            m = m * 10 + d;
            nd += m != 0;
        } else {
            e10++;
            inexact |= d != 0;
        }
        p++;
        any = 1;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && (unsigned)(*p - '0') < 10u) {
            unsigned d = (unsigned)(*p - '0');
            if (nd < 19) {
                m = m * 10 + d;
                nd += m != 0;
                e10--;
            } else {
                inexact |= d != 0;
            }
            p++;
            any = 1;
        }
    }
    if (!any) return 0;
    if (p < end && (*p | 0x20) == 'e') {
        /* An exponent only counts with at least one digit; "1e" is the number 1 followed by
         * junk, which the caller refuses. Huge exponents saturate (the result is 0 or inf). */
        const char *q = p + 1;
        int eneg = 0;
        if (q < end && (*q == '-' || *q == '+')) eneg = *q++ == '-';
        if (q < end && (unsigned)(*q - '0') < 10u) {
            int64_t ev = 0;
            while (q < end && (unsigned)(*q - '0') < 10u) {
                if (ev < 1000000) ev = ev * 10 + (*q - '0');
                q++;
            }
            e10 += eneg ? -ev : ev;
            p = q;
        }
    }
    *pp = p;

    double v;
    if (m == 0) {
        v = 0.0;
    } else if (!inexact && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        /* Both m and 10^|e10| are exact doubles: one rounding, so correctly rounded. */
        v = e10 < 0 ? (double)m / pow10_exact[-e10] : (double)m * pow10_exact[e10];
    } else if (!inexact && e10 >= -22 && e10 <= 22) {
        /* m above 2^53 (17 to 19 digits, as printed with %.17g): two roundings, within 1 ulp. */
        v = e10 < 0 ? (double)m / pow10_exact[-e10] : (double)m * pow10_exact[e10];
    } else {
        /* Rare: a big exponent or more than 19 digits. strtod on a rebuilt string with no
         * decimal point (so the locale cannot matter) and, when digits were dropped, a sticky
         * trailing 1 that keeps the value strictly above the truncated mantissa. */
        char buf[64];
        if (e10 > 100000) e10 = 100000;
        if (e10 < -100000) e10 = -100000;
        snprintf(buf, sizeof buf, "%" PRIu64 "%se%" PRId64, m, inexact ? "1" : "",
                 inexact ? e10 - 1 : e10);
        v = strtod(buf, NULL);
    }
    *out = neg ? -v : v;
    return 1;
}

size_t mmx__line_of(const mmx__src *src, const char *at)
{
    /* Lines = LF bytes + CR bytes not followed by LF (a CR before `at` whose LF is at `at` is
     * the same break, so `at` on the LF of a CRLF stays on its line). memchr keeps the common
     * LF-only file at memory speed even though this runs only on the error path. */
    size_t line = 1;
    if (at > src->end) at = src->end;
    for (const char *p = src->base; p < at;) {
        const char *q = memchr(p, '\n', (size_t)(at - p));
        if (!q) break;
        line++;
        p = q + 1;
    }
    for (const char *p = src->base; p < at;) {
        const char *q = memchr(p, '\r', (size_t)(at - p));
        if (!q) break;
        if (q + 1 >= src->end || q[1] != '\n') line++;
        p = q + 1;
    }
    return line;
}

const char *mmx__int_text(const char *t, const char *end, char *buf, size_t cap)
{
    const char *p = t;
    if (p < end && (*p == '-' || *p == '+')) p++;
    while (p < end && (unsigned)(*p - '0') < 10u) p++;
    size_t n = (size_t)(p - t);
    snprintf(buf, cap, "%.*s%s", (int)(n > 24 ? 24 : n), t, n > 24 ? "..." : "");
    return buf;
}

const char *mmx__quote(const char *p, const char *end, char *buf, size_t cap)
{
    if (p >= end) {
        snprintf(buf, cap, "the end of the file");
        return buf;
    }
    if (*p == '\n' || *p == '\r') {
        snprintf(buf, cap, "the end of the line");
        return buf;
    }
    char tok[32];
    size_t n = 0;
    while (n < 24 && !mmx__ends_token(p + n, end)) {
        unsigned char c = (unsigned char)p[n];
        tok[n++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    tok[n] = '\0';
    snprintf(buf, cap, "'%s%s'", tok, mmx__ends_token(p + n, end) ? "" : "...");
    return buf;
}

/* Formats the message and prefixes the location already written into `where`. */
static mmx_status fail_at(mmx_ctx *ctx, mmx_status s, const char *where, const char *fmt, va_list ap)
{
    char msg[MMX__ERRLEN];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return mmx__fail(ctx, s, "%s: %s", where, msg);
}

mmx_status mmx__fail_line(mmx_ctx *ctx, mmx_status s, const mmx__src *src, const char *at,
                          const char *fmt, ...)
{
    char where[MMX__ERRLEN];
    snprintf(where, sizeof where, "%s:%zu", src->name, mmx__line_of(src, at));
    va_list ap;
    va_start(ap, fmt);
    s = fail_at(ctx, s, where, fmt, ap);
    va_end(ap);
    return s;
}

mmx_status mmx__fail_byte(mmx_ctx *ctx, mmx_status s, const mmx__src *src, const char *at,
                          const char *fmt, ...)
{
    char where[MMX__ERRLEN];
    snprintf(where, sizeof where, "%s: byte %zu", src->name, (size_t)(at - src->base));
    va_list ap;
    va_start(ap, fmt);
    s = fail_at(ctx, s, where, fmt, ap);
    va_end(ap);
    return s;
}

mmx_status mmx__grow(mmx_ctx *ctx, void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return MMX_OK;
    size_t n = *cap + *cap / 2;
    if (n < need) n = need;
    if (n < 64) n = 64;
    size_t bytes;
    if (!mmx__mul_ok(n, elem, &bytes))
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "an array of %zu items of %zu bytes overflows", n, elem);
    void *q = realloc(*p, bytes);
    if (!q) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory allocating %zu bytes", bytes);
    *p = q;
    *cap = n;
    return MMX_OK;
}

int mmx__coord_why(const double d[3], const float f[3], char *why, size_t cap)
{
    static const char axis[] = "xyz";
    for (int k = 0; k < 3; k++)
        if (isfinite(d[k]) && !isfinite(f[k])) {
            snprintf(why, cap, "coordinate %c = %g does not fit a float (infinite)", axis[k], d[k]);
            return 1;
        }
    if (!mmx__coord_problem(f, why, cap)) snprintf(why, cap, "bad coordinate");
    return 1;
}
