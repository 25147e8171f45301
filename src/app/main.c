/* storq: a thin front end over the engine library. */
#include <errno.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "h5_convert.h"
#include "h5_info.h"
#include "h5_library.h"
#include "h5_merge.h"
#include "help.h"
#include "interrupt.h"
#include "env_settings.h"
#include "file_kind.h"
#include "memory_budget.h"
#include "mpi_session.h"
#include "output_lock.h"
#include "plan.h"
#include "point_list.h"
#include "reduce.h"
#include "registry.h"
#include "report.h"
#include "args.h"
#include "run_options.h"
#include "run_spec.h"
#include "storq_version.h"
#include "table.h"
#include "thread_cores.h"
#include "views.h"

static const char usage_text[] =
    "usage:\n"
    "  storq run MODEL [--param value ...] [-r REPS] [--seed S] [-o FILE.h5] [--force] [--allow-unstable] [--quiet]\n"
    "  storq run SWEEP.ini [--param value ...] [-o FILE.h5] [--resume] [-r REPS] [--seed S] [--quiet]\n"
    "  (--dry-run: list the run's points, one per line, and write nothing)\n"
    "  (--dry-run --workers W[,W...]: predict the run on W workers instead: seconds per unit, wall time, efficiency, the largest W keeping 0.9)\n"
    "  (--calibrate-from FILE.h5: with --workers, the seconds from an earlier run's units instead of a short calibration here)\n"
    "  (--precision REL[:OBSERVABLE] --max-replications N: batches of -r replications until the 95% CI is within REL of the mean)\n"
    "  (options and parameters in any order, before or after the model, as --name value or --name=value (a value starting with -: --name=-x); --help with a model lists its parameters)\n"
    "  (lists: --n 10,100,1000 runs the Cartesian product; --zip n,arrivals advances those lists together)\n"
    "  (--task I/N: only the points p with p % N == I, task I of a job array of N, to merge later)\n"
    "  (--schema 2: the finished file in schema 2.0, columnar: a row a point, named dimensions; default 1.x, a group a point)\n"
    "  storq models [MODEL]        parameters, defaults, units, docs\n"
    "  storq theory MODEL [--param value ...] [--only A,B] [--format table|csv|json]   analytic companions only\n"
    "  storq info FILE.h5 [--format table|csv|json]   what a results file holds\n"
    "  storq merge [--force] [--schema 2] OUT.h5 IN.h5...  the files of a job array's tasks into one results file\n"
    "  storq convert [--force] IN.h5 OUT.h5  a finished results file (schema 1.x) into schema 2.0's columnar layout\n"
    "  (one dataset per quantity, a row per point, with netCDF dimensions: xarray and ncdump read it)\n"
    "  storq help [COMMAND|MODEL]  a command's usage, or a model's summary and parameters\n"
    "  storq --version\n"
    "  storq --man                 the manual page (roff; installed as storq(1))\n"
    "Threads: OMP_NUM_THREADS (at most 64 per CPU and 4096); ranks: mpirun -np N storq run ...\n"
    "Memory: --memory-limit SIZE (or STORQ_MEMORY_LIMIT) per node; default: its available memory\n"
    "Exit status: 0 done, 1 the machine failed (I/O, MPI), 2 invalid request (nothing run),\n"
    "  3 stopped by a signal (finished work kept for --resume)\n";

/* The message of a failed command; a failed command line also gets the pointer to the usage (not
 * a damaged input file or a point over the memory budget: the usage would not help). */
static int report_error(const storq_error *err, int command_line)
{
    if (err->code == STORQ_STOPPED) { /* asked for, not an error */
        fprintf(stderr, "storq: %s\n", err->msg);
        return STORQ_STOPPED;
    }
    fprintf(stderr, "storq: error: %s\n", err->msg[0] ? err->msg : "failed");
    if (err->code == STORQ_ERR_USAGE && command_line)
        fprintf(stderr, "(run `storq --help` for usage)\n");
    return err->code ? err->code : STORQ_ERR_RUNTIME;
}

/* A run or merge that finished although its report's reader went away (SIGPIPE is ignored,
 * interrupt.h) says so: the report is cut short, the file is whole. */
static void report_cut_short(void)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        fprintf(stderr, "storq: warning: the report could not all be written to standard output "
                "(its reader went away); the results file is complete\n");
}

/* A command's own usage line, for a command given the wrong number of arguments. */
static int usage_error(const char *usage)
{
    fprintf(stderr, "storq: error: usage: %s\n", usage);
    return STORQ_ERR_USAGE;
}

static void print_model(const storq_model *m)
{
    storq_help_print_model(m, stdout);
}

/* --help after run or theory: the usage, and the parameters of the model named, if any. */
static void print_help(const storq_model *m)
{
    fputs(usage_text, stdout);
    if (m) {
        putchar('\n');
        print_model(m);
    }
}

static int cmd_models(int argc, char **argv)
{
    size_t n;
    const storq_model *const *models = storq_models(&n);
    if (argc > 1) /* a second word would be ignored: say so rather than print one model */
        return usage_error("storq models [MODEL] (one model)");
    if (argc >= 1) {
        const storq_model *m = storq_model_find(argv[0]);
        if (!m) {
            char known[256];
            storq_model_names(known, sizeof known, " ");
            fprintf(stderr, "storq: error: unknown model '%s'; known models: %s\n", argv[0], known);
            return STORQ_ERR_USAGE;
        }
        print_model(m);
        return 0;
    }
    storq_table t;
    storq_table_init(&t, 2, NULL, "  ");
    for (size_t i = 0; i < n; i++) {
        storq_table_add(&t, "%s", models[i]->name);
        storq_table_add(&t, "%s", models[i]->summary);
    }
    storq_table_print(&t, stdout);
    storq_table_free(&t);
    return 0;
}

/* The work is in views.c (options --only and --format, the unstable statement, the formats). */
static int cmd_theory(int argc, char **argv)
{
    storq_error err = {0};
    const storq_model *model = NULL;
    int parsed = 0, help = 0;
    int rc = storq_view_theory(argc, argv, &parsed, &help, &model, &err);
    if (!rc && help)
        print_help(model);
    return rc ? report_error(&err, !parsed) : 0;
}

static int cmd_info(int argc, char **argv)
{
    storq_error err = {0};
    int rc = storq_view_info(argc, argv, &err);
    return rc ? report_error(&err, 0) : 0;
}

/* What merge or convert (label) may write: never over a result or another's partial file unless
 * --force says so, and only a regular file; not an input (storq_h5_merge and storq_h5_convert say
 * so). An input a run is writing now is refused naming that run. exists and partial end the
 * messages for an OUT and an OUT.partial that exist. */
static int check_output_paths(const char *label, const char *out, const char *const *inputs,
                              size_t n, int force, const char *exists, const char *partial_what,
                              storq_error *err)
{
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial", out);
    for (size_t i = 0; i < n; i++) {
        if (storq_same_file(out, inputs[i]) || storq_same_file(partial, inputs[i]))
            return STORQ_OK;
        char base[4200];
        size_t len = strlen(inputs[i]);
        snprintf(base, sizeof base, "%.*s", (int)(len > 8 && !strcmp(inputs[i] + len - 8,
                                                                      ".partial") ? len - 8 : len),
                 inputs[i]);
        STORQ_TRY(storq_output_lock_check(base, label, err));
    }
    struct stat st;
    if (stat(out, &st) == 0 && !force)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' exists%s; pass --force to replace it, "
                          "or name another file", label, out, exists);
    if (stat(partial, &st) == 0 && !force)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' exists %s", label, partial,
                          partial_what);
    return STORQ_OK;
}

static int check_merge_paths(const char *out, char *const *inputs, size_t n, int force,
                             storq_error *err)
{
    char what[4400];
    snprintf(what, sizeof what, "(an unfinished run or merge): `storq run ... -o %s --resume` "
             "completes it, --force replaces it", out);
    return check_output_paths("merge", out, (const char *const *)inputs, n, force,
                              " (a finished result)", what, err);
}

/* A merge asked to stop while it verifies a large input (io/h5_check.c does not look at the
 * stop flag): after a grace period the watchdog removes the partial file (only once it is this
 * merge's own: the lock held and OUT.partial checked absent or --force given) and the lock, and
 * the process ends with status 3. The inputs are only ever read. */
typedef struct merge_stop {
    char lock[4200], partial[4200], finishing[4200];
    const char *label; /* the command: "merge" when NULL */
    atomic_int partial_ours;
} merge_stop;

static void merge_stopped(void *arg)
{
    merge_stop *stop = arg;
    if (atomic_load(&stop->partial_ours)) {
        unlink(stop->partial);
        unlink(stop->finishing);
    }
    unlink(stop->lock);
    char msg[160];
    int len = snprintf(msg, sizeof msg, "storq: %s: stopped by signal %d; nothing was written "
                       "and the inputs are untouched\n", stop->label ? stop->label : "merge",
                       storq_interrupted());
    if (len > 0 && write(STDERR_FILENO, msg, (size_t)len) < 0)
        _exit(STORQ_STOPPED);
}

static int cmd_merge(int argc, char **argv)
{
    storq_error err = {0};
    static const char usage[] = "storq merge [--force] [--schema 1|2] OUT.h5 IN.h5 [IN.h5 ...]";
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!paths) {
        fprintf(stderr, "storq: error: out of memory\n");
        return STORQ_ERR_RUNTIME;
    }
    /* a stop removes the lock and the partial file, and leaves the inputs alone */
    storq_interrupt_install();
    size_t n = 0;
    int force = 0, schema = 1;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--force")) {
            force = 1;
        } else if (!strcmp(argv[i], "--schema") || !strncmp(argv[i], "--schema=", 9)) {
            const char *v = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : "";
            if (storq_runopt_schema(&schema, v, &err)) {
                free(paths);
                return report_error(&err, 0);
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(paths);
            fprintf(stderr, "storq: error: merge: unknown option '%s' (a file whose name starts "
                    "with '-' is ./%s); usage: %s\n", argv[i], argv[i], usage);
            return STORQ_ERR_USAGE;
        } else {
            paths[n++] = argv[i];
        }
    }
    if (n < 2) {
        free(paths);
        return usage_error(usage);
    }
    /* The command line, as a run records its own. */
    char *command = storq_command_line("merge", argc, argv);
    storq_output_lock *lock = NULL;
    int rc = command ? STORQ_OK : STORQ_RUNTIME_FAIL(&err, "out of memory");
    /* what the paths are, before any is opened or a lock made beside them */
    if (!rc)
        rc = storq_check_output_kind(paths[0], "merge", &err);
    for (size_t i = 1; !rc && i < n; i++)
        rc = storq_open_regular(paths[i], "merge", "an input", NULL, &err);
    /* the lock first: a merge or run writing OUT now is named, and its file left alone */
    if (!rc)
        rc = storq_output_lock_take(paths[0], "merge", &lock, &err);
    merge_stop stop = {0};
    if (!rc) {
        snprintf(stop.lock, sizeof stop.lock, "%s.lock", paths[0]);
        snprintf(stop.partial, sizeof stop.partial, "%s.partial", paths[0]);
        snprintf(stop.finishing, sizeof stop.finishing, "%s.finishing", paths[0]);
        storq_interrupt_watchdog(0.5, merge_stopped, &stop);
    }
    if (!rc)
        rc = check_merge_paths(paths[0], paths + 1, n - 1, force, &err);
    atomic_store(&stop.partial_ours, !rc); /* from here on, OUT.partial is this merge's */
    if (!rc && storq_interrupted())
        rc = storq_fail(&err, STORQ_STOPPED, "merge: stopped by signal %d; nothing was written "
                        "and the inputs are untouched", storq_interrupted());
    if (!rc)
        rc = storq_h5_merge(paths[0], paths + 1, n - 1, command, schema, stdout, &err);
    storq_interrupt_watchdog_end();
    storq_output_lock_release(&lock);
    free(command);
    free(paths);
    if (!rc)
        report_cut_short();
    return rc ? report_error(&err, 0) : 0;
}

/* What convert may write: OUT (or OUT.partial) only with --force, and only a regular file. */
static int check_convert_paths(const char *in, const char *out, int force, storq_error *err)
{
    return check_output_paths("convert", out, &in, 1, force, "",
                              "(an unfinished run, merge or conversion); --force replaces it", err);
}

static int cmd_convert(int argc, char **argv)
{
    storq_error err = {0};
    static const char usage[] = "storq convert [--force] IN.h5 OUT.h5";
    const char *paths[2] = {NULL, NULL};
    int n = 0, force = 0;
    storq_interrupt_install();
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--force")) {
            force = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "storq: error: convert: unknown option '%s' (a file whose name "
                    "starts with '-' is ./%s); usage: %s\n", argv[i], argv[i], usage);
            return STORQ_ERR_USAGE;
        } else if (n < 2) {
            paths[n++] = argv[i];
        } else {
            return usage_error(usage);
        }
    }
    if (n != 2)
        return usage_error(usage);
    storq_output_lock *lock = NULL;
    int rc = storq_check_output_kind(paths[1], "convert", &err);
    if (!rc)
        rc = storq_open_regular(paths[0], "convert", "the input", NULL, &err);
    if (!rc && access(paths[0], R_OK) != 0)
        rc = storq_fail(&err, STORQ_ERR_USAGE, "convert: cannot read %s: %s", paths[0],
                        strerror(errno));
    if (!rc)
        rc = storq_output_lock_take(paths[1], "convert", &lock, &err);
    merge_stop stop = {.label = "convert"};
    if (!rc) {
        snprintf(stop.lock, sizeof stop.lock, "%s.lock", paths[1]);
        snprintf(stop.partial, sizeof stop.partial, "%s.partial", paths[1]);
        storq_interrupt_watchdog(0.5, merge_stopped, &stop);
    }
    if (!rc)
        rc = check_convert_paths(paths[0], paths[1], force, &err);
    atomic_store(&stop.partial_ours, !rc);
    if (!rc)
        rc = storq_h5_convert(paths[0], paths[1], force, stdout, &err);
    storq_interrupt_watchdog_end();
    storq_output_lock_release(&lock);
    if (!rc)
        report_cut_short();
    return rc ? report_error(&err, 0) : 0;
}

static int cmd_run(int argc, char **argv)
{
    /* Before MPI starts, only the launcher's rank 0 warns (every rank parses the same input). */
    storq_warn_enable(storq_launcher_rank() == 0);
    /* from the first moment: a signal during a huge sweep's setup stops it too (exit 3) */
    storq_interrupt_install();
    storq_error err = {0};
    storq_run_spec spec;
    /* Every rank parses the same arguments and files, so they agree on the points. --help and
     * --dry-run need no MPI. */
    int rc = storq_run_spec_parse(argc, argv, &spec, &err), parsed = rc == 0;
    if (!rc && !spec.help)
        rc = storq_plan_check(&spec, &err);
    if (!rc && storq_interrupted())
        rc = storq_fail(&err, STORQ_STOPPED, "stopped by signal %d while reading the run; "
                        "nothing was written", storq_interrupted());
    if (rc == STORQ_STOPPED) { /* before MPI starts: each process of a launch says it alone */
        if (storq_launcher_rank() == 0)
            report_error(&err, 0);
        storq_run_spec_free(&spec);
        return rc;
    }
    /* the points are built once the budget they must fit is known (src/app/point_list.h) */
    if (!rc && spec.dry_run && !spec.help)
        rc = storq_memory_budget_local(spec.memory_limit, &err);
    if (!rc && spec.dry_run && !spec.help)
        rc = storq_run_spec_expand(&spec, 1, &err);
    if (spec.help || spec.dry_run) {
        if (storq_launcher_rank() == 0) {
            if (rc)
                report_error(&err, 1);
            else if (spec.help)
                print_help(spec.model);
            else if (spec.workers && (rc = storq_plan_print(&spec, stdout, &err)) != 0)
                report_error(&err, 0); /* a point or a file refused: the usage would not help */
            else if (!spec.workers)
                storq_run_spec_print(&spec, stdout);
        }
        storq_run_spec_free(&spec);
        return rc;
    }
    storq_h5_library_start(); /* before MPI: HDF5 ends when storq ends it (h5_library.h) */
    int rank, provided = storq_mpi_session_start();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* failures reach storq's path */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    storq_warn_enable(rank == 0);
    storq_interrupt_install();
    if (!rc && provided < MPI_THREAD_SERIALIZED) {
        /* Threads take work units through MPI; without this level only one may, and rank 0
         * hands out work instead of simulating (no serving thread). */
        storq_warn("the MPI library offers no MPI_THREAD_SERIALIZED; running one thread per rank");
        omp_set_num_threads(1);
    }
    if (!rc)
        storq_warn_shared_cores();
    if (!rc)
        rc = storq_env_check(&err);
    if (!rc)
        rc = storq_memory_budget_setup(MPI_COMM_WORLD, spec.memory_limit, &err);
    if (!rc) /* rank 0 holds more than the others: every rank learns of its refusal */
        rc = storq_reduce_status(storq_run_spec_expand(&spec, rank == 0, &err), MPI_COMM_WORLD);
    if (!rc)
        rc = storq_driver_run(&spec, MPI_COMM_WORLD, &err);
    /* Rank 0 reports; another rank reports only what rank 0 did not see. */
    int root_has = err.code != 0;
    MPI_Bcast(&root_has, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc && (rank == 0 || (!root_has && err.code)))
        report_error(&err, !parsed);
    if (rank == 0 && !rc)
        report_cut_short();
    storq_run_spec_free(&spec);
    storq_h5_library_end();
    storq_mpi_session_end();
    return rc;
}

/* storq help [TOPIC]: the usage, a command's usage or a model's summary and parameters. */
static int is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

static int cmd_help(int argc, char **argv)
{
    if (argc == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (argc > 1)
        return usage_error("storq help [COMMAND|MODEL] (one topic)");
    if (is_help(argv[0])) /* `storq help --help`: help's own usage, as for the other commands */
        return storq_help_topic(usage_text, "help", stdout);
    return storq_help_topic(usage_text, argv[0], stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return STORQ_ERR_USAGE;
    }
    if (is_help(argv[1]))
        return cmd_help(0, NULL);
    if (!strcmp(argv[1], "help"))
        return cmd_help(argc - 2, argv + 2);
    if (!strcmp(argv[1], "--man")) {
        storq_help_man(usage_text, stdout);
        return 0;
    }
    /* git-style: `storq COMMAND --help` is `storq help COMMAND` for the commands without models
     * (run and theory read --help among their arguments, with the model named) */
    if (argc >= 3 && is_help(argv[2]) &&
        (!strcmp(argv[1], "models") || !strcmp(argv[1], "info") || !strcmp(argv[1], "merge") ||
         !strcmp(argv[1], "convert")))
        return cmd_help(1, argv + 1);
    if (!strcmp(argv[1], "--version")) {
        printf("storq %s (%s)\n", STORQ_VERSION, STORQ_GIT_COMMIT);
        return 0;
    }
    if (!strcmp(argv[1], "run"))
        return cmd_run(argc - 2, argv + 2);
    if (!strcmp(argv[1], "models"))
        return cmd_models(argc - 2, argv + 2);
    if (!strcmp(argv[1], "theory"))
        return cmd_theory(argc - 2, argv + 2);
    if (!strcmp(argv[1], "info"))
        return cmd_info(argc - 2, argv + 2);
    if (!strcmp(argv[1], "merge"))
        return cmd_merge(argc - 2, argv + 2);
    if (!strcmp(argv[1], "convert"))
        return cmd_convert(argc - 2, argv + 2);
    fprintf(stderr, "storq: error: unknown command '%s'\n%s", argv[1], usage_text);
    return STORQ_ERR_USAGE;
}
