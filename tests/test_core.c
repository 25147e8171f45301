/* Unit tests of the engine core: Student-t quantiles, histogram binning and edges, merging and
 * summaries, parameter parsing, list splitting, and the expansion of sweeps into points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "error.h"
#include "model.h"
#include "registry.h"
#include "observables.h"
#include "params.h"
#include "memory_budget.h"
#include "point_list.h"
#include "run_spec.h"
#include "value_list.h"
#include "stats.h"
#include "stop.h"

static void test_t_quantiles(void)
{
    /* Table values (Student t, two-sided): the closed-form CDF must reproduce them. */
    CHECK_NEAR(storq_t_quantile(0.95, 1), 12.7062047, 1e-6);
    CHECK_NEAR(storq_t_quantile(0.95, 2), 4.30265273, 1e-7);
    CHECK_NEAR(storq_t_quantile(0.95, 9), 2.26215716, 1e-7);
    CHECK_NEAR(storq_t_quantile(0.99, 30), 2.74999565, 1e-7);
    CHECK_NEAR(storq_t_quantile(0.95, 1000), 1.96233908, 1e-7);
    CHECK_NEAR(storq_t_abs_cdf(1.0, 1), 0.5, 1e-15); /* Cauchy: P(|T| < 1) = 1/2 */
    CHECK(isinf(storq_t_quantile(0.95, 0)));
}

static void test_histograms(void)
{
    storq_observables obs = {0};
    storq_error err = {0};
    int h = -2, g = -2, s = -2, v = -2, dup = -2, bad = -2;
    CHECK(storq_declare_hist_loglin(&obs, &h, "delay", "time", "d", 1e-3, 1e3, 5, &err) == 0);
    CHECK(storq_declare_hist_int(&obs, &g, "len", "tasks", "l", 10, &err) == 0);
    CHECK(storq_declare_scalar(&obs, &s, "mean", "time", "m", &err) == 0);
    CHECK(storq_declare_vector(&obs, &v, "u", "1", "u", 4, NULL, NULL, &err) == 0);
    CHECK(h == 0 && g == 1 && s == 2 && v == 3 && err.code == 0);
    /* a record: 1 + 1 + 1 + 4 values, 2 histograms' counts and min/max */
    CHECK(obs.bytes == 8 * (7 + (obs.defs[h].nbins + 4) + (10 + 4)));
    CHECK(storq_declare_scalar(&obs, &dup, "mean", "", "", &err) != 0 && dup == -1); /* twice */
    storq_error e2 = {0};
    CHECK(storq_declare_scalar(&obs, &bad, "bad name", "", "", &e2) != 0 && bad == -1);
    storq_error e3 = {0};
    int huge = -2;
    CHECK(storq_declare_matrix(&obs, &huge, "huge", "", "", SIZE_MAX / 4, 3, NULL, NULL, &e3) != 0);
    CHECK(huge == -1 && strstr(e3.msg, "more than can be addressed") && e3.code == STORQ_ERR_USAGE);

    const storq_obs_def *d = &obs.defs[h];
    double *edges = malloc((d->nbins + 1) * sizeof *edges);
    storq_hist_edges(d, edges);
    CHECK(edges[0] <= 1e-3 && edges[d->nbins] >= 1e3);
    double worst = 0;
    for (size_t j = 0; j < d->nbins; j++) {
        CHECK(edges[j + 1] > edges[j]);
        double w = (edges[j + 1] - edges[j]) / edges[j];
        worst = w > worst ? w : worst;
    }
    CHECK(worst <= ldexp(1.0, -5) * (1 + 1e-12)); /* the documented relative resolution */

    storq_record rec;
    CHECK(storq_record_init(&rec, &obs, &err) == 0);
    storq_hist hh = storq_record_hist(&rec, h);
    /* Every value lands in the bin whose edges enclose it. */
    storq_rng rng;
    storq_rng_seed(&rng, 7, 9);
    for (int i = 0; i < 20000; i++) {
        double x = exp(-9.0 + 18.0 * storq_rng_uniform(&rng));
        uint64_t before[4096];
        memcpy(before, hh.counts, (d->nbins + 2) * sizeof *before);
        storq_hist_add(&hh, x);
        size_t bin = 0;
        while (bin < d->nbins + 2 && hh.counts[bin] == before[bin])
            bin++;
        if (x < edges[0])
            CHECK(bin == 0);
        else if (x >= edges[d->nbins])
            CHECK(bin == d->nbins + 1);
        else
            CHECK(edges[bin - 1] <= x && x < edges[bin]);
    }
    storq_hist_add(&hh, 0.0); /* zero goes to underflow */
    CHECK(hh.counts[0] > 0);
    storq_hist gi = storq_record_hist(&rec, g);
    storq_hist_add(&gi, 0.0);
    storq_hist_add(&gi, 3.0);
    storq_hist_add(&gi, 10.0); /* overflow */
    CHECK(gi.counts[1] == 1 && gi.counts[4] == 1 && gi.counts[11] == 1);
    CHECK(*gi.min == 0.0 && *gi.max == 10.0 && *gi.sum == 13.0);
    /* Quantiles read off one record's bins, linear inside a bin: counts 1 in [0,1), 1 in [3,4),
     * 1 in the overflow. */
    CHECK(storq_observables_max_nbins(&obs) == obs.defs[h].nbins); /* the loglin one, > 10 */
    double gedges[11];
    CHECK_NEAR(storq_record_hist_quantile(&rec, g, 0.2, gedges), 0.6, 1e-15);
    CHECK_NEAR(storq_record_hist_quantile(&rec, g, 0.5, gedges), 3.5, 1e-15);
    CHECK(isinf(storq_record_hist_quantile(&rec, g, 0.9, gedges))); /* only the overflow */
    storq_record empty;
    CHECK(storq_record_init(&empty, &obs, &err) == 0);
    CHECK(isnan(storq_record_hist_quantile(&empty, g, 0.5, gedges)));
    storq_hist ge = storq_record_hist(&empty, g);
    storq_hist_add(&ge, -1.0); /* underflow holds the quantile: the first edge */
    CHECK(storq_record_hist_quantile(&empty, g, 0.5, gedges) == 0.0);
    storq_record_free(&empty);
    free(edges);

    /* Merging: counts add in any order, rows land by replication, summaries match direct sums. */
    storq_point_result res;
    CHECK(storq_point_result_init(&res, &obs, 3, &err) == 0);
    double means[3] = {1.0, 2.0, 4.0};
    for (int r = 2; r >= 0; r--) { /* out of order, as threads finish */
        storq_record_reset(&rec);
        storq_record_scalar(&rec, s, means[r]);
        double *u = storq_record_vector(&rec, v);
        for (int i = 0; i < 4; i++)
            u[i] = r + i;
        gi = storq_record_hist(&rec, g);
        storq_hist_add(&gi, (double)r);
        storq_point_result_add(&res, (size_t)r, &rec);
    }
    const storq_obs_def *gd = &obs.defs[g];
    CHECK(res.counts[gd->count_offset + 1] == 1 && res.counts[gd->count_offset + 3] == 1);
    CHECK(res.minmax[gd->minmax_offset] == 0.0 && res.minmax[gd->minmax_offset + 1] == 2.0);
    storq_summary sum;
    CHECK(storq_summary_compute(&sum, &res, &err) == 0);
    size_t j = obs.defs[s].value_offset;
    double m = 7.0 / 3.0, var = ((1 - m) * (1 - m) + (2 - m) * (2 - m) + (4 - m) * (4 - m)) / 2;
    CHECK_NEAR(sum.mean[j], m, 1e-15);
    CHECK_NEAR(sum.stderr_[j], sqrt(var / 3), 1e-15);
    CHECK_NEAR(sum.ci95[j], storq_t_quantile(0.95, 2) * sqrt(var / 3), 1e-12);
    CHECK_NEAR(sum.mean[obs.defs[v].value_offset + 3], 4.0, 1e-15);
    /* any time scale: the same values in units of 1e-200 or 1e300 give the same statistics
     * scaled (squared in seconds, 1e-200 underflowed to a ci95 of 0; 1e300 overflowed) */
    const size_t nv = obs.nvalues;
    const double scales[2] = {1e-200, 1e300};
    for (int i = 0; i < 2; i++) {
        const double scale = scales[i];
        for (size_t r = 0; r < 3; r++)
            res.values[r * nv + j] = means[r] * scale;
        storq_summary sc;
        CHECK(storq_summary_compute(&sc, &res, &err) == 0);
        CHECK_NEAR(sc.mean[j] / (sum.mean[j] * scale), 1.0, 1e-14);
        CHECK_NEAR(sc.ci95[j] / (sum.ci95[j] * scale), 1.0, 1e-14);
        storq_summary_free(&sc);
    }
    storq_summary_free(&sum);
    storq_point_result_free(&res);
    storq_record_free(&rec);
    storq_observables_free(&obs);
}

static const storq_param_def defs[] = {
    {.name = "n", .type = STORQ_PARAM_INT, .def = "10", .min = 1, .max = 1e9, .unit = "servers",
     .doc = "servers"},
    {.name = "rate", .type = STORQ_PARAM_REAL, .def = "0.5", .min = 0, .max = 1, .min_open = 1,
     .unit = "1/time", .doc = "rate"},
    {.name = "mode", .type = STORQ_PARAM_STRING, .def = "a", .unit = "", .choices = "a|b",
     .doc = "mode"},
    {.name = "law", .type = STORQ_PARAM_STRING, .def = "exp:1", .unit = "",
     .laws = STORQ_LAWS_TIME, .doc = "law"},
    {.name = NULL}, /* end */
};

static void test_params(void)
{
    storq_param_value v;
    storq_error err = {0};
    CHECK(storq_param_parse(&defs[0], "1e6", &v, &err) == 0 && v.i == 1000000);
    free(v.s);
    err.code = 0;
    CHECK(storq_param_parse(&defs[0], "2.5", &v, &err) == STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "--n") != NULL);
    err.code = 0;
    CHECK(storq_param_parse(&defs[1], "0", &v, &err) == STORQ_ERR_USAGE); /* min_open */
    CHECK(strstr(err.msg, "> 0") || strstr(err.msg, "(0, 1]"));
    err.code = 0;
    CHECK(storq_param_parse(&defs[1], "1", &v, &err) == 0 && v.r == 1.0);
    free(v.s);
    CHECK(storq_param_parse(&defs[2], "c", &v, &err) == STORQ_ERR_USAGE);
    err.code = 0;

    /* Defaults and set-by-name, as tests and benchmarks build their points. */
    const storq_model *sm = storq_model_find("supermarket");
    storq_params pp;
    CHECK(sm && storq_params_defaults(&pp, sm, &err) == 0);
    CHECK(storq_params_set(&pp, "n", "77", &err) == 0 && storq_param_int(&pp, "n") == 77);
    CHECK(storq_params_set(&pp, "nosuch", "1", &err) == STORQ_ERR_USAGE);
    err.code = 0;
    CHECK(storq_params_set(&pp, "n", "0", &err) == STORQ_ERR_USAGE && storq_param_int(&pp, "n") == 77);
    err.code = 0;
    storq_params_free(&pp);

    char **vals;
    size_t nv;
    CHECK(storq_split_values(&defs[0], "10, 20 30", &vals, &nv, &err) == 0 && nv == 3);
    for (size_t i = 0; i < nv; i++)
        free(vals[i]);
    free(vals);
    CHECK(storq_split_values(&defs[3], "shexp:1,2 exp:3", &vals, &nv, &err) == 0 && nv == 2);
    CHECK(nv == 2 && strcmp(vals[0], "shexp:1,2") == 0);
    for (size_t i = 0; i < nv; i++)
        free(vals[i]);
    free(vals);
    CHECK(storq_split_values(&defs[2], "a,b", &vals, &nv, &err) == 0 && nv == 2);
    for (size_t i = 0; i < nv; i++)
        free(vals[i]);
    free(vals);
    /* One list rule for every parameter: commas (or blanks) separate values; a law's numbers
     * (and pmf entries) continue it. */
    const struct {
        const char *text;
        size_t n;
        const char *want[4];
    } lists[] = {
        {"shexp:0.1,5, exp:2", 2, {"shexp:0.1,5", "exp:2"}},
        {"shexp:0.1, 5 exp:2,pareto:2.5", 3, {"shexp:0.1,5", "exp:2", "pareto:2.5"}},
        {"pmf:1=0.5,4=0.5,geom:0.3", 2, {"pmf:1=0.5,4=0.5", "geom:0.3"}},
        {"u:0.5, 0.2", 1, {"u:0.5,0.2"}},
        {"uniform,lwl,pod:2", 3, {"uniform", "lwl", "pod:2"}},
        {"BR+BS+WF, BR", 2, {"BR+BS+WF", "BR"}},
        {"hyperexp:0.5,1,0.5,-2", 1, {"hyperexp:0.5,1,0.5,-2"}},
    };
    for (size_t t = 0; t < sizeof lists / sizeof lists[0]; t++) {
        CHECK(storq_split_values(&defs[3], lists[t].text, &vals, &nv, &err) == 0);
        CHECK(nv == lists[t].n);
        for (size_t i = 0; i < nv; i++) {
            CHECK(i >= lists[t].n || strcmp(vals[i], lists[t].want[i]) == 0);
            free(vals[i]);
        }
        free(vals);
    }
    CHECK(storq_split_values(&defs[3], " , ", &vals, &nv, &err) == STORQ_ERR_USAGE);
    err.code = 0;
}

static void test_run_spec(void)
{
    storq_run_spec spec;
    storq_error err = {0};
    char *argv[] = {"supermarket", "--n", "10,20", "--lambda", "0.5,0.6,0.7", "-r", "3", "--seed", "9"};
    /* the points are built once the memory budget is known (point_list.h), as main does */
    CHECK(storq_memory_budget_local(NULL, &err) == 0);
    CHECK(storq_run_spec_parse(9, argv, &spec, &err) == 0 && storq_run_spec_expand(&spec, 1, &err) == 0);
    CHECK(spec.npoints == 6 && spec.replications == 3 && spec.seed == 9);
    /* Last parameter fastest: (10,.5) (10,.6) (10,.7) (20,.5) ... */
    CHECK(storq_param_int(&spec.points[0], "n") == 10 && storq_param_real(&spec.points[2], "lambda") == 0.7);
    CHECK(storq_param_int(&spec.points[3], "n") == 20 && storq_param_real(&spec.points[3], "lambda") == 0.5);
    CHECK(strstr(spec.config_text, "n = 10, 20") != NULL);
    CHECK(strcmp(spec.output, "supermarket.h5") == 0);
    storq_run_spec_free(&spec);

    char *zip[] = {"supermarket", "--n", "10,20,30", "--arrivals", "100,200,300", "--lambda", "0.5,0.6", "--zip", "n,arrivals"};
    CHECK(storq_run_spec_parse(9, zip, &spec, &err) == 0 && storq_run_spec_expand(&spec, 1, &err) == 0 &&
          spec.npoints == 6);
    for (size_t p = 0; p < spec.npoints; p++)
        CHECK(storq_param_int(&spec.points[p], "arrivals") == 10 * storq_param_int(&spec.points[p], "n"));
    CHECK(storq_param_real(&spec.points[1], "lambda") == 0.6);
    storq_run_spec_free(&spec);

    char *bad[] = {"supermarket", "--n", "10,20", "--arrivals", "100", "--zip", "n,arrivals"};
    CHECK(storq_run_spec_parse(7, bad, &spec, &err) == STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "--zip") != NULL);
    storq_run_spec_free(&spec);
}

/* Messages: the first failure is kept; a huge input echoed back is shortened to its start and its
 * length; a runtime failure carries no source file name. */
static void test_errors(void)
{
    storq_error err = {0};
    size_t n = 100000;
    char *huge = malloc(n + 1);
    CHECK(huge != NULL);
    if (!huge)
        return;
    memset(huge, '7', n);
    huge[n] = '\0';
    CHECK(storq_fail(&err, STORQ_ERR_USAGE, "--n: '%s' is not an integer", huge) == STORQ_ERR_USAGE);
    CHECK(strlen(err.msg) < 160 && strstr(err.msg, "(100002 characters) is not an integer") &&
          !strncmp(err.msg, "--n: '7777777", 13));
    CHECK(storq_fail(&err, STORQ_ERR_RUNTIME, "later") == STORQ_ERR_USAGE && !strstr(err.msg, "later"));
    free(huge);
    /* words up to 200 characters (a long path and its colon) are kept whole */
    storq_error e2 = {0};
    char path[200];
    memset(path, 'p', 199);
    path[199] = '\0';
    STORQ_RUNTIME_FAIL(&e2, "cannot write %s: disk full", path);
    CHECK(e2.code == STORQ_ERR_RUNTIME && strstr(e2.msg, path) && !strstr(e2.msg, ".c:") &&
          !strstr(e2.msg, "characters)"));
}

/* The kernels' stop check counts their steps for progress: the steps since the last check, per
 * thread and in all, whatever step the loop's first check sees. */
static int polled = 0;
static void count_poll(void *arg)
{
    (void)arg;
    polled++;
}

static void test_steps(void)
{
    uint64_t before = storq_steps_total();
    storq_poll_install(count_poll, NULL, 0.0);
    storq_steps_begin();
    for (uint64_t e = 0; e < 10 * STORQ_STOP_EVERY + 5; e++)
        CHECK(storq_stop_due(e) == 0);
    CHECK(storq_steps_current() == 10 * STORQ_STOP_EVERY);
    CHECK(storq_steps_total() - before == 10 * STORQ_STOP_EVERY);
    CHECK(polled == 11); /* at steps 0, 4096, ..., 40960 */
    storq_steps_begin(); /* the next replication starts from 0 again */
    for (uint64_t e = 0; e <= 3 * STORQ_STOP_EVERY; e++)
        storq_stop_due(e);
    CHECK(storq_steps_current() == 3 * STORQ_STOP_EVERY);
    CHECK(storq_steps_total() - before == 13 * STORQ_STOP_EVERY);
    storq_poll_install(NULL, NULL, 0.0);
}

int main(void)
{
    test_errors();
    test_t_quantiles();
    test_histograms();
    test_params();
    test_run_spec();
    test_steps();
    return check_report("test_core");
}
