/* Differential test of the `proxy` kernel: a plain event-driven implementation of the proxy,
 * written independently here and fed the same random numbers (the streams and draw order of the
 * contract in kernels/proxy/internal.h), must give the same observables -- floating values to a
 * relative 1e-9, histogram counts exactly -- for every code policy, both admissions, one and two
 * classes, continuous, deterministic and trace delays (the last two make simultaneous
 * completions, whose order the contract fixes: end time, then thread id).
 *
 * The kernel keeps a heap of running threads with indexed removal, a min-heap of idle thread ids,
 * a task queue of request blocks, and time integrals updated at every event. The reference keeps
 * every request of the run in one array (with its own copy of its task delays), the request queue
 * and the task queue as explicit arrays of indices and (request, task) pairs, and the L threads as
 * plain arrays. Its next event is found by scanning all threads (the earliest end time, the lowest
 * thread on equal times) against the next arrival (a completion at the arrival's instant first);
 * an idle thread is found by scanning for the lowest idle id; a finished request's running tasks
 * are found by scanning all threads and its waiting tasks by scanning the whole task queue.
 * Busy time and backlog are summed per task and per request afterwards, each interval clipped to
 * the window [first measured arrival, last measured arrival], instead of integrated over time.
 *
 * The reference runs each policy alone, while the kernel runs them coupled: agreement also shows
 * that a policy's numbers do not depend on the others listed. BAFEC's thresholds are read from the
 * kernel's theory (the test of the dynamics; test_proxy_stats checks the thresholds).
 *
 * Finally, mutated references (running tasks not cancelled; BAFEC counting the head request in the
 * backlog; Greedy deciding at admission) must disagree with the kernel: the comparison can fail. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "distribution.h"
#include "model_run.h"
#include "rng.h"
#include "steady_state.h"

#define SEED 20261201u
#define REL_TOL 1e-9
#define MAXC 4
#define MAXN 64

enum { MUT_NONE, MUT_NO_CANCEL, MUT_BAFEC_HEAD, MUT_GREEDY_LATE, MUT_HALF_LATE };

typedef struct rclass {
    const char *name;
    double share;
    long k, nmax;
    const char *law;
} rclass;

typedef struct config {
    const char *label;
    long L;
    double lambda;
    int blocking;
    const char *code;   /* the kernel's --code */
    int nclass;
    rclass cls[MAXC];
    long warmup, arrivals;
} config;

/* ------------------------------------------------------------------ the kernel */

static int kernel_setup(model_run *r, const config *cf)
{
    model_run_init(r, &storq_model_proxy);
    model_setl(&r->p, "L", cf->L);
    model_setd(&r->p, "lambda", cf->lambda);
    model_set(&r->p, "admission", cf->blocking ? "blocking" : "nonblocking");
    model_set(&r->p, "code", cf->code);
    if (cf->nclass == 1) {
        model_setl(&r->p, "k", cf->cls[0].k);
        model_setl(&r->p, "nmax", cf->cls[0].nmax);
        model_set(&r->p, "delay", cf->cls[0].law);
    } else {
        char buf[1024] = "";
        for (int c = 0; c < cf->nclass; c++) {
            char one[256];
            snprintf(one, sizeof one, "%s%s:%.17g:%ld:%ld:%s", c ? ";" : "", cf->cls[c].name,
                     cf->cls[c].share, cf->cls[c].k, cf->cls[c].nmax, cf->cls[c].law);
            strncat(buf, one, sizeof buf - strlen(buf) - 1);
        }
        model_set(&r->p, "classes", buf);
    }
    model_setl(&r->p, "warmup", cf->warmup);
    model_setl(&r->p, "arrivals", cf->arrivals);
    if (model_run_prepare(r)) {
        fprintf(stderr, "%s: the kernel refuses the point\n", cf->label);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ observable ids */

/* The ids of one policy's observables in the kernel's schema. */
typedef struct rids {
    int delay, qdelay, sdelay, mean, qmean, smean, p99, p999, share, util, backlog, mean_backlog,
        throughput, diff;
    int first, second; /* the steady-state halves: only for the first listed policy, else -1 */
    int cdelay[MAXC], cmean[MAXC], cqmean[MAXC], csmean[MAXC], cp999[MAXC], cshare[MAXC];
} rids;

static int oid(const model_run *K, const char *P, const char *C, const char *suffix)
{
    char name[STORQ_NAME_MAX];
    if (C)
        snprintf(name, sizeof name, "%s_%s_%s", P, C, suffix);
    else
        snprintf(name, sizeof name, "%s_%s", P, suffix);
    return (int)(model_run_def(K, name) - K->obs.defs);
}

static void ids_of(const model_run *K, const config *cf, const char *P, rids *I)
{
    I->delay = oid(K, P, NULL, "delay");
    I->qdelay = oid(K, P, NULL, "queueing_delay");
    I->sdelay = oid(K, P, NULL, "service_delay");
    I->mean = oid(K, P, NULL, "mean_delay");
    I->qmean = oid(K, P, NULL, "mean_queueing_delay");
    I->smean = oid(K, P, NULL, "mean_service_delay");
    I->p99 = oid(K, P, NULL, "delay_p99");
    I->p999 = oid(K, P, NULL, "delay_p999");
    I->share = oid(K, P, NULL, "code_share");
    I->util = oid(K, P, NULL, "utilisation");
    I->backlog = oid(K, P, NULL, "backlog");
    I->mean_backlog = oid(K, P, NULL, "mean_backlog");
    I->throughput = oid(K, P, NULL, "throughput");
    I->first = I->second = -1;
    for (int c = 0; c < cf->nclass && cf->nclass > 1; c++) {
        const char *C = cf->cls[c].name;
        I->cdelay[c] = oid(K, P, C, "delay");
        I->cmean[c] = oid(K, P, C, "mean_delay");
        I->cqmean[c] = oid(K, P, C, "mean_queueing_delay");
        I->csmean[c] = oid(K, P, C, "mean_service_delay");
        I->cp999[c] = oid(K, P, C, "delay_p999");
        I->cshare[c] = oid(K, P, C, "code_share");
    }
}

/* ------------------------------------------------------------------ the reference */

typedef struct rreq {
    double A, S, F; /* arrival, admission, finish */
    int cls, meas, admitted, finished;
    long n, started, done;
    double x[MAXN];
    double tstart[MAXN], tend[MAXN]; /* per started task: start, and finish or cut */
} rreq;

typedef struct policy {
    int kind; /* 0 fixed, 1 greedy, 2 bafec */
    long n[MAXC];
    char name[32];
} policy;

typedef struct ref {
    const config *cf;
    const policy *pol;
    int mut;
    double Q[MAXC][MAXN]; /* BAFEC thresholds */
    rreq *req;
    size_t nreq, cap;
    size_t *rq, nrq;      /* request queue (indices) */
    size_t (*tq)[2];      /* task queue: (request, task) */
    size_t ntq;
    long *busy;           /* L: 1 when running */
    size_t *treq, *ttask;
    double *tend;
} ref;

static void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        abort();
    return q;
}

static long idle_count(const ref *R)
{
    long c = 0;
    for (long i = 0; i < R->cf->L; i++)
        c += !R->busy[i];
    return c;
}

/* Idle threads (lowest id first) take the head tasks of the task queue. */
static void dispatch(ref *R, double t)
{
    for (;;) {
        long th = -1;
        for (long i = 0; i < R->cf->L && th < 0; i++)
            if (!R->busy[i])
                th = i;
        if (th < 0 || R->ntq == 0)
            return;
        size_t j = R->tq[0][0], i = R->tq[0][1];
        memmove(R->tq, R->tq + 1, (R->ntq - 1) * sizeof *R->tq);
        R->ntq--;
        rreq *q = &R->req[j];
        R->busy[th] = 1;
        R->treq[th] = j;
        R->ttask[th] = i;
        R->tend[th] = t + q->x[i];
        q->tstart[i] = t;
        q->tend[i] = NAN;
        q->started++;
    }
}

static long code_of(ref *R, size_t j)
{
    rreq *q = &R->req[j];
    const rclass *c = &R->cf->cls[q->cls];
    switch (R->pol->kind) {
    case 0:
        return R->pol->n[q->cls];
    case 1:
        if (R->mut == MUT_GREEDY_LATE) {
            long l = idle_count(R);
            return l >= c->k ? (l < c->nmax ? l : c->nmax) : c->k;
        }
        return q->n;
    default: {
        double backlog = (double)(R->nrq - 1) + (R->mut == MUT_BAFEC_HEAD);
        long n = c->nmax;
        /* n = nmax below Q_{nmax-1}; n for Q_n <= backlog < Q_{n-1}; k from Q_k on */
        for (long m = c->nmax - 1; m >= c->k; m--)
            if (backlog >= R->Q[q->cls][m])
                n = m;
        return n;
    }
    }
}

static void admit(ref *R, double t)
{
    while (R->nrq) {
        size_t j = R->rq[0];
        long n = code_of(R, j);
        long need = R->cf->blocking ? n : 1;
        if (idle_count(R) < need)
            return;
        memmove(R->rq, R->rq + 1, (R->nrq - 1) * sizeof *R->rq);
        R->nrq--;
        rreq *q = &R->req[j];
        q->n = n;
        q->S = t;
        q->admitted = 1;
        for (long i = 0; i < n; i++) {
            R->tq[R->ntq][0] = j;
            R->tq[R->ntq][1] = (size_t)i;
            R->ntq++;
        }
        dispatch(R, t);
    }
}

static void finish(ref *R, size_t j, double t)
{
    rreq *q = &R->req[j];
    q->finished = 1;
    q->F = t;
    if (R->mut != MUT_NO_CANCEL)
        for (long th = 0; th < R->cf->L; th++)
            if (R->busy[th] && R->treq[th] == j) {
                R->busy[th] = 0;
                q->tend[R->ttask[th]] = t;
            }
    size_t w = 0;
    for (size_t p = 0; p < R->ntq; p++)
        if (R->tq[p][0] != j) {
            R->tq[w][0] = R->tq[p][0];
            R->tq[w][1] = R->tq[p][1];
            w++;
        }
    R->ntq = w;
}

static double clip(double a, double b, double lo, double hi)
{
    a = a > lo ? a : lo;
    b = b < hi ? b : hi;
    return b > a ? b - a : 0.0;
}

/* Run policy pol alone; fill its observables (ids of the kernel's schema) in rec. */
static void reference_run(ref *R, const rids *I, const storq_stream_key *key, storq_record *rec)
{
    const config *cf = R->cf;
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng svc = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    storq_dist law[MAXC];
    storq_error err = {0};
    for (int c = 0; c < cf->nclass; c++)
        if (storq_dist_parse(cf->cls[c].law, "law", &law[c], &err))
            abort();
    const long total = cf->warmup + cf->arrivals, L = cf->L;
    R->nreq = R->nrq = R->ntq = 0;
    R->cap = (size_t)total * 2 + 16;
    R->req = xrealloc(NULL, R->cap * sizeof *R->req);
    R->rq = xrealloc(NULL, R->cap * sizeof *R->rq);
    R->tq = xrealloc(NULL, R->cap * MAXN * sizeof *R->tq);
    R->busy = calloc((size_t)L, sizeof *R->busy);
    R->treq = calloc((size_t)L, sizeof *R->treq);
    R->ttask = calloc((size_t)L, sizeof *R->ttask);
    R->tend = calloc((size_t)L, sizeof *R->tend);

    double tnext = 0.0;
    long j = 0, unfinished_meas = 0;
    double Afirst = 0, Alast = 0;
    /* draw request j's numbers */
    rreq nextreq;
#define DRAW()                                                                                     \
    do {                                                                                           \
        memset(&nextreq, 0, sizeof nextreq);                                                       \
        tnext += storq_rng_exp(&arr, cf->lambda);                                                  \
        int c_ = cf->nclass - 1;                                                                   \
        if (cf->nclass > 1) {                                                                      \
            double u_ = storq_rng_uniform(&rte), cum_ = 0;                                         \
            for (int i_ = 0; i_ < cf->nclass - 1; i_++) {                                          \
                cum_ += cf->cls[i_].share;                                                         \
                if (u_ < cum_) {                                                                   \
                    c_ = i_;                                                                       \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
        } else {                                                                                   \
            c_ = 0;                                                                                \
        }                                                                                          \
        nextreq.cls = c_;                                                                          \
        for (long i_ = 0; i_ < cf->cls[c_].nmax; i_++)                                             \
            nextreq.x[i_] = storq_dist_sample(&law[c_], &svc);                                     \
        nextreq.A = tnext;                                                                         \
    } while (0)
    DRAW();
    for (;;) {
        if (j >= total && unfinished_meas == 0)
            break;
        /* the earliest completion, lowest thread on ties */
        long th = -1;
        for (long i = 0; i < L; i++)
            if (R->busy[i] && (th < 0 || R->tend[i] < R->tend[th]))
                th = i;
        if (th >= 0 && R->tend[th] <= tnext) {
            double t = R->tend[th];
            size_t rj = R->treq[th];
            rreq *q = &R->req[rj];
            R->busy[th] = 0;
            q->tend[R->ttask[th]] = t;
            q->done++;
            if (q->done == cf->cls[q->cls].k) {
                finish(R, rj, t);
                if (q->meas)
                    unfinished_meas--;
            }
            dispatch(R, t);
            admit(R, t);
            continue;
        }
        /* the arrival */
        double t = tnext;
        size_t id = R->nreq++;
        if (R->nreq > R->cap)
            abort();
        R->req[id] = nextreq;
        rreq *q = &R->req[id];
        q->meas = j >= cf->warmup && j < total;
        if (j == cf->warmup)
            Afirst = t;
        if (j == total - 1)
            Alast = t;
        if (q->meas) {
            unfinished_meas++;
            storq_hist h = storq_record_hist(rec, I->backlog);
            storq_hist_add(&h, (double)R->nrq);
        }
        if (R->pol->kind == 1) {
            const rclass *c = &cf->cls[q->cls];
            long l = idle_count(R);
            q->n = l >= c->k ? (l < c->nmax ? l : c->nmax) : c->k;
        }
        R->rq[R->nrq++] = id;
        admit(R, t);
        j++;
        DRAW();
    }
#undef DRAW
    /* the observables, from the explicit records */
    const double T = Alast - Afirst, N = (double)cf->arrivals;
    double sum = 0, qsum = 0, ssum = 0, busy = 0, backlog = 0;
    double csum[MAXC] = {0}, cq[MAXC] = {0}, cs[MAXC] = {0}, cn[MAXC] = {0};
    /* the steady-state halves, the reference's way: request i of the run array is the i-th
     * arrival, so the second half is i >= warmup + arrivals / 2 */
    double half[2] = {0, 0};
    const size_t mid = (size_t)(cf->warmup + cf->arrivals / 2) + (R->mut == MUT_HALF_LATE);
    uint64_t done_in = 0;
    double *share = storq_record_vector(rec, I->share);
    storq_hist hd = storq_record_hist(rec, I->delay);
    storq_hist hq = storq_record_hist(rec, I->qdelay);
    storq_hist hs = storq_record_hist(rec, I->sdelay);
    for (size_t i = 0; i < R->nreq; i++) {
        rreq *q = &R->req[i];
        if (q->finished && q->F > Afirst && q->F <= Alast)
            done_in++;
        if (q->admitted)
            backlog += clip(q->A, q->S, Afirst, Alast);
        else
            backlog += clip(q->A, Alast, Afirst, Alast);
        for (long k = 0; k < q->started; k++) {
            double e = isnan(q->tend[k]) ? Alast : q->tend[k];
            busy += clip(q->tstart[k], e, Afirst, Alast);
        }
        if (!q->meas)
            continue;
        double d = q->F - q->A, w = q->S - q->A, s = q->F - q->S;
        storq_hist_add(&hd, d);
        storq_hist_add(&hq, w);
        storq_hist_add(&hs, s);
        sum += d;
        half[i >= mid] += d;
        qsum += w;
        ssum += s;
        share[q->n - 1] += 1.0 / N;
        csum[q->cls] += d;
        cq[q->cls] += w;
        cs[q->cls] += s;
        cn[q->cls] += 1;
        if (cf->nclass > 1) {
            storq_hist hc = storq_record_hist(rec, I->cdelay[q->cls]);
            storq_hist_add(&hc, d);
            share = storq_record_vector(rec, I->cshare[q->cls]);
            share[q->n - 1] += 1.0;
            share = storq_record_vector(rec, I->share);
        }
    }
    storq_record_scalar(rec, I->mean, sum / N);
    storq_record_scalar(rec, I->qmean, qsum / N);
    storq_record_scalar(rec, I->smean, ssum / N);
    storq_record_scalar(rec, I->util, busy / ((double)L * T));
    storq_record_scalar(rec, I->mean_backlog, backlog / T);
    storq_record_scalar(rec, I->throughput, (double)done_in / T);
    if (I->first >= 0) {
        const double n1 = (double)(mid - (size_t)cf->warmup), n2 = (double)cf->arrivals - n1;
        storq_record_scalar(rec, I->first, half[0] / n1);
        storq_record_scalar(rec, I->second, half[1] / n2);
    }
    for (int c = 0; c < cf->nclass && cf->nclass > 1; c++) {
        storq_record_scalar(rec, I->cmean[c], csum[c] / cn[c]);
        storq_record_scalar(rec, I->cqmean[c], cq[c] / cn[c]);
        storq_record_scalar(rec, I->csmean[c], cs[c] / cn[c]);
        double *v = storq_record_vector(rec, I->cshare[c]);
        for (long n = 0; n < MAXN && n < (long)rec->schema->defs[I->cshare[c]].length; n++)
            v[n] /= cn[c];
    }
    for (int c = 0; c < cf->nclass; c++)
        storq_dist_free(&law[c]);
    free(R->req);
    free(R->rq);
    free(R->tq);
    free(R->busy);
    free(R->treq);
    free(R->ttask);
    free(R->tend);
}

/* ------------------------------------------------------------------ comparing */

/* The test's own reading of --code (names as the kernel makes them). */
static int parse_code(const config *cf, policy *pol)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", cf->code);
    int np = 0;
    for (char *save = NULL, *tok = strtok_r(buf, "+", &save); tok;
         tok = strtok_r(NULL, "+", &save), np++) {
        policy *P = &pol[np];
        memset(P, 0, sizeof *P);
        snprintf(P->name, sizeof P->name, "%s", tok);
        if (strcmp(tok, "greedy") == 0) {
            P->kind = 1;
        } else if (strcmp(tok, "bafec") == 0) {
            P->kind = 2;
        } else {
            P->kind = 0;
            char *s = tok + 6;
            int cnt = 0;
            long v[MAXC];
            for (char *sv = NULL, *t = strtok_r(s, "/", &sv); t; t = strtok_r(NULL, "/", &sv))
                v[cnt++] = atol(t);
            for (int c = 0; c < cf->nclass; c++)
                P->n[c] = v[cnt == 1 ? 0 : c];
        }
        char *colon = strchr(P->name, ':');
        if (colon) { /* fixed:3/4 -> fixed3_4 */
            memmove(colon, colon + 1, strlen(colon));
            for (char *q = P->name; *q; q++)
                if (*q == '/')
                    *q = '_';
        }
    }
    return np;
}

static int differ(double a, double b)
{
    if (isnan(a) && isnan(b))
        return 0;
    return !(fabs(a - b) <= REL_TOL * fmax(1e-12, fmax(fabs(a), fabs(b))));
}

static int starts_with_policy(const char *name, const char *P)
{
    size_t l = strlen(P);
    return strncmp(name, P, l) == 0 && name[l] == '_';
}

/* Mismatches between the kernel's record and the reference's for policy P (values but the
 * percentiles, which the reference does not compute, and histogram counts). */
static long compare_policy(const model_run *K, const storq_record *kr, const storq_record *rr,
                           const char *P, int verbose)
{
    long bad = 0;
    for (size_t i = 0; i < K->obs.ndefs; i++) {
        const storq_obs_def *d = &K->obs.defs[i];
        if (!starts_with_policy(d->name, P) || strstr(d->name, "_p99"))
            continue;
        if (d->kind == STORQ_OBS_HIST) {
            for (size_t b = 0; b < d->nbins + 2; b++)
                if (kr->counts[d->count_offset + b] != rr->counts[d->count_offset + b]) {
                    if (verbose && bad < 5)
                        printf("    %s bin %zu: kernel %llu reference %llu\n", d->name, b,
                               (unsigned long long)kr->counts[d->count_offset + b],
                               (unsigned long long)rr->counts[d->count_offset + b]);
                    bad++;
                }
            continue;
        }
        for (size_t e = 0; e < d->length; e++) {
            double a = kr->values[d->value_offset + e], b = rr->values[d->value_offset + e];
            if (differ(a, b)) {
                if (verbose && bad < 5)
                    printf("    %s[%zu]: kernel %.17g reference %.17g\n", d->name, e, a, b);
                bad++;
            }
        }
    }
    return bad;
}

/* Mismatches in the steady-state halves (the first listed policy's mean delay over the requests
 * arriving in each half of the window). */
static long compare_halves(const model_run *K, const storq_record *kr, const storq_record *rr,
                           const rids *I, int verbose)
{
    long bad = 0;
    const int ids[2] = {I->first, I->second};
    for (int h = 0; h < 2; h++) {
        const size_t off = K->obs.defs[ids[h]].value_offset;
        const double a = kr->values[off], b = rr->values[off];
        if (differ(a, b)) {
            if (verbose)
                printf("    %s: kernel %.17g reference %.17g\n", K->obs.defs[ids[h]].name, a, b);
            bad++;
        }
    }
    return bad;
}

static void thresholds(const model_run *K, const config *cf, ref *R)
{
    storq_theory th = {0};
    storq_error err = {0};
    if (K->model->theory(K->ctx, &th, &err))
        abort();
    for (int c = 0; c < cf->nclass; c++) {
        char name[STORQ_NAME_MAX];
        if (cf->nclass > 1)
            snprintf(name, sizeof name, "%s_threshold", cf->cls[c].name);
        else
            snprintf(name, sizeof name, "threshold");
        const storq_array *a = storq_theory_find(&th, name);
        for (long n = cf->cls[c].k; n < cf->cls[c].nmax; n++)
            R->Q[c][n] = a->data[n - cf->cls[c].k];
    }
    storq_theory_free(&th);
}

/* Run the point: kernel (coupled) against the reference (each policy alone), reps replications;
 * with mut, count the mismatches for policies of the kind it breaks (and return them). */
static long run_config(const config *cf, int mut, int mut_kind, int reps)
{
    model_run K;
    if (kernel_setup(&K, cf))
        return -1;
    policy pol[8];
    int np = parse_code(cf, pol);
    ref R = {.cf = cf, .mut = mut};
    thresholds(&K, cf, &R);
    long bad_all = 0;
    for (int rep = 0; rep < reps; rep++) {
        if (model_run_replicate(&K, SEED, 3, (uint64_t)rep))
            abort();
        storq_stream_key key = {.seed = SEED, .point = 3, .replication = (uint64_t)rep};
        for (int p = 0; p < np; p++) {
            if (mut && pol[p].kind != mut_kind)
                continue;
            storq_record rr;
            storq_error err = {0};
            if (storq_record_init(&rr, &K.obs, &err))
                abort();
            storq_record_reset(&rr);
            rids I;
            ids_of(&K, cf, pol[p].name, &I);
            if (p == 0) {
                I.first = (int)(model_run_def(&K, STORQ_STEADY_FIRST) - K.obs.defs);
                I.second = (int)(model_run_def(&K, STORQ_STEADY_SECOND) - K.obs.defs);
            }
            R.pol = &pol[p];
            reference_run(&R, &I, &key, &rr);
            long bad = compare_policy(&K, &K.rec, &rr, pol[p].name, !mut);
            if (p == 0)
                bad += compare_halves(&K, &K.rec, &rr, &I, !mut);
            if (!mut)
                printf("  %-28s rep %d %-10s mean delay %.6f (ref %.6f)  util %.4f  %s\n",
                       cf->label, rep, pol[p].name, K.rec.values[K.obs.defs[I.mean].value_offset],
                       rr.values[K.obs.defs[I.mean].value_offset],
                       K.rec.values[K.obs.defs[I.util].value_offset],
                       bad ? "MISMATCH" : "equal");
            bad_all += bad;
            storq_record_free(&rr);
        }
    }
    model_run_free(&K);
    return bad_all;
}

/* A small trace with few distinct values (ties between tasks started together). */
static char trace_path[64];

static void write_trace(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/test_proxy_trace_%d.txt", (int)getpid());
    FILE *f = fopen(trace_path, "w");
    if (!f)
        abort();
    fprintf(f, "# task delays, seconds\n0.2\n0.25\n0.2\n0.9\n0.3\n\n0.25\n1.7\n");
    fclose(f);
}

int main(void)
{
    write_trace();
    char tlaw[96];
    snprintf(tlaw, sizeof tlaw, "trace:%s", trace_path);
    const config cfs[] = {
        {"nonblocking shexp", 16, 3.8, 0, "fixed:3+fixed:6+greedy+bafec", 1,
         {{"all", 1, 3, 6, "shexp:0.2,1.25"}}, 300, 3000},
        {"blocking shexp", 16, 3.4, 1, "fixed:4+greedy+bafec+fixed:3", 1,
         {{"all", 1, 3, 6, "shexp:0.2,1.25"}}, 300, 3000},
        {"nonblocking exp L=4", 4, 1.6, 0, "bafec+greedy+fixed:2+fixed:4", 1,
         {{"all", 1, 2, 4, "exp:1"}}, 300, 3000},
        {"blocking det ties", 5, 1.5, 1, "fixed:2+fixed:3+greedy+bafec", 1,
         {{"all", 1, 2, 3, "det:0.5"}}, 200, 2000},
        {"nonblocking trace ties", 8, 3.0, 0, "fixed:2+fixed:5+greedy+bafec", 1,
         {{"all", 1, 2, 5, tlaw}}, 200, 2000},
        {"two classes nonblocking", 16, 3.0, 0, "fixed:3/4+fixed:6/3+greedy+bafec", 2,
         {{"read", 0.7, 3, 6, "shexp:0.1,1.5"}, {"write", 0.3, 2, 4, "shexp:0.4,2"}}, 300, 3000},
        {"two classes blocking", 12, 2.5, 1, "greedy+bafec+fixed:3", 2,
         {{"read", 0.5, 3, 6, "shexp:0.1,1.5"}, {"write", 0.5, 3, 5, "hyperexp:0.5,1,0.5,4"}},
         300, 3000},
    };
    const size_t ncf = sizeof cfs / sizeof cfs[0];
    for (size_t i = 0; i < ncf; i++) {
        long bad = run_config(&cfs[i], MUT_NONE, 0, 2);
        CHECK(bad == 0);
    }
    /* a policy alone gives, bit for bit, its values in the coupled run */
    {
        config one = cfs[0];
        one.code = "bafec";
        model_run A, B;
        if (kernel_setup(&A, &cfs[0]) || kernel_setup(&B, &one) ||
            model_run_replicate(&A, SEED, 3, 1) || model_run_replicate(&B, SEED, 3, 1))
            abort();
        long diff = 0;
        for (size_t i = 0; i < B.obs.ndefs; i++) {
            const storq_obs_def *db = &B.obs.defs[i], *da = model_run_def(&A, db->name);
            if (storq_steady_is_half(db->name)) /* they follow the first listed policy */
                continue;
            if (db->kind == STORQ_OBS_HIST) {
                diff += memcmp(A.rec.counts + da->count_offset, B.rec.counts + db->count_offset,
                               (db->nbins + 2) * sizeof *B.rec.counts) != 0;
            } else {
                diff += memcmp(A.rec.values + da->value_offset, B.rec.values + db->value_offset,
                               db->length * sizeof *B.rec.values) != 0;
            }
        }
        printf("  bafec alone vs coupled: %ld observables differ\n", diff);
        CHECK(diff == 0);
        model_run_free(&A);
        model_run_free(&B);
    }
    /* the comparison can fail */
    long m1 = run_config(&cfs[0], MUT_NO_CANCEL, 0, 1);
    long m2 = run_config(&cfs[0], MUT_BAFEC_HEAD, 2, 1);
    long m3 = run_config(&cfs[0], MUT_GREEDY_LATE, 1, 1);
    long m4 = run_config(&cfs[0], MUT_HALF_LATE, 0, 1);
    printf("  mutations: no cancellation %ld, BAFEC counting the head %ld, Greedy at admission "
           "%ld, the middle arrival in the first half %ld mismatches\n", m1, m2, m3, m4);
    CHECK(m1 > 0);
    CHECK(m2 > 0);
    CHECK(m3 > 0);
    CHECK(m4 == 2); /* the halves only: the fixed codes' own values are untouched */
    unlink(trace_path);
    return check_failures_ ? 1 : 0;
}
