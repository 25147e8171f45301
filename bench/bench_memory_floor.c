/* What a random server costs on this machine, whatever the kernel: the floor under the supermarket
 * and cluster benches at large n (docs/performance.md).
 *
 * For arrays of n records of R bytes (R = 1: the supermarket loop's byte per queue; 4: a
 * transient-mode record; 32: the servers engine's steady record and the cluster's record for three
 * coupled policies), allocated like the kernels' records (storq_big_array_zeroed: huge pages when
 * large), two figures per size, in nanoseconds per access to a uniform record (PCG64-DXSM,
 * storq_rng_below, the draw included):
 *  - latency: each access's record is only known once the previous access has loaded (its value
 *    is added to the next index): what a kernel pays for a random record it did not prefetch;
 *  - throughput: independent read-modify-writes, each record prefetched DIST accesses ahead: the
 *    best any kernel can do per random record, since the misses then overlap.
 * A kernel that touches a random records per event cannot beat a times the throughput figure.
 * Timed in thread CPU time, best of ROUNDS rounds (a round measures every size once).
 *
 * usage: bench_memory_floor [max_n [rounds]]   (default 10^8 and 3; needs 3.2 GB at 10^8) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "big_array.h"
#include "rng.h"

#define DIST 16 /* prefetch distance of the throughput figure */

static double thread_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ns per dependent access: the next record is drawn, then offset by the byte just loaded (and
 * incremented), so the loads form one chain */
static volatile uint64_t sink; /* keeps the chains' loads alive */

static double latency(unsigned char *a, uint64_t n, size_t R, uint64_t accesses, storq_rng *g)
{
    uint64_t carry = 0;
    double t0 = thread_seconds();
    for (uint64_t i = 0; i < accesses; i++) {
        uint64_t s = storq_rng_below(g, n) + carry;
        s -= s >= n ? n : 0;
        carry = a[s * R];
        a[s * R] = (unsigned char)(carry + 1);
    }
    sink = carry;
    return 1e9 * (thread_seconds() - t0) / (double)accesses;
}

/* ns per independent access, each record prefetched DIST accesses before its increment */
static double throughput(unsigned char *a, uint64_t n, size_t R, uint64_t accesses, storq_rng *g)
{
    uint64_t ring[DIST];
    for (unsigned j = 0; j < DIST; j++) {
        ring[j] = storq_rng_below(g, n);
        __builtin_prefetch(a + ring[j] * R, 1);
    }
    double t0 = thread_seconds();
    for (uint64_t i = 0; i < accesses; i++) {
        uint64_t s = ring[i % DIST];
        uint64_t next = storq_rng_below(g, n);
        ring[i % DIST] = next;
        __builtin_prefetch(a + next * R, 1);
        a[s * R]++;
    }
    return 1e9 * (thread_seconds() - t0) / (double)accesses;
}

int main(int argc, char **argv)
{
    const double max_n = argc > 1 ? atof(argv[1]) : 1e8;
    const int rounds = argc > 2 ? atoi(argv[2]) : 3;
    if (!(max_n >= 1e3 && max_n <= 1e9) || rounds < 1) {
        fprintf(stderr, "usage: bench_memory_floor [max_n in 10^3 .. 10^9 [rounds >= 1]]\n");
        return 2;
    }
    static const size_t sizes[] = {1, 4, 32};
    enum { NS = sizeof sizes / sizeof *sizes, NN = 5 };
    static const double ns[NN] = {1e3, 1e5, 1e6, 1e7, 1e8};
    double best_lat[NN][NS], best_thr[NN][NS];
    for (int i = 0; i < NN; i++)
        for (int j = 0; j < NS; j++)
            best_lat[i][j] = best_thr[i][j] = 1e300;
    storq_rng g;
    storq_rng_seed(&g, 42, 54);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < NN && ns[i] <= max_n; i++) {
            for (int j = 0; j < NS; j++) {
                const uint64_t n = (uint64_t)ns[i];
                unsigned char *a = storq_big_array_zeroed(n * sizes[j]);
                if (!a) {
                    fprintf(stderr, "bench_memory_floor: out of memory at n = %.0e\n", ns[i]);
                    return 1;
                }
                /* warm the caches (and the page tables) as a long run would */
                throughput(a, n, sizes[j], n < 10000000 ? 10000000 : n, &g);
                double l = latency(a, n, sizes[j], 2000000, &g);
                double t = throughput(a, n, sizes[j], 20000000, &g);
                if (l < best_lat[i][j])
                    best_lat[i][j] = l;
                if (t < best_thr[i][j])
                    best_thr[i][j] = t;
                free(a);
            }
        }
    }
    printf("ns per access to a uniform record, best of %d rounds (latency: dependent; throughput: "
           "prefetched %d ahead)\n\n",
           rounds, DIST);
    printf("| n | bytes per record | array | latency ns | throughput ns |\n"
           "|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < NN && ns[i] <= max_n; i++)
        for (int j = 0; j < NS; j++) {
            double mb = ns[i] * (double)sizes[j] / 1e6;
            printf("| %.0e | %zu | %.3g MB | %.1f | %.1f |\n", ns[i], sizes[j], mb, best_lat[i][j],
                   best_thr[i][j]);
        }
    return 0;
}
