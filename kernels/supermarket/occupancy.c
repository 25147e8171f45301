/* Parts of the `supermarket` kernel shared by its two engines: the occupancy accumulator, the
 * k-shortest selection and the start specs. */
#include "number.h"
#include "internal.h"
#include "meanfield.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- occupancy ---- */

int storq_smk_occ_init(smk_occ *o, uint64_t n, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->n = n;
    if (storq_smk_occ_grow(o, cap < 16 ? 16 : cap))
        return -1;
    o->N[0] = n;
    o->depth = 1;
    return 0;
}

void storq_smk_occ_free(smk_occ *o)
{
    free(o->N);
    free(o->last);
    free(o->c);
    free(o->s1);
    free(o->s2);
    memset(o, 0, sizeof *o);
}

static int grow_array(void **p, size_t elem, size_t old, size_t cap)
{
    void *q = realloc(*p, elem * cap);
    if (!q)
        return -1;
    memset((char *)q + elem * old, 0, elem * (cap - old));
    *p = q;
    return 0;
}

int storq_smk_occ_grow(smk_occ *o, size_t need)
{
    if (need <= o->cap)
        return 0;
    size_t cap = o->cap ? o->cap : 16;
    while (cap < need)
        cap *= 2;
    /* New levels have N = 0 and c = 0: they add nothing until they first change, whatever their
     * last-change time, so zeroed arrays are right inside a window too. */
    if (grow_array((void **)&o->N, sizeof *o->N, o->cap, cap) ||
        grow_array((void **)&o->last, sizeof *o->last, o->cap, cap) ||
        grow_array((void **)&o->c, sizeof *o->c, o->cap, cap) ||
        grow_array((void **)&o->s1, sizeof *o->s1, o->cap, cap) ||
        grow_array((void **)&o->s2, sizeof *o->s2, o->cap, cap))
        return -1;
    o->cap = cap;
    return 0;
}

void storq_smk_occ_begin(smk_occ *o, double t)
{
    o->measuring = 1;
    o->t0 = t;
    o->half_T = -1.0;
    for (size_t i = 0; i < o->cap; i++) {
        o->c[i] = (double)o->N[i];
        o->last[i] = 0.0;
        o->s1[i] = 0.0;
        o->s2[i] = 0.0;
    }
}

/* The integral over [t0, t0 + tt] (tt inside the window) of sum_{i>=1} N_i, without flushing. */
static double tasks_integral(const smk_occ *o, double tt)
{
    double s = 0.0;
    for (size_t i = 1; i < o->cap; i++) {
        const double x = (double)(int64_t)o->N[i] - o->c[i];
        s += o->s1[i] + x * (tt - o->last[i]) + o->c[i] * tt;
    }
    return s;
}

void storq_smk_occ_half(smk_occ *o, double t)
{
    o->half_T = t - o->t0;
    o->half_I = tasks_integral(o, o->half_T);
}

void storq_smk_occ_end(smk_occ *o, double t)
{
    for (size_t i = 0; i < o->cap; i++)
        smk_occ_touch_(o, i, t);
    o->measuring = 0;
}

void storq_smk_occ_results(const smk_occ *o, double T, size_t levels, double *u, double *nvar,
                     double *mql)
{
    double n = (double)o->n;
    double q = 0.0;
    for (size_t i = 0; i < o->cap || i < levels; i++) {
        double mean, var;
        if (i >= o->cap) {
            mean = 0.0;
            var = 0.0;
        } else if (T > 0.0) {
            double m1 = o->s1[i] / T;
            mean = o->c[i] + m1;
            var = o->s2[i] / T - m1 * m1;
            if (var < 0.0) /* rounding, when N_i barely moves */
                var = 0.0;
        } else {
            mean = o->c[i];
            var = 0.0;
        }
        if (i < levels) {
            u[i] = mean / n;
            nvar[i] = var / n; /* n Var(N_i / n) */
        }
        if (i >= 1)
            q += mean;
    }
    *mql = q / n;
}

/* ---- k shortest ---- */

static void insertion_sort(uint64_t *a, size_t m)
{
    for (size_t i = 1; i < m; i++) {
        uint64_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void sort_keys(uint64_t *a, size_t m)
{
    if (m <= 32)
        insertion_sort(a, m);
    else
        qsort(a, m, sizeof *a, cmp_u64);
}

/* Rearrange a[0..m) so that its k smallest values (distinct keys) occupy a[0..k). Deterministic
 * (median-of-three pivots), expected O(m). */
static void quickselect(uint64_t *a, size_t m, size_t k)
{
    size_t lo = 0, hi = m; /* the k-th boundary lies in [lo, hi) */
    while (hi - lo > 16) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t x = a[lo], y = a[mid], z = a[hi - 1];
        uint64_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        /* three-way is unnecessary: keys are distinct */
        size_t i = lo, j = hi - 1;
        for (;;) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i >= j)
                break;
            uint64_t t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
        /* now a[lo..j] <= pivot <= a[j+1..hi) */
        if (k <= j)
            hi = j + 1;
        else
            lo = j + 1;
        if (lo >= k || hi <= k)
            break;
    }
    if (hi - lo > 1 && lo < k && k < hi)
        insertion_sort(a + lo, hi - lo);
}

void storq_smk_select_k(const uint64_t *len, unsigned L, unsigned k, uint64_t *scratch,
                  unsigned *chosen)
{
    if (k == 1) {
        unsigned best = 0;
        for (unsigned j = 1; j < L; j++)
            if (len[j] < len[best])
                best = j;
        chosen[0] = best;
        return;
    }
    for (unsigned j = 0; j < L; j++)
        scratch[j] = (len[j] << 11) | j;
    if (k < L) {
        if (L <= 32)
            insertion_sort(scratch, L);
        else
            quickselect(scratch, L, k);
    }
    sort_keys(scratch, k);
    for (unsigned j = 0; j < k; j++)
        chosen[j] = (unsigned)(scratch[j] & 0x7ff);
}

/* ---- start specs ---- */

#define SMK_START_MAX_DEPTH 1000000

/* The start at the mean-field fixed point of (L, k, load): N_i = n u_i rounded to the nearest
 * whole number of servers (halves up, as u: does), down to the first level where that is 0. */
static int start_fixed(uint64_t n, unsigned L, unsigned k, double load, uint64_t **Nout,
                       size_t *depth, storq_error *err)
{
    if (!(load < 1.0))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--start: 'fixed' is the mean-field fixed point, which exists only at a "
                          "per-server load below 1 (here %g)",
                          load);
    size_t levels = storq_sm_auto_levels((int)L, (int)k, load, 0.25 / (double)n,
                                         SMK_START_MAX_DEPTH);
    double *u = malloc(sizeof *u * levels);
    uint64_t *N = malloc(sizeof *N * levels);
    if (!u || !N) {
        free(u);
        free(N);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    storq_sm_fixed_point((int)L, (int)k, load, levels, u);
    size_t m = 0;
    N[0] = n;
    for (size_t i = 1; i < levels; i++) {
        N[i] = (uint64_t)floor((double)n * u[i] + 0.5);
        if (N[i] > 0)
            m = i;
    }
    free(u);
    *Nout = N;
    *depth = m;
    return STORQ_OK;
}

int storq_smk_parse_start(const char *spec, uint64_t n, unsigned L, unsigned k, double load,
                          uint64_t **Nout, size_t *depth, storq_error *err)
{
    *Nout = NULL;
    *depth = 0;
    if (strcmp(spec, "fixed") == 0)
        return start_fixed(n, L, k, load, Nout, depth, err);
    if (strcmp(spec, "empty") == 0) {
        uint64_t *N = malloc(sizeof *N);
        if (!N)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        N[0] = n;
        *Nout = N;
        return STORQ_OK;
    }
    if (strncmp(spec, "fill:", 5) == 0) {
        const char *s = spec + 5;
        int negative;
        uint64_t J;
        if (storq_number_integer(s, &negative, &J) || (negative && J) || J > SMK_START_MAX_DEPTH)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--start: '%s' is not a valid fill spec; use fill:J with J an "
                              "integer in [0, %d] (every queue holds J tasks)",
                              spec, SMK_START_MAX_DEPTH);
        uint64_t *N = malloc(sizeof *N * ((size_t)J + 1));
        if (!N)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        for (uint64_t i = 0; i <= J; i++)
            N[i] = n;
        *Nout = N;
        *depth = (size_t)J;
        return STORQ_OK;
    }
    if (strncmp(spec, "u:", 2) == 0) {
        const char *s = spec + 2;
        size_t cap = 16, m = 0;
        uint64_t *N = malloc(sizeof *N * cap);
        if (!N)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        N[0] = n;
        double prev = 1.0;
        for (;;) {
            /* one value up to the next comma, in the number grammar */
            const char *end = s + strcspn(s, ",");
            char one[64];
            double U = -1;
            if ((size_t)(end - s) < sizeof one) {
                memcpy(one, s, (size_t)(end - s));
                one[end - s] = '\0';
                if (storq_number_real(one, &U))
                    U = -1;
            }
            if (!(U >= 0.0 && U <= 1.0) || U > prev || m + 1 >= SMK_START_MAX_DEPTH) {
                free(N);
                return storq_fail(err, STORQ_ERR_USAGE,
                                  "--start: '%s' is not a valid occupancy; use u:U1,U2,... with "
                                  "1 >= U1 >= U2 >= ... >= 0 (U_i = fraction of queues with at "
                                  "least i tasks), at most %d values",
                                  spec, SMK_START_MAX_DEPTH - 1);
            }
            prev = U;
            if (m + 2 > cap) {
                cap *= 2;
                uint64_t *q = realloc(N, sizeof *N * cap);
                if (!q) {
                    free(N);
                    return STORQ_RUNTIME_FAIL(err, "out of memory");
                }
                N = q;
            }
            /* rounded to the nearest whole number of servers (halves up) */
            N[++m] = (uint64_t)floor((double)n * U + 0.5);
            if (*end == '\0')
                break;
            s = end + 1;
        }
        while (m > 0 && N[m] == 0)
            m--;
        *Nout = N;
        *depth = m;
        return STORQ_OK;
    }
    return storq_fail(err, STORQ_ERR_USAGE,
                      "--start: '%s' is not a start spec; use empty, fill:J (every queue holds J "
                      "tasks), u:U1,U2,... (fraction of queues with at least i tasks) or fixed "
                      "(the mean-field fixed point)",
                      spec);
}

/* ---- recording ---- */

void storq_smk_record_grid(const smk_ctx *c, const smk_occ *o, storq_record *rec, size_t j)
{
    double *row = storq_record_vector(rec, c->id_ut) + j * c->levels;
    double n = (double)c->n;
    for (size_t i = 0; i < c->levels; i++)
        row[i] = i < o->depth ? (double)o->N[i] / n : 0.0;
    storq_record_vector(rec, c->id_mqlt)[j] = (double)o->Q / n;
}

void storq_smk_record_steady(const smk_ctx *c, const smk_occ *o, double T, storq_record *rec)
{
    double mql;
    storq_smk_occ_results(o, T, c->levels, storq_record_vector(rec, c->id_u),
                    storq_record_vector(rec, c->id_nvar), &mql);
    storq_record_scalar(rec, c->id_mql, mql);
    /* the halves of the window, split at its middle arrival (NaN when it has none) */
    double first = NAN, second = NAN;
    if (o->half_T > 0.0 && T > o->half_T) {
        const double n = (double)o->n;
        const double I = tasks_integral(o, T); /* flushed at T: the sums */
        first = o->half_I / (n * o->half_T);
        second = (I - o->half_I) / (n * (T - o->half_T));
    }
    storq_steady_record(rec, &c->steady, first, second);
}
