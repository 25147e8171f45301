/* The fixed quadrature rules of the cluster theory's numerics (chunk_law.c, product_form.c), on
 * [-1, 1], and the sorting of panel end points. */
#ifndef STORQ_CLUSTER_QUADRATURE_H
#define STORQ_CLUSTER_QUADRATURE_H

#include <stddef.h>
#include <stdlib.h>

/* 5-point Gauss-Legendre. */
static const double gl5_x[5] = {-0.906179845938663992797626878299, -0.538469310105683091036314420700,
                                0.0, 0.538469310105683091036314420700,
                                0.906179845938663992797626878299};
static const double gl5_w[5] = {0.236926885056189087514264040720, 0.478628670499366468041291514836,
                                0.568888888888888888888888888889, 0.478628670499366468041291514836,
                                0.236926885056189087514264040720};
/* 3-point Gauss-Legendre. */
static const double gl3_x[3] = {-0.774596669241483377035853079956, 0.0,
                                0.774596669241483377035853079956};
static const double gl3_w[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
/* Gauss-Kronrod 7-15 (QUADPACK qk15): Kronrod abscissae, their weights, the Gauss weights. */
static const double gk_x[8] = {0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                               0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                               0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                               0.207784955007898467600689403773245, 0.0};
static const double gk_wk[8] = {0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                                0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                                0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                                0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
static const double gk_wg[4] = {0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                                0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

static inline int cl_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sort v[0..n) ascending. */
static inline void cl_sort_doubles(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cl_cmp_double);
}

#endif
