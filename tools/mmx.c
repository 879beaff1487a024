/*
 * mmx: the meshmatrix command-line tool: the command table and main.
 *
 * Each command lives in a file of its own (info_cmd.c, subdiv_cmd.c, ...) as one tool_cmd
 * (tool.h): its name, summary, synopsis, help, options and the function that runs it, which
 * parses nothing itself: main finds the command, parses its options against its table
 * (options.c), and the help, the usage lines and the refusals are generated from the same
 * tables. Adding a command is a file and a line in COMMANDS below (and its name in
 * tools/meson.build).
 *
 * The tool uses only the public API, so it is also an example of it. Exit status: 0 success,
 * 1 when the input is bad or an operation fails (the context's detail goes to stderr), 2 for a
 * usage error.
 */
#include <stdio.h>
#include <string.h>
#include "tool.h"

/* The commands, in the order of `mmx --help`. */
#define COMMANDS(X) X(info) X(convert) X(reorder) X(normals) X(smooth) X(delaunay) X(remesh) X(subdiv) X(query) X(matrix) X(render) X(demo) X(bench) X(help)

#define TABLE_ENTRY(name) &name##_command,
const tool_cmd *const tool_commands[] = {COMMANDS(TABLE_ENTRY)};
const int tool_ncommands = (int)(sizeof tool_commands / sizeof tool_commands[0]);

const tool_cmd *find_command(const char *name)
{
    for (int i = 0; i < tool_ncommands; i++)
        if (strcmp(tool_commands[i]->name, name) == 0) return tool_commands[i];
    return NULL;
}

/* The exit status after making sure stdout got everything: a full disk or a closed pipe is a
 * failure too, not a silent success. */
static int finish(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mmx: cannot write to standard output\n");
        return rc ? rc : EXIT_FAIL;
    }
    return rc;
}

static int print_version(void)
{
    printf("mmx %d.%d.%d (meshmatrix; CUDA backend %s)\n", MMX_VERSION_MAJOR, MMX_VERSION_MINOR,
           MMX_VERSION_PATCH, mmx_has_cuda() ? "built" : "not built");
    return finish(EXIT_OK);
}

int main(int argc, char **argv)
{
    tool_args a;
    memset(&a, 0, sizeof a);
    int next = 1;
    /* Global options may come before the command's name. */
    if (opt_parse_global(argc, argv, &next, &a)) return EXIT_USAGE;
    if (next >= argc) {
        if (a.global[G_VERSION]) return print_version();
        if (a.global[G_HELP]) {
            print_tool_help();
            return finish(EXIT_OK);
        }
        return usage_error("no command given");
    }
    const char *name = argv[next];
    const tool_cmd *cmd = find_command(name);
    if (!cmd) return usage_error("unknown command '%s'", name);
    tool_current = cmd;
    if (opt_parse(argc, argv, next + 1, cmd->name, cmd->opts, cmd->nopts, &a)) return EXIT_USAGE;
    if (a.global[G_HELP]) {
        print_command_help(cmd);
        return finish(EXIT_OK);
    }
    if (a.global[G_VERSION]) return print_version();
    const char *backend = a.global[G_BACKEND];
    if (backend && strcmp(backend, "cuda") != 0 && strcmp(backend, "host") != 0)
        return usage_error("unknown backend '%s' (use host or cuda)", backend);
    const int quiet = a.global[G_QUIET] != NULL, json = a.global[G_JSON] != NULL;
    if (quiet && json) return usage_error("--quiet and --json exclude each other");
    if (json && !(cmd->flags & CMD_JSON))
        return usage_error("%s has no --json report", cmd->name);
    report_begin(json ? REPORT_JSON : quiet ? REPORT_QUIET : REPORT_TEXT, cmd->name);
    int rc = cmd->run(&a);
    return finish(report_end(rc));
}
