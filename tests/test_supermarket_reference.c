/* Differential test of the `supermarket` kernel: a plain, obviously-correct implementation of the
 * same dynamics, written independently here and fed the same random numbers (same streams, same
 * draws in the same order), must give the same observables -- floating values to a relative 1e-12
 * (the kernel integrates lazily and with shifts, the reference by brute force), histogram counts
 * and event counts exactly.
 *
 * The reference keeps queue lengths and FIFO lists as plain arrays, recomputes the occupancy N_i
 * by scanning every server before every event (O(n)), chooses the k shortest by a full stable
 * insertion sort, finds non-exponential departures by scanning every busy server for the least
 * completion time (lowest server id on exact ties), and keeps the busy list with the same
 * append / swap-remove rule (found by a linear search). For exponential service it follows the
 * kernel's rules for the departure clock (standard exponentials, residual rescaled when the number
 * of busy servers changes) and for the departing server (busy list, or uniform candidates
 * rejected while idle when at least half the servers are busy), written out plainly. The counts
 * reference does the same on the vector N_i, mapping ranks to lengths by a linear scan: in
 * transient mode with the same departure clock (B = N_1) and the departing rank below(N_1) from
 * the EXTRA stream, in steady mode as the kernel's uniformized chain (step j at time
 * j / (n (lambda + mu)), an arrival or a potential departure at a uniform rank). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "distribution.h"
#include "model_run.h"
#include "rng.h"
#include "supermarket/internal.h"


/* ------------------------------------------------------------------ configuration of a case */

typedef struct config {
    long n;
    int L, k;
    double lambda;
    int with;             /* sampling with replacement */
    const char *service;  /* as given to the kernel ("auto" allowed) */
    int counts;           /* engine counts */
    int transient;
    long warmup, arrivals;
    double horizon;
    long grid;
    long levels;          /* explicit, so the reference knows it */
    /* start: fill (>= 0) or a list of fractions (ufrac, nu values) */
    int fill;
    const double *ufrac;
    int nu;
} config;

/* Everything one replication produces, in plain arrays. */
typedef struct result {
    long levels;
    double *u, *nvar, mql;
    double half[2]; /* mql over each half of the window, split at its middle arrival */
    double msoj, mdel;
    double *ut, *mqlt; /* transient */
    /* raw values, binned afterwards with the kernel's own histogram layout */
    double *aql, *soj, *del;
    size_t naql, nsoj, ndel, capaql, capsoj, capdel;
    unsigned long long events;
} result;

static void push(double **a, size_t *n, size_t *cap, double x)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *a = realloc(*a, *cap * sizeof **a);
        if (!*a)
            abort();
    }
    (*a)[(*n)++] = x;
}

static void result_free(result *r)
{
    free(r->u);
    free(r->nvar);
    free(r->ut);
    free(r->mqlt);
    free(r->aql);
    free(r->soj);
    free(r->del);
}

/* The start as counts of servers with >= i tasks (i = 0..depth), built from the config directly. */
static long start_counts(const config *cf, long *N, long maxdepth)
{
    for (long i = 0; i < maxdepth; i++)
        N[i] = 0;
    N[0] = cf->n;
    if (cf->fill > 0) {
        for (long i = 1; i <= cf->fill; i++)
            N[i] = cf->n;
        return cf->fill;
    }
    long d = 0;
    for (int i = 0; i < cf->nu; i++) {
        N[i + 1] = (long)floor((double)cf->n * cf->ufrac[i] + 0.5);
        if (N[i + 1] > 0)
            d = i + 1;
    }
    return d;
}

/* Service: the rate for exponential laws, a storq_dist for the others. */
typedef struct service {
    int is_exp;
    double mu;
    storq_dist d;
} service;

static void service_init(const config *cf, service *sv)
{
    char spec[64];
    const char *s = cf->service;
    if (strcmp(s, "auto") == 0) {
        snprintf(spec, sizeof spec, "exp:%d", cf->k);
        s = spec;
    }
    storq_error err = {0};
    if (storq_dist_parse(s, "service", &sv->d, &err)) {
        fprintf(stderr, "bad service %s: %s\n", s, err.msg);
        abort();
    }
    sv->is_exp = sv->d.kind == STORQ_DIST_EXP;
    sv->mu = sv->is_exp ? sv->d.p[0] : 0.0;
}

/* k shortest: a stable insertion sort of the entry indices by length; the first k. */
static void ref_choose(const long *len, int L, int k, int *chosen)
{
    int idx[2048];
    for (int j = 0; j < L; j++)
        idx[j] = j;
    for (int j = 1; j < L; j++) {
        int x = idx[j], m = j;
        while (m > 0 && len[idx[m - 1]] > len[x]) {
            idx[m] = idx[m - 1];
            m--;
        }
        idx[m] = x;
    }
    for (int j = 0; j < k; j++)
        chosen[j] = idx[j];
}

/* Brute-force occupancy integrals over the window, and the window's marks: open (in), the time
 * integrated up to (prev), its start, and the tasks' integral at its middle arrival. */
typedef struct integ {
    long maxlev;
    double *I1, *I2, IQ;
    int in;
    double prev, start, half_T, half_IQ;
} integ;

static void integ_add(integ *g, const long *N, long nlev, double dt)
{
    double q = 0.0;
    for (long i = 0; i < nlev && i < g->maxlev; i++) {
        double x = (double)N[i];
        g->I1[i] += x * dt;
        g->I2[i] += x * x * dt;
        if (i >= 1)
            q += x;
    }
    g->IQ += q * dt;
}

static void integ_results(const integ *g, const long *N, long nlev, double T, long n, result *r)
{
    for (long i = 0; i < r->levels; i++) {
        if (T > 0) {
            double m = g->I1[i] / T;
            double v = g->I2[i] / T - m * m;
            r->u[i] = m / (double)n;
            r->nvar[i] = (v < 0 ? 0 : v) / (double)n;
        } else {
            r->u[i] = (i < nlev ? (double)N[i] : 0.0) / (double)n;
            r->nvar[i] = 0.0;
        }
    }
    if (T > 0) {
        r->mql = g->IQ / T / (double)n;
    } else {
        double q = 0;
        for (long i = 1; i < nlev; i++)
            q += (double)N[i];
        r->mql = q / (double)n;
    }
}

/* The steady-state check's halves: the tasks' integral IQ at the middle arrival (time half_T into
 * the window) and at its end (T). */
static void integ_halves(double half_T, double half_IQ, double IQ, double T, long n, result *r)
{
    r->half[0] = r->half[1] = NAN;
    if (half_T > 0 && T > half_T) {
        r->half[0] = half_IQ / half_T / (double)n;
        r->half[1] = (IQ - half_IQ) / (T - half_T) / (double)n;
    }
}

/* The arrival that begins the window's second half (-1: the window has no halves). */
static long half_arrival(const config *cf)
{
    return cf->arrivals >= 3 ? cf->warmup + cf->arrivals / 2 : -1;
}

/* The state N held from the last event to time t: into the integrals while the window is open. */
static void integ_until(integ *g, const long *N, long nlev, double t)
{
    if (g->in) {
        integ_add(g, N, nlev, t - g->prev);
        g->prev = t;
    }
}

/* Arrival a (counted from 0) at time t, before it joins: the window opens at the first measured
 * arrival, marks its middle, and closes at the last arrival with the results. */
static void integ_at_arrival(integ *g, const config *cf, long a, double t, const long *N, long nlev,
                             long n, result *r)
{
    if (a == cf->warmup) {
        g->in = 1;
        g->start = t;
        g->prev = t;
    }
    if (a == half_arrival(cf)) {
        g->half_T = t - g->start;
        g->half_IQ = g->IQ;
    }
    if (a == cf->warmup + cf->arrivals - 1) {
        g->in = 0;
        double T = t - g->start;
        integ_results(g, N, nlev, T, n, r);
        integ_halves(g->half_T, g->half_IQ, g->IQ, T, n, r);
    }
}

#define MAXLEV 1024

/* ------------------------------------------------------------------ reference: servers */

typedef struct rtask {
    double t;
    long job; /* -1: unmeasured */
} rtask;

static void ref_servers(const config *cf, const storq_stream_key *key, result *r)
{
    long n = cf->n;
    int L = cf->L, k = cf->k;
    service sv;
    service_init(cf, &sv);
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rout = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng serv = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    storq_rng pick = storq_rng_stream(key, STORQ_STREAM_EXTRA); /* exp: the departing server */

    long *q = calloc((size_t)n, sizeof *q);
    rtask **fifo = calloc((size_t)n, sizeof *fifo);
    long *fhead = calloc((size_t)n, sizeof *fhead), *fcap = calloc((size_t)n, sizeof *fcap);
    double *comp = calloc((size_t)n, sizeof *comp);
    long *busy = calloc((size_t)n, sizeof *busy), B = 0;
    long *N = calloc(MAXLEV, sizeof *N);
    integ g = {.maxlev = MAXLEV,
               .I1 = calloc(MAXLEV, sizeof(double)),
               .I2 = calloc(MAXLEV, sizeof(double))};
    double *jt = NULL;
    long *jrem = NULL, njobs = 0;
    if (!cf->transient) {
        jt = calloc((size_t)cf->arrivals, sizeof *jt);
        jrem = calloc((size_t)cf->arrivals, sizeof *jrem);
    }

    long startN[MAXLEV];
    long depth = start_counts(cf, startN, MAXLEV);
    for (long s = 0; s < n; s++) {
        long l = 0;
        for (long i = 1; i <= depth; i++)
            if (s < startN[i])
                l++;
        q[s] = l;
        if (!cf->transient && l > 0) { /* steady: the start's tasks, of no job */
            fcap[s] = 2 * l;
            fifo[s] = malloc((size_t)fcap[s] * sizeof(rtask));
            for (long j = 0; j < l; j++)
                fifo[s][j] = (rtask){0.0, -1};
        }
    }
    for (long s = 0; s < n; s++) {
        if (q[s] > 0) {
            if (sv.is_exp)
                busy[B++] = s;
            else
                comp[s] = 0.0 + storq_dist_sample(&sv.d, &serv);
        }
    }

    double t = 0.0;
    long a = 0, total = cf->warmup + cf->arrivals, gj = 0, measured_left = cf->arrivals;
    double soj_sum = 0, del_sum = 0;
    long soj_n = 0, del_n = 0;
    double ta = t + storq_rng_exp(&arr, (double)n * cf->lambda);
    double td = INFINITY;
    /* Exponential service, which server departs (EXTRA stream): while fewer than half the servers
     * are busy, busy[below(B)] ("list mode"); once 2B >= n, the first busy one in a sequence of
     * uniform candidates below(n), SMK_CANDIDATES of them drawn ahead (on entering the mode, then
     * one for each candidate taken); until 4B < n, when the candidates drawn ahead are dropped and
     * the busy list is rebuilt in increasing server id. */
    int rmode = 0;
    long cands[SMK_CANDIDATES];
    if (sv.is_exp && 2 * B >= n) {
        rmode = 1;
        for (int i = 0; i < SMK_CANDIDATES; i++)
            cands[i] = (long)storq_rng_below(&pick, (uint64_t)n);
    }
    /* The departure clock of exponential service runs on standard exponentials E (SERVICE
     * stream): one drawn at the start and one at each departure; the next departure comes
     * E / (mu B) later, B counted after the event, or, when B = 0, that long after the arrival
     * that ends the idle period. */
    double E = 0.0;
    if (sv.is_exp) {
        E = storq_rng_exp(&serv, 1.0);
        if (B > 0)
            td = t + E / (sv.mu * (double)B);
    }

    for (;;) {
        /* occupancy by a full scan */
        long nlev = 1;
        memset(N, 0, MAXLEV * sizeof *N);
        for (long s = 0; s < n; s++) {
            for (long i = 0; i <= q[s]; i++)
                N[i]++;
            if (q[s] + 1 > nlev)
                nlev = q[s] + 1;
        }
        long dep_server = -1;
        double tdep = INFINITY;
        if (sv.is_exp) {
            tdep = td;
        } else {
            for (long s = 0; s < n; s++)
                if (q[s] > 0 && comp[s] < tdep) {
                    tdep = comp[s];
                    dep_server = s;
                }
        }
        int is_dep = tdep < ta;
        double te = is_dep ? tdep : ta;
        if (!cf->transient) {
            if (a == total && measured_left == 0)
                break;
        } else {
            while (gj <= cf->grid && (double)gj * cf->horizon / (double)cf->grid < te) {
                double qq = 0;
                for (long i = 0; i < r->levels; i++)
                    r->ut[gj * r->levels + i] = (i < nlev ? (double)N[i] : 0.0) / (double)n;
                for (long s = 0; s < n; s++)
                    qq += (double)q[s];
                r->mqlt[gj] = qq / (double)n;
                gj++;
            }
            if (gj > cf->grid)
                break;
        }
        integ_until(&g, N, nlev, te);
        t = te;
        long B_before = B;
        if (is_dep) {
            long s = dep_server;
            if (sv.is_exp)
                E = storq_rng_exp(&serv, 1.0);
            if (sv.is_exp && rmode) {
                do {
                    s = cands[0];
                    for (int i = 1; i < SMK_CANDIDATES; i++)
                        cands[i - 1] = cands[i];
                    cands[SMK_CANDIDATES - 1] = (long)storq_rng_below(&pick, (uint64_t)n);
                } while (q[s] == 0);
            } else if (sv.is_exp) {
                s = busy[storq_rng_below(&pick, (uint64_t)B)];
            }
            if (!cf->transient) {
                rtask x = fifo[s][fhead[s]++];
                if (x.job >= 0) {
                    push(&r->soj, &r->nsoj, &r->capsoj, t - x.t);
                    soj_sum += t - x.t;
                    soj_n++;
                    if (--jrem[x.job] == 0) {
                        push(&r->del, &r->ndel, &r->capdel, t - jt[x.job]);
                        del_sum += t - jt[x.job];
                        del_n++;
                        measured_left--;
                    }
                }
            }
            q[s]--;
            if (sv.is_exp) {
                if (q[s] == 0 && !rmode) {
                    long p = 0;
                    while (busy[p] != s)
                        p++;
                    busy[p] = busy[B - 1];
                }
                if (q[s] == 0)
                    B--;
            } else if (q[s] > 0) {
                comp[s] = t + storq_dist_sample(&sv.d, &serv);
            }
        } else {
            int measured = 0;
            if (!cf->transient) {
                integ_at_arrival(&g, cf, a, t, N, nlev, n, r);
                measured = a >= cf->warmup;
            }
            uint64_t samp[2048];
            long lens[2048];
            int chosen[2048];
            if (cf->with) {
                for (int j = 0; j < L; j++)
                    samp[j] = storq_rng_below(&rout, (uint64_t)n);
            } else {
                storq_rng_sample_distinct(&rout, (uint64_t)n, (unsigned)L, samp);
            }
            for (int j = 0; j < L; j++)
                lens[j] = q[samp[j]];
            ref_choose(lens, L, k, chosen);
            long job = -1;
            if (measured) {
                job = njobs++;
                jt[job] = t;
                jrem[job] = k;
            }
            for (int e = 0; e < k; e++) {
                long s = (long)samp[chosen[e]];
                if (measured)
                    push(&r->aql, &r->naql, &r->capaql, (double)q[s]);
                if (!cf->transient) {
                    if (fhead[s] + q[s] + 1 > fcap[s]) {
                        /* compact, then grow */
                        if (q[s] > 0)
                            memmove(fifo[s], fifo[s] + fhead[s], (size_t)q[s] * sizeof(rtask));
                        fhead[s] = 0;
                        if (q[s] + 1 > fcap[s]) {
                            fcap[s] = 2 * (q[s] + 1);
                            fifo[s] = realloc(fifo[s], (size_t)fcap[s] * sizeof(rtask));
                        }
                    }
                    fifo[s][fhead[s] + q[s]] = (rtask){t, job};
                }
                q[s]++;
                if (q[s] == 1) {
                    if (sv.is_exp) {
                        if (!rmode)
                            busy[B] = s;
                        B++;
                    } else {
                        comp[s] = t + storq_dist_sample(&sv.d, &serv);
                    }
                }
            }
            a++;
            ta = (cf->transient || a < total) ? t + storq_rng_exp(&arr, (double)n * cf->lambda)
                                              : INFINITY;
        }
        r->events++;
        if (sv.is_exp) {
            /* Mode switches and the next candidates, then the departure clock: E / (mu B) after a
             * departure or when the first server becomes busy; after an arrival that changes B
             * the pending residual time is scaled by B_before / B, which leaves it Exp(mu B)
             * (memoryless); otherwise it is kept. */
            if (is_dep && rmode && 4 * B < n) {
                rmode = 0;
                B = 0;
                for (long s = 0; s < n; s++)
                    if (q[s] > 0)
                        busy[B++] = s;
            } else if (!is_dep && B != B_before && !rmode && 2 * B >= n) {
                rmode = 1;
                for (int i = 0; i < SMK_CANDIDATES; i++)
                    cands[i] = (long)storq_rng_below(&pick, (uint64_t)n);
            }
            if (is_dep || B_before == 0) {
                td = B > 0 ? t + E / (sv.mu * (double)B) : INFINITY;
            } else if (B != B_before) {
                double residual = td - t;
                td = t + residual * (double)B_before / (double)B;
            }
        }
    }
    if (!cf->transient) {
        r->msoj = soj_sum / (double)soj_n;
        r->mdel = del_sum / (double)del_n;
    }

    for (long s = 0; s < n; s++)
        free(fifo[s]);
    free(fifo);
    free(fhead);
    free(fcap);
    free(q);
    free(comp);
    free(busy);
    free(N);
    free(g.I1);
    free(g.I2);
    free(jt);
    free(jrem);
    storq_dist_free(&sv.d);
}

/* ------------------------------------------------------------------ reference: counts */

static long ref_rank_length(const long *N, uint64_t r)
{
    long j = 0;
    while (j + 1 < MAXLEV && (uint64_t)N[j + 1] > r)
        j++;
    return j;
}

/* One arrival on the counts: L ranks (ROUTING), their lengths, the k shortest by the stable
 * sort, each chosen length plus the earlier chosen entries naming the same rank. */
static void ref_counts_arrival(const config *cf, storq_rng *rout, long *N, int measured,
                               result *r)
{
    int L = cf->L, k = cf->k;
    uint64_t samp[2048];
    long lens[2048];
    int chosen[2048];
    if (cf->with) {
        for (int j = 0; j < L; j++)
            samp[j] = storq_rng_below(rout, (uint64_t)cf->n);
    } else {
        storq_rng_sample_distinct(rout, (uint64_t)cf->n, (unsigned)L, samp);
    }
    for (int j = 0; j < L; j++)
        lens[j] = ref_rank_length(N, samp[j]);
    ref_choose(lens, L, k, chosen);
    long newlen[2048];
    for (int e = 0; e < k; e++) {
        long extra = 0;
        for (int f = 0; f < e; f++)
            if (samp[chosen[f]] == samp[chosen[e]])
                extra++;
        newlen[e] = lens[chosen[e]] + extra;
        if (measured)
            push(&r->aql, &r->naql, &r->capaql, (double)newlen[e]);
    }
    for (int e = 0; e < k; e++)
        N[newlen[e] + 1]++;
}

/* Transient mode: the clock. */
static void ref_counts_clock(const config *cf, const storq_stream_key *key, result *r)
{
    long n = cf->n;
    service sv;
    service_init(cf, &sv);
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rout = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng serv = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    storq_rng pick = storq_rng_stream(key, STORQ_STREAM_EXTRA);
    long *N = calloc(MAXLEV, sizeof *N);
    start_counts(cf, N, MAXLEV);

    double t = 0.0;
    long gj = 0;
    double ta = t + storq_rng_exp(&arr, (double)n * cf->lambda);
    /* the departure clock of the servers reference with B = N_1: E (SERVICE) drawn at the start
     * and at each departure, E / (mu B) after a departure or after the arrival ending an idle
     * period, the residual scaled by B_before / B when an arrival changes B */
    double E = storq_rng_exp(&serv, 1.0);
    double td = N[1] > 0 ? t + E / (sv.mu * (double)N[1]) : INFINITY;
    for (;;) {
        long nlev = 1;
        while (nlev < MAXLEV && N[nlev] > 0)
            nlev++;
        int is_dep = td < ta;
        double te = is_dep ? td : ta;
        while (gj <= cf->grid && (double)gj * cf->horizon / (double)cf->grid < te) {
            double qq = 0;
            for (long i = 0; i < r->levels; i++)
                r->ut[gj * r->levels + i] = (i < nlev ? (double)N[i] : 0.0) / (double)n;
            for (long i = 1; i < nlev; i++)
                qq += (double)N[i];
            r->mqlt[gj] = qq / (double)n;
            gj++;
        }
        if (gj > cf->grid)
            break;
        t = te;
        long B_before = N[1];
        if (is_dep) {
            E = storq_rng_exp(&serv, 1.0);
            uint64_t rk = storq_rng_below(&pick, (uint64_t)N[1]);
            N[ref_rank_length(N, rk)]--;
        } else {
            ref_counts_arrival(cf, &rout, N, 0, r);
            ta = t + storq_rng_exp(&arr, (double)n * cf->lambda);
        }
        r->events++;
        long B = N[1];
        if (is_dep || B_before == 0) {
            td = B > 0 ? t + E / (sv.mu * (double)B) : INFINITY;
        } else if (B != B_before) {
            double residual = td - t;
            td = t + residual * (double)B_before / (double)B;
        }
    }
    free(N);
    storq_dist_free(&sv.d);
}

/* Steady mode: the uniformized chain. Step j comes at time j / (n (lambda + mu)); it is an
 * arrival when a uniform (ARRIVALS) is below lambda / (lambda + mu), else a departure at the
 * server of rank below(n) (ROUTING, the stream of the arrivals' ranks) if that server is busy,
 * else nothing (not an event). */
static void ref_counts_steady(const config *cf, const storq_stream_key *key, result *r)
{
    long n = cf->n;
    service sv;
    service_init(cf, &sv);
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rout = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    long *N = calloc(MAXLEV, sizeof *N);
    integ g = {.maxlev = MAXLEV,
               .I1 = calloc(MAXLEV, sizeof(double)),
               .I2 = calloc(MAXLEV, sizeof(double))};
    start_counts(cf, N, MAXLEV);
    const double p = cf->lambda / (cf->lambda + sv.mu);
    const double step_time = 1.0 / ((double)n * (cf->lambda + sv.mu));

    long a = 0, total = cf->warmup + cf->arrivals;
    for (long step = 1;; step++) {
        long nlev = 1;
        while (nlev < MAXLEV && N[nlev] > 0)
            nlev++;
        double t = (double)step * step_time;
        integ_until(&g, N, nlev, t);
        if (storq_rng_uniform(&arr) < p) {
            integ_at_arrival(&g, cf, a, t, N, nlev, n, r);
            ref_counts_arrival(cf, &rout, N, a >= cf->warmup, r);
            r->events++;
            if (++a == total)
                break;
        } else {
            long len = ref_rank_length(N, storq_rng_below(&rout, (uint64_t)n));
            if (len > 0) {
                N[len]--;
                r->events++;
            }
        }
    }
    free(N);
    free(g.I1);
    free(g.I2);
    storq_dist_free(&sv.d);
}

static void ref_counts(const config *cf, const storq_stream_key *key, result *r)
{
    if (cf->transient)
        ref_counts_clock(cf, key, r);
    else
        ref_counts_steady(cf, key, r);
}

/* ------------------------------------------------------------------ driving the kernel */

static int set_param(storq_params *p, const char *name, const char *text)
{
    size_t i;
    const storq_param_def *def = storq_param_find(p->model->params, name, &i);
    storq_error err = {0};
    if (!def) {
        fprintf(stderr, "no parameter %s\n", name);
        abort();
    }
    free(p->v[i].s);
    if (storq_param_parse(def, text, &p->v[i], &err)) {
        fprintf(stderr, "--%s %s: %s\n", name, text, err.msg);
        return -1;
    }
    return 0;
}

/* p: the model's defaults (model_run_init). */
static void config_params(const config *cf, storq_params *p)
{
    char b[512];
    snprintf(b, sizeof b, "%ld", cf->n);
    set_param(p, "n", b);
    snprintf(b, sizeof b, "%d", cf->L);
    set_param(p, "L", b);
    snprintf(b, sizeof b, "%d", cf->k);
    set_param(p, "k", b);
    snprintf(b, sizeof b, "%.17g", cf->lambda);
    set_param(p, "lambda", b);
    set_param(p, "sampling", cf->with ? "with" : "without");
    set_param(p, "service", cf->service);
    set_param(p, "engine", cf->counts ? "counts" : "servers");
    set_param(p, "mode", cf->transient ? "transient" : "steady");
    snprintf(b, sizeof b, "%ld", cf->warmup);
    set_param(p, "warmup", b);
    snprintf(b, sizeof b, "%ld", cf->arrivals);
    set_param(p, "arrivals", b);
    snprintf(b, sizeof b, "%.17g", cf->horizon);
    set_param(p, "horizon", b);
    snprintf(b, sizeof b, "%ld", cf->grid);
    set_param(p, "grid", b);
    snprintf(b, sizeof b, "%ld", cf->levels);
    set_param(p, "levels", b);
    if (cf->fill > 0) {
        snprintf(b, sizeof b, "fill:%d", cf->fill);
    } else if (cf->nu > 0) {
        int m = snprintf(b, sizeof b, "u:");
        for (int i = 0; i < cf->nu; i++)
            m += snprintf(b + m, sizeof b - (size_t)m, "%s%.17g", i ? "," : "", cf->ufrac[i]);
    } else {
        snprintf(b, sizeof b, "empty");
    }
    set_param(p, "start", b);
}

static int close_rel(double a, double b, double scale)
{
    return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b) + scale);
}

static int case_no = 0;

static void run_case(const config *cf, uint64_t replication)
{
    case_no++;
    model_run kr;
    model_run_init(&kr, &storq_model_supermarket);
    config_params(cf, &kr.p);
    if (model_run_prepare(&kr)) {
        fprintf(stderr, "case %d: prepare failed\n", case_no);
        CHECK(0);
        return;
    }
    storq_record refrec;
    storq_error err = {0};
    CHECK(storq_record_init(&refrec, &kr.obs, &err) == 0);
    storq_record_reset(&refrec);
    storq_stream_key key = {.seed = 20240601u + (uint64_t)case_no, .point = 3,
                            .replication = replication};
    CHECK(model_run_replicate(&kr, key.seed, key.point, key.replication) == 0);

    result r = {0};
    r.levels = cf->levels;
    r.u = calloc((size_t)r.levels, sizeof *r.u);
    r.nvar = calloc((size_t)r.levels, sizeof *r.nvar);
    if (cf->transient) {
        r.ut = calloc((size_t)((cf->grid + 1) * r.levels), sizeof *r.ut);
        r.mqlt = calloc((size_t)(cf->grid + 1), sizeof *r.mqlt);
    }
    if (cf->counts)
        ref_counts(cf, &key, &r);
    else
        ref_servers(cf, &key, &r);

    int before = check_failures_;
    CHECK_EQ_U64(kr.rec.events, r.events);
    if (!cf->transient) {
        const double *u = kr.rec.values + model_run_offset(&kr, "u", 0);
        const double *nv = kr.rec.values + model_run_offset(&kr, "n_var_u", 0);
        for (long i = 0; i < r.levels; i++) {
            CHECK(close_rel(u[i], r.u[i], 0.0));
            /* the reference's E[N^2] - E[N]^2 cancels down from E[N^2]/n: relative to that */
            CHECK(close_rel(nv[i], r.nvar[i], 4.0 * (double)cf->n * r.u[i] * r.u[i] + 1e-300));
            if (!close_rel(u[i], r.u[i], 0.0) ||
                !close_rel(nv[i], r.nvar[i], 4.0 * (double)cf->n * r.u[i] * r.u[i] + 1e-300))
                fprintf(stderr, "  level %ld: u %.17g vs %.17g, n_var_u %.17g vs %.17g\n", i,
                        u[i], r.u[i], nv[i], r.nvar[i]);
        }
        CHECK(close_rel(kr.rec.values[model_run_offset(&kr, "mean_queue_length", 0)], r.mql, 0.0));
        for (int h = 0; h < 2; h++) {
            const double x = kr.rec.values[model_run_offset(
                &kr, h ? "warmup_second_half_mean" : "warmup_first_half_mean", 0)];
            const int ok = (isnan(x) && isnan(r.half[h])) || close_rel(x, r.half[h], 0.0);
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  half %d of the window: %.17g vs %.17g\n", h, x, r.half[h]);
        }
        /* histograms: bin the reference's raw values with the same layout */
        const char *hn[3] = {"arrival_queue_length", "task_sojourn", "job_delay"};
        double *vals[3] = {r.aql, r.soj, r.del};
        size_t nvals[3] = {r.naql, r.nsoj, r.ndel};
        for (int h = 0; h < (cf->counts ? 1 : 3); h++) {
            const storq_obs_def *d = storq_obs_find(&kr.obs, hn[h]);
            CHECK(d != NULL);
            if (!d)
                continue;
            storq_hist hh = storq_record_hist(&refrec, (int)(d - kr.obs.defs));
            for (size_t j = 0; j < nvals[h]; j++)
                storq_hist_add(&hh, vals[h][j]);
            size_t diffs = 0;
            for (size_t b = 0; b < d->nbins + 2; b++)
                diffs += kr.rec.counts[d->count_offset + b] != refrec.counts[d->count_offset + b];
            CHECK_EQ_U64(diffs, 0);
            CHECK(kr.rec.minmax[d->minmax_offset] == refrec.minmax[d->minmax_offset]);
            CHECK(kr.rec.minmax[d->minmax_offset + 1] == refrec.minmax[d->minmax_offset + 1]);
            /* the histogram's sum of values */
            CHECK(close_rel(kr.rec.values[d->value_offset], refrec.values[d->value_offset], 0.0));
        }
        if (!cf->counts) {
            const storq_obs_def *d1 = storq_obs_find(&kr.obs, "mean_task_sojourn");
            const storq_obs_def *d2 = storq_obs_find(&kr.obs, "mean_job_delay");
            CHECK(close_rel(kr.rec.values[d1->value_offset], r.msoj, 0.0));
            CHECK(close_rel(kr.rec.values[d2->value_offset], r.mdel, 0.0));
            CHECK_EQ_U64(r.nsoj, (unsigned long long)cf->arrivals * (unsigned long long)cf->k);
            CHECK_EQ_U64(r.ndel, (unsigned long long)cf->arrivals);
        } else {
            CHECK(storq_obs_find(&kr.obs, "task_sojourn") == NULL);
        }
        CHECK_EQ_U64(r.naql, (unsigned long long)cf->arrivals * (unsigned long long)cf->k);
    } else {
        const storq_obs_def *d = storq_obs_find(&kr.obs, "u_t");
        const storq_obs_def *dq = storq_obs_find(&kr.obs, "mean_queue_length_t");
        CHECK(d && dq);
        if (d && dq) {
            size_t bad = 0;
            for (long j = 0; j < (cf->grid + 1) * r.levels; j++)
                bad += kr.rec.values[d->value_offset + (size_t)j] != r.ut[j];
            for (long j = 0; j <= cf->grid; j++)
                bad += kr.rec.values[dq->value_offset + (size_t)j] != r.mqlt[j];
            CHECK_EQ_U64(bad, 0);
        }
    }
    if (check_failures_ != before)
        fprintf(stderr,
                "  in case %d: n=%ld L=%d k=%d lambda=%g sampling=%s service=%s engine=%s "
                "mode=%s\n",
                case_no, cf->n, cf->L, cf->k, cf->lambda, cf->with ? "with" : "without",
                cf->service, cf->counts ? "counts" : "servers",
                cf->transient ? "transient" : "steady");

    result_free(&r);
    storq_record_free(&refrec);
    model_run_free(&kr);
}

/* ------------------------------------------------------------------ selection unit check */

static void check_select(void)
{
    storq_rng rng;
    storq_rng_seed(&rng, 12345, 678);
    uint64_t len[1024], scratch[1024];
    long llen[1024];
    unsigned chosen[1024];
    int ref[1024];
    size_t bad = 0;
    for (int rep = 0; rep < 3000; rep++) {
        unsigned L = 1 + (unsigned)storq_rng_below(&rng, rep < 2000 ? 40 : 1024);
        unsigned k = 1 + (unsigned)storq_rng_below(&rng, L);
        uint64_t range = 1 + storq_rng_below(&rng, 8);
        for (unsigned j = 0; j < L; j++) {
            len[j] = storq_rng_below(&rng, range);
            llen[j] = (long)len[j];
        }
        storq_smk_select_k(len, L, k, scratch, chosen);
        ref_choose(llen, (int)L, (int)k, ref);
        for (unsigned j = 0; j < k; j++)
            bad += (int)chosen[j] != ref[j];
    }
    CHECK_EQ_U64(bad, 0);
}

/* ------------------------------------------------------------------ the cases */

int main(void)
{
    storq_warn_enable(0); /* the non-exponential cases warn by design */
    check_select();

    static const double u3[] = {0.6, 0.3, 0.1};
    static const double u2[] = {1.0, 0.45};
    /* A trace of three values: completions tie often (tasks entering service together draw the
     * same value), so the order of simultaneous departures -- least server id first -- shows. */
    char trace_path[] = "/tmp/storq_sm_traceXXXXXX", trace_spec[64];
    int fd = mkstemp(trace_path);
    FILE *tf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!tf) {
        fprintf(stderr, "cannot create a trace file\n");
        return 1;
    }
    fprintf(tf, "0.25\n0.5\n1\n");
    fclose(tf);
    snprintf(trace_spec, sizeof trace_spec, "trace:%s", trace_path);
    const char *svcs[] = {"auto", "det:0.5", "shexp:0.1,5", "exp:3", "hyperexp:0.5,1,0.5,4",
                          trace_spec};
    struct {
        long n;
        int L, k;
    } shapes[] = {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {7, 3, 1}, {7, 3, 2},
                  {7, 5, 5}, {8, 2, 1}, {50, 2, 1}, {50, 4, 2}, {50, 10, 3}, {50, 40, 20}};
    size_t nshapes = sizeof shapes / sizeof shapes[0];

    for (size_t si = 0; si < nshapes; si++) {
        for (int with = 0; with <= 1; with++) {
            for (size_t vi = 0; vi < sizeof svcs / sizeof svcs[0]; vi++) {
                config cf = {0};
                cf.n = shapes[si].n;
                cf.L = shapes[si].L;
                cf.k = shapes[si].k;
                cf.with = with;
                cf.service = svcs[vi];
                /* per-server load 0.85: lambda k E[S] */
                static const double means[] = {0, 0.5, 0.3, 1.0 / 3.0, 0.5 * 1.0 + 0.5 * 0.25,
                                               1.75 / 3.0};
                double mean = vi == 0 ? 1.0 / cf.k : means[vi];
                cf.lambda = 0.85 / (cf.k * mean);
                cf.warmup = 300;
                cf.arrivals = cf.n >= 50 ? 3000 : 1500;
                cf.levels = 12;
                cf.horizon = 5;
                cf.grid = 25;
                /* steady, servers: from empty, then from a start */
                run_case(&cf, si * 10 + vi);
                cf.fill = (int)(si % 3 == 2) * 4;
                cf.ufrac = si % 3 == 0 ? u3 : si % 3 == 1 ? u2 : NULL;
                cf.nu = si % 3 == 0 ? 3 : si % 3 == 1 ? 2 : 0;
                run_case(&cf, si * 10 + vi + 4000);
                /* transient, servers, three starts in turn */
                cf.transient = 1;
                cf.fill = (int)(si % 3 == 0) * 2;
                cf.ufrac = si % 3 == 1 ? u3 : si % 3 == 2 ? u2 : NULL;
                cf.nu = si % 3 == 1 ? 3 : si % 3 == 2 ? 2 : 0;
                run_case(&cf, si * 10 + vi + 1000);
                cf.transient = 0;
                cf.fill = 0;
                cf.ufrac = NULL;
                cf.nu = 0;
                /* counts engine (exponential laws only) */
                if (vi == 0 || vi == 3) {
                    cf.counts = 1;
                    run_case(&cf, si * 10 + vi + 2000);
                    cf.fill = si % 2 ? 0 : 5; /* steady from a start */
                    cf.ufrac = si % 2 ? u2 : NULL;
                    cf.nu = si % 2 ? 2 : 0;
                    run_case(&cf, si * 10 + vi + 5000);
                    cf.transient = 1;
                    cf.fill = si % 2 ? 3 : 0;
                    cf.ufrac = si % 2 ? NULL : u3;
                    cf.nu = si % 2 ? 0 : 3;
                    run_case(&cf, si * 10 + vi + 3000);
                }
            }
        }
    }

    /* edges: no warm-up and a single measured job (a zero-length window); deep levels */
    config e = {.n = 7, .L = 3, .k = 2, .lambda = 0.4, .service = "auto", .warmup = 0,
                .arrivals = 1, .levels = 5, .horizon = 1, .grid = 1};
    run_case(&e, 1);
    e.counts = 1;
    run_case(&e, 2);
    config deep = {.n = 50, .L = 1, .k = 1, .lambda = 0.97, .service = "auto", .warmup = 100,
                   .arrivals = 20000, .levels = 60, .horizon = 1, .grid = 1};
    run_case(&deep, 3);
    deep.counts = 1;
    run_case(&deep, 4);
    deep.with = 1;
    deep.L = 3;
    deep.k = 3;
    deep.lambda = 0.95;
    run_case(&deep, 5);
    deep.counts = 0;
    run_case(&deep, 6);
    /* JSQ(2) on the counts engine with queues deeper than 16 (its rank search changes method
     * there), both samplings; n = 8 repeats ranks often without replacement */
    config deep2 = {.n = 8, .L = 2, .k = 1, .lambda = 0.995, .service = "auto", .warmup = 100,
                    .arrivals = 40000, .levels = 60, .horizon = 1, .grid = 1, .counts = 1};
    run_case(&deep2, 7);
    deep2.with = 1;
    run_case(&deep2, 8);

    /* queues of 255 tasks and more, whose lengths the servers engine keeps in the record instead
     * of its byte array: from 300 tasks per server down through 255 and the long-record limit */
    config sat = {.n = 8, .L = 2, .k = 1, .lambda = 0.4, .service = "auto", .warmup = 100,
                  .arrivals = 3000, .levels = 320, .horizon = 1, .grid = 1, .fill = 300};
    run_case(&sat, 9);
    sat.with = 1;
    sat.k = 2;
    sat.L = 3;
    sat.lambda = 0.2;
    run_case(&sat, 10);

    remove(trace_path);
    printf("%d cases\n", case_no);
    return check_report("test_supermarket_reference");
}
