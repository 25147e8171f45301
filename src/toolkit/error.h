/* One error type for the whole engine: a status code and a message a user can act on. */
#ifndef STORQ_ERROR_H
#define STORQ_ERROR_H

#include <stddef.h>

enum {
    STORQ_OK = 0,
    STORQ_ERR_RUNTIME = 1, /* something failed while running: I/O, memory, MPI */
    STORQ_ERR_USAGE = 2,   /* the user asked for something invalid; exit status 2 */
    STORQ_STOPPED = 3      /* stopped by a signal: finished points kept for --resume; status 3 */
};

typedef struct storq_error {
    int code;
    char msg[1024];
    /* A refusal of a load beyond capacity (model_kit.h's storq_refuse_unstable): msg is the
     * reason, its first reason_len characters, then the advice. */
    int unstable;
    size_t reason_len;
} storq_error;

/* Record the first failure (later ones keep the original message) and return code. A word of the
 * message longer than 200 characters (an input echoed back) is shortened to its start and length. */
int storq_fail(storq_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A failure of the machine (I/O, memory, MPI) rather than of the input: exit status 1. Messages
 * say what failed in the user's terms and never name the program's source files. */
#define STORQ_RUNTIME_FAIL(err, ...) storq_fail((err), STORQ_ERR_RUNTIME, __VA_ARGS__)

/* Propagate a non-zero status from a call. */
#define STORQ_TRY(expr)                 \
    do {                                \
        int storq_rc_ = (expr);         \
        if (storq_rc_ != STORQ_OK)      \
            return storq_rc_;           \
    } while (0)

#endif
