/* storq_h5_check_file in a child process (see h5_check.h).
 *
 * HDF5 1.10 trusts its own metadata: a damaged B-tree, heap or object header message can make it
 * read through a wild pointer (SIGSEGV) before any storq check sees a value. The check reads every
 * object a reader later uses, so it runs in a fork()ed child: a crash there becomes a usage error
 * ("damaged HDF5 structure", exit 2) in the parent, which then returns through its normal error
 * path (merge and --resume remove their lock). The child inherits the open file; it only reads
 * (sec2 reads with pread, so the parent's file position is untouched), and leaves with _exit, so
 * HDF5 flushes nothing and no atexit handler (MPI's) runs twice. */
#include "h5_check.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child sends back: its return code, error and findings. */
typedef struct verdict {
    int rc;
    storq_error err;
    storq_h5_checked found;
} verdict;

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

int storq_h5_check_file(hid_t file, const char *path, const char *label, storq_h5_checked *out,
                        storq_error *err)
{
    int fds[2];
    if (pipe(fds) != 0) /* no process to spare: check here, unguarded */
        return storq_h5_check_file_here(file, path, label, out, err);
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return storq_h5_check_file_here(file, path, label, out, err);
    }
    if (pid == 0) {
        close(fds[0]);
        /* a crash is the verdict: no MPI backtrace handler, no core dump */
        const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
            signal(fatal[i], SIG_DFL);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        verdict v;
        memset(&v, 0, sizeof v);
        v.rc = storq_h5_check_file_here(file, path, label, &v.found, &v.err);
        write_all(fds[1], &v, sizeof v);
        _exit(0);
    }
    close(fds[1]);
    verdict v;
    size_t got = read_all(fds[0], &v, sizeof v);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == sizeof v && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (v.rc)
            return storq_fail(err, v.err.code, "%s", v.err.msg);
        if (out)
            *out = v.found;
        return STORQ_OK;
    }
    char why[96];
    if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "HDF5 crashed reading it (signal %d, %s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(why, sizeof why, "its check ended without a verdict (status %d)", status);
    return storq_fail(err, STORQ_ERR_USAGE, "%s%s%s: object '/': damaged HDF5 structure: %s: "
                      "the file is damaged", label ? label : "", label ? ": " : "", path, why);
}
