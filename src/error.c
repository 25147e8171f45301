#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static int vfail(storq_error *err, int code, const char *prefix, const char *fmt, va_list ap)
{
    if (err && err->code == STORQ_OK) {
        err->code = code;
        int n = snprintf(err->msg, sizeof err->msg, "%s", prefix);
        if (n < 0 || (size_t)n >= sizeof err->msg)
            n = 0;
        vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    }
    return err && err->code ? err->code : code;
}

int storq_fail(storq_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(err, code, "", fmt, ap);
    va_end(ap);
    return rc;
}

int storq_fail_at(storq_error *err, const char *file, int line, const char *fmt, ...)
{
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(err, STORQ_ERR_RUNTIME, prefix, fmt, ap);
    va_end(ap);
    return rc;
}
