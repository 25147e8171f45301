/* Time per request of the cluster kernel at m = 100, 10^4, 10^6 and 10^7 servers with the same size
 * law (k uniform on 1..10, coding plus:2, deterministic unit chunks, mu = 1, load 0.8), for each
 * policy alone and for BR+BS+WF coupled, each beside its speed-of-light loop: the fastest loop we
 * know that simulates the same process, doing only its unavoidable work (see below). Time per
 * request must not grow with m (cost O(alpha), not O(m), and memory latency hidden).
 *
 * Steady state: every case runs a warm-up of 2m requests (at least 10^4) -- about 14 mean service
 * times, by which every server has received about 11 blocks and every page of the state has been
 * touched -- and only the `requests` after it are timed: the kernel's time is read at the warm-up's
 * end through the poll hook of src/toolkit/stop.h (called every STORQ_STOP_EVERY requests), the loops time
 * their own second part. Times are thread CPU time, so time preempted by other work on a shared
 * machine is not counted.
 *
 * The loops, per request: the exponential inter-arrival draw, k, and then
 *   BR:      k distinct servers (BR asks a uniform k-subset of a uniform alpha-subset: in law a
 *            uniform k-subset, so the alpha - k other draws are not needed), one read-modify-write
 *            of each one's busy-until time;
 *   BS (WF): alpha = k + 2 distinct servers, their busy-until times read, the two largest left out
 *            (BS asks the k least; WF, every entry holding one block when alpha < m, asks the same
 *            set), the k others updated; ties go by draw order, which is uniformly random;
 *   coupled: alpha distinct servers with the three policies' times in one 32-byte record per
 *            server (one cache line), BR updating the first k drawn, BS and WF as above.
 * Every loop draws its servers ahead and prefetches them as the kernel does (up to CL_AHEAD
 * requests ahead, CL_BATCH at a time when the records outgrow the cache, else one), keeps them in
 * the kernel's allocation (huge pages when large), and sums each policy's delay (its mean, the
 * headline the kernel also records with much else).
 *
 * usage: bench_cluster [requests [rounds [m,m,... [policy]]]]
 * (defaults 10^6, 5, 100,10000,1000000,10000000, every policy; policy is one of BR, BS, WF and
 * BR+BS+WF, to run that case alone with its loop). Prints, per round, one line per case (`round m
 * policy kernel_ns loop_ns`), then the medians over the rounds with their spread. One thread.
 * Memory: 32 bytes per server for the largest case. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_rounds.h"
#include "big_array.h"
#include "model.h"
#include "rng.h"
#include "run_spec.h"
#include "stop.h"

#define NPOLICY 4
#define MAX_M 16
#define MAX_ROUNDS 64
_Static_assert(MAX_ROUNDS <= BENCH_MAX_ROUNDS, "bench_rounds.h holds the rounds");
#ifndef CL_AHEAD /* as in the kernel (kernels/cluster/dynamics.c) */
#define CL_RING 16
#define CL_AHEAD 8
#define CL_BATCH 4
#endif
#define CL_CACHED_BYTES ((size_t)1 << 20) /* records cached: drawn one request at a time */
static const char *const policies[NPOLICY] = {"BR", "BS", "WF", "BR+BS+WF"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double lambda_of(long m)
{
    return 0.8 * (double)m / 5.5; /* load 0.8 = lambda E[k] E[c] / m with E[k] = 5.5 */
}

static long warmup_of(long m)
{
    return 2 * m > 10000 ? 2 * m : 10000;
}

/* ------------------------------------------------------------------ the kernel */

/* The warm-up's end as seen from inside the replication (the poll hook). */
typedef struct mark {
    uint64_t warmup, steps;
    double t;
} mark;

static void on_poll(void *arg)
{
    mark *k = arg;
    uint64_t s = storq_steps_current();
    if (!k->steps && s >= k->warmup) {
        k->steps = s;
        k->t = now();
    }
}

/* Nanoseconds per request after the warm-up. */
static double bench_kernel(long m, long requests, const char *policy)
{
    char sm[32], sl[32], sw[32], sa[32];
    snprintf(sm, sizeof sm, "%ld", m);
    snprintf(sl, sizeof sl, "%.17g", lambda_of(m));
    snprintf(sw, sizeof sw, "%ld", warmup_of(m));
    snprintf(sa, sizeof sa, "%ld", requests);
    char *argv[] = {"cluster", "--m", sm, "--lambda", sl, "--size", "uniform:1,10", "--coding",
                    "plus:2", "--policy", (char *)policy, "--warmup", sw, "--arrivals", sa};
    storq_run_spec spec;
    storq_error err = {0};
    void *ctx = NULL;
    storq_observables obs = {0};
    storq_record rec;
    if (storq_theory_spec_parse((int)(sizeof argv / sizeof argv[0]), argv, &spec, &err) ||
        spec.model->prepare(&spec.points[0], &ctx, &err) || spec.model->declare(ctx, &obs, &err) ||
        storq_record_init(&rec, &obs, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    storq_stream_key key = {1, 0, 0};
    mark mk = {(uint64_t)warmup_of(m), 0, 0.0};
    storq_poll_install(on_poll, &mk, 0.0);
    storq_steps_begin();
    if (spec.model->replicate(ctx, &key, &rec, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    double t1 = now();
    storq_poll_install(NULL, NULL, 0.0);
    storq_record_free(&rec);
    storq_observables_free(&obs);
    spec.model->release(ctx);
    storq_run_spec_free(&spec);
    const uint64_t total = (uint64_t)warmup_of(m) + (uint64_t)requests;
    return 1e9 * (t1 - mk.t) / (double)(total - mk.steps);
}

/* ------------------------------------------------------------------ the loops */

enum { LOOP_BR, LOOP_BS, LOOP_COUPLED };

/* The servers of the next requests, drawn as the kernel draws them: `batch` or more at a time (1
 * when the records are cached, else CL_BATCH), up to CL_AHEAD requests early, then prefetched back
 * to back. */
typedef struct ahead {
    storq_rng siz, pla;
    unsigned k[CL_RING], n[CL_RING]; /* k, and the servers drawn (k for BR alone, else k + 2) */
    uint64_t srv[CL_RING][12];    /* record offsets in V */
    uint64_t drawn, batch;
} ahead;

static inline void ahead_fill(ahead *a, uint64_t r, uint64_t total, int kind, long m,
                              unsigned stride, double *V)
{
    if (a->drawn > r + CL_AHEAD - a->batch)
        return;
    const uint64_t first = a->drawn, upto = total - r > CL_AHEAD ? r + CL_AHEAD + 1 : total;
    for (; a->drawn < upto; a->drawn++) {
        const unsigned s = (unsigned)(a->drawn % CL_RING);
        a->k[s] = 1 + (unsigned)storq_rng_below(&a->siz, 10);
        a->n[s] = kind == LOOP_BR ? a->k[s] : a->k[s] + 2;
        storq_rng_sample_distinct_fast(&a->pla, (uint64_t)m, a->n[s], a->srv[s]);
        for (unsigned j = 0; j < a->n[s]; j++)
            a->srv[s][j] *= stride;
    }
    for (uint64_t d = first; d < a->drawn; d++) {
        const unsigned s = (unsigned)(d % CL_RING);
        for (unsigned j = 0; j < a->n[s]; j++)
            __builtin_prefetch(V + a->srv[s][j], 1, 3);
    }
}

/* BR: k blocks to the given servers; returns the delay. */
static inline double serve_all(double *V, const uint64_t *srv, unsigned k, double t)
{
    double dmax = 0.0;
    for (unsigned j = 0; j < k; j++) {
        double *v = V + srv[j];
        const double u = (*v > t ? *v : t) + 1.0;
        *v = u;
        dmax = u > dmax ? u : dmax;
    }
    return dmax - t;
}

/* BS and WF (n = k + 2 entries, one block each): all but the two largest, without a branch on the
 * data: the second largest u2 (with multiplicity), then the entries below u2 and, in draw order,
 * as many of those equal to u2 as make k. Returns the delay. */
static inline double serve_least(double *V, const uint64_t *srv, unsigned n, double t)
{
    double v[12], u[12], m1 = -1.0, m2 = -1.0;
    for (unsigned j = 0; j < n; j++) {
        v[j] = V[srv[j]];
        u[j] = v[j] > t ? v[j] : t;
        const double lo = u[j] < m1 ? u[j] : m1;
        m1 = u[j] > m1 ? u[j] : m1;
        m2 = lo > m2 ? lo : m2;
    }
    int need = (int)n - 2;
    for (unsigned j = 0; j < n; j++)
        need -= u[j] < m2;
    double dmax = 0.0;
    for (unsigned j = 0; j < n; j++) {
        const int eq = u[j] == m2, ask = (u[j] < m2) | (eq & (need > 0));
        need -= eq;
        const double nu = u[j] + 1.0;
        V[srv[j]] = ask ? nu : v[j];
        dmax = ask && nu > dmax ? nu : dmax;
    }
    return dmax - t;
}

/* Nanoseconds per request after the warm-up; *sink gets the delay sums. */
static double bench_loop(int kind, long m, long requests, double *sink)
{
    storq_stream_key key = {1, 0, 0};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    const unsigned stride = kind == LOOP_COUPLED ? 4 : 1;
    const uint64_t batch = (size_t)m * stride * sizeof(double) > CL_CACHED_BYTES ? CL_BATCH : 1;
    ahead a = {storq_rng_stream(&key, STORQ_STREAM_SIZES),
               storq_rng_stream(&key, STORQ_STREAM_PLACEMENT), {0}, {0}, {{0}}, 0, batch};
    /* the kernel's allocation: cache-line records, huge pages when large */
    double *V = storq_big_array_zeroed((size_t)m * stride * sizeof(double));
    if (!V) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    const double lambda = lambda_of(m);
    const uint64_t warm = (uint64_t)warmup_of(m), total = warm + (uint64_t)requests;
    double t = 0.0, sum[3] = {0}, t0 = 0.0;
    for (uint64_t r = 0; r < total; r++) {
        if (r == warm)
            t0 = now();
        ahead_fill(&a, r, total, kind, m, stride, V);
        const unsigned s = (unsigned)(r % CL_RING);
        t += storq_rng_exp(&arr, lambda);
        if (kind == LOOP_BR) {
            sum[0] += serve_all(V, a.srv[s], a.k[s], t);
        } else if (kind == LOOP_BS) {
            sum[1] += serve_least(V, a.srv[s], a.n[s], t);
        } else {
            sum[0] += serve_all(V, a.srv[s], a.k[s], t);
            sum[1] += serve_least(V + 1, a.srv[s], a.n[s], t);
            sum[2] += serve_least(V + 2, a.srv[s], a.n[s], t);
        }
    }
    const double dt = now() - t0;
    *sink += sum[0] + sum[1] + sum[2];
    free(V);
    return 1e9 * dt / (double)requests;
}

int main(int argc, char **argv)
{
    long requests = argc > 1 ? atol(argv[1]) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    long ms[MAX_M] = {100, 10000, 1000000, 10000000};
    int nm = 4;
    if (argc > 3) {
        nm = 0;
        for (char *p = argv[3]; *p && nm < MAX_M; p += *p == ',') {
            char *end;
            ms[nm++] = strtol(p, &end, 10);
            p = end;
        }
    }
    int only = -1; /* the one policy run, or -1: all */
    if (argc > 4)
        for (int p = 0; p < NPOLICY; p++)
            if (!strcmp(argv[4], policies[p]))
                only = p;
    if (requests < 1 || rounds < 1 || rounds > MAX_ROUNDS || nm < 1 || (argc > 4 && only < 0)) {
        fprintf(stderr,
                "usage: bench_cluster [requests [rounds (1..%d) [m,m,... [BR|BS|WF|BR+BS+WF]]]]\n",
                MAX_ROUNDS);
        return 2;
    }
    static double kern[MAX_M][NPOLICY][MAX_ROUNDS], loop[MAX_M][3][MAX_ROUNDS];
    const int loop_of[NPOLICY] = {LOOP_BR, LOOP_BS, LOOP_BS, LOOP_COUPLED};
    double sink = 0.0;
    printf("round m policy kernel_ns loop_ns\n");
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nm; i++) {
            for (int l = 0; l < 3; l++)
                if (only < 0 || loop_of[only] == l)
                    loop[i][l][r] = bench_loop(l, ms[i], requests, &sink);
            for (int p = 0; p < NPOLICY; p++) {
                if (only >= 0 && p != only)
                    continue;
                kern[i][p][r] = bench_kernel(ms[i], requests, policies[p]);
                printf("%d %ld %s %.1f %.1f\n", r, ms[i], policies[p], kern[i][p][r],
                       loop[i][loop_of[p]][r]);
                fflush(stdout);
            }
        }
    printf("\nMedians over %d rounds of %ld requests after a warm-up of max(2m, 10^4); spread "
           "min-max in brackets\n\n",
           rounds, requests);
    printf("| m | policy | kernel ns/request | loop ns/request | kernel / loop speed | "
           "time vs m = %ld |\n|---:|---|---:|---:|---:|---:|\n",
           ms[0]);
    double base[NPOLICY] = {0};
    for (int i = 0; i < nm; i++)
        for (int p = 0; p < NPOLICY; p++) {
            if (only >= 0 && p != only)
                continue;
            const size_t n = (size_t)rounds;
            double kv[MAX_ROUNDS], lv[MAX_ROUNDS], ratio[MAX_ROUNDS], klo, khi, llo, lhi, rlo, rhi;
            for (int r = 0; r < rounds; r++) {
                kv[r] = kern[i][p][r];
                lv[r] = loop[i][loop_of[p]][r];
                ratio[r] = lv[r] / kv[r];
            }
            const double km = bench_median(kv, n), lm = bench_median(lv, n);
            bench_range(kv, n, &klo, &khi);
            bench_range(lv, n, &llo, &lhi);
            bench_range(ratio, n, &rlo, &rhi);
            if (i == 0)
                base[p] = km;
            printf("| %ld | %s | %.0f [%.0f-%.0f] | %.0f [%.0f-%.0f] | %.2f [%.2f-%.2f] | %.2f |\n",
                   ms[i], policies[p], km, klo, khi, lm, llo, lhi, bench_median(ratio, n), rlo,
                   rhi, km / base[p]);
        }
    return sink == 42.0 ? 1 : 0;
}
