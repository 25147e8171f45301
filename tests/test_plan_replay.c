/* The prediction of `storq run ... --dry-run --workers W` (src/app/plan_replay.c, plan_curve.c):
 * list scheduling on crafted unit lists with known wall times, the largest W that keeps the
 * efficiency at 0.9 (the bound, the scan, the bisection, and a brute force over every W), the
 * hand-out order the units are replayed in, and the curve that carries a measurement to other
 * costs. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "plan_curve.h"
#include "plan_replay.h"

static double *filled(size_t n, double v)
{
    double *s = malloc(n * sizeof *s);
    for (size_t i = 0; s && i < n; i++)
        s[i] = v;
    return s;
}

static double total_of(const double *s, size_t n)
{
    double t = 0;
    for (size_t i = 0; i < n; i++)
        t += s[i];
    return t;
}

static double eff(const double *s, size_t n, uint64_t w)
{
    return storq_plan_efficiency(total_of(s, n), w, storq_plan_wall(s, n, w));
}

/* The largest W in [1, limit] with efficiency >= target, by replaying every one. */
static uint64_t brute_largest(const double *s, size_t n, double target, uint64_t limit)
{
    uint64_t best = 0;
    for (uint64_t w = 1; w <= limit; w++)
        if (eff(s, n, w) >= target - 1e-12)
            best = w;
    return best;
}

static void test_equal_units(void)
{
    double *s = filled(12, 1.0);
    CHECK_NEAR(storq_plan_wall(s, 12, 1), 12.0, 1e-12);
    CHECK_NEAR(storq_plan_wall(s, 12, 5), 3.0, 1e-12);
    CHECK_NEAR(eff(s, 12, 5), 0.8, 1e-12);
    /* not monotone: 4 and 6 workers are fully busy, 5 are not */
    CHECK_NEAR(eff(s, 12, 4), 1.0, 1e-12);
    CHECK_NEAR(eff(s, 12, 6), 1.0, 1e-12);
    CHECK_NEAR(storq_plan_wall(s, 12, 12), 1.0, 1e-12);
    CHECK_NEAR(storq_plan_wall(s, 12, 1000), 1.0, 1e-12); /* more workers than units */
    /* 13 workers: wall 1, efficiency 12/13 = 0.923; 14: 0.857 */
    storq_plan_largest best;
    storq_error err = {0};
    CHECK(storq_plan_largest_workers(s, 12, 0.9, &best, &err) == 0);
    CHECK_EQ_U64(best.workers, 13);
    CHECK_NEAR(best.wall, 1.0, 1e-12);
    CHECK(best.exact);
    CHECK_EQ_U64(brute_largest(s, 12, 0.9, 100), 13);
    /* 9 units on 10 workers: 0.9 exactly reaches the target */
    CHECK(storq_plan_largest_workers(s, 9, 0.9, &best, &err) == 0);
    CHECK_EQ_U64(best.workers, 10);
    free(s);
}

static void test_one_huge_unit(void)
{
    /* handed out first, the huge unit keeps one worker while another takes the ten small ones */
    double first[11] = {10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_NEAR(storq_plan_wall(first, 11, 2), 10.0, 1e-12);
    CHECK_NEAR(eff(first, 11, 2), 1.0, 1e-12);
    CHECK_NEAR(storq_plan_wall(first, 11, 3), 10.0, 1e-12);
    storq_plan_largest best;
    storq_error err = {0};
    CHECK(storq_plan_largest_workers(first, 11, 0.9, &best, &err) == 0);
    CHECK_EQ_U64(best.workers, 2); /* bound: 20 / (0.9 x 10) = 2.2 */
    CHECK_EQ_U64(best.bound, 2);
    /* handed out last, it starts when the small ones are done: 5 + 10 on 2 workers */
    double last[11] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 10};
    CHECK_NEAR(storq_plan_wall(last, 11, 2), 15.0, 1e-12);
    CHECK(storq_plan_largest_workers(last, 11, 0.9, &best, &err) == 0);
    CHECK_EQ_U64(best.workers, 1);
    CHECK_NEAR(best.wall, 20.0, 1e-12);
}

static void test_against_brute_force(void)
{
    /* small lists of mixed lengths (a fixed LCG): the search finds what replaying every W finds */
    uint64_t x = 12345;
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + (size_t)(round % 40);
        double s[40];
        for (size_t i = 0; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            s[i] = 0.01 + (double)(x >> 40) / (double)(1ull << 24) * (round % 3 ? 1.0 : 50.0);
        }
        storq_plan_largest best;
        storq_error err = {0};
        CHECK(storq_plan_largest_workers(s, n, 0.9, &best, &err) == 0);
        uint64_t want = brute_largest(s, n, 0.9, 3 * n + 3);
        if (best.workers != want)
            fprintf(stderr, "round %d: n %zu: found %llu, brute force %llu\n", round, n,
                    (unsigned long long)best.workers, (unsigned long long)want);
        CHECK_EQ_U64(best.workers, want);
        CHECK(best.exact);
    }
}

static void test_bisection(void)
{
    /* 10^5 units of 1 s, then one of 200 s: the bound is 100200 / 180 = 556, the answer 56;
     * scanning down from 556 costs more than the budget, so the rest is bisected (efficiency
     * is monotone there) */
    size_t n = 100001;
    double *s = filled(n, 1.0);
    s[n - 1] = 200.0;
    storq_plan_largest best;
    storq_error err = {0};
    CHECK(storq_plan_largest_workers(s, n, 0.9, &best, &err) == 0);
    CHECK_EQ_U64(best.bound, 556);
    CHECK(!best.exact);
    CHECK(eff(s, n, best.workers) >= 0.9);
    CHECK(eff(s, n, best.workers + 1) < 0.9);
    /* the small ones round robin, then the huge one on a worker that had floor(1e5 / W):
     * 100200 / (56 x 1985) = 0.9014, 100200 / (57 x 1954) = 0.8996 */
    CHECK_EQ_U64(best.workers, 56);
    CHECK_NEAR(best.wall, 1785.0 + 200.0, 1e-9);
    free(s);
}

static void test_order(void)
{
    /* point 1 costs more: its replications go first, after both theory units; point 2 is in
     * another task */
    double cost[3] = {1, 5, 9}, rep[3] = {1, 5, 9}, theory[3] = {0.5, 0.25, 7};
    unsigned char skip[3] = {0, 0, 1};
    storq_plan_units u;
    storq_error err = {0};
    CHECK(storq_plan_units_build(3, skip, cost, rep, theory, 2, 0.0, &u, &err) == 0);
    CHECK_EQ_U64(u.n, 6);
    const size_t point[6] = {0, 1, 1, 1, 0, 0};
    const int64_t r[6] = {STORQ_UNIT_THEORY, STORQ_UNIT_THEORY, 0, 1, 0, 1};
    const double sec[6] = {0.5, 0.25, 5, 5, 1, 1};
    for (size_t i = 0; i < 6 && i < u.n; i++) {
        CHECK_EQ_U64(u.units[i].point, point[i]);
        CHECK(u.units[i].rep == r[i]);
        CHECK_NEAR(u.seconds[i], sec[i], 1e-12);
    }
    CHECK_NEAR(u.total, 12.75, 1e-12);
    CHECK_EQ_U64(u.longest, 2);
    storq_plan_units_free(&u);
    /* without theory, and a dispatch overhead on every unit */
    CHECK(storq_plan_units_build(3, skip, cost, rep, NULL, 2, 0.5, &u, &err) == 0);
    CHECK_EQ_U64(u.n, 4);
    CHECK_NEAR(u.total, 14.0, 1e-12);
    storq_plan_units_free(&u);
}

static void test_curve(void)
{
    double cost[4] = {100, 1, 100, 10000}, y[4] = {2, 1, 4, 5};
    storq_plan_curve c;
    storq_error err = {0};
    CHECK(storq_plan_curve_build(cost, y, 4, &c, &err) == 0);
    CHECK_EQ_U64(c.n, 3); /* the two at cost 100 averaged: 3 */
    CHECK_NEAR(storq_plan_curve_at(&c, 100), 3.0, 1e-12);
    CHECK_NEAR(storq_plan_curve_at(&c, 10), 2.0, 1e-12); /* half way in log(cost) */
    CHECK_NEAR(storq_plan_curve_at(&c, 1000), 4.0, 1e-12);
    CHECK_NEAR(storq_plan_curve_at(&c, 0.01), 1.0, 1e-12); /* constant beyond the ends */
    CHECK_NEAR(storq_plan_curve_at(&c, 1e9), 5.0, 1e-12);
    storq_plan_curve_free(&c);
    CHECK(storq_plan_curve_build(cost, y, 0, &c, &err) == 0);
    CHECK_NEAR(storq_plan_curve_at(&c, 5), 0.0, 0);
    storq_plan_curve_free(&c);
}

int main(void)
{
    test_equal_units();
    test_one_huge_unit();
    test_against_brute_force();
    test_bisection();
    test_order();
    test_curve();
    return check_report("test_plan_replay");
}
