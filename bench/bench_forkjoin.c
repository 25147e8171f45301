/* Jobs per second of the forkjoin kernel, run through the model interface, beside a speed-of-light
 * loop on the same machine and the same random streams.
 *
 * The loop does only the unavoidable work of a job: the inter-arrival draw (ARRIVALS), the group
 * draw when g > 1 (ROUTING, uniform), the n task-time draws (SERVICE, inlined: -log(U)/(k mu),
 * xm U^(-1/alpha), or the constant), one pass S_i = max(A, E_i), F_i = S_i + x_i into two arrays,
 * the k-th smallest F_i on the copy, one pass E_i = max(E_i, min(F_i, D)), and the sum of D - A.
 * The k-th smallest is found three ways and the fastest (median time), case by case, is the
 * yardstick:
 *   select   the kernel's own selection, src/toolkit/select.h (min / max pass for k = 1 / n, else quickselect);
 *   sort     insertion sort of the n values, then the k-th;
 *   network  Batcher's odd-even merge sort network for n (n <= 16), pruned to the comparators the
 *            k-th output depends on, each a branchless min/max pair.
 * With uniform groups the loop draws exactly the kernel's numbers, so its mean response time must
 * equal the kernel's (up to the kernel's clock rebasing): the bench checks that.
 *
 * Three parts, one thread, mu = 1:
 *   1. (n,k) = (10,5), (10,1), (10,10), (100,50), exponential tasks, g = 1, lambda = 0.7 n mu;
 *   2. n = 10, k = 5, lambda = 0.7 g n mu: g = 1 vs g = 10 and 10^4 under uniform and pod:2 (load
 *      jobs and work; g = 10 shows what the choice costs, g = 10^4 what a large system adds), and
 *      lwl at g = 4, 64 and 10^4 (a tournament tree over the groups: O(log g) per job);
 *   3. (10,5), g = 1: exp vs pareto:1.8 vs det, each at 70% of its capacity (n mu; det: k mu).
 * The exp (10,5) g = 1 case is the same run in all three parts. 7 rounds, timed in thread CPU time
 * (time preempted by other work on a shared machine is not counted); a round runs every case once
 * (the kernel, then its loops), so all cases see the same stretches of the machine's varying load.
 * Speeds and times are medians over the rounds; a ratio is the median of its per-round ratios (a
 * round's kernel over the same round's loop, or over the same round's baseline kernel), printed
 * as "median (min-max)" so that the spread over rounds shows.
 *
 * usage: bench_forkjoin [jobs]   (default 400000 jobs per run at n = 10; n = 100 runs jobs/10, so
 * every run draws the same number of task times). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_rounds.h"
#include "model.h"
#include "observables.h"
#include "rng.h"
#include "run_spec.h"
#include "select.h"

#define REPS 7

/* CPU time of this thread: on a shared machine, time spent preempted by other work is not counted
 * (cache and memory-bandwidth contention still is). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_forkjoin: %s: %s\n", what, msg);
    exit(1);
}

/* ------------------------------------------------------------------ the kernel */

typedef struct fj_case {
    long n, k, g;
    double lambda;
    const char *service, *assign, *load;
} fj_case;

/* Seconds per job of one replication of jobs jobs (no warm-up); *mean: its mean response time. */
static double kernel_run(const fj_case *c, long jobs, double *mean)
{
    char sn[32], sk[32], sg[32], sl[32], sa[32];
    snprintf(sn, sizeof sn, "%ld", c->n);
    snprintf(sk, sizeof sk, "%ld", c->k);
    snprintf(sg, sizeof sg, "%ld", c->g);
    snprintf(sl, sizeof sl, "%.17g", c->lambda);
    snprintf(sa, sizeof sa, "%ld", jobs);
    char *argv[] = {"forkjoin", "--n", sn, "--k", sk, "--groups", sg, "--lambda", sl,
                    "--mu", "1", "--service", (char *)c->service, "--assign",
                    (char *)c->assign, "--load", (char *)c->load, "--warmup", "0",
                    "--arrivals", sa};
    storq_run_spec spec;
    storq_error err = {0};
    void *ctx = NULL;
    storq_observables obs = {0};
    storq_record rec;
    if (storq_theory_spec_parse((int)(sizeof argv / sizeof argv[0]), argv, &spec, &err) ||
        spec.model->prepare(&spec.points[0], &ctx, &err) || spec.model->declare(ctx, &obs, &err) ||
        storq_record_init(&rec, &obs, &err))
        die("kernel setup", err.msg);
    storq_stream_key key = {1, 0, 0};
    double t0 = now();
    if (spec.model->replicate(ctx, &key, &rec, &err))
        die("kernel", err.msg);
    double dt = now() - t0;
    const storq_obs_def *def = storq_obs_find(&obs, "mean_response_time");
    if (!def)
        die("kernel", "no mean_response_time observable");
    *mean = rec.values[def->value_offset];
    storq_record_free(&rec);
    storq_observables_free(&obs);
    spec.model->release(ctx);
    storq_run_spec_free(&spec);
    return dt / (double)jobs;
}

/* ------------------------------------------------------------------ the speed-of-light loop */

enum { FAM_EXP, FAM_PARETO, FAM_DET };
enum { SEL_SELECT, SEL_SORT, SEL_NETWORK, SEL_COUNT };

typedef struct network {
    int len;
    unsigned char a[1024], b[1024];
} network;

/* Batcher's odd-even merge sort for n <= 16 (padded to 16; comparators touching an index >= n
 * only meet +inf there and are dropped), keeping only the comparators output k-1 depends on.
 * Returns 0 when n is too large. */
static int network_build(network *w, int n, int k)
{
    int ca[1024], cb[1024], len = 0;
    if (n > 16)
        return 0;
    const int N = 16;
    for (int p = 1; p < N; p *= 2)
        for (int q = p; q >= 1; q /= 2)
            for (int j = q % p; j + q < N; j += 2 * q)
                for (int i = 0; i < q && i + j + q < N; i++)
                    if ((i + j) / (2 * p) == (i + j + q) / (2 * p) && i + j + q < n) {
                        ca[len] = i + j;
                        cb[len] = i + j + q;
                        len++;
                    }
    /* backwards: a comparator matters if it writes a position a later needed one reads */
    int need[16] = {0}, keep[1024];
    need[k - 1] = 1;
    for (int c = len - 1; c >= 0; c--) {
        keep[c] = need[ca[c]] || need[cb[c]];
        if (keep[c])
            need[ca[c]] = need[cb[c]] = 1;
    }
    w->len = 0;
    for (int c = 0; c < len; c++)
        if (keep[c]) {
            w->a[w->len] = (unsigned char)ca[c];
            w->b[w->len] = (unsigned char)cb[c];
            w->len++;
        }
    return 1;
}

static double kth(int sel, const network *w, double *a, long n, long k)
{
    switch (sel) {
    case SEL_SELECT: /* the kernel's own selection (src/toolkit/select.h): the same cost in both */
        return storq_kth_smallest(a, (size_t)n, (size_t)k);
    case SEL_SORT:
        for (long i = 1; i < n; i++) {
            double v = a[i];
            long j = i;
            for (; j > 0 && a[j - 1] > v; j--)
                a[j] = a[j - 1];
            a[j] = v;
        }
        return a[k - 1];
    default:
        for (int c = 0; c < w->len; c++) {
            const double u = a[w->a[c]], v = a[w->b[c]];
            a[w->a[c]] = u < v ? u : v;
            a[w->b[c]] = u < v ? v : u;
        }
        return a[k - 1];
    }
}

typedef struct loop_case {
    long n, k, g;
    double lambda;
    int family;
    double alpha;
    int sel;
} loop_case;

/* Seconds per job of the minimal loop; *mean: its mean response time. */
static double loop_run(const loop_case *c, long jobs, double *mean)
{
    const long n = c->n, k = c->k;
    storq_stream_key key = {1, 0, 0};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(&key, STORQ_STREAM_ROUTING);
    storq_rng svc = storq_rng_stream(&key, STORQ_STREAM_SERVICE);
    double *E = calloc((size_t)(c->g * n), sizeof *E);
    double *buf = malloc(sizeof *buf * 3 * (size_t)n);
    if (!E || !buf)
        die("loop", "out of memory");
    double *x = buf, *F = buf + n, *W = buf + 2 * n;
    network w;
    if (c->sel == SEL_NETWORK && !network_build(&w, (int)n, (int)k))
        die("loop", "network needs n <= 16");
    /* the kernel's task law: mean 1/(k mu) with mu = 1, parameters computed as it computes them */
    const double m = 1.0 / (double)k, rate = 1.0 / m;
    const double xm = m * (c->alpha - 1) / c->alpha, ex = -1 / c->alpha;
    double t = 0.0, sum = 0.0;
    double t0 = now();
    for (long j = 0; j < jobs; j++) {
        t += storq_rng_exp(&arr, c->lambda);
        double *Eg = c->g > 1 ? E + storq_rng_below(&rte, (uint64_t)c->g) * (uint64_t)n : E;
        switch (c->family) {
        case FAM_EXP:
            for (long i = 0; i < n; i++)
                x[i] = storq_rng_exp(&svc, rate);
            break;
        case FAM_PARETO:
            for (long i = 0; i < n; i++)
                x[i] = xm * pow(storq_rng_uniform_pos(&svc), ex);
            break;
        default:
            for (long i = 0; i < n; i++)
                x[i] = m;
        }
        for (long i = 0; i < n; i++)
            F[i] = W[i] = (Eg[i] > t ? Eg[i] : t) + x[i];
        const double D = kth(c->sel, &w, W, n, k);
        for (long i = 0; i < n; i++) {
            const double f = F[i] < D ? F[i] : D;
            Eg[i] = Eg[i] > f ? Eg[i] : f;
        }
        sum += D - t;
    }
    double dt = now() - t0;
    *mean = sum / (double)jobs;
    free(E);
    free(buf);
    return dt / (double)jobs;
}

/* ------------------------------------------------------------------ measuring */

static double worst_rel = 0.0; /* largest relative gap between a loop's and the kernel's mean */

static void check_mean(double km, double lm)
{
    double rel = fabs(km - lm) / fabs(km);
    if (!(rel <= 1e-6)) {
        fprintf(stderr,
                "bench_forkjoin: loop mean response %.17g differs from the kernel's %.17g\n", lm,
                km);
        exit(1);
    }
    worst_rel = rel > worst_rel ? rel : worst_rel;
}

/* One measured case: the kernel and, when has_loop, the loop variants with use[s] set (each with
 * the kernel's parameters), as seconds per job in each of the REPS rounds. */
typedef struct bench_case {
    fj_case k;
    int has_loop, family;
    double alpha;
    int use[SEL_COUNT];
    long jobs;
    double kt[REPS], lt[SEL_COUNT][REPS];
} bench_case;

/* REPS rounds over all the cases, so that each case gets runs in every stretch of the machine's
 * varying load; each case keeps every round's time. */
static void measure_all(bench_case *bc, int nc)
{
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < nc; i++) {
            bench_case *b = &bc[i];
            double km, lm;
            b->kt[r] = kernel_run(&b->k, b->jobs, &km);
            if (!b->has_loop)
                continue;
            for (int s = 0; s < SEL_COUNT; s++) {
                if (!b->use[s])
                    continue;
                loop_case l = {b->k.n, b->k.k, b->k.g, b->k.lambda, b->family, b->alpha, s};
                b->lt[s][r] = loop_run(&l, b->jobs, &lm);
                check_mean(km, lm);
            }
        }
}

static double median(const double *v)
{
    return bench_median(v, REPS);
}

/* The per-round ratios num[r] / den[r] as "median (min-max)" into buf. */
static const char *ratio_text(char *buf, size_t len, const double *num, const double *den)
{
    return bench_ratio_text(buf, len, num, den, REPS, 1.0);
}

/* The yardstick: the loop variant with the smallest median time. */
static int best_sel(const bench_case *b)
{
    int s0 = 0;
    for (int s = 1; s < SEL_COUNT; s++)
        if (b->use[s] && median(b->lt[s]) < median(b->lt[s0]))
            s0 = s;
    return s0;
}

enum { C_105, C_101, C_1010, C_10050, C_G10 = 4, C_G10K = 7, C_LWL = 10, C_PARETO = 16, C_DET,
       C_COUNT };

static bench_case make_case(long n, long k, long g, const char *service, const char *assign,
                            const char *load, int has_loop, long jobs10)
{
    bench_case b;
    memset(&b, 0, sizeof b);
    /* 70% of a group's capacity: n mu for exponential and Pareto tasks, k mu for det (the nodes
     * move in lock-step: an M/D/1 queue with service 1/(k mu)) */
    const double cap = strcmp(service, "det") == 0 ? (double)k : (double)n;
    b.k = (fj_case){n, k, g, 0.7 * (double)g * cap, service, assign, load};
    b.has_loop = has_loop;
    b.family = strcmp(service, "det") == 0 ? FAM_DET
               : strncmp(service, "pareto:", 7) == 0 ? FAM_PARETO
                                                     : FAM_EXP;
    b.alpha = b.family == FAM_PARETO ? atof(service + 7) : 2.0;
    b.use[SEL_SELECT] = b.use[SEL_SORT] = 1;
    b.use[SEL_NETWORK] = n <= 16;
    b.jobs = jobs10 * 10 / n;
    return b;
}

int main(int argc, char **argv)
{
    const long jobs10 = argc > 1 ? atol(argv[1]) : 400000;
    if (jobs10 < 100) {
        fprintf(stderr, "usage: bench_forkjoin [jobs]   (jobs per run at n = 10, >= 100)\n");
        return 2;
    }
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);

    bench_case bc[C_COUNT];
    bc[C_105] = make_case(10, 5, 1, "exp", "uniform", "work", 1, jobs10);
    bc[C_101] = make_case(10, 1, 1, "exp", "uniform", "work", 1, jobs10);
    bc[C_1010] = make_case(10, 10, 1, "exp", "uniform", "work", 1, jobs10);
    bc[C_10050] = make_case(100, 50, 1, "exp", "uniform", "work", 1, jobs10);
    const long gs[2] = {10, 10000};
    for (int gi = 0; gi < 2; gi++) {
        const int c0 = gi == 0 ? C_G10 : C_G10K;
        bc[c0] = make_case(10, 5, gs[gi], "exp", "uniform", "work", 1, jobs10);
        bc[c0 + 1] = make_case(10, 5, gs[gi], "exp", "pod:2", "jobs", 0, jobs10);
        bc[c0 + 2] = make_case(10, 5, gs[gi], "exp", "pod:2", "work", 0, jobs10);
    }
    const long lwl_g[3] = {4, 64, 10000};
    for (int i = 0; i < 6; i++)
        bc[C_LWL + i] = make_case(10, 5, lwl_g[i % 3], "exp", "lwl", i < 3 ? "jobs" : "work", 0,
                                  jobs10);
    bc[C_PARETO] = make_case(10, 5, 1, "pareto:1.8", "uniform", "work", 1, jobs10);
    bc[C_DET] = make_case(10, 5, 1, "det", "uniform", "work", 1, jobs10);
    measure_all(bc, C_COUNT);

    /* 1. kernel vs loop */
    char rb[64], rb2[64];
    printf("Medians over %d rounds; ratios: median of the per-round ratios (min-max)\n\n", REPS);
    printf("1. kernel vs minimal loop, exponential tasks, g = 1, lambda = 0.7 n mu, mu = 1\n\n");
    printf("| n | k | jobs | kernel jobs/s | loop jobs/s: select | sort | network | "
           "loop time / kernel time |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = C_105; i <= C_10050; i++) {
        const bench_case *b = &bc[i];
        const int s0 = best_sel(b);
        printf("| %ld | %ld | %ld | %.3g |", b->k.n, b->k.k, b->jobs, 1 / median(b->kt));
        for (int s = 0; s < SEL_COUNT; s++)
            if (b->use[s])
                printf(" %.3g%s |", 1 / median(b->lt[s]), s == s0 ? " *" : "");
            else
                printf(" - |");
        printf(" %s |\n", ratio_text(rb, sizeof rb, b->lt[s0], b->kt));
    }
    printf("\n(* = the fastest loop by median time: the yardstick, here and below)\n\n");

    /* 2. system size */
    const double *base = bc[C_105].kt;
    printf("2. time per job vs the number of groups g, (n,k) = (10,5), exponential, lambda = 0.7 "
           "g n mu\n\n");
    printf("| g | assign | load | kernel ns/job | kernel / kernel at g = 1 | loop ns/job "
           "(uniform) |\n");
    printf("|---:|---|---|---:|---:|---:|\n");
    printf("| 1 | (none) | - | %.1f | 1.00 | %.1f |\n", 1e9 * median(base),
           1e9 * median(bc[C_105].lt[best_sel(&bc[C_105])]));
    for (int i = C_G10; i < C_LWL + 6; i++) {
        const bench_case *b = &bc[i];
        printf("| %ld | %s | %s | %.1f | %s |", b->k.g, b->k.assign,
               strcmp(b->k.assign, "uniform") == 0 ? "-" : b->k.load, 1e9 * median(b->kt),
               ratio_text(rb, sizeof rb, b->kt, base));
        if (b->has_loop)
            printf(" %.1f |\n", 1e9 * median(b->lt[best_sel(b)]));
        else
            printf(" |\n");
    }
    char rb3[64];
    printf("\ng = 10^4 over g = 10: uniform %s, pod:2 jobs %s, pod:2 work %s\n",
           ratio_text(rb, sizeof rb, bc[C_G10K].kt, bc[C_G10].kt),
           ratio_text(rb2, sizeof rb2, bc[C_G10K + 1].kt, bc[C_G10 + 1].kt),
           ratio_text(rb3, sizeof rb3, bc[C_G10K + 2].kt, bc[C_G10 + 2].kt));
    for (int l = 0; l < 2; l++) {
        const double *t4 = bc[C_LWL + 3 * l].kt, *t64 = bc[C_LWL + 3 * l + 1].kt;
        const double *t10k = bc[C_LWL + 3 * l + 2].kt;
        printf("lwl, load %s: g = 64 over g = 4 %s, g = 10^4 over g = 64 %s; per doubling of "
               "g from 4 to 10^4 (medians): %.1f ns\n",
               l == 0 ? "jobs" : "work", ratio_text(rb, sizeof rb, t64, t4),
               ratio_text(rb2, sizeof rb2, t10k, t64),
               1e9 * (median(t10k) - median(t4)) / log2(10000.0 / 4.0));
    }
    printf("\n");

    /* 3. service families */
    printf("3. service families, (n,k) = (10,5), g = 1, lambda = 0.7 x capacity (n mu; det: "
           "k mu)\n\n");
    printf("| service | lambda | kernel jobs/s | loop jobs/s | loop time / kernel time | "
           "kernel time / exp kernel time |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    const int fam[3] = {C_105, C_PARETO, C_DET};
    for (int f = 0; f < 3; f++) {
        const bench_case *b = &bc[fam[f]];
        const double *lt = b->lt[best_sel(b)];
        printf("| %s | %g | %.3g | %.3g | %s | %s |\n", b->k.service, b->k.lambda,
               1 / median(b->kt), 1 / median(lt), ratio_text(rb, sizeof rb, lt, b->kt),
               ratio_text(rb2, sizeof rb2, b->kt, base));
    }
    printf("\ncheck: every loop's mean response time equals the kernel's (largest relative gap "
           "%.1e)\n", worst_rel);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    printf("total run time %.0f s (wall clock)\n",
           (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec));
    return 0;
}
