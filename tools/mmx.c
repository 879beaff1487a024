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
#include "dist_run.h"
#include "tool.h"

/* The commands, in the order of `mmx --help`. */
#define COMMANDS(X) X(info) X(convert) X(reorder) X(normals) X(smooth) X(delaunay) X(remesh) X(simplify) X(triangulate) X(subdiv) X(limit) X(query) X(partition) X(matrix) X(render) X(demo) X(bench) X(help)

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
    return EXIT_OK;
}

/* Whether --json is among the options (before any "--"): then even a usage error found
 * before the command is known is reported as a JSON object. */
static int json_asked(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0) return 1;
    return 0;
}

/* Parses the command line and runs the command; the report is begun (report.h) before. */
static int run_command(int argc, char **argv, tool_args *a)
{
    int next = 1;
    /* Global options may come before the command's name. */
    if (opt_parse_global(argc, argv, &next, a)) return EXIT_USAGE;
    if (next >= argc) {
        if (a->global[G_VERSION]) return print_version();
        if (a->global[G_HELP]) {
            print_tool_help();
            return EXIT_OK;
        }
        return usage_error("no command given");
    }
    const char *name = argv[next];
    const tool_cmd *cmd = find_command(name);
    if (!cmd) return usage_error("unknown command '%s'", name);
    tool_current = cmd;
    report_set_command(cmd->name);
    if (opt_parse(argc, argv, next + 1, cmd->name, cmd->opts, cmd->nopts, a)) return EXIT_USAGE;
    if (a->global[G_HELP]) {
        print_command_help(cmd);
        return EXIT_OK;
    }
    if (a->global[G_VERSION]) return print_version();
    const char *backend = a->global[G_BACKEND];
    if (backend && strcmp(backend, "cuda") != 0 && strcmp(backend, "host") != 0)
        return usage_error("unknown backend '%s' (use host or cuda)", backend);
    const int quiet = a->global[G_QUIET] != NULL, json = a->global[G_JSON] != NULL;
    if (quiet && json) return usage_error("--quiet and --json exclude each other");
    if (json && !(cmd->flags & CMD_JSON))
        return usage_error("%s has no --json report", cmd->name);
    report_begin(json ? REPORT_JSON : quiet ? REPORT_QUIET : REPORT_TEXT, cmd->name);
    progress_begin(a->global[G_PROGRESS] != NULL);
    /* Started by mpirun with several ranks, or reading part files: the command runs
     * partitioned (dist_run.c). */
    if (dist_launched() > 1 || dist_parts_input(cmd, a)) return dist_run(cmd, a);
    return cmd->run(a);
}

int main(int argc, char **argv)
{
    tool_args a;
    memset(&a, 0, sizeof a);
    const int json = json_asked(argc, argv);
    if (json) report_begin(REPORT_JSON, NULL);
    int rc = run_command(argc, argv, &a);
    /* --help and --version print text even with --json: there is no report to make. */
    if (json && rc == EXIT_OK && (a.global[G_HELP] || a.global[G_VERSION])) {
        report_begin(REPORT_QUIET, NULL);
        rc = report_end(rc);
        return finish(rc);
    }
    return finish(report_end(rc));
}
