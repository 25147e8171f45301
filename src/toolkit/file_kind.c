#include "file_kind.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *storq_file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return S_ISREG(mode) ? "a regular file" : "something else";
}

static int refuse(const char *path, const char *label, const char *what_for, mode_t mode,
                  storq_error *err)
{
    return storq_fail(err, STORQ_ERR_USAGE, "%s%s'%s' is not a regular file but %s; %s must be "
                      "a regular file", label ? label : "", label ? ": " : "", path,
                      storq_file_kind(mode), what_for);
}

int storq_open_regular(const char *path, const char *label, const char *what_for, int *fd_out,
                       storq_error *err)
{
    if (fd_out)
        *fd_out = -1;
    struct stat st;
    if (stat(path, &st) != 0)
        return STORQ_OK; /* the caller's open says why, as it always did */
    if (!S_ISREG(st.st_mode))
        return refuse(path, label, what_for, st.st_mode, err);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return STORQ_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return refuse(path, label, what_for, st.st_mode, err);
    }
    if (!fd_out) {
        close(fd);
        return STORQ_OK;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    *fd_out = fd;
    return STORQ_OK;
}

int storq_check_output_kind(const char *path, const char *label, storq_error *err)
{
    struct stat st;
    /* a link to nothing would pass stat() here and be taken for a result that appeared during
     * the run when the output is renamed into place (lstat there): say what it is now */
    if (stat(path, &st) != 0 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is a symbolic link to a file that "
                          "does not exist; name the file itself, or remove the link", label,
                          path);
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return STORQ_OK;
    return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' exists and is not a regular file but %s; "
                      "name a file path", label, path, storq_file_kind(st.st_mode));
}

int storq_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}
