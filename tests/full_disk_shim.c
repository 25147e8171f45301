/* A test helper, preloaded (LD_PRELOAD) into storq: a disk that is full at STORQ_TEST_DISK_BYTES
 * bytes for every file whose name ends in ".partial". Writes past that size fail with ENOSPC
 * (after a short write, as a kernel does), and so does fallocate; writes below it (HDF5 rewriting
 * its metadata in place) succeed, as they do on a real full disk. HDF5's sec2 driver writes with
 * pwrite (and write), which the program calls through the dynamic linker, so this exercises the
 * real write path with no hook in the product. STORQ_TEST_DISK_NO_FALLOCATE makes fallocate
 * unsupported, as on some network file systems. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The bytes a write of n at offset may put on the "disk": n, fewer, or -1 (none fit). */
static long long room(int fd, long long offset, long long n)
{
    const char *cap_text = getenv("STORQ_TEST_DISK_BYTES");
    if (!cap_text)
        return n;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, path, sizeof path - 1);
    if (len < 8)
        return n;
    path[len] = '\0';
    if (strcmp(path + len - 8, ".partial") != 0)
        return n;
    long long cap = atoll(cap_text);
    if (offset + n <= cap)
        return n;
    return offset < cap ? cap - offset : -1;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real)
        real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    long long fit = room(fd, (long long)offset, (long long)n);
    if (fit < 0) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, (size_t)fit, offset);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    if (!real)
        real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    off_t at = lseek(fd, 0, SEEK_CUR);
    long long fit = at < 0 ? (long long)n : room(fd, (long long)at, (long long)n);
    if (fit < 0) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, (size_t)fit);
}

int fallocate(int fd, int mode, off_t offset, off_t len)
{
    static int (*real)(int, int, off_t, off_t);
    if (!real)
        real = (int (*)(int, int, off_t, off_t))dlsym(RTLD_NEXT, "fallocate");
    if (getenv("STORQ_TEST_DISK_NO_FALLOCATE")) { /* a file system that cannot (NFS, say) */
        errno = EOPNOTSUPP;
        return -1;
    }
    if (room(fd, (long long)offset, (long long)len) != (long long)len) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, mode, offset, len);
}
