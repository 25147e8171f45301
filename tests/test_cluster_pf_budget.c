/* The product form's cost bound (kernels/cluster/product_form.c, theory.c): the mean split as
 * base + wait, with wait shared by requests of k and k + m blocks (theory.c computes it once per
 * key), each computed here on its own for both and compared exactly; the mean as before; a budget
 * that, once spent, makes the _w functions return NaN at once (and counts what they did); and the
 * blocks law's caps (storq_cl_cavity_blocks_fit) against the law it builds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "cluster/cavity.h"
#include "cluster_laws.h"
#include "distribution.h"

static void test_split_and_budget(void)
{
    const unsigned m = 5;
    storq_ddist sz = ddist("uniform:1,17");
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, m, &xmax);
    storq_dist ce = cdist("exp:1"), cd = cdist("det:1"), cu = cdist("uniform:0.5,1.5");
    const storq_dist *laws[3] = {&cd, &ce, &cu};
    for (int li = 0; li < 3; li++) {
        cl_cavity cav;
        /* E[X] = 9 / 5 blocks a server: rho = 0.6 at lambda = 1/3 */
        CHECK(px && storq_cl_cavity_solve(1.0 / 3, 1, px, xmax, laws[li], 1e-6, &cav) == 0);
        for (unsigned k = 1; k <= 12; k++) {
            double w = storq_cl_product_form_wait(&cav, k, m, laws[li], NULL);
            double mean = storq_cl_product_form_mean(&cav, k, m, laws[li]);
            CHECK(isfinite(w) && w > 0);
            CHECK(mean == storq_cl_product_form_base(k, m, laws[li], 1) + w);
            CHECK(storq_cl_product_form_base(k, m, laws[li], 1) ==
                  laws[li]->mean * (double)((k + m - 1) / m));
            if (k >= m) /* k + m shares k's wait (k = m: 2m, a multiple, too) */
                CHECK(storq_cl_product_form_wait(&cav, k + m, m, laws[li], NULL) == w);
            /* a budget that suffices changes nothing, and counts */
            cl_pf_work big = {0, 1e12};
            CHECK(storq_cl_product_form_wait(&cav, k, m, laws[li], &big) == w && big.used > 0);
            double F = storq_cl_product_form_cdf(&cav, k, m, laws[li], 3.0);
            CHECK(storq_cl_product_form_cdf_w(&cav, k, m, laws[li], 3.0, &big) == F);
            /* one spent: NaN, and no more work done */
            cl_pf_work tiny = {0, 10};
            CHECK(isnan(storq_cl_product_form_wait(&cav, k, m, laws[li], &tiny)));
            double used = tiny.used;
            CHECK(isnan(storq_cl_product_form_cdf_w(&cav, k, m, laws[li], 3.0, &tiny)));
            CHECK(tiny.used == used);
        }
        storq_cl_cavity_free(&cav);
    }
    free(px);
}

/* The caps: a law that fits is built (its table as long as said), one that does not is not. */
static void test_blocks_fit(void)
{
    const struct {
        const char *size;
        unsigned m;
        int fits;
    } cases[] = {{"geom:0.25", 3, 1},         {"uniform:1,1000", 7, 1}, {"fixed:20000000", 2, 1},
                 {"fixed:20000001", 2, 0},     {"geom:1e-7", 2, 0},      {"geom:2e-6", 2, 1},
                 {"uniform:1,200000000", 100, 0}, {"geom:1", 4, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        storq_ddist sz = ddist(cases[i].size);
        cl_blocks_size b;
        int fits = storq_cl_cavity_blocks_fit(&sz, cases[i].m, &b);
        CHECK(fits == cases[i].fits);
        if (fits != cases[i].fits)
            fprintf(stderr, "%s on %u: fits %d (X up to %g, %g terms)\n", cases[i].size,
                    cases[i].m, fits, b.xmax, b.terms);
        if (!fits || b.xmax > 1e6)
            continue; /* not built here: 160 MB at the cap */
        size_t xmax = 0;
        double *px = storq_cl_cavity_blocks_law(&sz, cases[i].m, &xmax);
        CHECK(px && (double)xmax <= b.xmax);
        free(px);
    }
    storq_ddist big = ddist("geom:1e-7");
    size_t xmax = 1;
    CHECK(storq_cl_cavity_blocks_law(&big, 2, &xmax) == NULL && xmax == 0);
}

int main(void)
{
    test_split_and_budget();
    test_blocks_fit();
    return check_report("test_cluster_pf_budget");
}
