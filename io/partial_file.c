#include "partial_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int storq_partial_commit(const char *partial, const char *final_path, storq_error *err)
{
    if (fsync_path(partial, O_RDONLY) != 0)
        return storq_fail(err, STORQ_ERR_RUNTIME, "cannot sync '%s' to disk: %s", partial,
                          strerror(errno));
    if (rename(partial, final_path) != 0)
        return storq_fail(err, STORQ_ERR_RUNTIME, "cannot rename '%s' to '%s': %s", partial,
                          final_path, strerror(errno));
    fsync_parent_dir(final_path);
    return STORQ_OK;
}
