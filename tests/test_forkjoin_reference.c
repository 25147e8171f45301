/* Differential test of the `forkjoin` kernel: a plain event-driven implementation of (n,k)
 * fork-join with cancellation in g groups, written independently here and fed the same random
 * numbers (the streams and draw order of the contract in forkjoin_internal.h), must give the same
 * observables -- floating values to a relative 1e-9 (a histogram's min and max, single
 * differences of clock readings, also to 1e-9 of the mean task time), histogram counts exactly.
 *
 * The kernel never stores a queue: it runs the vector recursion S_i = max(A, E_i), F_i = S_i + x_i,
 * D = k-th smallest F_i, E_i = max(E_i, min(F_i, D)) job by job, knows a job's departure time at
 * its arrival (and so the groups' work and job counts), and rebases its clock every few thousand
 * arrivals. The reference instead keeps, for every node of every group, an explicit FIFO list of
 * task records (job, service time, start of service for the head), and runs a global event loop
 * on one never-rebased clock kept in long double (so that T = D - A late in a run is not worse
 * than the kernel's): before each arrival it processes, in time order, every task
 * completion at or before the arrival instant (found by a linear scan of the heads of all nodes,
 * lowest index first on equal times). A completion ends the head task, starts the next one at
 * that instant and counts one more finished task for its job; at the k-th the job departs: its
 * other tasks are searched for in every queue of the group and deleted -- a waiting one simply
 * removed, the one in service cut at the departure instant, its node starting its next task then.
 * A task of the job that would finish exactly at the departure instant is ended there too (it
 * makes no difference: its busy time is the same either way). Busy time of a task is the time from
 * the start of its service to its end (finish or cut). The group loads for pod/lwl are read off
 * this explicit state at the arrival instant: `jobs` = jobs of the group that have arrived and not
 * yet departed; `work` = the time until the group would be empty with no more arrivals, obtained
 * by copying the group's queues and running that copy forward through its events until its last
 * job departs (an honest look-ahead, not the kernel's remembered departure time). Group draws and
 * tie rules follow the contract (uniform: storq_rng_below; pod:D: the first candidate in drawn
 * order with strictly least load; lwl: the r-th least-loaded group in index order, r drawn from
 * TIES -- EXTRA for the companion). When 0 < delta < 1 a second, independent event-driven system
 * with the node parts X_i as task times runs on the same arrivals and group draws.
 *
 * Note: with FCFS nodes that all see a group's jobs in the same order, a job departs only after
 * every earlier job of its group has (strictly later, task times being > 0), so when it departs
 * its unfinished tasks are all at the heads of their queues: cancellation only ever cuts tasks in
 * service. The reference still searches whole queues and prints how many waiting tasks it removed
 * (always 0) next to how many it cut.
 *
 * Finally, mutated references (no cancellation; departure at the (k+1)-th task; lwl ties always
 * to the first least-loaded group; lwl on the other load) must disagree with the kernel: the
 * comparison can fail. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "distribution.h"
#include "model_run.h"
#include "rng.h"


#define SEED 20250611u
#define REL_TOL 1e-9

typedef struct config {
    const char *label;
    long n, k, g;
    double lambda, mu, delta;
    const char *service; /* as given to the kernel: exp, det, pareto:A, shexp:F, trace:PATH */
    const char *assign;  /* uniform, pod:D, lwl */
    const char *load;    /* jobs, work */
    long warmup, arrivals;
} config;

/* Ways to break the reference on purpose (it must then disagree with the kernel). */
enum { MUT_NONE, MUT_NO_CANCEL, MUT_K_PLUS_1, MUT_TIE_FIRST, MUT_OTHER_LOAD };

static void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return q;
}

/* ------------------------------------------------------------------ the kernel */

static int kernel_setup(model_run *r, const config *cf)
{
    model_run_init(r, &storq_model_forkjoin);
    model_setl(&r->p, "n", cf->n);
    model_setl(&r->p, "k", cf->k);
    model_setl(&r->p, "groups", cf->g);
    model_setd(&r->p, "lambda", cf->lambda);
    model_setd(&r->p, "mu", cf->mu);
    model_setd(&r->p, "correlation", cf->delta);
    model_set(&r->p, "service", cf->service);
    model_set(&r->p, "assign", cf->assign);
    model_set(&r->p, "load", cf->load);
    model_setl(&r->p, "warmup", cf->warmup);
    model_setl(&r->p, "arrivals", cf->arrivals);
    if (model_run_prepare(r)) {
        fprintf(stderr, "%s: the kernel refuses the point\n", cf->label);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ the reference */

/* The reference's clock: extended precision, since it is never rebased (T = D - A late in a run
 * would otherwise carry the rounding of a large clock reading). */
typedef long double rtime;

typedef struct task {
    uint64_t job;
    double x;    /* service time */
    rtime start; /* start of service; meaningful for the head of its queue only */
    int meas;     /* its job is measured (kept here so a task outliving its job still counts) */
} task;

typedef struct queue {
    task *a; /* a[0] is in service, a[1..] wait, in arrival order */
    size_t len, cap;
} queue;

typedef struct rjob {
    uint64_t id;
    rtime A;
    long done; /* tasks finished */
    int meas;
} rjob;

typedef struct group {
    queue *q;   /* n node queues */
    rjob *job;  /* jobs present, in arrival order */
    size_t njob, cap;
} group;

/* What a system measures; the look-ahead copy records nothing (NULL). */
typedef struct tally {
    storq_hist resp;
    rtime sum;
    rtime *busy;     /* g */
    uint64_t *count; /* g */
    uint64_t cut, finished_at_d, dropped, tie_draws;
    uint64_t half;      /* jobs j >= half (by arrival) are in the second half of the window */
    rtime half_sum[2];  /* responses of each half, summed as jobs depart */
} tally;

typedef struct rsys {
    long n, g, kdep;
    int cancel, tie_first, load_work;
    group *grp;
    group look; /* scratch copy for the `work` look-ahead */
    storq_rng ties;
    tally tl;
} rsys;

static void q_push(queue *q, task t)
{
    if (q->len == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 8;
        q->a = xrealloc(q->a, q->cap * sizeof *q->a);
    }
    q->a[q->len++] = t;
}

static void q_erase(queue *q, size_t p)
{
    memmove(q->a + p, q->a + p + 1, (q->len - p - 1) * sizeof *q->a);
    q->len--;
}

/* The earliest completion among the group's nodes in service (lowest node on equal times). */
static rtime grp_next(const group *G, long n, long *node)
{
    rtime best = HUGE_VALL;
    for (long i = 0; i < n; i++) {
        const queue *q = &G->q[i];
        if (q->len && q->a[0].start + q->a[0].x < best) {
            best = q->a[0].start + q->a[0].x;
            *node = i;
        }
    }
    return best;
}

/* Job ji of group G (index gi) departs at D: its remaining tasks leave every queue. */
static void grp_depart(group *G, const rsys *s, long gi, size_t ji, rtime D, tally *tl)
{
    const rjob J = G->job[ji];
    if (s->cancel) {
        for (long i = 0; i < s->n; i++) {
            queue *q = &G->q[i];
            for (size_t p = 0; p < q->len; p++) {
                if (q->a[p].job != J.id)
                    continue;
                if (p == 0) { /* in service: cut now, the next task starts now */
                    if (tl) {
                        if (J.meas)
                            tl->busy[gi] += D - q->a[0].start;
                        if (q->a[0].start + q->a[0].x <= D)
                            tl->finished_at_d++;
                        else
                            tl->cut++;
                    }
                    q_erase(q, 0);
                    if (q->len)
                        q->a[0].start = D;
                } else { /* waiting: never started, no busy time */
                    if (tl)
                        tl->dropped++;
                    q_erase(q, p);
                }
                break;
            }
        }
    }
    if (tl && J.meas) {
        const rtime T = D - J.A;
        storq_hist_add(&tl->resp, (double)T);
        tl->sum += T;
        tl->half_sum[J.id >= tl->half] += T;
    }
    memmove(G->job + ji, G->job + ji + 1, (G->njob - ji - 1) * sizeof *G->job);
    G->njob--;
}

/* The head task of node i of group G completes at tc. */
static void grp_complete(group *G, const rsys *s, long gi, long i, rtime tc, tally *tl)
{
    queue *q = &G->q[i];
    const task t = q->a[0];
    if (tl && t.meas)
        tl->busy[gi] += tc - t.start;
    q_erase(q, 0);
    if (q->len)
        q->a[0].start = tc;
    for (size_t ji = 0; ji < G->njob; ji++) {
        if (G->job[ji].id == t.job) {
            if (++G->job[ji].done == s->kdep)
                grp_depart(G, s, gi, ji, tc, tl);
            return;
        }
    }
    /* not found: its job already left (only without cancellation) */
}

/* Process every completion of the system at or before `until` (HUGE_VAL: until all is done),
 * earliest first across all groups. */
static void sys_advance(rsys *s, rtime until)
{
    for (;;) {
        rtime best = HUGE_VALL;
        long bg = -1, bn = -1;
        for (long gi = 0; gi < s->g; gi++) {
            long node = -1;
            rtime tc = grp_next(&s->grp[gi], s->n, &node);
            if (tc < best) {
                best = tc;
                bg = gi;
                bn = node;
            }
        }
        if (bg < 0 || best > until)
            return;
        grp_complete(&s->grp[bg], s, bg, bn, best, &s->tl);
    }
}

/* `work` of group gi at t: copy its queues and jobs, run the copy with no more arrivals until its
 * last job departs. */
static rtime grp_work(rsys *s, long gi, rtime t)
{
    const group *G = &s->grp[gi];
    group *L = &s->look;
    if (G->njob == 0)
        return 0.0;
    for (long i = 0; i < s->n; i++) {
        if (L->q[i].cap < G->q[i].len) {
            L->q[i].cap = G->q[i].len;
            L->q[i].a = xrealloc(L->q[i].a, L->q[i].cap * sizeof *L->q[i].a);
        }
        if (G->q[i].len) /* (an empty queue may have no array yet) */
            memcpy(L->q[i].a, G->q[i].a, G->q[i].len * sizeof *G->q[i].a);
        L->q[i].len = G->q[i].len;
    }
    if (L->cap < G->njob) {
        L->cap = G->njob;
        L->job = xrealloc(L->job, L->cap * sizeof *L->job);
    }
    memcpy(L->job, G->job, G->njob * sizeof *G->job);
    L->njob = G->njob;
    rtime last = t;
    while (L->njob > 0) {
        long node = -1;
        rtime tc = grp_next(L, s->n, &node);
        if (tc == HUGE_VALL)
            abort(); /* jobs left but no task: cannot happen */
        grp_complete(L, s, gi, node, tc, NULL);
        last = tc;
    }
    return last > t ? last - t : 0.0;
}

static rtime grp_load(rsys *s, long gi, rtime t)
{
    return s->load_work ? grp_work(s, gi, t) : (rtime)s->grp[gi].njob;
}

/* The group of a job arriving at t; cand: the uniform draw in cand[0], or the pod:D draw. */
static long choose(rsys *s, int assign, long pod_d, const uint64_t *cand, rtime t, rtime *loads)
{
    if (s->g == 1)
        return 0;
    if (assign == 0)
        return (long)cand[0];
    if (assign == 1) {
        long best = (long)cand[0];
        rtime bl = grp_load(s, best, t);
        for (long j = 1; j < pod_d; j++) {
            rtime l = grp_load(s, (long)cand[j], t);
            if (l < bl) { /* strictly: the earlier drawn candidate keeps a tie */
                bl = l;
                best = (long)cand[j];
            }
        }
        return best;
    }
    rtime bl = HUGE_VALL;
    for (long gi = 0; gi < s->g; gi++) {
        loads[gi] = grp_load(s, gi, t);
        bl = loads[gi] < bl ? loads[gi] : bl;
    }
    uint64_t c = 0;
    for (long gi = 0; gi < s->g; gi++)
        c += loads[gi] == bl;
    uint64_t r = 0;
    if (c > 1 && !s->tie_first) {
        r = storq_rng_below(&s->ties, c);
        s->tl.tie_draws++;
    }
    for (long gi = 0; gi < s->g; gi++)
        if (loads[gi] == bl && r-- == 0)
            return gi;
    abort();
}

static void grp_add(group *G, long n, uint64_t id, rtime A, int meas, const double *x)
{
    if (G->njob == G->cap) {
        G->cap = G->cap ? 2 * G->cap : 8;
        G->job = xrealloc(G->job, G->cap * sizeof *G->job);
    }
    G->job[G->njob++] = (rjob){.id = id, .A = A, .done = 0, .meas = meas};
    for (long i = 0; i < n; i++)
        q_push(&G->q[i], (task){.job = id, .x = x[i], .start = A, .meas = meas});
    /* .start matters only where the task is the head, i.e. the node was idle: it starts at A */
}

static void sys_init(rsys *s, const config *cf, int mut, int load_work, storq_rng ties)
{
    memset(s, 0, sizeof *s);
    s->n = cf->n;
    s->g = cf->g;
    s->kdep = mut == MUT_K_PLUS_1 ? cf->k + 1 : cf->k;
    s->cancel = mut != MUT_NO_CANCEL;
    s->tie_first = mut == MUT_TIE_FIRST;
    s->load_work = load_work;
    s->ties = ties;
    s->grp = calloc((size_t)s->g, sizeof *s->grp);
    for (long gi = 0; gi < s->g; gi++)
        s->grp[gi].q = calloc((size_t)s->n, sizeof(queue));
    s->look.q = calloc((size_t)s->n, sizeof(queue));
    s->tl.busy = calloc((size_t)s->g, sizeof(rtime));
    s->tl.count = calloc((size_t)s->g, sizeof(uint64_t));
}

static void grp_free(group *G, long n)
{
    for (long i = 0; i < n; i++)
        free(G->q[i].a);
    free(G->q);
    free(G->job);
}

static void sys_free(rsys *s)
{
    for (long gi = 0; gi < s->g; gi++)
        grp_free(&s->grp[gi], s->n);
    free(s->grp);
    grp_free(&s->look, s->n);
    free(s->tl.busy);
    free(s->tl.count);
}

static int obs_id(const storq_observables *obs, const char *name)
{
    const storq_obs_def *d = storq_obs_find(obs, name);
    if (!d) {
        fprintf(stderr, "no observable %s\n", name);
        abort();
    }
    return (int)(d - obs->defs);
}

/* The service law the contract prescribes, at mean 1/(k mu); *scale is 1 except for traces. */
static void ref_law(const config *cf, storq_dist *law, double *scale)
{
    const double mean = 1.0 / ((double)cf->k * cf->mu);
    char spec[300];
    const char *s = cf->service;
    if (strcmp(s, "exp") == 0)
        snprintf(spec, sizeof spec, "exp:%.17g", 1.0 / mean);
    else if (strcmp(s, "det") == 0)
        snprintf(spec, sizeof spec, "det:%.17g", mean);
    else if (strncmp(s, "pareto:", 7) == 0)
        snprintf(spec, sizeof spec, "pareto:%.17g,%.17g", atof(s + 7), mean);
    else if (strncmp(s, "shexp:", 6) == 0) {
        const double f = atof(s + 6);
        snprintf(spec, sizeof spec, "shexp:%.17g,%.17g", f * mean, 1.0 / ((1.0 - f) * mean));
    } else
        snprintf(spec, sizeof spec, "%s", s); /* trace:PATH */
    storq_error err = {0};
    if (storq_dist_parse(spec, "service", law, &err)) {
        fprintf(stderr, "reference law %s: %s\n", spec, err.msg);
        abort();
    }
    *scale = strncmp(s, "trace:", 6) == 0 ? mean / law->mean : 1.0;
}

typedef struct ref_counts {
    uint64_t cut, finished_at_d, dropped, tie_draws;
} ref_counts;

/* Simulate one replication into rec (a record with the kernel's schema). */
static void reference(const config *cf, int mut, const storq_observables *obs, uint64_t rep,
                      storq_record *rec, ref_counts *out)
{
    storq_stream_key key = {.seed = SEED, .point = 0, .replication = rep};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(&key, STORQ_STREAM_ROUTING);
    storq_rng shared = storq_rng_stream(&key, STORQ_STREAM_SIZES);
    storq_rng svc = storq_rng_stream(&key, STORQ_STREAM_SERVICE);
    storq_dist law;
    double scale;
    ref_law(cf, &law, &scale);
    const long n = cf->n, g = cf->g;
    const double delta = cf->delta;
    const int two = delta > 0.0 && delta < 1.0;
    const int assign = strcmp(cf->assign, "uniform") == 0 ? 0
                       : strncmp(cf->assign, "pod:", 4) == 0 ? 1
                                                             : 2;
    const long pod_d = assign == 1 ? atol(cf->assign + 4) : 1;
    const int load_work = (strcmp(cf->load, "work") == 0) != (mut == MUT_OTHER_LOAD);

    rsys sys[2];
    sys_init(&sys[0], cf, mut, load_work, storq_rng_stream(&key, STORQ_STREAM_TIES));
    sys[0].tl.resp = storq_record_hist(rec, obs_id(obs, "response_time"));
    if (two) {
        /* the companion is never mutated: a mutation must show in the main system */
        sys_init(&sys[1], cf, MUT_NONE, load_work, storq_rng_stream(&key, STORQ_STREAM_EXTRA));
        sys[1].tl.resp = storq_record_hist(rec, obs_id(obs, "uncorrelated_response_time"));
    }
    const int nsys = two ? 2 : 1;
    double *x = malloc(sizeof *x * (size_t)n), *xi = malloc(sizeof *xi * (size_t)n);
    rtime *loads = malloc(sizeof *loads * (size_t)g);
    uint64_t *cand = calloc((size_t)pod_d, sizeof *cand);

    const long total = cf->warmup + cf->arrivals;
    sys[0].tl.half = (uint64_t)(cf->warmup + cf->arrivals / 2);
    rtime t = 0.0, Tmeas = 0.0;
    for (long j = 0; j < total; j++) {
        const double tau = storq_rng_exp(&arr, cf->lambda);
        t += tau;
        const int meas = j >= cf->warmup;
        if (meas && j > cf->warmup)
            Tmeas += tau;
        /* the event loop up to the arrival: completions at or before t come first */
        for (int si = 0; si < nsys; si++)
            sys_advance(&sys[si], t);
        if (g > 1) {
            if (assign == 0)
                cand[0] = storq_rng_below(&rte, (uint64_t)g);
            else if (assign == 1)
                storq_rng_sample_distinct_fast(&rte, (uint64_t)g, (unsigned)pod_d, cand);
        }
        long G[2];
        for (int si = 0; si < nsys; si++)
            G[si] = choose(&sys[si], assign, pod_d, cand, t, loads);
        double xd = 0.0;
        if (delta > 0.0)
            xd = scale * storq_dist_sample(&law, &shared);
        if (delta < 1.0)
            for (long i = 0; i < n; i++)
                xi[i] = scale * storq_dist_sample(&law, &svc);
        for (long i = 0; i < n; i++)
            x[i] = delta == 0.0 ? xi[i] : delta == 1.0 ? xd : delta * xd + (1.0 - delta) * xi[i];
        for (int si = 0; si < nsys; si++) {
            grp_add(&sys[si].grp[G[si]], n, (uint64_t)j, t, meas, si == 0 ? x : xi);
            if (meas)
                sys[si].tl.count[G[si]]++;
        }
    }
    for (int si = 0; si < nsys; si++) /* no more arrivals: run until every queue is empty */
        sys_advance(&sys[si], HUGE_VALL);

    const double N = (double)cf->arrivals;
    storq_record_scalar(rec, obs_id(obs, "mean_response_time"), (double)(sys[0].tl.sum / N));
    const rtime n1 = (rtime)(cf->arrivals / 2), n2 = (rtime)cf->arrivals - n1;
    storq_record_scalar(rec, obs_id(obs, "warmup_first_half_mean"),
                        n1 > 0 ? (double)(sys[0].tl.half_sum[0] / n1) : NAN);
    storq_record_scalar(rec, obs_id(obs, "warmup_second_half_mean"),
                        (double)(sys[0].tl.half_sum[1] / n2));
    if (two)
        storq_record_scalar(rec, obs_id(obs, "uncorrelated_mean_response_time"),
                            (double)(sys[1].tl.sum / N));
    double *share = storq_record_vector(rec, obs_id(obs, "group_share"));
    double *gutil = storq_record_vector(rec, obs_id(obs, "group_utilisation"));
    rtime all = 0.0;
    for (long gi = 0; gi < g; gi++) {
        share[gi] = (double)sys[0].tl.count[gi] / N;
        gutil[gi] = (double)(sys[0].tl.busy[gi] / ((rtime)n * Tmeas));
        all += sys[0].tl.busy[gi];
    }
    storq_record_scalar(rec, obs_id(obs, "utilisation"),
                        (double)(all / ((rtime)n * (rtime)g * Tmeas)));
    if (out) {
        memset(out, 0, sizeof *out);
        for (int si = 0; si < nsys; si++) {
            out->cut += sys[si].tl.cut;
            out->finished_at_d += sys[si].tl.finished_at_d;
            out->dropped += sys[si].tl.dropped;
            out->tie_draws += sys[si].tl.tie_draws;
        }
    }
    for (int si = 0; si < nsys; si++)
        sys_free(&sys[si]);
    free(x);
    free(xi);
    free(loads);
    free(cand);
    storq_dist_free(&law);
}

/* ------------------------------------------------------------------ comparison */

static int close_rel(double a, double b, double tol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b || fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* The largest relative difference over all values (scalars, vectors, histogram sums). */
static double max_rel_diff(const storq_observables *obs, const storq_record *kr,
                           const storq_record *rr)
{
    double m = 0.0;
    for (size_t v = 0; v < obs->nvalues; v++) {
        double a = kr->values[v], b = rr->values[v];
        if (a != b)
            m = fmax(m, fabs(a - b) / fmax(fabs(a), fabs(b)));
    }
    return m;
}

/* Number of disagreeing entries; the first few are printed unless quiet. Values to a relative
 * REL_TOL, counts exactly. A histogram's min and max are single response times D - A, whose
 * rounding is absolute (that of the kernel's clock reading, up to a few thousand mean
 * inter-arrival times between rebases): they may also differ by REL_TOL of the time scale
 * `tscale` (the mean task time), which matters for the smallest T only. */
static int compare_records(const char *label, const storq_observables *obs,
                           const storq_record *kr, const storq_record *rr, double tscale,
                           int quiet)
{
    int bad = 0;
    for (size_t d = 0; d < obs->ndefs; d++) {
        const storq_obs_def *def = &obs->defs[d];
        for (size_t i = 0; i < def->length; i++) {
            double a = kr->values[def->value_offset + i], b = rr->values[def->value_offset + i];
            if (!close_rel(a, b, REL_TOL) && bad++ < 5 && !quiet)
                fprintf(stderr, "%s: %s[%zu]: kernel %.17g, reference %.17g\n", label,
                        def->name, i, a, b);
        }
        if (def->kind != STORQ_OBS_HIST)
            continue;
        for (size_t b = 0; b < def->nbins + 2; b++) {
            uint64_t ck = kr->counts[def->count_offset + b], cr = rr->counts[def->count_offset + b];
            if (ck != cr && bad++ < 5 && !quiet)
                fprintf(stderr, "%s: %s bin %zu: kernel %llu, reference %llu\n", label, def->name,
                        b, (unsigned long long)ck, (unsigned long long)cr);
        }
        for (int e = 0; e < 2; e++) {
            double a = kr->minmax[def->minmax_offset + e], b = rr->minmax[def->minmax_offset + e];
            if (!close_rel(a, b, REL_TOL) && !(fabs(a - b) <= REL_TOL * tscale) && bad++ < 5 &&
                !quiet)
                fprintf(stderr, "%s: %s %s: kernel %.17g, reference %.17g\n", label, def->name,
                        e ? "max" : "min", a, b);
        }
    }
    return bad;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double value_of(const storq_observables *obs, const storq_record *r, const char *name)
{
    return r->values[storq_obs_find(obs, name)->value_offset];
}

/* Kernel vs reference on `reps` replications; returns the reference counts of the last one. */
static ref_counts run_case(const config *cf, int reps)
{
    ref_counts rc = {0};
    model_run kr;
    if (kernel_setup(&kr, cf)) {
        CHECK(0);
        return rc;
    }
    const int two = cf->delta > 0.0 && cf->delta < 1.0;
    /* the companion's observables exist exactly when 0 < delta < 1 */
    CHECK((storq_obs_find(&kr.obs, "uncorrelated_mean_response_time") != NULL) == two);
    storq_record rr;
    storq_error err = {0};
    if (storq_record_init(&rr, &kr.obs, &err))
        abort();
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        if (model_run_replicate(&kr, SEED, 0, (uint64_t)r)) {
            CHECK(0);
            break;
        }
        CHECK_EQ_U64(kr.rec.events, (unsigned long long)(cf->warmup + cf->arrivals));
        storq_record_reset(&rr);
        reference(cf, MUT_NONE, &kr.obs, (uint64_t)r, &rr, &rc);
        char l[200];
        snprintf(l, sizeof l, "%s [rep %d]", cf->label, r);
        int bad = compare_records(l, &kr.obs, &kr.rec, &rr, 1.0 / ((double)cf->k * cf->mu), 0);
        CHECK(bad == 0);
        printf("%s %s: T %.6g (ref %.6g)", bad ? "FAIL" : "ok", l,
               value_of(&kr.obs, &kr.rec, "mean_response_time"),
               value_of(&kr.obs, &rr, "mean_response_time"));
        if (two)
            printf(", T0 %.6g (ref %.6g)",
                   value_of(&kr.obs, &kr.rec, "uncorrelated_mean_response_time"),
                   value_of(&kr.obs, &rr, "uncorrelated_mean_response_time"));
        printf(", util %.4f, max rel diff %.1e; cut %llu, ended at D %llu, waiting removed %llu,"
               " tie draws %llu (%.2f s)\n",
               value_of(&kr.obs, &kr.rec, "utilisation"), max_rel_diff(&kr.obs, &kr.rec, &rr),
               (unsigned long long)rc.cut,
               (unsigned long long)rc.finished_at_d, (unsigned long long)rc.dropped,
               (unsigned long long)rc.tie_draws, now() - t0);
        fflush(stdout);
    }
    storq_record_free(&rr);
    model_run_free(&kr);
    return rc;
}

/* A mutated reference must disagree with the kernel (else the comparison proves nothing). */
static void run_mutation(const config *cf, int mut, const char *what)
{
    model_run kr;
    if (kernel_setup(&kr, cf) || model_run_replicate(&kr, SEED, 0, 0)) {
        CHECK(0);
        return;
    }
    storq_record rr;
    storq_error err = {0};
    if (storq_record_init(&rr, &kr.obs, &err))
        abort();
    reference(cf, mut, &kr.obs, 0, &rr, NULL);
    int bad = compare_records(cf->label, &kr.obs, &kr.rec, &rr, 1.0 / ((double)cf->k * cf->mu), 1);
    const double tk = value_of(&kr.obs, &kr.rec, "mean_response_time");
    const double tr = value_of(&kr.obs, &rr, "mean_response_time");
    CHECK(bad > 0);
    CHECK(!close_rel(tk, tr, REL_TOL));
    printf("%s mutation (%s) on %s: kernel T %.6g, mutated reference T %.6g, %d mismatches\n",
           bad > 0 && !close_rel(tk, tr, REL_TOL) ? "ok" : "FAIL", what, cf->label, tk, tr, bad);
    storq_record_free(&rr);
    model_run_free(&kr);
}

static char *write_trace(void)
{
    static char path[] = "/tmp/storq_fjref_traceXXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        abort();
    }
    FILE *f = fdopen(fd, "w");
    /* a lumpy empirical law: a few short reads and a slow tail */
    fputs("# task times\n0.35\n1.7\n0.9\n2.6\n0.05\n1.1\n0.6\n7.3\n", f);
    fclose(f);
    return path;
}

int main(void)
{
    const double t0 = now();
    char *trace = write_trace();
    char trace_spec[64];
    snprintf(trace_spec, sizeof trace_spec, "trace:%s", trace);
    const double mu = 3.0; /* task means 1/(3k): never a histogram bin edge (det, delta = 1) */
    /* lambda is the total rate. A group's capacity: n mu for exp tasks with delta = 0 (exact), k mu
     * for det or delta = 1 (lock-step); the other cases stay below n mu and 1/E[S]. */
    const config cases[] = {
        /* single groups: the (n,k) shapes; the high-load one keeps long queues */
        {"(1,1) exp g=1, M/M/1 at 0.8", 1, 1, 1, 0.8 * 1 * mu, mu, 0, "exp", "uniform", "work",
         300, 20000},
        {"(3,1) exp g=1 at 0.7", 3, 1, 1, 0.7 * 3 * mu, mu, 0, "exp", "uniform", "work", 300,
         20000},
        {"(3,2) exp g=1 high load 0.9 n mu", 3, 2, 1, 0.9 * 3 * mu, mu, 0, "exp", "uniform",
         "work", 500, 20000},
        {"(3,3) exp g=1 at 0.8", 3, 3, 1, 0.8 * 3 * mu, mu, 0, "exp", "uniform", "work", 300,
         20000},
        {"(10,5) exp g=1, delta 1 (lock-step) at 0.8 k mu", 10, 5, 1, 0.8 * 5 * mu, mu, 1.0,
         "exp", "uniform", "work", 300, 15000},
        {"(7,4) exp g=1, delta 0.5", 7, 4, 1, 0.6 * 7 * mu, mu, 0.5, "exp", "uniform", "work",
         300, 15000},
        /* uniform assignment, other families */
        {"(10,5) exp g=3 uniform at 0.85", 10, 5, 3, 0.85 * 3 * 10 * mu, mu, 0, "exp", "uniform",
         "work", 300, 15000},
        {"(7,4) trace g=3 uniform, delta 0.5", 7, 4, 3, 0.5 * 3 * 7 * mu, mu, 0.5, trace_spec,
         "uniform", "work", 300, 10000},
        {"(3,3) shexp:0.3 g=4 uniform", 3, 3, 4, 0.6 * 4 * 3 * mu, mu, 0, "shexp:0.3",
         "uniform", "jobs", 300, 15000},
        /* power of D: D = 2 of 3 (general sampler), 2 of 4 (inline sampler), 4 of 4 */
        {"(3,2) trace g=3 pod:2 work", 3, 2, 3, 0.6 * 3 * 3 * mu, mu, 0, trace_spec, "pod:2",
         "work", 300, 15000},
        {"(7,4) pareto:1.8 g=4 pod:2 work, delta 0.5", 7, 4, 4, 0.5 * 4 * 7 * mu, mu, 0.5,
         "pareto:1.8", "pod:2", "work", 300, 10000},
        {"(3,1) pareto:1.8 g=4 pod:2 jobs", 3, 1, 4, 0.5 * 4 * 3 * mu, mu, 0, "pareto:1.8",
         "pod:2", "jobs", 300, 15000},
        {"(3,2) exp g=4 pod:4 jobs, delta 0.5", 3, 2, 4, 0.7 * 4 * 3 * mu, mu, 0.5, "exp",
         "pod:4", "jobs", 300, 15000},
        {"(3,2) det g=4 pod:2 jobs (ties)", 3, 2, 4, 0.8 * 4 * 2 * mu, mu, 0, "det", "pod:2",
         "jobs", 300, 15000},
        {"(1,1) det g=3 pod:2 work", 1, 1, 3, 0.8 * 3 * mu, mu, 0, "det", "pod:2", "work", 300,
         15000},
        /* least work left / least jobs, with ties from TIES (and EXTRA for the companion) */
        {"(3,2) det g=4 lwl jobs (ties)", 3, 2, 4, 0.85 * 4 * 2 * mu, mu, 0, "det", "lwl",
         "jobs", 300, 15000},
        {"(3,2) shexp:0.3 g=3 lwl jobs", 3, 2, 3, 0.7 * 3 * 3 * mu, mu, 0, "shexp:0.3", "lwl",
         "jobs", 300, 15000},
        {"(3,2) shexp:0.3 g=3 lwl work, delta 0.5", 3, 2, 3, 0.7 * 3 * 3 * mu, mu, 0.5,
         "shexp:0.3", "lwl", "work", 300, 10000},
        {"(3,2) exp g=4 lwl work high load 0.9", 3, 2, 4, 0.9 * 4 * 3 * mu, mu, 0, "exp", "lwl",
         "work", 500, 15000},
        {"(7,4) exp g=4 lwl jobs, delta 0.5", 7, 4, 4, 0.6 * 4 * 7 * mu, mu, 0.5, "exp", "lwl",
         "jobs", 300, 10000},
        {"(10,5) det g=3 lwl work, delta 1", 10, 5, 3, 0.8 * 3 * 5 * mu, mu, 1.0, "det", "lwl",
         "work", 300, 10000},
        /* many groups, not a power of two: the kernel's least-loaded tree has padding leaves */
        {"(2,1) exp g=13 lwl jobs", 2, 1, 13, 0.8 * 13 * 2 * mu, mu, 0, "exp", "lwl", "jobs",
         300, 10000},
        {"(3,2) det g=37 lwl work", 3, 2, 37, 0.7 * 37 * 2 * mu, mu, 0, "det", "lwl", "work",
         300, 10000},
        {"(3,2) exp g=37 pod:3 jobs, delta 0.5", 3, 2, 37, 0.7 * 37 * 3 * mu, mu, 0.5, "exp",
         "pod:3", "jobs", 300, 10000},
    };
    enum { HIGH_LOAD = 2, DET_LWL = 15, LWL_WORK = 18 };
    const size_t ncases = sizeof cases / sizeof cases[0];
    ref_counts rc[sizeof cases / sizeof cases[0]];
    for (size_t c = 0; c < ncases; c++)
        rc[c] = run_case(&cases[c], 2);

    /* the cases meant to exercise cancellation and tie breaking do */
    CHECK(rc[HIGH_LOAD].cut > 0);
    CHECK(rc[DET_LWL].tie_draws > 0);

    /* the comparison can fail */
    run_mutation(&cases[HIGH_LOAD], MUT_NO_CANCEL, "no cancellation");
    run_mutation(&cases[HIGH_LOAD], MUT_K_PLUS_1, "departure at the (k+1)-th task");
    run_mutation(&cases[DET_LWL], MUT_TIE_FIRST, "lwl ties to the first least-loaded group");
    run_mutation(&cases[LWL_WORK], MUT_OTHER_LOAD, "lwl on jobs instead of work");

    unlink(trace);
    printf("total %.1f s\n", now() - t0);
    return check_report("test_forkjoin_reference");
}
