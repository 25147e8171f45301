/* The one number grammar (src/toolkit/number.h) and its use for parameters and list items (issue 10):
 * decimal only, integers exact (1e3 yes, 1.5 and 0x10 no), no inf or nan, no empty list items. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "number.h"
#include "params.h"
#include "run_spec.h"
#include "value_list.h"

static int integer(const char *text, int64_t *v)
{
    int negative;
    uint64_t m;
    int rc = storq_number_integer(text, &negative, &m);
    *v = negative ? -(int64_t)m : (int64_t)m;
    return rc;
}

static void test_integers(void)
{
    int64_t v;
    const struct {
        const char *text;
        int64_t want;
    } good[] = {
        {"0", 0}, {"7", 7}, {"+7", 7}, {"-7", -7}, {"1e3", 1000}, {"1E3", 1000}, {"2.5e2", 250},
        {"100.0", 100}, {"100.", 100}, {"0.5e1", 5}, {".5e1", 5}, {"-0", 0}, {"0e999999999", 0},
        {"1000e-3", 1}, {"12300e-2", 123}, {"007", 7}, {"9223372036854775807", INT64_MAX},
        {"1e18", 1000000000000000000}, {"1.000000000000000000000e3", 1000},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int rc = integer(good[i].text, &v);
        CHECK(rc == 0 && v == good[i].want);
        if (rc || v != good[i].want)
            fprintf(stderr, "  integer '%s': rc %d, %lld\n", good[i].text, rc, (long long)v);
    }
    /* not numbers of the grammar */
    const char *bad[] = {"", " ", "0x10", "0X10", "1e", "e3", "+", "-", ".", "1..2", "1e3.5",
                         "inf", "nan", "INF", "1 ", " 1", "1,2", "1_000", "--1", "1e+", "0b11",
                         "1f", "٣"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(integer(bad[i], &v) == -1);
        CHECK(!storq_number_valid(bad[i]));
    }
    /* numbers, not integers: the fraction is not zero, however far out */
    const char *frac[] = {"1.5", "1e-1", "0.1", "1.00000000000000001e3", "123e-2"};
    for (size_t i = 0; i < sizeof frac / sizeof frac[0]; i++)
        CHECK(integer(frac[i], &v) == -2);
    /* beyond UINT64_MAX */
    int negative;
    uint64_t m;
    CHECK(storq_number_integer("18446744073709551615", &negative, &m) == 0 && m == UINT64_MAX);
    CHECK(storq_number_integer("18446744073709551616", &negative, &m) == -3);
    CHECK(storq_number_integer("1e20", &negative, &m) == -3);
    CHECK(storq_number_integer("1e999999999999", &negative, &m) == -3);
    CHECK(storq_number_integer("184467440737095516150e-1", &negative, &m) == 0 && m == UINT64_MAX);
}

static void test_reals(void)
{
    double x;
    CHECK(storq_number_real("0.7", &x) == 0 && x == 0.7);
    CHECK(storq_number_real("1e-12", &x) == 0 && x == 1e-12);
    CHECK(storq_number_real("-2.5E3", &x) == 0 && x == -2500);
    CHECK(storq_number_real(".5", &x) == 0 && x == 0.5);
    CHECK(storq_number_real("5.", &x) == 0 && x == 5);
    const char *bad[] = {"0x1p3", "inf", "-inf", "nan", "infinity", "1e400", "1e-400", "0.7junk",
                         "", "1,5", " 1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(storq_number_real(bad[i], &x) == -1);
}

/* Parameters: the same grammar for every integer and real. */
static void test_params(void)
{
    storq_param_def in = {.name = "n", .type = STORQ_PARAM_INT, .min = 1, .max = 1e9};
    storq_param_def re = {.name = "lambda", .type = STORQ_PARAM_REAL, .min = 0, .min_open = 1,
                          .max = INFINITY};
    storq_param_value v;
    storq_error err = {0};
    CHECK(storq_param_parse(&in, "1e3", &v, &err) == 0 && v.i == 1000);
    free(v.s);
    CHECK(storq_param_parse(&in, "0x10", &v, &err) == STORQ_ERR_USAGE &&
          strstr(err.msg, "--n: '0x10' is not an integer"));
    err.code = 0;
    CHECK(storq_param_parse(&in, "1.5", &v, &err) == STORQ_ERR_USAGE);
    err.code = 0;
    CHECK(storq_param_parse(&in, "1e10", &v, &err) == STORQ_ERR_USAGE &&
          strstr(err.msg, "out of range"));
    err.code = 0;
    CHECK(storq_param_parse(&in, "99999999999999999999999", &v, &err) == STORQ_ERR_USAGE &&
          strstr(err.msg, "out of range"));
    err.code = 0;
    CHECK(storq_param_parse(&re, "0x10", &v, &err) == STORQ_ERR_USAGE);
    err.code = 0;
    CHECK(storq_param_parse(&re, "inf", &v, &err) == STORQ_ERR_USAGE);
    err.code = 0;
    CHECK(storq_param_parse(&re, "1e-400", &v, &err) == STORQ_ERR_USAGE &&
          strstr(err.msg, "beyond what a double holds"));
    err.code = 0;
    CHECK(storq_param_parse(&re, "2e-3", &v, &err) == 0 && v.r == 2e-3);
    free(v.s);
}

/* Lists: an empty item is refused, never skipped. */
static void test_lists(void)
{
    storq_param_def in = {.name = "n", .type = STORQ_PARAM_INT, .min = 1, .max = 1e9};
    const char *bad[] = {"1,,2", ",1", "1,", "1, ,2", "1 , , 2", ",", "1,2,"};
    storq_error err = {0};
    char **vals;
    size_t nv;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(storq_split_values(&in, bad[i], &vals, &nv, &err) == STORQ_ERR_USAGE &&
              strstr(err.msg, "an empty item"));
        err.code = 0;
    }
    CHECK(storq_split_values(&in, " 1 ,2\t3 ", &vals, &nv, &err) == 0 && nv == 3);
    for (size_t i = 0; i < nv; i++)
        free(vals[i]);
    free(vals);
}

/* Run options: -r, --seed, --max-replications, --task take the same grammar. */
static void test_run_options(void)
{
    storq_run_spec spec;
    storq_error err = {0};
    char *ok[] = {"supermarket", "-r", "1e1", "--seed", "2.5e1", "--task", "1e0/4", "--dry-run"};
    CHECK(storq_run_spec_parse(8, ok, &spec, &err) == 0 && spec.replications == 10 &&
          spec.seed == 25 && spec.task_index == 1 && spec.task_count == 4);
    storq_run_spec_free(&spec);
    const char *bad[][2] = {{"-r", "0x10"}, {"-r", "1.5"}, {"--seed", "0x10"}, {"--seed", "-1"},
                            {"-r", " 5"}, {"--task", "0x1/4"}, {"--precision", "0x1p-3"},
                            {"--precision", "inf"}, {"--zip", "n,n"}, {"--zip", "n,,L"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* the bad option last: a later --precision replaces an earlier one */
        char *argv[] = {"supermarket", "--max-replications", "20", "--precision", "0.1", "--L",
                        "1,2", "--n", "3,4", "--dry-run", (char *)bad[i][0], (char *)bad[i][1]};
        err.code = 0;
        int rc = storq_run_spec_parse(12, argv, &spec, &err);
        CHECK(rc == STORQ_ERR_USAGE);
        if (rc != STORQ_ERR_USAGE)
            fprintf(stderr, "  accepted %s %s\n", bad[i][0], bad[i][1]);
        storq_run_spec_free(&spec);
    }
}

/* The numbers inside a law follow the same grammar. */
static void test_laws(void)
{
    storq_error err = {0};
    storq_dist d;
    const char *bad[] = {"exp:0x10", "exp:inf", "exp:nan", "det:1e400", "erlang:0x2,2",
                         "erlang:1.5,2", "shexp:0.1,,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.code = 0;
        int rc = storq_dist_parse(bad[i], "--service", &d, &err);
        CHECK(rc == STORQ_ERR_USAGE);
        if (rc == 0) {
            fprintf(stderr, "  law '%s' accepted\n", bad[i]);
            storq_dist_free(&d);
        }
    }
    err.code = 0;
    CHECK(storq_dist_parse("erlang:2e0,2", "--service", &d, &err) == 0 && d.mean == 1.0);
    storq_dist_free(&d);
    CHECK(storq_dist_parse("exp:2.5e-1", "--service", &d, &err) == 0 && d.mean == 4.0);
    storq_dist_free(&d);
}

int main(void)
{
    test_laws();
    test_integers();
    test_reals();
    test_params();
    test_lists();
    test_run_options();
    return check_report("test_number");
}
