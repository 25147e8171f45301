/* Requests and events per second of the proxy kernel, run through the model interface, beside a
 * speed-of-light loop on the same machine and the same random streams.
 *
 * The loop simulates a fixed (n,k) code with non-blocking admission by list scheduling, the least
 * work the model allows: with non-blocking admission every task starts, in FIFO order, on the
 * thread that frees first (a request is admitted only when the task queue is empty), so per
 * request it draws the inter-arrival time (ARRIVALS) and the nmax task delays Delta + Exp(mu)
 * (SERVICE, inline, the kernel's draws), pops the n earliest free times from a binary heap of the
 * L threads' free times, starts task i at S_i = max(A, e_i) and ends it at F_i = S_i + x_i, finds
 * the k-th smallest F_i (D, src/toolkit/select.h), and pushes each thread back free at min(F_i, D) (a task
 * that would start at or after D never runs: its thread keeps e_i). Its mean delay must equal the
 * kernel's up to the order of summation: the bench checks it. The loop has no event queue, no
 * request queue, no cancellation bookkeeping and no statistics but the sum: the kernel's extra
 * cost is what its generality (blocking admission, Greedy, BAFEC, coupled policies, histograms,
 * time averages) costs.
 *
 * Cases, k = 3, nmax = 6, Delta = 0.2, mu = 1.25 (the model's defaults), non-blocking unless
 * said, load lambda u(6) / L = 0.675 at L = 16 (lambda = 3):
 *   fixed:3 .. fixed:6 (with their loops), greedy, bafec, blocking fixed:6, the six policies
 *   coupled (against the sum of the six alone), and fixed:6 at L = 1024 (same load; with its
 *   loop): the cost's growth with L. Events are the kernel's (arrivals and task completions,
 *   cancellations not counted; the arrivals after the window that the kernel runs until every
 *   measured request is done are counted too).
 * Every round runs every case once (the kernel, then its loop), REPS rounds interleaved so that
 * all cases see the same stretches of the machine's load; each figure is the best round in thread
 * CPU time, and the loop/kernel ratio is also given as its range over the rounds (each round's
 * own pair). The load average is printed before and after.
 *
 * usage: bench_proxy [requests]   (default 200000 per run) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "model_kit.h"
#include "observables.h"
#include "rng.h"
#include "run_spec.h"
#include "select.h"

#define REPS 7
#define DELTA 0.2
#define MU 1.25
#define K 3
#define NMAX 6

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_proxy: %s: %s\n", what, msg);
    exit(1);
}

static void loadavg(const char *when)
{
    double a = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &a) != 1)
            a = NAN;
        fclose(f);
    }
    printf("load average (1 min) %s: %.2f\n", when, a);
}

/* ------------------------------------------------------------------ the kernel */

typedef struct px_case {
    const char *label, *code, *admission;
    long L, n; /* n: the fixed code the loop runs (0: no loop) */
    double lambda;
    double kt, lt, rmin, rmax; /* best seconds per request, kernel and loop; ratio range */
    double events;             /* the kernel's events per request */
} px_case;

/* Seconds per request of one replication (no warm-up); *mean: the first policy's mean delay. */
static double kernel_run(px_case *c, long requests, double *mean)
{
    char sL[32], sl[32], sa[32];
    snprintf(sL, sizeof sL, "%ld", c->L);
    snprintf(sl, sizeof sl, "%.17g", c->lambda);
    snprintf(sa, sizeof sa, "%ld", requests);
    char *argv[] = {"proxy", "--L", sL, "--lambda", sl, "--k", "3", "--nmax", "6", "--delay",
                    "shexp:0.2,1.25", "--admission", (char *)c->admission, "--code",
                    (char *)c->code, "--warmup", "0", "--arrivals", sa, "--allow-unstable"};
    storq_run_spec spec;
    storq_error err = {0};
    void *ctx = NULL;
    storq_observables obs = {0};
    storq_record rec;
    if (storq_theory_spec_parse((int)(sizeof argv / sizeof argv[0]), argv, &spec, &err) ||
        spec.model->prepare(&spec.points[0], &ctx, &err) || spec.model->declare(ctx, &obs, &err) ||
        storq_record_init(&rec, &obs, &err))
        die("kernel setup", err.msg);
    storq_record_reset(&rec);
    storq_stream_key key = {1, 0, 0};
    const double t0 = now();
    if (spec.model->replicate(ctx, &key, &rec, &err))
        die("kernel", err.msg);
    const double dt = now() - t0;
    const storq_obs_def *def = storq_obs_find(&obs, storq_model_headline(spec.model, ctx));
    if (!def)
        die("kernel", "no headline observable");
    *mean = rec.values[def->value_offset];
    c->events = (double)rec.events / (double)requests;
    storq_record_free(&rec);
    storq_observables_free(&obs);
    spec.model->release(ctx);
    storq_run_spec_free(&spec);
    return dt / (double)requests;
}

/* ------------------------------------------------------------------ the speed-of-light loop */

/* The threads' free times in a binary min-heap of thread ids with positions, so that a thread's
 * free time can be raised (a task started on it) or lowered (its task cancelled). */
typedef struct theap {
    double *key;
    long *h, *pos, n;
} theap;

static void th_place(theap *q, long i, long th)
{
    q->h[i] = th;
    q->pos[th] = i;
}

static void th_up(theap *q, long i)
{
    const long th = q->h[i];
    while (i > 0 && q->key[q->h[(i - 1) / 2]] > q->key[th]) {
        th_place(q, i, q->h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    th_place(q, i, th);
}

static void th_down(theap *q, long i)
{
    const long th = q->h[i];
    for (;;) {
        long c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && q->key[q->h[c + 1]] < q->key[q->h[c]])
            c++;
        if (q->key[q->h[c]] >= q->key[th])
            break;
        th_place(q, i, q->h[c]);
        i = c;
    }
    th_place(q, i, th);
}

/* Seconds per request of the loop for fixed n, non-blocking; *mean: its mean delay.
 *
 * Task i of request j (arrival t) takes the thread that frees first, at e (possibly one freed by
 * the same request's earlier task): it starts at S = max(t, e), unless k of the request's tasks
 * already end by S (the request is done: its remaining tasks never start), and ends at
 * F = S + x_i. Once the request's D (the k-th smallest F) is known, the threads of its tasks
 * still running at D are freed at D. */
static double loop_run(const px_case *c, long requests, double *mean)
{
    storq_stream_key key = {1, 0, 0};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    storq_rng svc = storq_rng_stream(&key, STORQ_STREAM_SERVICE);
    theap q = {calloc((size_t)c->L, sizeof(double)), malloc((size_t)c->L * sizeof(long)),
               malloc((size_t)c->L * sizeof(long)), c->L};
    if (!q.key || !q.h || !q.pos)
        die("loop", "out of memory");
    for (long th = 0; th < c->L; th++) /* every thread free at 0 */
        th_place(&q, th, th);
    const long n = c->n;
    double x[NMAX], F[NMAX], W[NMAX];
    long thr[NMAX];
    double t = 0.0, sum = 0.0;
    const double t0 = now();
    for (long j = 0; j < requests; j++) {
        t += storq_rng_exp(&arr, c->lambda);
        for (int i = 0; i < NMAX; i++)
            x[i] = DELTA + storq_rng_exp(&svc, MU);
        long m = 0; /* tasks started */
        double done = HUGE_VAL; /* the k-th smallest end so far */
        for (long i = 0; i < n; i++) {
            const long th = q.h[0];
            const double S = q.key[th] > t ? q.key[th] : t;
            if (S >= done)
                break;
            F[m] = S + x[i];
            thr[m++] = th;
            q.key[th] = F[m - 1];
            th_down(&q, 0);
            if (m >= K) {
                memcpy(W, F, (size_t)m * sizeof *W);
                done = storq_kth_smallest(W, (size_t)m, K);
            }
        }
        for (long i = 0; i < m; i++)
            if (F[i] > done) {
                q.key[thr[i]] = done;
                th_up(&q, q.pos[thr[i]]);
            }
        sum += done - t;
    }
    const double dt = now() - t0;
    *mean = sum / (double)requests;
    free(q.key);
    free(q.h);
    free(q.pos);
    return dt / (double)requests;
}

/* ------------------------------------------------------------------ measuring */

static double worst_rel = 0.0;

int main(int argc, char **argv)
{
    const long requests = argc > 1 ? atol(argv[1]) : 200000;
    if (requests < 100) {
        fprintf(stderr, "usage: bench_proxy [requests]   (per run, >= 100)\n");
        return 2;
    }
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    loadavg("before");
    const double lam16 = 3.0, lam1024 = 3.0 * 1024 / 16;
    px_case cs[] = {
        {"fixed:3", "fixed:3", "nonblocking", 16, 3, lam16, 0, 0, 0, 0, 0},
        {"fixed:4", "fixed:4", "nonblocking", 16, 4, lam16, 0, 0, 0, 0, 0},
        {"fixed:5", "fixed:5", "nonblocking", 16, 5, lam16, 0, 0, 0, 0, 0},
        {"fixed:6", "fixed:6", "nonblocking", 16, 6, lam16, 0, 0, 0, 0, 0},
        {"greedy", "greedy", "nonblocking", 16, 0, lam16, 0, 0, 0, 0, 0},
        {"bafec", "bafec", "nonblocking", 16, 0, lam16, 0, 0, 0, 0, 0},
        {"fixed:6 blocking", "fixed:6", "blocking", 16, 0, lam16, 0, 0, 0, 0, 0},
        {"six coupled", "fixed:3+fixed:4+fixed:5+fixed:6+greedy+bafec", "nonblocking", 16, 0,
         lam16, 0, 0, 0, 0, 0},
        {"fixed:6, L = 1024", "fixed:6", "nonblocking", 1024, 6, lam1024, 0, 0, 0, 0, 0},
    };
    const int nc = (int)(sizeof cs / sizeof cs[0]);
    for (int i = 0; i < nc; i++) {
        cs[i].kt = cs[i].lt = HUGE_VAL;
        cs[i].rmin = HUGE_VAL;
        cs[i].rmax = 0;
    }
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < nc; i++) {
            px_case *c = &cs[i];
            double km, lm;
            const double kt = kernel_run(c, requests, &km);
            c->kt = kt < c->kt ? kt : c->kt;
            if (!c->n)
                continue;
            const double lt = loop_run(c, requests, &lm);
            c->lt = lt < c->lt ? lt : c->lt;
            const double ratio = lt / kt;
            c->rmin = ratio < c->rmin ? ratio : c->rmin;
            c->rmax = ratio > c->rmax ? ratio : c->rmax;
            const double rel = fabs(km - lm) / km;
            if (!(rel <= 1e-9)) {
                fprintf(stderr, "bench_proxy: %s: loop mean delay %.17g differs from the "
                        "kernel's %.17g\n", c->label, lm, km);
                return 1;
            }
            worst_rel = rel > worst_rel ? rel : worst_rel;
        }
    printf("proxy, k = 3, nmax = 6, shexp:0.2,1.25, load lambda u(6)/L = 0.675, %ld requests per "
           "run, best of %d interleaved rounds (thread CPU time)\n\n", requests, REPS);
    printf("| case | L | kernel requests/s | kernel events/s | events/request | ns/request | "
           "loop requests/s | loop time / kernel time (best) | range over rounds |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < nc; i++) {
        const px_case *c = &cs[i];
        printf("| %s | %ld | %.3g | %.3g | %.2f | %.0f |", c->label, c->L, 1 / c->kt,
               c->events / c->kt, c->events, 1e9 * c->kt);
        if (c->n)
            printf(" %.3g | %.2f | %.2f .. %.2f |\n", 1 / c->lt, c->lt / c->kt, c->rmin, c->rmax);
        else
            printf(" - | - | - |\n");
    }
    double alone = 0;
    for (int i = 0; i < 6; i++)
        alone += cs[i].kt;
    printf("\nsix coupled over the sum of the six alone: %.2f; fixed:6 at L = 1024 over L = 16: "
           "%.2f (loop: %.2f)\n", cs[7].kt / alone, cs[8].kt / cs[3].kt, cs[8].lt / cs[3].lt);
    printf("check: every loop's mean delay equals the kernel's (largest relative gap %.1e)\n",
           worst_rel);
    loadavg("after");
    clock_gettime(CLOCK_MONOTONIC, &w1);
    printf("total run time %.0f s (wall clock)\n",
           (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec));
    return 0;
}
