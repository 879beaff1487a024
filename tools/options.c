/* The option parser: see options.h. */
#include <stdio.h>
#include <string.h>
#include "tool.h"

const opt_spec global_opts[G_COUNT] = {
    [G_BACKEND] = {"backend", 0, "host|cuda",
                   "where the work runs (default: cuda for subdiv, demo and bench\n"
                   "when a GPU is present, else host); cuda needs a GPU and a\n"
                   "build with the CUDA backend; under mpirun host unless cuda is\n"
                   "asked for, then each rank the GPU of its rank on its node"},
    [G_QUIET] = {"quiet", 'q', NULL, "print nothing but errors"},
    [G_JSON] = {"json", 0, NULL,
                "print the command's figures (counts, times, sizes), or its\n"
                "error, as one JSON object instead of the text report\n"
                "(docs/json.md)"},
    [G_PROGRESS] = {"progress", 0, NULL,
                    "print the progress of long work (levels, iterations, rounds)\n"
                    "on stderr even when it is not a terminal, from the first step;\n"
                    "on a terminal it is printed anyway once the work has taken a\n"
                    "second (never with --quiet or --json)"},
    [G_HELP] = {"help", 'h', NULL, "print the help (of the command, after one) and exit"},
    [G_VERSION] = {"version", 'V', NULL, "print the version and exit"},
};

/* The option of opts[0..n) that argument `a` names ("--name", "--name=value", "-x"), or -1.
 * *inline_value is the text after '=' or NULL. */
static int lookup(const char *a, const opt_spec *opts, int n, const char **inline_value)
{
    *inline_value = NULL;
    if (a[1] != '-') { /* -x */
        if (a[2] != '\0') return -1;
        for (int i = 0; i < n; i++)
            if (opts[i].alias && opts[i].alias == a[1]) return i;
        return -1;
    }
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    for (int i = 0; i < n; i++)
        if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0) {
            if (eq) *inline_value = eq + 1;
            return i;
        }
    return -1;
}

/* "--levels" or "-h": how the message names an option (the way it was typed). */
static void typed_name(const char *a, char *buf, size_t n)
{
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    snprintf(buf, n, "%.*s", (int)len, a);
}

/* An option that is not this command's: say which commands have it, if any. */
static int unknown_option(const char *cmd, const char *a)
{
    char name[128], owners[256] = "";
    typed_name(a, name, sizeof name);
    size_t used = 0;
    int count = 0;
    for (int c = 0; c < tool_ncommands && a[1] == '-'; c++) {
        const tool_cmd *t = tool_commands[c];
        const char *iv;
        if (lookup(name, t->opts, t->nopts, &iv) < 0) continue;
        int k = snprintf(owners + used, sizeof owners - used, "%s%s", count ? ", " : "", t->name);
        if (k > 0 && (size_t)k < sizeof owners - used) used += (size_t)k;
        count++;
    }
    if (cmd && count)
        return usage_error("%s has no option %s (it is an option of %s)", cmd, name, owners);
    if (cmd) return usage_error("unknown option '%s' for %s", name, cmd);
    if (count)
        return usage_error("%s is an option of %s: put it after the command's name", name,
                           owners);
    return usage_error("unknown option '%s'", name);
}

/* Takes the value of the option `spec` typed as argv[*i] (inline after '=', or the next
 * argument, whatever it looks like, so that "--levels -1" is refused as a bad level and not
 * as an unknown option). */
static int take(int argc, char **argv, int *i, const opt_spec *spec, const char *inline_value,
                const char **slot)
{
    char name[128];
    typed_name(argv[*i], name, sizeof name);
    if (!spec->arg) {
        if (inline_value) return usage_error("%s takes no value (got '%s')", name, inline_value);
        *slot = "";
        return 0;
    }
    if (inline_value) {
        *slot = inline_value;
        return 0;
    }
    if (*i + 1 >= argc) return usage_error("%s needs a value: %s", name, spec->arg);
    *slot = argv[++*i];
    return 0;
}

int opt_parse_global(int argc, char **argv, int *next, tool_args *a)
{
    int i = *next;
    for (; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--") == 0) {
            i++;
            break;
        }
        if (s[0] != '-' || s[1] == '\0') break; /* the command's name */
        const char *iv;
        int g = lookup(s, global_opts, G_COUNT, &iv);
        if (g < 0) return unknown_option(NULL, s);
        if (take(argc, argv, &i, &global_opts[g], iv, &a->global[g])) return EXIT_USAGE;
    }
    *next = i;
    return 0;
}

int opt_parse(int argc, char **argv, int first, const char *cmd, const opt_spec *opts,
              int nopts, tool_args *a)
{
    int options_done = 0;
    for (int i = first; i < argc; i++) {
        const char *s = argv[i];
        if (options_done || s[0] != '-' || s[1] == '\0') {
            if (a->npos == POS_MAX) return usage_error("too many arguments (from '%s' on)", s);
            a->pos[a->npos++] = s;
            continue;
        }
        if (strcmp(s, "--") == 0) {
            options_done = 1;
            continue;
        }
        const char *iv;
        int k = lookup(s, opts, nopts, &iv);
        if (k >= 0) {
            if (take(argc, argv, &i, &opts[k], iv, &a->value[k])) return EXIT_USAGE;
            continue;
        }
        int g = lookup(s, global_opts, G_COUNT, &iv);
        if (g < 0) return unknown_option(cmd, s);
        if (take(argc, argv, &i, &global_opts[g], iv, &a->global[g])) return EXIT_USAGE;
    }
    return 0;
}

void opt_print(const opt_spec *opts, int n)
{
    enum { COL = 25 };
    for (int i = 0; i < n; i++) {
        char left[96];
        int w = opts[i].alias ? snprintf(left, sizeof left, "-%c, --%s", opts[i].alias, opts[i].name)
                              : snprintf(left, sizeof left, "--%s", opts[i].name);
        if (opts[i].arg && w > 0 && (size_t)w < sizeof left)
            snprintf(left + w, sizeof left - (size_t)w, " %s", opts[i].arg);
        int lw = (int)strlen(left);
        /* A long name takes its own line, the help starts below it. */
        if (lw + 2 > COL - 2) printf("  %s\n%*s", left, COL, "");
        else printf("  %-*s", COL - 2, left);
        for (const char *h = opts[i].help; *h; h++) {
            putchar(*h);
            if (*h == '\n') printf("%*s", COL, "");
        }
        putchar('\n');
    }
}
