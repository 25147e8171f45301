/* Reading a file HDF5 may crash on, in a child process (see h5_guard.h).
 *
 * HDF5 1.10 trusts its own metadata: a damaged B-tree, heap or object header message can make it
 * read through a wild pointer (SIGSEGV) before any storq check sees a value. So what is read
 * first (the format, the whole check, or all of storq info) is read in a fork()ed child: a crash
 * there becomes a usage error ("damaged HDF5 structure", exit 2) in the parent, which then
 * returns through its normal error path (merge and --resume remove their lock), and what the
 * child read is then safe for the parent to read again. The child inherits the open file; it only reads
 * (sec2 reads with pread, so the parent's file position is untouched), and leaves with _exit, so
 * HDF5 flushes nothing and no atexit handler (MPI's) runs twice. */
#include "h5_guard.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "h5_check.h"

/* The child's count of objects read, in memory it shares with its parent (NULL elsewhere). */
static volatile uint64_t *guard_beat;

void storq_h5_guard_beat(void)
{
    if (guard_beat)
        (*guard_beat)++;
}

static void write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static size_t read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

int storq_h5_guard(storq_guarded_fn fn, void *ctx, void *result, size_t size, FILE *out,
                   const char *label, const char *path, storq_error *err)
{
    int fds[2];
    if (pipe(fds) != 0) /* no process to spare: read here, unguarded */
        return fn(ctx, result, err);
    fflush(NULL); /* nothing buffered is written twice */
    volatile uint64_t *beat = mmap(NULL, sizeof *beat, PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (beat == MAP_FAILED)
        beat = NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        if (beat)
            munmap((void *)beat, sizeof *beat);
        return fn(ctx, result, err);
    }
    if (pid == 0) {
        close(fds[0]);
        guard_beat = beat;
        /* a crash is the verdict: no MPI backtrace handler, no core dump */
        const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
            signal(fatal[i], SIG_DFL);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        storq_error e;
        memset(&e, 0, sizeof e);
        int rc = fn(ctx, result, &e);
        if (out)
            fflush(out);
        write_all(fds[1], &rc, sizeof rc);
        write_all(fds[1], &e, sizeof e);
        if (size)
            write_all(fds[1], result, size);
        _exit(0);
    }
    close(fds[1]);
    /* damaged metadata can also send HDF5 round a loop: a child that reads no further object for
     * STORQ_CHECK_TIMEOUT seconds (600 by default) is stopped and the file called damaged. The
     * wait is for progress, not for the whole file: a healthy file of 10^5 points takes longer
     * than any fixed limit (without shared memory, the whole read has the limit). The verdict is
     * smaller than a pipe's buffer, so the child never waits for this read. */
    const char *env = getenv("STORQ_CHECK_TIMEOUT");
    double limit = env && atof(env) > 0 ? atof(env) : 600, waited = 0;
    useconds_t nap = 1000;
    int status = 0, timed_out = 0;
    uint64_t seen = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR))
            break;
        if (beat && *beat != seen) { /* the child read on: its limit starts again */
            seen = *beat;
            waited = 0;
            storq_h5_guard_beat(); /* and so did this process, when it is a guarded child */
        }
        if (waited > limit) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            timed_out = 1;
            break;
        }
        usleep(nap);
        waited += nap / 1e6;
        nap = nap < 50000 ? 2 * nap : nap;
    }
    if (beat)
        munmap((void *)beat, sizeof *beat);
    int rc = -1;
    storq_error e;
    size_t got = timed_out ? 0 : read_all(fds[0], &rc, sizeof rc) + read_all(fds[0], &e, sizeof e);
    if (got == sizeof rc + sizeof e && size)
        got += read_all(fds[0], result, size);
    close(fds[0]);
    if (got == sizeof rc + sizeof e + size && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return rc ? storq_fail(err, e.code ? e.code : STORQ_ERR_RUNTIME, "%s", e.msg) : STORQ_OK;
    if (out && !timed_out && WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) {
        /* The reader of what the child printed went away (storq info F | head): no damage. End
         * as any filter does then, by SIGPIPE, saying nothing. */
        signal(SIGPIPE, SIG_DFL);
        raise(SIGPIPE);
    }
    char why[96];
    if (timed_out)
        snprintf(why, sizeof why, "HDF5 read no further object of it in %g s "
                 "(STORQ_CHECK_TIMEOUT)", limit);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "HDF5 crashed reading it (signal %d, %s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(why, sizeof why, "its reading ended without a verdict (status %d)", status);
    if (out)
        fflush(out);
    return storq_fail(err, STORQ_ERR_USAGE, "%s%s%s: object '/': damaged HDF5 structure: %s: "
                      "the file is damaged", label ? label : "", label ? ": " : "", path, why);
}

/* ---- storq_h5_check_file, guarded (h5_check.h) ---- */

typedef struct check_args {
    hid_t file;
    const char *path, *label;
    int salvage;
    const storq_h5_rows_reader *reader;
} check_args;

static int check_here(void *ctx, void *result, storq_error *err)
{
    const check_args *a = ctx;
    return storq_h5_check_file_mode_here(a->file, a->path, a->label, a->salvage, a->reader,
                                         result, err);
}

static int check_guarded(hid_t file, const char *path, const char *label, int salvage,
                         const storq_h5_rows_reader *reader, storq_h5_checked *out,
                         storq_error *err)
{
    check_args a = {file, path, label, salvage, reader};
    storq_h5_checked found;
    memset(&found, 0, sizeof found);
    int rc = storq_h5_guard(check_here, &a, &found, sizeof found, NULL, label, path, err);
    if (!rc && out)
        *out = found;
    return rc;
}

int storq_h5_check_file(hid_t file, const char *path, const char *label, storq_h5_checked *out,
                        storq_error *err)
{
    return check_guarded(file, path, label, 0, NULL, out, err);
}

int storq_h5_check_file_reading(hid_t file, const char *path, const char *label,
                                const storq_h5_rows_reader *reader, storq_h5_checked *out,
                                storq_error *err)
{
    return check_guarded(file, path, label, 0, reader, out, err);
}

int storq_h5_check_file_salvage(hid_t file, const char *path, const char *label,
                                storq_h5_checked *out, storq_error *err)
{
    return check_guarded(file, path, label, 1, NULL, out, err);
}
