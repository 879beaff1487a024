/* What a command prints about its work (report.c), in one of three modes chosen by the global
 * options: text (the aligned "label  value" rows and tables, the default), JSON (--json: the
 * same figures as one JSON object, docs/json.md), or nothing (--quiet).
 *
 * The report goes to stdout, or to stderr when stdout carries the command's result (OUT given
 * as -), so that a pipe receives the mesh alone.
 *
 * Errors go to stderr in every mode. In JSON mode they are also caught (stderr is kept in a
 * temporary file while the command runs and copied to the real stderr when it ends): a failure
 * prints {"command", "status": "error", "exit", "error", "messages"} instead of the figures,
 * and a success lists what went to stderr as "warnings". The exit status is the same in every
 * mode.
 *
 * Commands print text with row() and say(), and JSON with the js_* calls; each call does
 * nothing in the other modes, so a command states both and the mode picks one. */
#ifndef MMX_TOOL_REPORT_H
#define MMX_TOOL_REPORT_H

#include <stdio.h>

#if defined(__GNUC__)
#define REPORT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define REPORT_PRINTF(a, b)
#endif

typedef enum report_mode { REPORT_TEXT = 0, REPORT_JSON, REPORT_QUIET } report_mode;

/* Starts the report of command `cmd` (NULL while it is not known yet: report_set_command names
 * it later) in `mode`, to stdout. In JSON mode the object starts with "command": cmd and
 * "status", and stderr is caught from here to report_end. May be called again to change the
 * mode or the command (what was caught is kept). */
void report_begin(report_mode mode, const char *cmd);
void report_set_command(const char *cmd);

/* Sends the report to stderr from now on (the command's result goes to stdout). */
void report_to_stderr(void);

/* The mode, and whether text is printed (the text mode). */
report_mode report_get_mode(void);
int report_text(void);

/* Ends the report: in JSON mode gives stderr back (copying what was caught to it) and prints
 * the object and a newline: the figures and "warnings" with rc = 0, else the error object
 * with "exit": rc; a JSON object that ran out of memory turns a success into EXIT_FAIL (1)
 * with a message. Frees what the report holds. Returns the exit status. */
int report_end(int rc);

/* Progress (text mode only, on stderr): progress_begin starts the clock when the command
 * starts; progress_attach gives a context the function that prints "mmx: remesh iteration 2
 * of 3 done (4.1 s)" lines, when stderr is a terminal and the work has run for a second, or
 * from the first step when `force` (--progress) was given; at most 4 lines a second, the last
 * step always. Nothing in the other modes. */
void progress_begin(int force);
struct mmx_ctx;
void progress_attach(struct mmx_ctx *ctx);

/* Text: one row, the label padded to a fixed width, then the formatted value and a newline. */
void row(const char *label, const char *fmt, ...) REPORT_PRINTF(2, 3);

/* Text: formatted text as it is (tables, notes, blank lines). */
void say(const char *fmt, ...) REPORT_PRINTF(1, 2);

/* JSON: members of the current object (key given) or items of the current array (key NULL).
 * Numbers are written as the shortest decimal that reads back to the same double (js_num) or
 * float (js_float: for values the library holds as floats, so that 0.53f is 0.53).
 * js_num prints a non-finite value as null, js_num_or_null a negative one too (a figure that
 * was not measured: -1), js_int_or_null a negative count (a size that cannot be known: -1);
 * js_str(key, NULL) is null. Nesting is
 * at most 8 deep (deeper members are dropped, a bug the tests would show). */
void js_int(const char *key, long long v);
void js_num(const char *key, double v);
void js_float(const char *key, float v);
void js_ms(const char *key, double ms); /* a time in ms, to the microsecond */
void js_num_or_null(const char *key, double v);    /* negative -> null */
void js_int_or_null(const char *key, long long v); /* negative -> null */
void js_str(const char *key, const char *s);
void js_bool(const char *key, int v);
void js_null(const char *key);
void js_object(const char *key); /* opens {"key": { ... */
void js_array(const char *key);  /* opens "key": [ ... */
void js_end(void);               /* closes the innermost object or array */

#endif
