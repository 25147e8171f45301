/* Requests per second of the cluster kernel at m = 100 and m = 10^5 servers with the same size law
 * (k uniform on 1..10, coding plus:2, deterministic chunks, load 0.8), for each policy alone and
 * for BR+BS+WF coupled, beside a speed-of-light loop: the same requests doing only the unavoidable
 * work -- the arrival, size and placement draws and one read-modify-write of each placed server's
 * busy-until time. Time per request must not grow with m (cost O(alpha), not O(m)).
 *
 * Every figure is the best of `rounds` rounds (a round runs every case once), timed in thread CPU
 * time, so time preempted by other work on a shared machine is not counted.
 *
 * usage: bench_cluster [requests [rounds]]   (defaults 2000000 and 5); one thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"
#include "rng.h"
#include "run_spec.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double bench_kernel(long m, long requests, const char *policy)
{
    char sm[32], sl[32], sa[32];
    /* load 0.8 = lambda E[k] E[c] / m with E[k] = 5.5 */
    snprintf(sm, sizeof sm, "%ld", m);
    snprintf(sl, sizeof sl, "%.17g", 0.8 * (double)m / 5.5);
    snprintf(sa, sizeof sa, "%ld", requests);
    char *argv[] = {"cluster", "--m", sm, "--lambda", sl, "--size", "uniform:1,10", "--coding",
                    "plus:2", "--policy", (char *)policy, "--warmup", "0", "--arrivals", sa};
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
    storq_record_free(&rec);
    storq_observables_free(&obs);
    spec.model->release(ctx);
    storq_run_spec_free(&spec);
    return (double)requests / dt;
}

static double bench_loop(long m, long requests, double *sink)
{
    storq_stream_key key = {1, 0, 0};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    storq_rng siz = storq_rng_stream(&key, STORQ_STREAM_SIZES);
    storq_rng pla = storq_rng_stream(&key, STORQ_STREAM_PLACEMENT);
    double *V = calloc((size_t)m, sizeof *V);
    uint64_t placed[16];
    double lambda = 0.8 * (double)m / 5.5, t = 0.0, dmax = 0.0;
    double t0 = now();
    for (long r = 0; r < requests; r++) {
        t += storq_rng_exp(&arr, lambda);
        unsigned k = 1 + (unsigned)storq_rng_below(&siz, 10);
        storq_rng_sample_distinct(&pla, (uint64_t)m, k + 2, placed);
        for (unsigned j = 0; j < k; j++) {
            double *v = &V[placed[j]];
            *v = (*v > t ? *v : t) + 1.0;
            dmax = *v - t > dmax ? *v - t : dmax;
        }
    }
    double dt = now() - t0;
    *sink += dmax + V[0];
    free(V);
    return (double)requests / dt;
}

int main(int argc, char **argv)
{
    long requests = argc > 1 ? atol(argv[1]) : 2000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    const char *policies[] = {"BR", "BS", "WF", "BR+BS+WF"};
    long ms[] = {100, 100000};
    double sink = 0, per[2][4] = {{0}}, loop[2] = {0};
    for (int round = 0; round < rounds; round++)
        for (int i = 0; i < 2; i++) {
            double l = bench_loop(ms[i], requests, &sink);
            loop[i] = l > loop[i] ? l : loop[i];
            for (int p = 0; p < 4; p++) {
                double r = bench_kernel(ms[i], requests, policies[p]);
                per[i][p] = r > per[i][p] ? r : per[i][p];
            }
        }
    printf("| m | policy | kernel requests/s | loop requests/s | kernel / loop |\n");
    printf("|---:|---|---:|---:|---:|\n");
    for (int i = 0; i < 2; i++)
        for (int p = 0; p < 4; p++)
            printf("| %ld | %s | %.3g | %.3g | %.2f |\n", ms[i], policies[p], per[i][p], loop[i],
                   per[i][p] / loop[i]);
    printf("\ntime per request at m = 10^5 over m = 100:");
    for (int p = 0; p < 4; p++)
        printf(" %s %.2f", policies[p], per[0][p] / per[1][p]);
    printf("\n");
    return sink == 42.0 ? 1 : 0;
}
