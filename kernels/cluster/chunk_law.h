/* The chunk (block) size law psi as the cluster theory's numerics need it: survival S(s) = P(c >
 * s), density, tail integral, the points where it is not smooth and the scale on which it is, and
 * exact or Gauss-Legendre cell integrals of S. Used by the cavity queue (cavity.c) and the
 * product form (product_form.c); see docs/models/cluster-theory.md. */
#ifndef STORQ_CLUSTER_CHUNK_LAW_H
#define STORQ_CLUSTER_CHUNK_LAW_H

#include <stddef.h>

#include "distribution.h"

/* Chunk sizes with P(c > s) below this are dropped from the product-form quadratures. */
#define CL_CHUNK_TAIL 1e-17

typedef struct cl_law {
    const storq_dist *d;
    int discrete;     /* det and trace: atoms uv[i] with probabilities wv[i] */
    double *uv, *wv;  /* sorted distinct values, their probabilities (discrete only) */
    double *gt;       /* gt[i] = P(c > uv[i]) */
    size_t nu;
    double bp[2];     /* continuous laws: points where S or the density is not smooth */
    int nbp;
    double lo, hi;    /* support of c */
    double mean, sd;
} cl_law;

/* 0, or -1 out of memory. d must outlive L. */
int storq_cl_law_init(cl_law *L, const storq_dist *d);
void storq_cl_law_free(cl_law *L);
/* Density of a continuous law. */
double storq_cl_law_pdf(const cl_law *L, double c);
/* Upper bound on int_s^inf S(t) dt = E[(c - s)^+] (exact where a closed form exists). */
double storq_cl_law_tail_int(const cl_law *L, double s);
/* Widest panel starting at a on which 5-point Gauss-Legendre integrates S and the density to a
 * relative ~1e-12 (INFINITY: no limit). */
double storq_cl_law_width(const cl_law *L, double a);
/* Smallest s (doubling from the mean) with P(c > s) < CL_CHUNK_TAIL; the support's end if finite.
 */
double storq_cl_law_cut(const cl_law *L);
/* t0 = int_a^b S(s) ds, t1 = int_a^b (s - a) S(s) ds. */
void storq_cl_law_cell(const cl_law *L, double a, double b, double *t0, double *t1);

#endif
