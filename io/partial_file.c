#define _GNU_SOURCE /* fallocate (Linux) */
#include "partial_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

char *storq_partial_name(const char *final_path)
{
    size_t len = strlen(final_path);
    char *p = malloc(len + sizeof ".partial");
    if (p) {
        memcpy(p, final_path, len);
        memcpy(p + len, ".partial", sizeof ".partial");
    }
    return p;
}

int storq_partial_create(const char *final_path, const char *partial, const char *label,
                         storq_error *err)
{
    struct stat st;
    if (stat(final_path, &st) == 0 && S_ISDIR(st.st_mode))
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is a directory", label, final_path);
    if (unlink(partial) != 0 && errno != ENOENT)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: cannot remove the old '%s': %s", label,
                          partial, strerror(errno));
    int fd = open(partial, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: cannot create '%s': %s", label, partial,
                          strerror(errno));
    close(fd);
    return STORQ_OK;
}

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, flags);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* The directory entry of the rename must reach the disk too. */
static void fsync_parent_dir(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return;
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    fsync_path(dir, O_RDONLY | O_DIRECTORY);
    free(dir);
}

/* Space reserved past the end (FALLOC_FL_KEEP_SIZE) stays allocated after the last write; a
 * truncation that changes the size frees it, so grow by a byte and shrink back. */
void storq_partial_trim(const char *partial)
{
    int fd = open(partial, O_WRONLY);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, st.st_size + 1) == 0 &&
        ftruncate(fd, st.st_size) != 0)
        fprintf(stderr, "storq: warning: cannot restore the size of %s: %s\n", partial,
                strerror(errno));
    close(fd);
}

static int allocate_past_end(int fd, off_t size, uint64_t bytes)
{
#ifdef FALLOC_FL_KEEP_SIZE
    return fallocate(fd, FALLOC_FL_KEEP_SIZE, size, (off_t)bytes);
#else
    (void)fd, (void)size, (void)bytes;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

static int no_space(const char *partial, uint64_t bytes, const char *what, int code,
                    storq_error *err)
{
    return storq_fail(err, STORQ_ERR_RUNTIME, "%s writing %s (%s needs up to %.1f MB); free "
                      "some space first", strerror(code), partial, what, (double)bytes / 1e6);
}

int storq_partial_reserve(const char *partial, uint64_t bytes, const char *what,
                          storq_error *err)
{
    int fd = open(partial, O_WRONLY);
    if (fd < 0)
        return storq_fail(err, STORQ_ERR_RUNTIME, "cannot open %s to write %s: %s", partial,
                          what, strerror(errno));
    struct stat st;
    int rc = STORQ_OK;
    if (fstat(fd, &st) != 0) {
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "cannot read the size of %s: %s", partial,
                        strerror(errno));
    } else if (allocate_past_end(fd, st.st_size, bytes) != 0) {
        int code = errno;
        struct statvfs vfs;
        if (code == ENOSPC || code == EDQUOT || code == EFBIG)
            rc = no_space(partial, bytes, what, code, err);
        else if (fstatvfs(fd, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < bytes)
            rc = no_space(partial, bytes, what, ENOSPC, err); /* no fallocate here (NFS, say) */
    }
    close(fd);
    return rc;
}

int storq_partial_check_final(const char *final_path, int replace, const char *label,
                              storq_error *err)
{
    struct stat st;
    if (stat(final_path, &st) == 0 && S_ISDIR(st.st_mode))
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is a directory", label, final_path);
    if (replace || lstat(final_path, &st) != 0)
        return STORQ_OK;
    return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' exists (a finished result, written by "
                      "another run since this one started); pass --force to replace it, or name "
                      "another file", label, final_path);
}

/* rename(2) that fails with EEXIST rather than replace final_path. */
static int rename_noreplace(const char *partial, const char *final_path)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, partial, AT_FDCWD, final_path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return -1;
#endif
    /* NFS and older kernels: link(2) fails with EEXIST too, and is atomic there as well */
    if (link(partial, final_path) == 0)
        return unlink(partial) == 0 || errno == ENOENT ? 0 : -1;
    if (errno != EPERM && errno != ENOTSUP && errno != ENOSYS)
        return -1;
    /* no hard links either (some FUSE file systems): the lock still keeps storq runs apart */
    struct stat st;
    if (lstat(final_path, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(partial, final_path);
}

int storq_partial_commit(const char *partial, const char *final_path, int replace,
                         storq_error *err)
{
    storq_partial_trim(partial);
    if (fsync_path(partial, O_RDONLY) != 0)
        return storq_fail(err, STORQ_ERR_RUNTIME, "cannot sync '%s' to disk: %s", partial,
                          strerror(errno));
    int failed = replace ? rename(partial, final_path) : rename_noreplace(partial, final_path);
    if (failed && !replace && errno == EEXIST)
        return storq_fail(err, STORQ_ERR_USAGE, "'%s' appeared while this run was writing it and "
                          "is left as it is; this run's result stays in '%s' (--force replaces)",
                          final_path, partial);
    if (failed)
        return storq_fail(err, STORQ_ERR_RUNTIME, "cannot rename '%s' to '%s': %s", partial,
                          final_path, strerror(errno));
    fsync_parent_dir(final_path);
    return STORQ_OK;
}
