/* Scheduling decisions per second of the threads kernel, run through the model interface, beside
 * a minimal loop that simulates the same process for one policy: preemptive SERPT-R with
 * exponential downloads, Poisson arrivals, L = 3 threads, the paper's classes (90% (3,1), 10%
 * (14,10)), 1/mu = 0.02 s, a finite run of N requests from empty.
 *
 * A decision is an event after which the threads' assignment is re-decided: an arrival or a chunk
 * download completing (a request's j-th chunk, j <= k; cancelled downloads are not events). Both
 * sides have N + sum_j k_j of them: the loop draws the classes from the kernel's ROUTING stream in
 * the kernel's way, so the class sequence, and with it the count, is the same.
 *
 * The minimal loop uses what the kernel may not: with exponential downloads the process is a
 * Markov chain in the requests' remaining chunk counts, so it draws no chunk times at all -- one
 * exponential for the time to the next event (rate lambda + busy mu) and one uniform for which
 * event -- and keeps the requests in one FIFO per remaining count alpha = 1 .. 10 (preemptive
 * SERPT-R serves them in the order (alpha, arrival); a request that moves down to alpha - 1 was
 * served, so every request with alpha - 1 is served and it is inserted among at most L of them).
 * Each event walks the order from alpha = 1 until the L threads are given out: O(L + kmax). The
 * kernel follows the sample path with the random-number contract of kernels/threads/internal.h:
 * n chunk times drawn per request, an event heap of running chunks, indexed heaps keyed by alpha,
 * preemption with residual times. The two agree in law, not draw for draw: the bench checks that
 * their mean flow times agree within 10% (one run each, near saturation: a sanity check; the
 * law itself is checked by tests/test_threads_exact.c and test_threads_stats.c).
 *
 * Two loads: rho = 0.95 (about 8 requests present on average) and rho = 2 (overloaded, run with
 * allow_unstable: SERPT-R keeps serving the (3,1) requests and the (14,10) ones pile up, to about
 * 2 x 10^4 at the last arrival, then drain: about 10^4 present on average over the run). REPS
 * rounds in thread CPU time; a round runs every case once, kernel then loop, so all see the same
 * stretches of the machine's load. Speeds are medians over the rounds; the loop/kernel ratio is
 * the median of the per-round ratios (a round's kernel with the same round's loop) and their
 * range, "median (min-max)". The kernel is also timed, without a loop, for non-preemptive SEDPT-R
 * and FCFS-R at both loads.
 *
 * usage: bench_threads [requests]   (default 200000 per run) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_rounds.h"
#include "model.h"
#include "models.h"
#include "observables.h"
#include "params.h"
#include "rng.h"

#define REPS 5
#define KMAX 10 /* the largest k */
#define LMAX 64
static int L_THREADS = 3; /* bench_threads [requests [L]] */
#define MU 50.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_threads: %s: %s\n", what, msg);
    exit(1);
}

static void loadavg(char *buf, size_t len)
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f || !fgets(buf, (int)len, f))
        snprintf(buf, len, "unknown\n");
    if (f)
        fclose(f);
}

/* ------------------------------------------------------------------ the kernel */

typedef struct result {
    double sec, mean_flow, mean_present;
} result;

static void set(storq_params *p, const char *name, const char *v)
{
    storq_error err = {0};
    if (storq_params_set(p, name, v, &err))
        die(name, err.msg);
}

static result kernel_run(const char *policy, double rho, long requests)
{
    storq_params p;
    storq_error err = {0};
    if (storq_params_defaults(&p, &storq_model_threads, &err))
        die("defaults", err.msg);
    char s_rho[40], s_n[32];
    snprintf(s_rho, sizeof s_rho, "%.17g", rho);
    snprintf(s_n, sizeof s_n, "%ld", requests);
    char s_L[16];
    snprintf(s_L, sizeof s_L, "%d", L_THREADS);
    set(&p, "L", s_L);
    set(&p, "rho", s_rho);
    set(&p, "interarrival", "exp:1");
    set(&p, "download", "exp:50");
    set(&p, "policy", policy);
    set(&p, "requests", s_n);
    p.allow_unstable = 1;
    void *ctx = NULL;
    storq_observables obs = {0};
    storq_record rec;
    if (storq_model_threads.prepare(&p, &ctx, &err) ||
        storq_model_threads.declare(ctx, &obs, &err) || storq_record_init(&rec, &obs, &err))
        die("kernel setup", err.msg);
    storq_record_reset(&rec);
    storq_stream_key key = {1, 0, 0};
    const double t0 = now();
    if (storq_model_threads.replicate(ctx, &key, &rec, &err))
        die("kernel", err.msg);
    result r = {now() - t0, 0, 0};
    char name[64];
    const char *prefix = strcmp(policy, "serpt-r:on") == 0   ? "serpt_r_p"
                         : strcmp(policy, "sedpt-r:off") == 0 ? "sedpt_r_np"
                                                              : "fcfs_r_np";
    snprintf(name, sizeof name, "%s_mean_flow_time", prefix);
    const storq_obs_def *d = storq_obs_find(&obs, name);
    snprintf(name, sizeof name, "%s_mean_present", prefix);
    const storq_obs_def *e = storq_obs_find(&obs, name);
    if (!d || !e)
        die("kernel", "observable missing");
    r.mean_flow = rec.values[d->value_offset];
    r.mean_present = rec.values[e->value_offset];
    storq_record_free(&rec);
    storq_observables_free(&obs);
    storq_model_threads.release(ctx);
    storq_params_free(&p);
    return r;
}

/* ------------------------------------------------------------------ the minimal loop */

/* A FIFO of request numbers (= arrival order) with insertion near its front. */
typedef struct fifo {
    uint32_t *a;
    size_t head, count, mask;
} fifo;

static uint32_t *at(fifo *q, size_t i)
{
    return &q->a[(q->head + i) & q->mask];
}

static void fifo_grow(fifo *q)
{
    const size_t cap = q->mask + 1;
    uint32_t *b = malloc(2 * cap * sizeof *b);
    if (!b)
        die("loop", "out of memory");
    for (size_t i = 0; i < q->count; i++)
        b[i] = *at(q, i);
    free(q->a);
    q->a = b;
    q->head = 0;
    q->mask = 2 * cap - 1;
}

static void fifo_push(fifo *q, uint32_t v)
{
    if (q->count > q->mask)
        fifo_grow(q);
    *at(q, q->count++) = v;
}

/* Remove entry i (i < L): shift the entries before it back by one. */
static void fifo_remove(fifo *q, size_t i)
{
    for (; i > 0; i--)
        *at(q, i) = *at(q, i - 1);
    q->head = (q->head + 1) & q->mask;
    q->count--;
}

/* Insert v in arrival order; every entry is served, so there are fewer than L of them. */
static void fifo_insert_sorted(fifo *q, uint32_t v)
{
    if (q->count > q->mask)
        fifo_grow(q);
    size_t i = q->count++;
    for (; i > 0 && *at(q, i - 1) > v; i--)
        *at(q, i) = *at(q, i - 1);
    *at(q, i) = v;
}

static result loop_run(double rho, long requests, long *events)
{
    static const double share0 = 0.9;
    static const int cn[2] = {3, 14}, ck[2] = {1, 10};
    const double Ek = share0 * ck[0] + (1 - share0) * ck[1];
    const double lambda = rho * L_THREADS * MU / Ek;
    storq_stream_key key = {1, 0, 0};
    storq_rng rte = storq_rng_stream(&key, STORQ_STREAM_ROUTING);
    storq_rng svc = storq_rng_stream(&key, STORQ_STREAM_SERVICE);
    double *arr = malloc((size_t)requests * sizeof *arr);
    unsigned char *cls = malloc((size_t)requests), *alpha = malloc((size_t)requests);
    fifo q[KMAX + 1];
    for (int a = 0; a <= KMAX; a++) {
        q[a] = (fifo){malloc(64 * sizeof(uint32_t)), 0, 0, 63};
        if (!q[a].a)
            die("loop", "out of memory");
    }
    if (!arr || !cls || !alpha)
        die("loop", "out of memory");
    double t = 0.0, sum = 0.0, area = 0.0;
    long next = 0, present = 0, ev = 0;
    const double t0 = now();
    for (;;) {
        if (next == 0) { /* request 0 arrives at time 0; the others in the race below */
            const int c = storq_rng_uniform(&rte) < share0 ? 0 : 1;
            arr[0] = 0.0;
            cls[0] = (unsigned char)c;
            alpha[0] = (unsigned char)ck[c];
            fifo_push(&q[ck[c]], 0);
            next = 1;
            present = 1;
            ev++;
        }
        /* the threads' assignment: (alpha, arrival) order, min(left, available chunks) each */
        uint32_t sid[LMAX];
        int sa[LMAX], sth[LMAX];
        size_t spos[LMAX];
        int ns = 0, left = L_THREADS;
        for (int a = 1; a <= KMAX && left > 0; a++)
            for (size_t i = 0; i < q[a].count && left > 0; i++) {
                const uint32_t j = *at(&q[a], i);
                const int c = cls[j], avail = cn[c] - (ck[c] - a);
                const int th = avail < left ? avail : left;
                sid[ns] = j;
                sa[ns] = a;
                spos[ns] = i;
                sth[ns++] = th;
                left -= th;
            }
        const int busy = L_THREADS - left;
        const double la = next < requests ? lambda : 0.0;
        const double rate = la + busy * MU;
        if (rate == 0.0)
            break;
        const double dt = storq_rng_exp(&svc, rate);
        area += (double)present * dt;
        t += dt;
        ev++;
        double u = storq_rng_uniform(&svc) * rate;
        if (u < la) {
            const int c = storq_rng_uniform(&rte) < share0 ? 0 : 1;
            arr[next] = t;
            cls[next] = (unsigned char)c;
            alpha[next] = (unsigned char)ck[c];
            fifo_push(&q[ck[c]], (uint32_t)next);
            next++;
            present++;
            continue;
        }
        u = (u - la) / MU;
        int s = 0;
        while (s < ns - 1 && u >= sth[s]) {
            u -= sth[s];
            s++;
        }
        const uint32_t j = sid[s];
        fifo_remove(&q[sa[s]], spos[s]);
        if (--alpha[j] == 0) {
            sum += t - arr[j];
            present--;
        } else {
            fifo_insert_sorted(&q[alpha[j]], j);
        }
    }
    result r = {now() - t0, sum / (double)requests, area / t};
    *events = ev;
    for (int a = 0; a <= KMAX; a++)
        free(q[a].a);
    free(arr);
    free(cls);
    free(alpha);
    return r;
}

/* ------------------------------------------------------------------ measuring */

typedef struct bench_case {
    double rho;
    const char *policy;
    int has_loop;
    result k, l; /* the means of the last round */
    double ks[REPS], ls[REPS]; /* seconds of each round, kernel and loop */
    long events;
} bench_case;

static double median(const double *v)
{
    return bench_median(v, REPS);
}


int main(int argc, char **argv)
{
    const long N = argc > 1 ? atol(argv[1]) : 200000;
    if (argc > 2)
        L_THREADS = atoi(argv[2]);
    if (L_THREADS < 1 || L_THREADS > LMAX) {
        fprintf(stderr, "bench_threads: L must be 1 .. %d\n", LMAX);
        return 2;
    }
    if (N < 1000 || N > 100000000) {
        fprintf(stderr, "usage: bench_threads [requests]   (1000 .. 10^8, default 200000)\n");
        return 2;
    }
    char la0[128], la1[128];
    loadavg(la0, sizeof la0);
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    bench_case bc[6];
    static const char *pols[3] = {"serpt-r:on", "sedpt-r:off", "fcfs-r:off"};
    for (int i = 0; i < 6; i++) { /* even: about 10 present; odd: about 10^4 */
        memset(&bc[i], 0, sizeof bc[i]);
        bc[i].rho = i % 2 ? 2.0 : 0.95;
        bc[i].policy = pols[i / 2];
        bc[i].has_loop = i < 2;
    }
    const int nc = (int)(sizeof bc / sizeof *bc);
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < nc; i++) {
            bench_case *b = &bc[i];
            b->k = kernel_run(b->policy, b->rho, N);
            b->ks[r] = b->k.sec;
            if (!b->has_loop)
                continue;
            b->l = loop_run(b->rho, N, &b->events);
            b->ls[r] = b->l.sec;
        }
    /* the kernel's decisions: the same count (the same classes), see the top of the file */
    for (int i = 0; i < nc; i++)
        if (!bc[i].has_loop)
            bc[i].events = bc[i % 2].events;
    loadavg(la1, sizeof la1);

    printf("threads: L = 3, classes 90%% (3,1) / 10%% (14,10), exp downloads 1/mu = 0.02 s, "
           "Poisson arrivals, N = %ld requests from empty, medians over %d rounds (thread CPU "
           "time); loop time / kernel time: median of the per-round ratios (min-max)\n\n",
           N, REPS);
    printf("| rho | policy | mean present | decisions | kernel decisions/s | loop decisions/s | "
           "loop time / kernel time | kernel ns/decision |\n");
    printf("|---:|---|---:|---:|---:|---:|---:|---:|\n");
    int bad = 0;
    char rb[64];
    for (int i = 0; i < nc; i++) {
        const bench_case *b = &bc[i];
        const double km = median(b->ks);
        printf("| %.2f | %s | %.4g | %ld | %.3g |", b->rho, b->policy, b->k.mean_present,
               b->events, (double)b->events / km);
        if (b->has_loop)
            printf(" %.3g | %s |", (double)b->events / median(b->ls),
                   bench_ratio_text(rb, sizeof rb, b->ls, b->ks, REPS, 1.0));
        else
            printf(" - | - |");
        printf(" %.0f |\n", 1e9 * km / (double)b->events);
    }
    printf("\ncheck (same process in law): mean flow time kernel vs loop, mean present kernel vs "
           "loop\n");
    for (int i = 0; i < 2; i++) {
        const bench_case *b = &bc[i];
        const double rel = fabs(b->k.mean_flow - b->l.mean_flow) / b->l.mean_flow;
        printf("  rho %.2f: %.5g s vs %.5g s (rel. %.3f); %.4g vs %.4g\n", b->rho,
               b->k.mean_flow, b->l.mean_flow, rel, b->k.mean_present, b->l.mean_present);
        bad |= !(rel < 0.10);
    }
    printf("kernel time per decision at rho %.2f over rho %.2f (serpt-r:on): %s\n", bc[1].rho,
           bc[0].rho,
           bench_ratio_text(rb, sizeof rb, bc[1].ks, bc[0].ks, REPS,
                            (double)bc[0].events / (double)bc[1].events));
    clock_gettime(CLOCK_MONOTONIC, &w1);
    printf("load average before: %sload average after:  %s", la0, la1);
    printf("total run time %.0f s (wall clock)\n",
           (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec));
    if (bad) {
        fprintf(stderr, "bench_threads: kernel and loop disagree by more than 10%%\n");
        return 1;
    }
    return 0;
}
