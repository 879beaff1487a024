/* The report of a command in text, JSON or nothing: see report.h. The JSON object is built in
 * memory and printed only when the command succeeds, so that a failure never leaves half an
 * object on stdout for a script to choke on. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define LABEL_W 21
#define MAX_DEPTH 8

static struct {
    report_mode mode;
    FILE *to;          /* NULL: stdout (looked up when printing, so tests may swap it) */
    char *buf;         /* the JSON text so far */
    size_t len, cap;
    int nomem;         /* an allocation failed: the object is incomplete */
    int depth;         /* open objects and arrays, the outermost one included */
    int items[MAX_DEPTH]; /* members written so far at each depth (for the commas) */
    char close[MAX_DEPTH]; /* the bracket that closes each depth */
} rep;

static FILE *stream(void)
{
    return rep.to ? rep.to : stdout;
}

/* ---- the JSON buffer ------------------------------------------------------------------------- */

static void put(const char *s, size_t n)
{
    if (rep.nomem) return;
    if (rep.len + n + 1 > rep.cap) {
        size_t cap = rep.cap ? rep.cap : 1024;
        while (rep.len + n + 1 > cap) cap *= 2;
        char *b = realloc(rep.buf, cap);
        if (!b) {
            rep.nomem = 1;
            return;
        }
        rep.buf = b;
        rep.cap = cap;
    }
    memcpy(rep.buf + rep.len, s, n);
    rep.len += n;
    rep.buf[rep.len] = '\0';
}

static void puts_(const char *s)
{
    put(s, strlen(s));
}

/* A JSON string: quotes, backslashes and control characters escaped; other bytes as they are
 * (file names are UTF-8 in practice). */
static void put_string(const char *s)
{
    put("\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            put(esc, 2);
        } else if (*p == '\n') {
            put("\\n", 2);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            put(esc, 6);
        } else {
            put((const char *)p, 1);
        }
    }
    put("\"", 1);
}

/* The separator and the key of the next member (or item, when key is NULL). Returns 0 when
 * nothing may be written: not in JSON mode, or the nesting is too deep. */
static int member(const char *key)
{
    if (rep.mode != REPORT_JSON || rep.depth < 1 || rep.depth > MAX_DEPTH) return 0;
    if (rep.items[rep.depth - 1]++) put(", ", 2);
    if (key) {
        put_string(key);
        put(": ", 2);
    }
    return 1;
}

void js_int(const char *key, long long v)
{
    char b[32];
    if (!member(key)) return;
    snprintf(b, sizeof b, "%lld", v);
    puts_(b);
}

void js_num(const char *key, double v)
{
    char b[40];
    if (!member(key)) return;
    if (!isfinite(v)) {
        puts_("null");
        return;
    }
    snprintf(b, sizeof b, "%.10g", v);
    puts_(b);
}

void js_num_or_null(const char *key, double v)
{
    if (v < 0) js_null(key);
    else js_num(key, v);
}

void js_int_or_null(const char *key, long long v)
{
    if (v < 0) js_null(key);
    else js_int(key, v);
}

void js_str(const char *key, const char *s)
{
    if (!member(key)) return;
    if (s) put_string(s);
    else puts_("null");
}

void js_bool(const char *key, int v)
{
    if (member(key)) puts_(v ? "true" : "false");
}

void js_null(const char *key)
{
    if (member(key)) puts_("null");
}

static void open_(const char *key, char open, char close)
{
    if (rep.mode != REPORT_JSON || rep.depth < 1) return;
    if (rep.depth >= MAX_DEPTH) {
        rep.depth++; /* too deep: dropped, but counted so that the js_end calls still match */
        return;
    }
    if (!member(key)) return;
    put(&open, 1);
    rep.items[rep.depth] = 0;
    rep.close[rep.depth] = close;
    rep.depth++;
}

void js_object(const char *key)
{
    open_(key, '{', '}');
}

void js_array(const char *key)
{
    open_(key, '[', ']');
}

void js_end(void)
{
    if (rep.mode != REPORT_JSON || rep.depth <= 1) return;
    rep.depth--;
    if (rep.depth < MAX_DEPTH) put(&rep.close[rep.depth], 1);
}

/* ---- the report -------------------------------------------------------------------------------- */

void report_begin(report_mode mode, const char *cmd)
{
    free(rep.buf);
    memset(&rep, 0, sizeof rep);
    rep.mode = mode;
    if (mode == REPORT_JSON) {
        puts_("{");
        rep.depth = 1;
        js_str("command", cmd);
    }
}

void report_to_stderr(void)
{
    rep.to = stderr;
}

report_mode report_get_mode(void)
{
    return rep.mode;
}

int report_text(void)
{
    return rep.mode == REPORT_TEXT;
}

int report_end(int rc)
{
    if (rep.mode == REPORT_JSON && rc == 0) {
        if (rep.depth != 1 && !rep.nomem) {
            fprintf(stderr, "mmx: internal error: the JSON report has %d unclosed objects\n",
                    rep.depth - 1);
            rc = 1;
        } else if (rep.nomem) {
            fprintf(stderr, "mmx: out of memory (the JSON report)\n");
            rc = 1;
        } else {
            fprintf(stream(), "%s}\n", rep.buf);
        }
    }
    free(rep.buf);
    rep.buf = NULL;
    rep.len = rep.cap = 0;
    return rc;
}

void row(const char *label, const char *fmt, ...)
{
    /* (fmt is never NULL; saying so keeps GCC's -Wformat-overflow quiet under -fsanitize.) */
    if (rep.mode != REPORT_TEXT || !fmt) return;
    FILE *f = stream();
    va_list ap;
    va_start(ap, fmt);
    fprintf(f, "%-*s ", LABEL_W, label);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

void say(const char *fmt, ...)
{
    if (rep.mode != REPORT_TEXT || !fmt) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stream(), fmt, ap);
    va_end(ap);
}
