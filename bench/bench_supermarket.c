/* Events per second of the supermarket kernel (servers engine, exponential service, L = 2, k = 1,
 * lambda = 0.9) beside a speed-of-light loop on the same machine: the same number of arrivals and
 * departures, doing only the unavoidable work -- the random draws (inter-event time, L sampled
 * servers, the departing server) and one touch of each server's queue length. The ratio
 * kernel / loop is the figure reported in docs/performance.md.
 *
 * usage: bench_supermarket [n ...]   (default: 1000 100000 10000000); one thread. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"
#include "rng.h"
#include "run_spec.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Kernel: one replication; returns events per second and the event count. */
static double bench_kernel(long n, long warmup, long arrivals, const char *engine, uint64_t *events)
{
    char sn[32], sw[32], sa[32];
    snprintf(sn, sizeof sn, "%ld", n);
    snprintf(sw, sizeof sw, "%ld", warmup);
    snprintf(sa, sizeof sa, "%ld", arrivals);
    char *argv[] = {"supermarket", "--n", sn, "--L", "2", "--k", "1", "--lambda", "0.9",
                    "--warmup", sw, "--arrivals", sa, "--engine", (char *)engine};
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
    double t0 = now();
    if (spec.model->replicate(ctx, &key, &rec, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    double dt = now() - t0;
    *events = rec.events;
    storq_record_free(&rec);
    storq_observables_free(&obs);
    spec.model->release(ctx);
    storq_run_spec_free(&spec);
    return (double)*events / dt;
}

/* Speed of light: the same events with only draws and one queue-length touch per server named. */
static double bench_loop(long n, uint64_t events, long *sink)
{
    storq_stream_key key = {1, 0, 0};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    storq_rng route = storq_rng_stream(&key, STORQ_STREAM_ROUTING);
    storq_rng serv = storq_rng_stream(&key, STORQ_STREAM_SERVICE);
    unsigned *q = calloc((size_t)n, sizeof *q);
    if (!q)
        exit(1);
    double t = 0.0, rate = 0.9 * (double)n;
    long busy = 0;
    double t0 = now();
    for (uint64_t e = 0; e < events; e++) {
        /* Alternate arrivals and departures as a stable system does (one departure per task). */
        if (busy == 0 || (e & 1) == 0) {
            t += storq_rng_exp(&arr, rate);
            uint64_t a = storq_rng_below(&route, (uint64_t)n);
            uint64_t b = storq_rng_below(&route, (uint64_t)n);
            uint64_t pick = q[b] < q[a] ? b : a;
            q[pick]++;
            busy++;
        } else {
            t += storq_rng_exp(&serv, (double)busy);
            uint64_t s = storq_rng_below(&serv, (uint64_t)n);
            q[s] -= q[s] > 0;
            busy--;
        }
    }
    double dt = now() - t0;
    *sink += (long)t + (long)q[0];
    free(q);
    return (double)events / dt;
}

int main(int argc, char **argv)
{
    long defaults[] = {1000, 100000, 10000000};
    int ncases = argc > 1 ? argc - 1 : 3;
    long sink = 0;
    printf("| n | engine | events | kernel events/s | loop events/s | kernel / loop |\n");
    printf("|---:|---|---:|---:|---:|---:|\n");
    for (int c = 0; c < ncases; c++) {
        long n = argc > 1 ? atol(argv[c + 1]) : defaults[c];
        /* Long enough to reach steady state (about 2 time units of warm-up per server at this
         * load) and to time at least ~10^7 events. */
        long warmup = 2 * n > 200000 ? 2 * n : 200000;
        long arrivals = 4 * n > 5000000 ? 4 * n : 5000000;
        const char *engines[] = {"servers", "counts"};
        for (int e = 0; e < 2; e++) {
            uint64_t events = 0;
            double k = bench_kernel(n, warmup, arrivals, engines[e], &events);
            double l = bench_loop(n, events, &sink);
            printf("| %ld | %s | %llu | %.3g | %.3g | %.2f |\n", n, engines[e],
                   (unsigned long long)events, k, l, k / l);
            fflush(stdout);
        }
    }
    return sink == 42 ? 1 : 0;
}
