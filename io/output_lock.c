#include "output_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "params.h"

struct storq_output_lock {
    char *path;    /* NAME.lock */
    char *content; /* what this process wrote into it */
};

/* Who holds a lock, as its file says. */
typedef struct holder {
    char host[256], job[64], since[64];
    long pid, restart;
    unsigned long long start;
} holder;

/* A process's state letter and when it started, in clock ticks since boot (Linux /proc/PID/stat,
 * fields 3 and 22): with the pid, the start names one process, so a pid reused by another process
 * is not taken for the holder; a zombie (Z, X) has ended. 0 when unknown. */
static unsigned long long process_start(long pid, char *state)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    *state = '?';
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold blanks and parentheses */
    if (p && p[1] == ' ')
        *state = p[2];
    unsigned long long start = 0;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p)
        start = strtoull(p + 1, NULL, 10);
    return start;
}

static void this_host(char *buf, size_t size)
{
    if (gethostname(buf, size) != 0)
        snprintf(buf, size, "?");
    buf[size - 1] = '\0';
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && v[0] ? v : fallback;
}

static char *lock_content(void)
{
    char host[256], since[64];
    this_host(host, sizeof host);
    time_t now = time(NULL);
    struct tm tm;
    strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%S%z", localtime_r(&now, &tm));
    long pid = (long)getpid();
    char state;
    char *text = malloc(1024);
    if (text)
        snprintf(text, 1024,
                 "storq output lock\nhost=%s\npid=%ld\nstart=%llu\nslurm_job=%s\n"
                 "slurm_restart=%s\nsince=%s\n",
                 host, pid, process_start(pid, &state), env_or("SLURM_JOB_ID", ""),
                 env_or("SLURM_RESTART_COUNT", "0"), since);
    return text;
}

/* The whole (small) file, or NULL. A lock that is not a regular file (a FIFO made there, which
 * an open for reading would wait on forever) reads as empty: a lock that does not say whose. */
static char *read_small(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        char *empty = calloc(1, 1);
        return empty;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *buf = malloc(4096);
    size_t n = buf ? fread(buf, 1, 4095, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static void field(const char *text, const char *key, char *out, size_t size)
{
    out[0] = '\0';
    size_t klen = strlen(key);
    const char *line = text;
    while (line && *line) {
        if (strncmp(line, key, klen) == 0 && line[klen] == '=') {
            const char *v = line + klen + 1;
            snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
            return;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
}

/* 0 when the text is not a lock this program wrote. */
static int parse_holder(const char *text, holder *h)
{
    char num[64];
    memset(h, 0, sizeof *h);
    field(text, "host", h->host, sizeof h->host);
    field(text, "pid", num, sizeof num);
    h->pid = strtol(num, NULL, 10);
    field(text, "start", num, sizeof num);
    h->start = strtoull(num, NULL, 10);
    field(text, "slurm_job", h->job, sizeof h->job);
    field(text, "slurm_restart", num, sizeof num);
    h->restart = strtol(num, NULL, 10);
    field(text, "since", h->since, sizeof h->since);
    return h->host[0] && h->pid > 0;
}

enum verdict { HELD, STALE, FOREIGN, UNREADABLE };

/* Is the holder alive? Only a process on this host can be asked; a Slurm job requeued (same job
 * id, a higher restart count) knows its earlier run is over wherever that ran. */
static enum verdict judge(const holder *h, const char **why)
{
    char host[256];
    this_host(host, sizeof host);
    if (strcmp(h->host, host) != 0) {
        const char *job = getenv("SLURM_JOB_ID");
        if (job && job[0] && strcmp(job, h->job) == 0 &&
            strtol(env_or("SLURM_RESTART_COUNT", "0"), NULL, 10) > h->restart) {
            *why = "an earlier run of this Slurm job, since requeued";
            return STALE;
        }
        return FOREIGN;
    }
    /* A process killed a moment ago (kill -9, then --resume) may take a little while to go. */
    for (int wait = 0; wait < 20; wait++) {
        char state;
        unsigned long long start = process_start(h->pid, &state);
        if ((kill((pid_t)h->pid, 0) != 0 && errno == ESRCH) || state == 'Z' || state == 'X') {
            *why = "its process has ended";
            return STALE;
        }
        if (h->start && start && start != h->start) {
            *why = "its process has ended; another has its pid now";
            return STALE;
        }
        const struct timespec nap = {0, 25000000};
        nanosleep(&nap, NULL);
    }
    return HELD;
}

static int refuse(const char *label, const char *final_path, const char *lock_path,
                  enum verdict v, const holder *h, storq_error *err)
{
    if (v == UNREADABLE)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is locked by %s, which does not say "
                          "by whom; if no storq run is writing '%s', remove %s and run again",
                          label, final_path, lock_path, final_path, lock_path);
    if (v == FOREIGN)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is being written by a storq run on "
                          "another host (pid %ld on host %s, since %s); storq cannot tell from "
                          "here whether it is still running. Only if it is not (its node failed, "
                          "say), remove %s and run again",
                          label, final_path, h->pid, h->host, h->since, lock_path);
    return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is being written by another storq run "
                      "(pid %ld on host %s, since %s); wait for it to end, or stop it first",
                      label, final_path, h->pid, h->host, h->since);
}

static char *lock_name(const char *final_path, const char *suffix)
{
    size_t len = strlen(final_path) + strlen(suffix) + 1;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s%s", final_path, suffix);
    return p;
}

/* This process's own name beside the lock: HOST and PID make it unique. */
static char *private_name(const char *lock_path, const char *what)
{
    char host[256];
    this_host(host, sizeof host);
    size_t len = strlen(lock_path) + strlen(what) + strlen(host) + 32;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s.%s.%s.%ld", lock_path, what, host, (long)getpid());
    return p;
}

static int write_file(const char *path, const char *text, int flags)
{
    int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int saved = errno;
    close(fd);
    if (n != (ssize_t)len) {
        unlink(path);
        errno = n < 0 ? saved : ENOSPC;
        return -1;
    }
    return 0;
}

/* Create the lock holding text, atomically: written under a private name, then linked to the
 * lock's name (fails with EEXIST when another holds it). Where hard links are not supported, an
 * exclusive create. 0, or -1 with errno. */
static int create_lock(const char *lock_path, const char *text)
{
    char *tmp = private_name(lock_path, "new");
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    int rc = write_file(tmp, text, O_TRUNC);
    if (rc == 0) {
        rc = link(tmp, lock_path);
        int saved = errno;
        unlink(tmp);
        errno = saved;
        if (rc != 0 && (errno == EPERM || errno == ENOTSUP || errno == ENOSYS))
            rc = write_file(lock_path, text, O_EXCL);
    }
    free(tmp);
    return rc;
}

/* Remove a stale lock, but only the one judged stale: it is first renamed to a private name, so
 * of two runs taking over at once only one succeeds, and a lock that changed in between (another
 * run took it) is put back. 1 when this process removed the stale lock; 0 when it was gone
 * already (its holder released it: it had finished, not died) or changed. */
static int take_over(const char *lock_path, const char *stale_text)
{
    char *mine = private_name(lock_path, "stale");
    if (!mine || rename(lock_path, mine) != 0) {
        free(mine);
        return 0;
    }
    char *text = read_small(mine);
    int same = text && strcmp(text, stale_text) == 0;
    if (!same)
        (void)link(mine, lock_path);
    unlink(mine);
    free(text);
    free(mine);
    return same;
}

/* The lock's holder and its verdict, or -1 when there is no lock file. */
static int inspect(const char *lock_path, holder *h, char **text, const char **why)
{
    *text = read_small(lock_path);
    if (!*text)
        return errno == ENOENT ? -1 : UNREADABLE;
    if (!parse_holder(*text, h))
        return UNREADABLE;
    return (int)judge(h, why);
}

int storq_output_lock_check(const char *final_path, const char *label, storq_error *err)
{
    char *lock_path = lock_name(final_path, ".lock");
    if (!lock_path)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    holder h;
    char *text;
    const char *why = "";
    int v = inspect(lock_path, &h, &text, &why);
    int rc = v < 0 || v == STALE ? STORQ_OK
                                 : refuse(label, final_path, lock_path, (enum verdict)v, &h, err);
    free(text);
    free(lock_path);
    return rc;
}

/* The lock's holder renamed its partial to the final name and ended before removing its lock:
 * nothing of it to resume or replace, so no warning (the caller then finds the output). */
static int finished(const char *final_path)
{
    struct stat st;
    char *partial = lock_name(final_path, ".partial");
    int done = partial && stat(final_path, &st) == 0 && stat(partial, &st) != 0;
    free(partial);
    return done;
}

int storq_output_lock_take(const char *final_path, const char *label, storq_output_lock **out,
                           storq_error *err)
{
    *out = NULL;
    storq_output_lock *lock = calloc(1, sizeof *lock);
    if (lock) {
        lock->path = lock_name(final_path, ".lock");
        lock->content = lock_content();
    }
    if (!lock || !lock->path || !lock->content) {
        storq_output_lock_release(&lock);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    int rc = STORQ_OK;
    for (int attempt = 0;; attempt++) {
        if (create_lock(lock->path, lock->content) == 0)
            break;
        if (errno != EEXIST || attempt > 10) {
            /* the lock is storq's own file: name the output the user gave, and a missing
             * directory as such */
            int code = errno;
            rc = code == ENOENT
                     ? storq_fail(err, STORQ_ERR_USAGE, "%s: cannot create '%s': its directory "
                                  "does not exist; create it first", label, final_path)
                     : storq_fail(err, STORQ_ERR_USAGE, "%s: cannot create '%s' (the lock "
                                  "beside '%s'): %s", label, lock->path, final_path,
                                  strerror(code));
            break;
        }
        holder h;
        char *text;
        const char *why = "";
        int v = inspect(lock->path, &h, &text, &why);
        if (v == STALE && attempt < 3) {
            /* said only once the lock is really taken over: a lock released meanwhile was a
             * run that finished, and the output it wrote is checked under this run's lock */
            if (take_over(lock->path, text) && !finished(final_path))
                storq_warn("%s: taking over the lock of a run that ended without releasing it "
                           "(pid %ld on host %s, since %s: %s); its partial file is resumed or "
                           "replaced as asked", label, h.pid, h.host, h.since, why);
        } else if (v >= 0) {
            rc = refuse(label, final_path, lock->path, v == STALE ? HELD : (enum verdict)v, &h,
                        err);
        }
        free(text);
        if (rc)
            break;
    }
    if (rc) {
        free(lock->content); /* never remove a lock this process does not hold */
        lock->content = NULL;
        storq_output_lock_release(&lock);
        return rc;
    }
    *out = lock;
    return STORQ_OK;
}

void storq_output_lock_release(storq_output_lock **plock)
{
    if (!plock || !*plock)
        return;
    storq_output_lock *lock = *plock;
    if (lock->path && lock->content) {
        char *text = read_small(lock->path);
        if (text && strcmp(text, lock->content) == 0)
            unlink(lock->path);
        free(text);
    }
    free(lock->path);
    free(lock->content);
    free(lock);
    *plock = NULL;
}
