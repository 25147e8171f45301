/* `forkjoin` dynamics: one replication of g groups of n FCFS nodes (docs/models/forkjoin.md).
 *
 * A job sent to a group forks one task to each of its n nodes and departs when k of them are done;
 * the other n - k tasks leave at once. Every node of a group sees the same job order, so a group is
 * a vector recursion over its nodes, done in two passes over contiguous arrays:
 *   S_i = max(A, E_i), F_i = S_i + x_i, D = k-th smallest F_i, E_i = max(E_i, min(F_i, D)),
 * with E_i the time node i is released from its previous job. A job costs O(n), plus O(D) for
 * pod:D or O(log g) for lwl (lwl.c), never O(g n). The random-number contract and the loads are
 * described in internal.h.
 *
 * CMakeLists.txt compiles this file with GCC's "cheap" vectoriser cost model, which vectorises the
 * recursion's passes (the default -O2 model leaves them scalar); no floating-point sum is
 * reordered by it. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "memory.h"
#include "stop.h"
#include "lwl.h"
#include "select.h"

/* Departure times of a group's jobs still present, oldest first (power-of-two ring). */
typedef struct fj_fifo {
    double *d;
    size_t head, len, cap;
} fj_fifo;

/* The state of one system of g groups (the main one, or the delta = 0 companion). */
typedef struct fj_system {
    double *E;     /* g n release times, group-major */
    double *Dlast; /* g: departure of the last job sent to the group */
    fj_fifo *q;    /* g, pod with load = jobs only */
    fj_lwl lwl;    /* lwl only: keys are Dlast (-inf when idle) for work, job counts for jobs */
    int has_lwl;
    uint64_t *jobs; /* g, lwl with load = jobs: jobs present */
    storq_rng tie;
    storq_hist resp;
    double sum;
    double *busy;    /* g: node busy time of measured jobs */
    uint64_t *count; /* g: measured jobs */
} fj_system;

static void fj_system_free(fj_system *s, uint64_t g)
{
    if (s->q)
        for (uint64_t i = 0; i < g; i++)
            free(s->q[i].d);
    free(s->q);
    if (s->has_lwl)
        storq_fj_lwl_free(&s->lwl);
    free(s->jobs);
    free(s->E);
    free(s->Dlast);
    free(s->busy);
    free(s->count);
}

/* What one replication allocates up front, counted beside the allocations it mirrors: per system
 * (two with the companion) the release times, three per-group arrays (Dlast, and the measured
 * busy time and jobs that group_vectors' vectors or summary are made of: the summary keeps
 * nothing more per group) and the policy's structures; and the replication's 3 n scratch. pod's per-group queues grow with the backlog and are not
 * counted (they hold jobs present, like any queue). */
size_t storq_fj_state_bytes(const fj_ctx *c)
{
    size_t g = (size_t)c->g, n = (size_t)c->n;
    size_t sys = storq_bytes_mul(storq_bytes_mul(g, n), sizeof(double));
    sys = storq_bytes_add(sys, storq_bytes_mul(g, 2 * sizeof(double) + sizeof(uint64_t)));
    if (g > 1 && c->assign == FJ_ASSIGN_POD && c->load == FJ_LOAD_JOBS)
        sys = storq_bytes_add(sys, storq_bytes_mul(g, sizeof(fj_fifo)));
    if (g > 1 && c->assign == FJ_ASSIGN_LWL) {
        size_t leaves = 1;
        while (leaves < g && leaves <= SIZE_MAX / 2)
            leaves *= 2;
        sys = storq_bytes_add(sys, storq_bytes_mul(2 * leaves, sizeof(double) + sizeof(uint64_t)));
        if (c->load == FJ_LOAD_JOBS)
            sys = storq_bytes_add(sys, storq_bytes_mul(g, sizeof(uint64_t)));
    }
    size_t bytes = storq_bytes_mul(sys, c->companion ? 2 : 1);
    return storq_bytes_add(bytes, storq_bytes_mul(n, 3 * sizeof(double)));
}

static int fj_system_init(fj_system *s, const fj_ctx *c)
{
    memset(s, 0, sizeof *s);
    s->E = calloc(c->g * c->n, sizeof *s->E);
    s->Dlast = calloc(c->g, sizeof *s->Dlast);
    s->busy = calloc(c->g, sizeof *s->busy);
    s->count = calloc(c->g, sizeof *s->count);
    if (!s->E || !s->Dlast || !s->busy || !s->count)
        return -1;
    if (c->g > 1 && c->assign == FJ_ASSIGN_POD && c->load == FJ_LOAD_JOBS &&
        !(s->q = calloc(c->g, sizeof *s->q)))
        return -1;
    if (c->g > 1 && c->assign == FJ_ASSIGN_LWL) {
        s->has_lwl = 1;
        if (storq_fj_lwl_init(&s->lwl, c->g, c->load == FJ_LOAD_WORK ? -INFINITY : 0.0))
            return -1;
        if (c->load == FJ_LOAD_JOBS && !(s->jobs = calloc(c->g, sizeof *s->jobs)))
            return -1;
    }
    return 0;
}

static int fj_fifo_push(fj_fifo *f, double d)
{
    if (f->len == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        double *nd = malloc(cap * sizeof *nd);
        if (!nd)
            return -1;
        for (size_t i = 0; i < f->len; i++)
            nd[i] = f->d[(f->head + i) & (f->cap - 1)];
        free(f->d);
        f->d = nd;
        f->head = 0;
        f->cap = cap;
    }
    f->d[(f->head + f->len) & (f->cap - 1)] = d;
    f->len++;
    return 0;
}

/* The load group G shows a job arriving at t, as a key ordered like the load: for work, D_last
 * for a busy group (the same order as D_last - t, without the subtraction's rounding) and -inf
 * for every empty one. */
static inline double fj_load(const fj_ctx *c, fj_system *s, uint64_t G, double t)
{
    if (c->load == FJ_LOAD_WORK) {
        double d = s->Dlast[G];
        return d > t ? d : -INFINITY;
    }
    fj_fifo *f = &s->q[G];
    while (f->len && f->d[f->head] <= t) {
        f->head = (f->head + 1) & (f->cap - 1);
        f->len--;
    }
    return (double)f->len;
}

/* The group of a job arriving at t: cand holds the pod:D draw, or the uniform draw in cand[0]. */
static uint64_t fj_choose(const fj_ctx *c, fj_system *s, const uint64_t *cand, double t)
{
    if (c->g == 1)
        return 0;
    switch (c->assign) {
    case FJ_ASSIGN_UNIFORM:
        return cand[0];
    case FJ_ASSIGN_POD: {
        uint64_t best = cand[0];
        double bl = fj_load(c, s, best, t);
        for (uint64_t j = 1; j < c->pod_d; j++) {
            double l = fj_load(c, s, cand[j], t);
            if (l < bl) {
                bl = l;
                best = cand[j];
            }
        }
        return best;
    }
    default: { /* lwl: uniform among the least loaded, by rank in group order */
        fj_lwl *l = &s->lwl;
        /* loads that changed on their own since the last arrival: groups emptied (work) or jobs
         * departed (jobs); stale work events (the group got a later job) are skipped */
        while (l->hn && fj_lwl_top_time(l) <= t) {
            const uint64_t G = fj_lwl_top_group(l);
            const double when = fj_lwl_top_time(l);
            storq_fj_lwl_pop(l);
            if (c->load == FJ_LOAD_JOBS)
                storq_fj_lwl_set(l, G, (double)--s->jobs[G]);
            else if (s->Dlast[G] == when)
                storq_fj_lwl_set(l, G, -INFINITY);
        }
        uint64_t ties;
        storq_fj_lwl_min(l, &ties);
        return storq_fj_lwl_rank(l, ties > 1 ? storq_rng_below(&s->tie, ties) : 0);
    }
    }
}

/* A job departing at D was sent to group G: the least-loaded tree learns its new load. */
static int fj_lwl_assigned(const fj_ctx *c, fj_system *s, uint64_t G, double D)
{
    if (c->load == FJ_LOAD_JOBS)
        storq_fj_lwl_set(&s->lwl, G, (double)++s->jobs[G]);
    else
        storq_fj_lwl_set(&s->lwl, G, D);
    return storq_fj_lwl_push(&s->lwl, D, G);
}

/* Serve a job arriving at t in group G with task times x; returns its departure time and adds the
 * node busy time it caused to *busy. F is scratch of n doubles. The two passes over the nodes are
 * branch-free and alias-free (restrict), so the compiler vectorises them; the busy times are
 * summed in node order afterwards, as floating addition is not associative. */
static double fj_serve(const fj_ctx *c, fj_system *s, uint64_t G, double t,
                       const double *restrict x, double *restrict F, double *busy)
{
    const size_t n = (size_t)c->n;
    double *restrict E = s->E + G * n;
    for (size_t i = 0; i < n; i++)
        F[i] = (E[i] > t ? E[i] : t) + x[i];
    const double D = storq_kth_smallest(F, n, (size_t)c->k);
    for (size_t i = 0; i < n; i++) {
        const double S = E[i] > t ? E[i] : t;
        const double f = S + x[i] < D ? S + x[i] : D;
        const double w = f - S;
        F[i] = w > 0.0 ? w : 0.0; /* F's values are spent: it now holds the busy times */
        E[i] = E[i] > f ? E[i] : f;
    }
    double b = 0.0;
    for (size_t i = 0; i < n; i++)
        b += F[i];
    *busy = b;
    s->Dlast[G] = D;
    return D;
}

/* n node parts X_i of the family: storq_dist_sample's draws, with the family's branch taken once
 * per job instead of once per task (exponential inline, deterministic without a call). */
static void fj_draw_parts(const fj_ctx *c, storq_rng *rng, double *x, size_t n)
{
    const double scale = c->scale;
    switch (c->law.kind) {
    case STORQ_DIST_EXP: {
        const double rate = c->law.p[0];
        for (size_t i = 0; i < n; i++)
            x[i] = scale * storq_rng_exp(rng, rate);
        return;
    }
    case STORQ_DIST_DET:
        for (size_t i = 0; i < n; i++)
            x[i] = scale * c->law.p[0];
        return;
    default:
        for (size_t i = 0; i < n; i++)
            x[i] = scale * storq_dist_sample(&c->law, rng);
    }
}

static void fj_rebase(const fj_ctx *c, fj_system *s, double t)
{
    for (uint64_t i = 0; i < c->g * c->n; i++)
        s->E[i] -= t;
    if (s->has_lwl)
        storq_fj_lwl_shift(&s->lwl, t, c->load == FJ_LOAD_WORK);
    for (uint64_t G = 0; G < c->g; G++) {
        s->Dlast[G] -= t;
        if (s->q)
            for (size_t i = 0; i < s->q[G].len; i++)
                s->q[G].d[(s->q[G].head + i) & (s->q[G].cap - 1)] -= t;
    }
}

/* Group G's share of the measured jobs (which = 0) or its utilisation (which = 1), as the full
 * vectors and their summary both hold it. */
static double fj_group_value(const fj_ctx *c, const fj_system *s, uint64_t G, int which,
                             double Tmeas)
{
    return which == 0 ? (double)s->count[G] / (double)c->run.arrivals
                      : s->busy[G] / ((double)c->n * Tmeas);
}

/* The summary of one per-group vector, computed from the per-group counters without storing the
 * vector: every group's value into the histogram (in group order), the largest value, and the
 * standard deviation across the g groups (two passes, population form: the groups are all there
 * are). */
static void fj_group_summary(const fj_ctx *c, const fj_system *s, int which, double Tmeas,
                             storq_record *rec, int hist, int max, int sd)
{
    storq_hist h = storq_record_hist(rec, hist);
    double sum = 0.0, top = -INFINITY;
    for (uint64_t G = 0; G < c->g; G++) {
        const double v = fj_group_value(c, s, G, which, Tmeas);
        storq_hist_add(&h, v);
        sum += v;
        top = v > top ? v : top;
    }
    /* in units of 2^k near the largest value (exact): squares at time scales like 1e-200
     * would underflow to an sd of 0 */
    int k = 0;
    if (isfinite(top))
        frexp(top, &k);
    const double mean = ldexp(sum / (double)c->g, -k);
    double ss = 0.0;
    for (uint64_t G = 0; G < c->g; G++) {
        const double d = ldexp(fj_group_value(c, s, G, which, Tmeas), -k) - mean;
        ss += d * d;
    }
    storq_record_scalar(rec, max, top);
    storq_record_scalar(rec, sd, ldexp(sqrt(ss / (double)c->g), k));
}

int storq_fj_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                 storq_error *err)
{
    const fj_ctx *c = vctx;
    const size_t n = (size_t)c->n;
    const double delta = c->delta, scale = c->scale;
    const int nsys = c->companion ? 2 : 1;
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng shared = storq_rng_stream(key, STORQ_STREAM_SIZES);
    storq_rng svc = storq_rng_stream(key, STORQ_STREAM_SERVICE);

    fj_system sys[2];
    memset(sys, 0, sizeof sys);
    double *x = malloc(sizeof *x * n * 3);
    uint64_t *cand = malloc(sizeof *cand * (c->assign == FJ_ASSIGN_POD ? c->pod_d : 1));
    int rc = STORQ_OK;
    if (!x || !cand)
        goto oom;
    double *x0 = x + n, *F = x + 2 * n;
    for (int si = 0; si < nsys; si++) {
        if (fj_system_init(&sys[si], c))
            goto oom;
        sys[si].tie = storq_rng_stream(key, si == 0 ? STORQ_STREAM_TIES : STORQ_STREAM_EXTRA);
        sys[si].resp = storq_record_hist(rec, si == 0 ? c->id.resp : c->id.resp0);
    }

    const uint64_t total = c->run.warmup + c->run.arrivals;
    const uint64_t half = c->run.warmup + storq_steady_half(c->run.arrivals);
    double half_sum = 0.0; /* the main system's responses of the jobs before `half` */
    double t = 0.0, Tmeas = 0.0;
    uint64_t since = 0;
    cand[0] = 0;
    for (uint64_t j = 0; j < total; j++) {
        if (storq_stop_due(j)) {
            rc = storq_stopped(err);
            goto done;
        }
        if (j == half)
            half_sum = sys[0].sum;
        const double tau = storq_rng_exp(&arr, c->lambda);
        t += tau;
        since++;
        const int meas = j >= c->run.warmup;
        if (meas && j > c->run.warmup)
            Tmeas += tau;
        if (storq_clock_due(&c->clock, t, since)) {
            for (int si = 0; si < nsys; si++)
                fj_rebase(c, &sys[si], t);
            t = 0.0;
            since = 0;
        }
        if (c->g > 1) {
            if (c->assign == FJ_ASSIGN_UNIFORM)
                cand[0] = storq_rng_below(&rte, c->g);
            else if (c->assign == FJ_ASSIGN_POD)
                storq_rng_sample_distinct_fast(&rte, c->g, (unsigned)c->pod_d, cand);
        }
        uint64_t G[2];
        for (int si = 0; si < nsys; si++)
            G[si] = fj_choose(c, &sys[si], cand, t);

        /* task times: the shared part, then the node parts in node order */
        if (delta == 0.0) {
            fj_draw_parts(c, &svc, x, n);
        } else {
            const double xd = scale * storq_dist_sample(&c->law, &shared);
            if (delta == 1.0) {
                for (size_t i = 0; i < n; i++)
                    x[i] = xd;
            } else {
                fj_draw_parts(c, &svc, x0, n);
                for (size_t i = 0; i < n; i++)
                    x[i] = delta * xd + (1.0 - delta) * x0[i];
            }
        }
        for (int si = 0; si < nsys; si++) {
            fj_system *s = &sys[si];
            double busy;
            const double D = fj_serve(c, s, G[si], t, si == 0 ? x : x0, F, &busy);
            if (s->q && fj_fifo_push(&s->q[G[si]], D))
                goto oom;
            if (s->has_lwl && fj_lwl_assigned(c, s, G[si], D))
                goto oom;
            if (meas) {
                const double T = D - t;
                storq_hist_add(&s->resp, T);
                s->sum += T;
                s->busy[G[si]] += busy;
                s->count[G[si]]++;
            }
        }
    }

    const double N = (double)c->run.arrivals;
    storq_record_scalar(rec, c->id.mean, sys[0].sum / N);
    if (c->companion)
        storq_record_scalar(rec, c->id.mean0, sys[1].sum / N);
    double busy_all = 0.0;
    for (uint64_t G = 0; G < c->g; G++)
        busy_all += sys[0].busy[G];
    if (c->group_full) {
        double *share = storq_record_vector(rec, c->id.share);
        double *gutil = storq_record_vector(rec, c->id.gutil);
        for (uint64_t G = 0; G < c->g; G++) {
            share[G] = fj_group_value(c, &sys[0], G, 0, Tmeas);
            gutil[G] = fj_group_value(c, &sys[0], G, 1, Tmeas);
        }
    }
    if (c->group_summary) {
        fj_group_summary(c, &sys[0], 0, Tmeas, rec, c->id.share_hist, c->id.share_max,
                         c->id.share_sd);
        fj_group_summary(c, &sys[0], 1, Tmeas, rec, c->id.gutil_hist, c->id.gutil_max,
                         c->id.gutil_sd);
    }
    storq_record_scalar(rec, c->id.util, busy_all / ((double)n * (double)c->g * Tmeas));
    /* the steady-state check: the mean response over each half of the measured jobs */
    const uint64_t n1 = storq_steady_half(c->run.arrivals), n2 = c->run.arrivals - n1;
    storq_steady_record(rec, &c->steady, n1 ? half_sum / (double)n1 : NAN,
                        (sys[0].sum - half_sum) / (double)n2);
    rec->events += total;
    goto done;
oom:
    rc = STORQ_RUNTIME_FAIL(err, "out of memory (%llu groups of %llu nodes)",
                            (unsigned long long)c->g, (unsigned long long)c->n);
done:
    for (int si = 0; si < nsys; si++)
        fj_system_free(&sys[si], c->g);
    free(x);
    free(cand);
    return rc;
}
