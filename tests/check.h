/* Minimal assertions for the C tests: report every failure with file and line, exit non-zero. */
#ifndef STORQ_TEST_CHECK_H
#define STORQ_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures_ = 0;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            check_failures_++;                                                 \
        }                                                                      \
    } while (0)

/* |a - b| <= tol, printing both numbers when it fails. */
#define CHECK_NEAR(a, b, tol)                                                  \
    do {                                                                       \
        double ca_ = (a), cb_ = (b), ct_ = (tol);                              \
        if (!(fabs(ca_ - cb_) <= ct_)) {                                       \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.10g, %s = %.10g, " \
                    "|diff| = %.3g > %.3g\n", __FILE__, __LINE__, #a, ca_, #b, \
                    cb_, fabs(ca_ - cb_), ct_);                                \
            check_failures_++;                                                 \
        }                                                                      \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                     \
    do {                                                                       \
        unsigned long long ca_ = (a), cb_ = (b);                               \
        if (ca_ != cb_) {                                                      \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %llu, %s = %llu\n",  \
                    __FILE__, __LINE__, #a, ca_, #b, cb_);                     \
            check_failures_++;                                                 \
        }                                                                      \
    } while (0)

static inline int check_report(const char *name)
{
    if (check_failures_)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures_);
    else
        printf("%s: all checks passed\n", name);
    return check_failures_ ? 1 : 0;
}

#endif
