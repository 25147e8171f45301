/* `storq info`'s lines on the run's record of its units: per session its units, workers, wall
 * time, busy time (CPU time simulating) and parallel efficiency, then per rank where its
 * threads' time went. Sessions recorded before CPU time (no unit_seconds, or NaN there) keep the
 * line they had: busy was then the time in units. */
#include "h5_info_units.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "h5_info_index.h"
#include "h5_util.h"
#include "schema.h"

/* Column name of the table d (n rows) as doubles, or NULL: HDF5 matches compound members by name
 * and converts the integers (exact below 2^53). It would leave a member the table lacks as it
 * found it, so that is asked first. */
static double *read_column(hid_t d, const char *name, size_t n)
{
    hid_t have = H5Dget_type(d);
    int present = have >= 0 && H5Tget_class(have) == H5T_COMPOUND &&
                  H5Tget_member_index(have, name) >= 0;
    storq_h5u_close_type(&have);
    hid_t t = present ? H5Tcreate(H5T_COMPOUND, sizeof(double)) : -1;
    double *v = present ? calloc(n + 1, sizeof *v) : NULL;
    if (t < 0 || !v || H5Tinsert(t, name, 0, H5T_NATIVE_DOUBLE) < 0 ||
        (n > 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)) {
        free(v);
        v = NULL;
    }
    storq_h5u_close_type(&t);
    H5Eclear2(H5E_DEFAULT);
    return v;
}

/* Columns names[0..k) of the table at path into col[] (free each): its rows, or -1 when the table
 * or one of its first nneeded columns is missing; a later column that is missing (one the table's
 * writer did not know) reads as NaN. */
static long read_columns(hid_t file, const char *path, const char *const *names, size_t k,
                         size_t nneeded, double **col)
{
    if (!storq_h5u_has_link(file, path))
        return -1;
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    hid_t space = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    int ok = n >= 0;
    for (size_t i = 0; ok && i < k; i++) {
        col[i] = read_column(d, names[i], (size_t)n);
        if (!col[i] && i >= nneeded && (col[i] = malloc(((size_t)n + 1) * sizeof(double))))
            for (hssize_t r = 0; r < n; r++)
                col[i][r] = NAN;
        ok = col[i] != NULL;
    }
    storq_h5u_close_space(&space);
    storq_h5u_close_dataset(&d);
    H5Eclear2(H5E_DEFAULT);
    return ok ? (long)n : -1;
}

static void free_columns(double **col, size_t k)
{
    for (size_t i = 0; i < k; i++)
        free(col[i]);
}

enum { S_SESSION, S_WORKERS, S_UNITS, S_WALL, S_BUSY, S_EFFICIENCY, S_UNIT, NS };
enum { U_SESSION, U_RANK, U_THREAD, NU };
enum { R_SESSION, R_RANK, R_THREADS, R_SIMULATING, R_IN_UNITS, R_WAITING, R_IDLE, R_SERVING, NR };

/* " (2 ranks x 2 threads)" when known: from the session's rows when their largest rank and
 * thread numbers multiply to the workers, else from the root's mpi_ranks and omp_threads (the
 * first session's) when they do; "" otherwise. */
static void layout_text(hid_t file, double session, double workers, double *const *u, long nu,
                        char *buf, size_t size)
{
    double ranks = 0, threads = 0;
    for (long i = 0; i < nu; i++) {
        if (u[U_SESSION][i] == session) {
            ranks = fmax(ranks, u[U_RANK][i] + 1);
            threads = fmax(threads, u[U_THREAD][i] + 1);
        }
    }
    uint64_t r = 0, t = 0;
    storq_error ignore = {0};
    if (ranks * threads != workers && storq_h5u_has_attr(file, STORQ_SCHEMA_ATTR_MPI_RANKS) &&
        storq_h5u_has_attr(file, STORQ_SCHEMA_ATTR_OMP_THREADS) &&
        !storq_h5u_read_attr_u64(file, STORQ_SCHEMA_ATTR_MPI_RANKS, &r, &ignore) &&
        !storq_h5u_read_attr_u64(file, STORQ_SCHEMA_ATTR_OMP_THREADS, &t, &ignore)) {
        ranks = (double)r;
        threads = (double)t;
    }
    buf[0] = '\0';
    if (ranks > 0 && ranks * threads == workers)
        snprintf(buf, size, " (%.0f rank%s x %.0f thread%s)", ranks, ranks == 1 ? "" : "s",
                 threads, threads == 1 ? "" : "s");
}

static void seconds_text(double v, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, "n/a");
    else
        snprintf(buf, size, v >= 10 ? "%.1f" : v >= 0.1 ? "%.2f" : "%.3g", v);
}

/* The session's ranks, one line each, in the table's order; serving only where there is some
 * (the rank that hands out the units). */
static void print_ranks(double session, double *const *r, long nr, FILE *out)
{
    for (long i = 0; i < nr; i++) {
        if (r[R_SESSION][i] != session)
            continue;
        fprintf(out, "  rank %.0f (%.0f thread%s): simulating %.2f s, in units %.2f s, waiting "
                "%.2f s, idle %.2f s", r[R_RANK][i], r[R_THREADS][i],
                r[R_THREADS][i] == 1 ? "" : "s", r[R_SIMULATING][i], r[R_IN_UNITS][i],
                r[R_WAITING][i], r[R_IDLE][i]);
        if (r[R_SERVING][i] != 0)
            fprintf(out, ", serving %.2f s CPU", r[R_SERVING][i]);
        fputc('\n', out);
    }
}

/* Sessions whose rows are in /run/units but which have no row of /run/sessions: a session
 * stopped outright (killed) after rank 0 wrote a block of its rows, before its end. One line
 * each, in the order of their first row. */
static void print_unended(double *const *s, long ns, double *const *u, long nu, int first,
                          FILE *out)
{
    double seen[8];
    size_t nseen = 0;
    for (long i = 0; i < nu; i++) {
        double session = u[U_SESSION][i];
        int known = 0;
        for (long j = 0; j < ns && !known; j++)
            known = s[S_SESSION][j] == session;
        for (size_t j = 0; j < nseen && !known; j++)
            known = seen[j] == session;
        if (known || nseen == sizeof seen / sizeof *seen)
            continue;
        if (first && nseen == 0)
            fputc('\n', out); /* the record's first line */
        seen[nseen++] = session;
        long units = 0;
        for (long k = i; k < nu; k++)
            units += u[U_SESSION][k] == session;
        fprintf(out, "run, session %.0f: stopped before its end (killed): %ld unit%s recorded, no "
                "summary\n", session, units, units == 1 ? "" : "s");
    }
}

void storq_info_units(hid_t file, FILE *out)
{
    static const char *const snames[NS] = {
        STORQ_SCHEMA_UNIT_SESSION,      STORQ_SCHEMA_ATTR_WORKERS,
        STORQ_SCHEMA_SESSION_UNITS,     STORQ_SCHEMA_ATTR_WALL_SECONDS,
        STORQ_SCHEMA_ATTR_BUSY_SECONDS, STORQ_SCHEMA_ATTR_EFFICIENCY,
        STORQ_SCHEMA_ATTR_UNIT_SECONDS};
    static const char *const unames[NU] = {STORQ_SCHEMA_UNIT_SESSION, STORQ_SCHEMA_UNIT_RANK,
                                           STORQ_SCHEMA_UNIT_THREAD};
    static const char *const rnames[NR] = {
        STORQ_SCHEMA_UNIT_SESSION,          STORQ_SCHEMA_UNIT_RANK,
        STORQ_SCHEMA_RANK_THREADS,          STORQ_SCHEMA_RANK_SIMULATING,
        STORQ_SCHEMA_RANK_IN_UNITS,         STORQ_SCHEMA_ATTR_WAITING_SECONDS,
        STORQ_SCHEMA_ATTR_IDLE_SECONDS,     STORQ_SCHEMA_ATTR_SERVING_SECONDS};
    double *sc[NS] = {NULL}, *uc[NU] = {NULL}, *kc[NR] = {NULL};
    /* unit_seconds came with cpu_seconds: a table without it reads as NaN */
    long ns = read_columns(file, STORQ_SCHEMA_SESSIONS_PATH, snames, NS, S_UNIT, sc);
    long nu = read_columns(file, STORQ_SCHEMA_UNITS_PATH, unames, NU, NU, uc);
    long nr = ns > 0 ? read_columns(file, STORQ_SCHEMA_RANKS_PATH, rnames, NR, NR, kc) : -1;
    hid_t d = nu >= 0 ? H5Dopen2(file, STORQ_SCHEMA_UNITS_PATH, H5P_DEFAULT) : -1;
    storq_info_task mine = storq_info_read_task(file);
    storq_info_task theirs = d >= 0 ? storq_info_read_task(d) : mine;
    storq_h5u_close_dataset(&d);
    hid_t run = H5Gopen2(file, "/" STORQ_SCHEMA_RUN, H5P_DEFAULT);
    int lost = run >= 0 && storq_h5u_has_attr(run, STORQ_SCHEMA_ATTR_RECORD_LOST);
    if (run >= 0)
        H5Gclose(run);
    else
        H5Eclear2(H5E_DEFAULT);
    if (ns > 0 || lost)
        fputc('\n', out);
    if (lost)
        fprintf(out, "run: the record of the sessions before these was lost (--resume salvaged a "
                "partial file whose record could not be read); the results are whole\n");
    if (ns > 0 && (mine.index != theirs.index || mine.count != theirs.count))
        fprintf(out, "run: the units of task %" PRIu64 "/%" PRIu64 " only (storq merge copied "
                "them from its file)\n", theirs.index, theirs.count);
    for (long i = 0; i < ns; i++) {
        char label[64] = "run", layout[96], wall[32], busy[32], unit[32], eff[32] = "n/a";
        const double units = sc[S_UNITS][i], workers = sc[S_WORKERS][i];
        if (ns > 1 || sc[S_SESSION][i] != 0) /* a later session, or one of several */
            snprintf(label, sizeof label, "run, session %.0f", sc[S_SESSION][i]);
        layout_text(file, sc[S_SESSION][i], workers, uc, nu, layout, sizeof layout);
        seconds_text(sc[S_WALL][i], wall, sizeof wall);
        seconds_text(sc[S_BUSY][i], busy, sizeof busy);
        seconds_text(sc[S_UNIT][i], unit, sizeof unit);
        if (!isnan(sc[S_EFFICIENCY][i]))
            snprintf(eff, sizeof eff, "%.2f", sc[S_EFFICIENCY][i]);
        fprintf(out, "%s: %.0f unit%s on %.0f worker%s%s, wall %s s, ", label, units,
                units == 1 ? "" : "s", workers, workers == 1 ? "" : "s", layout, wall);
        if (isnan(sc[S_UNIT][i])) /* recorded before CPU time: busy was the time in units */
            fprintf(out, "busy %s worker-s, parallel efficiency %s\n", busy, eff);
        else
            fprintf(out, "busy %s CPU-s simulating (in units %s worker-s), parallel efficiency "
                    "%s\n", busy, unit, eff);
        print_ranks(sc[S_SESSION][i], kc, nr, out);
    }
    if (nu > 0)
        print_unended(sc, ns > 0 ? ns : 0, uc, nu, ns <= 0 && !lost, out);
    free_columns(sc, NS);
    free_columns(uc, NU);
    free_columns(kc, NR);
}
