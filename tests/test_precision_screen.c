/* The precision decision's screen (storq_running_clearly_above): it may spare the two-pass
 * half-width only where that value is above the target too. Data of every kind the decision
 * meets (well and badly conditioned, tiny and huge scales, constant, NaN), at targets on both
 * sides of the exact value and a hair away from it: the screen never says "above" where the
 * two-pass value (storq_summary_column) is at or below the target, and on ordinary data it does
 * say "above" where the exact value is above by a millionth or more (so that it spares work). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "observables.h"
#include "stats.h"

/* A small deterministic generator: the test needs spread, not quality. */
static uint64_t state = 0x9E3779B97F4A7C15u;
static double uniform(void)
{
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (double)(state >> 11) * 0x1p-53;
}

static storq_observables obs;
static int scalar = -1;

/* n values mean + sd * (uniform - 1/2) (heavy: an exponential tail) into a result. */
static void fill(storq_point_result *res, size_t n, double mean, double sd, int heavy)
{
    for (size_t r = 0; r < n; r++) {
        double u = uniform();
        double x = heavy ? -log(1.0 - u) : u - 0.5;
        res->values[r * obs.nvalues + obs.defs[scalar].value_offset] = mean + sd * x;
    }
}

static size_t said_above, checked;

/* Every prefix length of the data against targets around its exact half-width ratio. */
/* Ordinary data (scale 1, kappa small): there the screen must spare the clear cases. */
static void check_prefixes(const storq_point_result *res, size_t n, int ordinary)
{
    const size_t j = obs.defs[scalar].value_offset;
    storq_running run = {0};
    for (size_t w = 1; w <= n; w++) {
        storq_running_add(&run, res->values[(w - 1) * obs.nvalues + j]);
        if (w % 7 != 0 && w != n && w > 40)
            continue; /* every prefix is O(n^2): a sample of them */
        double mean, se, half;
        storq_summary_column(res, w, j, &mean, &se, &half);
        double exact = half / fabs(mean);
        const double factors[] = {0.5, 1.0 - 1e-6, 1.0 - 1e-12, 1.0, 1.0 + 1e-12, 2.0};
        for (size_t i = 0; i < sizeof factors / sizeof *factors; i++) {
            double target = exact * factors[i];
            if (!isfinite(target))
                target = 1e-3; /* exact is inf or nan: any target */
            int above = storq_running_clearly_above(&run, target);
            checked++;
            if (above) {
                said_above++;
                CHECK(exact > target); /* never wrong in the direction that skips work */
            }
            if (ordinary && factors[i] <= 1.0 - 1e-6 && w >= 10)
                CHECK(above); /* clearly above, even by a millionth: the bound is tight */
        }
    }
}

int main(void)
{
    storq_error err = {0};
    CHECK(storq_declare_scalar(&obs, &scalar, "x", "time", "x", &err) == 0);
    enum { N = 3000 };
    storq_point_result res;
    CHECK(storq_point_result_init(&res, &obs, N, &err) == 0);
    const double scales[] = {1.0, 1e-200, 1e-160, 1e300, 3e-310};
    for (size_t s = 0; s < sizeof scales / sizeof *scales; s++) {
        const double c = scales[s];
        fill(&res, N, 1.0 * c, 0.3 * c, 0); /* well conditioned */
        check_prefixes(&res, N, c == 1.0);
        fill(&res, N, 1.0 * c, 1.0 * c, 1); /* an exponential */
        check_prefixes(&res, N, c == 1.0);
        fill(&res, N, 1e9 * c, 1.0 * c, 0); /* mean far above the spread: kappa 1e9 */
        check_prefixes(&res, N, 0);
        fill(&res, N, 1e15 * c, 1.0 * c, 0); /* spread near the last bits */
        check_prefixes(&res, N, 0);
        fill(&res, N, 1e-6 * c, 1.0 * c, 0); /* mean near 0: a huge ratio */
        check_prefixes(&res, N, c == 1.0);
    }
    fill(&res, N, 2.0, 0.0, 0); /* constant: a half-width of 0 */
    check_prefixes(&res, N, 0);
    fill(&res, N, 1.0, 0.3, 0);
    res.values[17 * obs.nvalues + obs.defs[scalar].value_offset] = NAN;
    check_prefixes(&res, N, 0);
    res.values[17 * obs.nvalues + obs.defs[scalar].value_offset] = INFINITY;
    check_prefixes(&res, N, 0);
    CHECK(said_above > 0 && said_above < checked);
    storq_point_result_free(&res);
    storq_observables_free(&obs);
    return check_report("test_precision_screen");
}
