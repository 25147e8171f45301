/* Events per second of the supermarket kernel (JSQ(2): L = 2, k = 1, lambda = 0.9, exponential
 * service, all statistics on), both engines, beside the fastest loop that simulates the same
 * process -- the yardstick of docs/performance.md.
 *
 * The loop (speed of light): a uniformized JSQ(2). Queue lengths are bytes; potential events come
 * at the constant rate n (lambda + mu), an arrival with probability lambda / (lambda + mu), else a
 * potential departure at a uniform server (a real one if that server is busy). No clock, no
 * logarithm: the time average of the queue length is the average over steps (uniformization).
 * Its draws are raw PCG64-DXSM outputs of the toolkit (two streams interleaved, drawn in batches),
 * bounded integers by Lemire's method; the servers of a step are drawn LOOP_AHEAD steps early and
 * prefetched. It starts at the mean-field fixed point and warms up for 2 relaxation times.
 *
 * The kernel starts there too (--start fixed) and warms up for as long (2 tau n lambda jobs, tau
 * the relaxation time: 1 / the decay rate of the mean-field error late in the run from empty; from
 * empty it would need about 6 tau). Its speed is measured over the measured window only: the
 * poll hook of stop.h samples the replication's event count and the thread CPU time, and the rate
 * is the slope between the first sample past the warm-up and the last one before the drain.
 *
 * Every round runs every case once (interleaved), so all cases see the same stretches of load;
 * the table gives medians over the rounds and the range of the per-round ratios. CPU time of the
 * thread, so that other work on the machine counts little.
 *
 * usage: bench_supermarket [-r ROUNDS] [n[:without] ...]
 *        (default: 3 rounds; 1000, 1000:without, 100000, 100000:without, 10000000)
 * Sampling is with replacement unless ":without" is given. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_rounds.h"
#include "model.h"
#include "rng.h"
#include "run_spec.h"
#include "stop.h"
#include "supermarket/meanfield.h"

#define LAMBDA 0.9
#define MAX_ROUNDS 32
_Static_assert(MAX_ROUNDS <= BENCH_MAX_ROUNDS, "bench_rounds.h holds the rounds");
#define MAX_CASES 16
#define MAX_SAMPLES 200000

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the mean field: fixed point, warm-up and relaxation times ---- */

#define MF_LEVELS 64

typedef struct meanfield {
    double u[MF_LEVELS]; /* fixed point */
    double mql;          /* its mean queue length */
    double t_warm;       /* from empty, the time at which the mean queue length is within 0.1% */
    double tau;          /* relaxation time: 1 / decay rate of the error late in that run */
} meanfield;

static void meanfield_compute(meanfield *mf)
{
    storq_sm_fixed_point(2, 1, LAMBDA, MF_LEVELS, mf->u);
    mf->mql = 0.0;
    for (int i = 1; i < MF_LEVELS; i++)
        mf->mql += mf->u[i];
    enum { NT = 2001 };
    static double t[NT], out[NT * MF_LEVELS];
    double u0[MF_LEVELS] = {1.0};
    for (int j = 0; j < NT; j++)
        t[j] = 0.1 * j; /* 0 .. 200 */
    if (storq_sm_ode_solve(2, 1, LAMBDA, u0, MF_LEVELS, t, NT, out)) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    double err[NT];
    mf->t_warm = t[NT - 1];
    for (int j = NT - 1; j >= 0; j--) {
        double m = 0.0;
        for (int i = 1; i < MF_LEVELS; i++)
            m += out[(size_t)j * MF_LEVELS + i];
        err[j] = fabs(m - mf->mql);
        if (err[j] >= 1e-3 * mf->mql && mf->t_warm == t[NT - 1])
            mf->t_warm = t[j + 1 < NT ? j + 1 : j];
    }
    int j1 = (int)(0.6 * mf->t_warm / 0.1), j2 = (int)(mf->t_warm / 0.1);
    mf->tau = (t[j2] - t[j1]) / log(err[j1] / err[j2]);
}

/* ---- the kernel, timed over its measured window ---- */

typedef struct samples {
    size_t m;
    uint64_t ev[MAX_SAMPLES];
    double cpu[MAX_SAMPLES];
} samples;

static samples S;

static void sample_poll(void *arg)
{
    samples *s = arg;
    if (s->m < MAX_SAMPLES) {
        s->ev[s->m] = storq_steps_current();
        s->cpu[s->m] = cpu_now();
        s->m++;
    }
}

typedef struct kres {
    double rate;      /* events/s over the measured window */
    double mql;       /* the kernel's mean queue length */
    uint64_t events;  /* the whole replication's */
} kres;

static kres bench_kernel(long n, int without, long warmup, long arrivals, const char *engine)
{
    char sn[32], sw[32], sa[32];
    snprintf(sn, sizeof sn, "%ld", n);
    snprintf(sw, sizeof sw, "%ld", warmup);
    snprintf(sa, sizeof sa, "%ld", arrivals);
    char *argv[] = {"supermarket", "--n", sn, "--L", "2", "--k", "1", "--lambda", "0.9",
                    "--warmup", sw, "--arrivals", sa, "--engine", (char *)engine,
                    "--sampling", without ? "without" : "with", "--start", "fixed"};
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
    S.m = 0;
    storq_steps_begin();
    storq_poll_install(sample_poll, &S, 0.005);
    if (spec.model->replicate(ctx, &key, &rec, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    storq_poll_install(NULL, NULL, 1.0);
    kres r = {0};
    r.events = rec.events;
    /* the window: from 2 warm-up's worth of events (arrivals and departures) plus 2%, to the last
     * sample before the drain after the last arrival */
    uint64_t lo = (uint64_t)(2.0 * (double)warmup + 0.04 * (double)arrivals);
    uint64_t hi = (uint64_t)(2.0 * (double)warmup + 1.96 * (double)arrivals);
    size_t a = 0, b = 0;
    while (a < S.m && S.ev[a] < lo)
        a++;
    for (size_t i = a; i < S.m && S.ev[i] <= hi; i++)
        b = i;
    if (a >= S.m || b <= a) {
        fprintf(stderr, "bench: too few samples in the window (n = %ld, %s); lengthen it\n", n,
                engine);
        exit(1);
    }
    r.rate = (double)(S.ev[b] - S.ev[a]) / (S.cpu[b] - S.cpu[a]);
    const storq_obs_def *d = storq_obs_find(&obs, "mean_queue_length");
    r.mql = d ? rec.values[d->value_offset] : NAN;
    storq_record_free(&rec);
    storq_observables_free(&obs);
    spec.model->release(ctx);
    storq_run_spec_free(&spec);
    return r;
}

/* ---- the loop ---- */

#define RAW 256       /* raw draws per batch */
#define LOOP_AHEAD 16 /* steps drawn (and their servers prefetched) ahead */

typedef struct raws {
    storq_rng a, b;
    uint64_t buf[RAW];
    unsigned i;
} raws;

static inline uint64_t raw_next(raws *r)
{
    if (__builtin_expect(r->i == RAW, 0)) {
        for (unsigned j = 0; j < RAW; j += 2) { /* two independent LCGs: twice the parallelism */
            r->buf[j] = storq_rng_next(&r->a);
            r->buf[j + 1] = storq_rng_next(&r->b);
        }
        r->i = 0;
    }
    return r->buf[r->i++];
}

static inline uint32_t raw_below(raws *r, uint32_t bound)
{
    storq_u128 m = (storq_u128)raw_next(r) * bound;
    if (__builtin_expect((uint64_t)m < bound, 0)) {
        uint64_t threshold = (uint64_t)(-(uint64_t)bound) % bound;
        while ((uint64_t)m < threshold)
            m = (storq_u128)raw_next(r) * bound;
    }
    return (uint32_t)(m >> 64);
}

typedef struct step {
    uint32_t x, y; /* arrival: the two sampled servers; potential departure: x = y = the server */
    uint32_t arrival;
} step;

typedef struct lres {
    double rate;   /* real events (arrivals + departures) per second */
    double steps_rate;
    double mql;    /* average over the measured steps of the tasks per server */
} lres;

static lres bench_loop(long n, int without, const meanfield *mf, double t_warm, double t_meas)
{
    storq_stream_key key = {1, 0, 0};
    raws r = {.a = storq_rng_stream(&key, STORQ_STREAM_ROUTING),
              .b = storq_rng_stream(&key, STORQ_STREAM_SERVICE), .i = RAW};
    uint8_t *q = malloc((size_t)n);
    if (!q)
        exit(1);
    /* the fixed point: server s holds #{i >= 1 : s < round(n u_i)} tasks */
    uint64_t Q = 0;
    for (long s = 0, i = MF_LEVELS - 1; s < n; s++) {
        while (i > 0 && (long)floor((double)n * mf->u[i] + 0.5) <= s)
            i--;
        q[s] = (uint8_t)i;
        Q += (uint64_t)i;
    }
    const uint64_t thr = (uint64_t)(LAMBDA / (LAMBDA + 1.0) * 0x1p64); /* P(arrival) */
    const uint32_t N = (uint32_t)n;
    step ring[LOOP_AHEAD];
    for (unsigned j = 0; j < LOOP_AHEAD; j++) {
        ring[j].arrival = 0;
        ring[j].x = ring[j].y = 0;
    }
    const double rate_steps = (double)n * (LAMBDA + 1.0);
    uint64_t nwarm = (uint64_t)(t_warm * rate_steps), nmeas = (uint64_t)(t_meas * rate_steps);
    uint64_t real = 0, sumQ = 0;
    double c0 = 0.0;
    /* the first LOOP_AHEAD steps (the ring as initialised) are potential departures at server 0,
     * part of the warm-up */
    for (uint64_t e = 0; e < nwarm + nmeas; e++) {
        if (e == nwarm) {
            c0 = cpu_now();
            real = 0;
            sumQ = 0;
        }
        unsigned slot = (unsigned)(e % LOOP_AHEAD);
        step st = ring[slot];
        /* draw the step LOOP_AHEAD ahead, prefetch its servers */
        step nx;
        nx.arrival = raw_next(&r) < thr;
        nx.x = raw_below(&r, N);
        if (nx.arrival) {
            if (without) {
                uint32_t y = raw_below(&r, N - 1);
                nx.y = y + (y >= nx.x);
            } else {
                nx.y = raw_below(&r, N);
            }
        } else {
            nx.y = nx.x;
        }
        __builtin_prefetch(q + nx.x, 1);
        __builtin_prefetch(q + nx.y, 1);
        ring[slot] = nx;
        /* apply this step, without a branch on its kind */
        uint8_t qx = q[st.x], qy = q[st.y];
        uint32_t pick = qy < qx ? st.y : st.x; /* ties: the first sampled */
        int dep = !st.arrival & (qx > 0);
        int delta = (int)st.arrival - dep;
        q[pick] = (uint8_t)(q[pick] + delta);
        Q += (uint64_t)(int64_t)delta;
        real += st.arrival | (uint32_t)dep;
        sumQ += Q;
    }
    double dt = cpu_now() - c0;
    lres out = {(double)real / dt, (double)nmeas / dt, (double)sumQ / (double)nmeas / (double)n};
    for (long s = 0; s < n; s++)
        if (q[s] > 200) {
            fprintf(stderr, "bench: a queue of %u: bytes may overflow\n", q[s]);
            exit(1);
        }
    free(q);
    return out;
}

/* ---- rounds and the table ---- */

typedef struct bcase {
    long n;
    int without;
    long warmup, arrivals;
    double srv[MAX_ROUNDS], cnt[MAX_ROUNDS], loop[MAX_ROUNDS];
    double srv_mql, cnt_mql, loop_mql;
} bcase;

int main(int argc, char **argv)
{
    int rounds = 3;
    bcase cs[MAX_CASES];
    int nc = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
            continue;
        }
        if (nc == MAX_CASES)
            break;
        memset(&cs[nc], 0, sizeof cs[nc]);
        cs[nc].n = atol(argv[i]);
        cs[nc].without = strstr(argv[i], ":without") != NULL;
        nc++;
    }
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "bench: -r: rounds between 1 and %d\n", MAX_ROUNDS);
        return 2;
    }
    if (nc == 0) {
        const long dn[] = {1000, 1000, 100000, 100000, 10000000};
        const int dw[] = {0, 1, 0, 1, 0};
        for (nc = 0; nc < 5; nc++) {
            memset(&cs[nc], 0, sizeof cs[nc]);
            cs[nc].n = dn[nc];
            cs[nc].without = dw[nc];
        }
    }
    for (int c = 0; c < nc; c++)
        if (cs[c].n < 4 || cs[c].n > 2000000000L) {
            fprintf(stderr, "bench: n: between 4 and 2e9\n");
            return 2;
        }

    meanfield mf;
    meanfield_compute(&mf);
    const double t_meas = 10.0; /* measured time units (at least 5e6 jobs) */
    printf("JSQ(2), lambda = %.2f: fixed-point mean queue length %.4f; relaxation time %.2f "
           "(from empty, the mean-field error falls below 0.1%% at t = %.1f); kernels and loop "
           "start at the fixed point and warm up for 2 relaxation times, %.1f time units; "
           "%d rounds\n\n",
           LAMBDA, mf.mql, mf.tau, mf.t_warm, 2.0 * mf.tau, rounds);
    fflush(stdout);
    for (int c = 0; c < nc; c++) {
        double jobs = LAMBDA * (double)cs[c].n;
        cs[c].warmup = (long)ceil(2.0 * mf.tau * jobs);
        cs[c].arrivals = (long)fmax(5e6, ceil(t_meas * jobs));
    }
    for (int rd = 0; rd < rounds; rd++) {
        for (int c = 0; c < nc; c++) {
            bcase *b = &cs[c];
            kres ks = bench_kernel(b->n, b->without, b->warmup, b->arrivals, "servers");
            kres kc = bench_kernel(b->n, b->without, b->warmup, b->arrivals, "counts");
            double tm = fmax(t_meas, 5e6 / (LAMBDA * (double)b->n));
            lres l = bench_loop(b->n, b->without, &mf, 2.0 * mf.tau, tm);
            b->srv[rd] = ks.rate;
            b->cnt[rd] = kc.rate;
            b->loop[rd] = l.rate;
            b->srv_mql = ks.mql;
            b->cnt_mql = kc.mql;
            b->loop_mql = l.mql;
            fprintf(stderr, "round %d n %ld %s: servers %.3g counts %.3g loop %.3g ev/s "
                            "(loop %.3g steps/s); mql %.4f %.4f %.4f\n",
                    rd, b->n, b->without ? "without" : "with", ks.rate, kc.rate, l.rate,
                    l.steps_rate, ks.mql, kc.mql, l.mql);
        }
    }
    printf("| n | sampling | servers ev/s | counts ev/s | loop ev/s | servers / loop (range) | "
           "counts / loop (range) | mean queue: servers, counts, loop |\n");
    printf("|---:|---|---:|---:|---:|---|---|---|\n");
    for (int c = 0; c < nc; c++) {
        bcase *b = &cs[c];
        double rs[MAX_ROUNDS], rc[MAX_ROUNDS], lo1, hi1, lo2, hi2;
        for (int rd = 0; rd < rounds; rd++) {
            rs[rd] = b->srv[rd] / b->loop[rd];
            rc[rd] = b->cnt[rd] / b->loop[rd];
        }
        bench_range(rs, (size_t)rounds, &lo1, &hi1);
        bench_range(rc, (size_t)rounds, &lo2, &hi2);
        printf("| %ld | %s | %.3g | %.3g | %.3g | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.3f, "
               "%.3f, %.3f |\n",
               b->n, b->without ? "without" : "with", bench_median(b->srv, (size_t)rounds),
               bench_median(b->cnt, (size_t)rounds), bench_median(b->loop, (size_t)rounds),
               bench_median(rs, (size_t)rounds), lo1, hi1,
               bench_median(rc, (size_t)rounds), lo2, hi2, b->srv_mql, b->cnt_mql, b->loop_mql);
    }
    return 0;
}
