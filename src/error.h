/* One error type for the whole engine: a status code and a message a user can act on. */
#ifndef STORQ_ERROR_H
#define STORQ_ERROR_H

enum {
    STORQ_OK = 0,
    STORQ_ERR_RUNTIME = 1, /* something failed while running: I/O, memory, MPI */
    STORQ_ERR_USAGE = 2,   /* the user asked for something invalid; exit status 2 */
    STORQ_STOPPED = 3      /* stopped by a signal: finished points kept for --resume; status 3 */
};

typedef struct storq_error {
    int code;
    char msg[1024];
} storq_error;

/* Record the first failure (later ones keep the original message) and return code. */
int storq_fail(storq_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Internal failures carry file and line so a bug report can point at the source. */
#define STORQ_RUNTIME_FAIL(err, ...) \
    storq_fail_at((err), __FILE__, __LINE__, __VA_ARGS__)
int storq_fail_at(storq_error *err, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Propagate a non-zero status from a call. */
#define STORQ_TRY(expr)                 \
    do {                                \
        int storq_rc_ = (expr);         \
        if (storq_rc_ != STORQ_OK)      \
            return storq_rc_;           \
    } while (0)

#endif
