/* The report of a command in text, JSON or nothing: see report.h. The JSON object is built in
 * memory and printed only when the command succeeds, so that a failure never leaves half an
 * object on stdout for a script to choke on: a failure prints the error object instead. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "meshmatrix.h"
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
    const char *cmd;   /* the command's name, or NULL before it is known */
    FILE *caught;      /* JSON mode: what the command wrote to stderr, caught here */
    int saved_err;     /* the real stderr while it is caught, else -1 */
} rep = {.saved_err = -1};

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

/* The shortest "%.Pg" text of v that reads back (as a float when `single`, else as a double)
 * to v itself: 0.53f prints as 0.53, not 0.5299999714. */
static void put_number(double v, int single)
{
    char b[40];
    if (!isfinite(v)) {
        puts_("null");
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(b, sizeof b, "%.*g", p, v);
        if (single ? strtof(b, NULL) == (float)v : strtod(b, NULL) == v) break;
    }
    puts_(b);
}

void js_num(const char *key, double v)
{
    if (member(key)) put_number(v, 0);
}

void js_ms(const char *key, double ms)
{
    js_num(key, isfinite(ms) ? round(ms * 1e3) / 1e3 : ms);
}

void js_float(const char *key, float v)
{
    if (member(key)) put_number(v, 1);
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
    FILE *caught = rep.caught;
    int saved = rep.saved_err;
    free(rep.buf);
    memset(&rep, 0, sizeof rep);
    rep.caught = caught, rep.saved_err = saved;
    rep.mode = mode;
    rep.cmd = cmd;
    if (mode == REPORT_JSON) {
        rep.depth = 1;
        /* Messages written to stderr from now on are kept for the object too. A command's
         * own messages stay on stderr as well (printed there when it ends). */
        if (!rep.caught) {
            fflush(stderr);
            rep.caught = tmpfile();
            if (rep.caught) rep.saved_err = dup(STDERR_FILENO);
            if (rep.caught && (rep.saved_err < 0 || dup2(fileno(rep.caught), STDERR_FILENO) < 0)) {
                if (rep.saved_err >= 0) close(rep.saved_err);
                fclose(rep.caught);
                rep.caught = NULL;
                rep.saved_err = -1;
            }
        }
    }
}

void report_set_command(const char *cmd)
{
    rep.cmd = cmd;
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

/* Gives stderr back and returns what was written to it meanwhile (malloc'd, maybe ""), after
 * copying it to the real stderr; NULL when nothing was caught or memory ran out. */
static char *release_stderr(void)
{
    if (!rep.caught) return NULL;
    fflush(stderr);
    dup2(rep.saved_err, STDERR_FILENO);
    close(rep.saved_err);
    rep.saved_err = -1;
    char *text = NULL;
    long n = ftell(rep.caught);
    if (n >= 0 && (text = malloc((size_t)n + 1)) != NULL) {
        rewind(rep.caught);
        size_t got = fread(text, 1, (size_t)n, rep.caught);
        text[got] = '\0';
        fputs(text, stderr);
        fflush(stderr);
    }
    fclose(rep.caught);
    rep.caught = NULL;
    return text;
}

/* The lines of text as a JSON array's strings, each without its "mmx: " prefix. */
static void put_lines(const char *text)
{
    int n = 0;
    for (const char *p = text ? text : ""; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0) {
            char *line = malloc(len + 1);
            if (!line) {
                rep.nomem = 1;
                return;
            }
            memcpy(line, p, len);
            line[len] = '\0';
            if (n++) put(", ", 2);
            put_string(strncmp(line, "mmx: ", 5) == 0 ? line + 5 : line);
            free(line);
        }
        p += len + (e != NULL);
    }
}

/* The error among the lines of text, without its "mmx: " prefix, as a JSON string (null when
 * there is no line): the last "mmx: " line (warnings come before it, a usage error's usage
 * lines after it), else the first line. */
static void put_error_line(const char *text)
{
    while (text && *text == '\n') text++;
    if (!text || !*text) {
        puts_("null");
        return;
    }
    for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, "mmx: ", 5) == 0) text = p;
    if (strncmp(text, "mmx: ", 5) == 0) text += 5;
    size_t len = strcspn(text, "\n");
    char *line = malloc(len + 1);
    if (!line) {
        rep.nomem = 1;
        return;
    }
    memcpy(line, text, len);
    line[len] = '\0';
    put_string(line);
    free(line);
}

int report_end(int rc)
{
    char *caught = release_stderr();
    if (rep.mode == REPORT_JSON) {
        if (rc == 0 && rep.depth != 1 && !rep.nomem) {
            fprintf(stderr, "mmx: internal error: the JSON report has %d unclosed objects\n",
                    rep.depth - 1);
            rc = 1;
        }
        /* The object: "command" and "status" first, then the command's members (a success)
         * or the error, then the messages. */
        char *members = rep.buf;
        rep.buf = NULL, rep.len = rep.cap = 0;
        puts_("{");
        put_string("command");
        put(": ", 2);
        if (rep.cmd) put_string(rep.cmd);
        else puts_("null");
        if (rc == 0) {
            puts_(", \"status\": \"ok\"");
            if (members && members[0]) {
                puts_(", ");
                puts_(members);
            }
            puts_(", \"warnings\": [");
        } else {
            char b[48];
            snprintf(b, sizeof b, ", \"status\": \"error\", \"exit\": %d, \"error\": ", rc);
            puts_(b);
            put_error_line(caught);
            puts_(", \"messages\": [");
        }
        put_lines(caught);
        puts_("]}\n");
        free(members);
        if (rep.nomem) {
            fprintf(stderr, "mmx: out of memory (the JSON report)\n");
            if (rc == 0) rc = 1;
        } else {
            fputs(rep.buf, stream());
        }
    }
    free(caught);
    free(rep.buf);
    rep.buf = NULL;
    rep.len = rep.cap = 0;
    return rc;
}

/* ---- progress ------------------------------------------------------------------------------- */

static struct {
    int on, force;
    double t0, last; /* ms: when the command started, when the last line was printed */
} prog;

static double clock_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

void progress_begin(int force)
{
    prog.force = force;
    prog.on = rep.mode == REPORT_TEXT && (force || isatty(STDERR_FILENO));
    prog.t0 = clock_ms();
    prog.last = -1e9;
}

/* The library's progress function (core.h): a line on stderr, not too often. */
static void progress_line(void *user, const char *what, int done, int total)
{
    (void)user;
    const double now = clock_ms(), elapsed = now - prog.t0;
    if (!prog.force && elapsed < 1000.0) return; /* short work stays silent */
    const int first = prog.last < 0 && prog.force, last = total > 0 && done == total;
    if (!first && !last && now - prog.last < 250.0) return;
    prog.last = now;
    if (total > 0) fprintf(stderr, "mmx: %s %d of %d done (%.1f s)\n", what, done, total, elapsed / 1e3);
    else fprintf(stderr, "mmx: %s %d done (%.1f s)\n", what, done, elapsed / 1e3);
    fflush(stderr);
}

void progress_attach(struct mmx_ctx *ctx)
{
    if (prog.on && ctx) mmx_ctx_set_progress(ctx, progress_line, NULL);
}

/* ---- text ------------------------------------------------------------------------------------ */

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
