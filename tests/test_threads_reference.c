/* Differential test of the `threads` kernel: a plain implementation written independently here,
 * fed the same random numbers (the streams and draw order of the contract in
 * kernels/threads/internal.h), must give the same observables -- to a relative 1e-9 -- for every
 * policy, preemptive and not, on exponential, shifted-exponential, hyperexponential and
 * deterministic downloads (the last with deterministic arrivals, so that events coincide and the
 * contract's tie order is exercised), with d_min >= L and d_min < L; and in steady mode (a
 * warm-up, measured requests, arrivals going on until they are done) the mean flow time of every
 * policy and the first policy's means over the measured window's two halves, the steady-state
 * check's warmup_first_half_mean / warmup_second_half_mean (docs/steady-state.md).
 *
 * The kernel keeps indexed heaps of requests per pass, an event heap with indexed removal, and
 * applies only the difference of a preemptive reassignment. The reference keeps every request of
 * the run in one array, finds the next event by scanning every chunk of every request present, and
 * re-decides every thread from scratch after every event: non-preemptive policies by scanning all
 * requests for the best eligible one for each idle thread; preemptive R policies by sorting the
 * requests present (selection) into per-request targets and moving threads to match; preemptive
 * WCR by scanning for the lowest-priority request holding redundant threads at an arrival.
 * Utilisation and the time-average number present are computed afterwards from per-chunk and
 * per-request totals instead of integrated over time.
 *
 * Finally, mutated references (SEDPT ordered by alpha alone; preemptive WCR never preempting; the
 * preempted chunk the one with the least remaining time) must disagree: the comparison can fail. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "distribution.h"
#include "model_run.h"
#include "rng.h"

#define SEED 20261202u
#define REL_TOL 1e-9
#define MAXN 16
#define MAXC 4

enum { MUT_NONE, MUT_SEDPT_ALPHA, MUT_NO_WCR_PREEMPT, MUT_VICTIM_SMALLEST, MUT_V_FIRST };
enum { O_FCFS, O_SERPT, O_SEDPT };
enum { R_R, R_NR, R_WCR };

typedef struct rpol {
    const char *spec, *name;
    int order, redund, preempt;
} rpol;

static const rpol POLS[] = {
    {"fcfs-r:off", "fcfs_r_np", O_FCFS, R_R, 0},       {"fcfs-r:on", "fcfs_r_p", O_FCFS, R_R, 1},
    {"serpt-r:off", "serpt_r_np", O_SERPT, R_R, 0},    {"serpt-r:on", "serpt_r_p", O_SERPT, R_R, 1},
    {"sedpt-r:off", "sedpt_r_np", O_SEDPT, R_R, 0},    {"sedpt-r:on", "sedpt_r_p", O_SEDPT, R_R, 1},
    {"sedpt-nr:off", "sedpt_nr_np", O_SEDPT, R_NR, 0}, {"sedpt-wcr:off", "sedpt_wcr_np", O_SEDPT, R_WCR, 0},
    {"sedpt-wcr:on", "sedpt_wcr_p", O_SEDPT, R_WCR, 1}, {"fcfs-wcr:off", "fcfs_wcr_np", O_FCFS, R_WCR, 0},
    {"fcfs-wcr:on", "fcfs_wcr_p", O_FCFS, R_WCR, 1},
};
#define NPOL (sizeof POLS / sizeof *POLS)

typedef struct config {
    const char *label;
    long L;
    double rho;
    const char *classes, *interarrival, *download;
    long N;              /* finite mode: requests */
    long warmup, arrivals; /* steady mode when arrivals > 0 */
} config;

/* ------------------------------------------------------------------ the reference */

typedef struct rreq {
    double a;
    int cls, n, k, alpha, delta, next, done;
    double X[MAXN], rem[MAXN], end[MAXN];
    int st[MAXN]; /* 0 fresh, 1 running, 2 preempted, 3 downloaded */
} rreq;

typedef struct ref {
    const config *cf;
    const rpol *P;
    int mut;
    long L, idle, N;
    rreq *q;
    double useful, cancelled, tend, sum, half; /* half: steady mode's first half of the window */
    double vsum; /* non-preemptive SEDPT-NR: sum of V_j - a_j, V_j the start of j's last chunk */
    double csum[MAXC];
    long ccnt[MAXC];
} ref;

static long avail(const rreq *r)
{
    return r->n - (r->k - r->alpha) - r->delta;
}

/* the priority key (smaller first; ties by arrival number) */
static long key_of(const ref *R, const rreq *r, int scratch)
{
    int order = R->P->order;
    if (order == O_SEDPT && R->mut == MUT_SEDPT_ALPHA)
        order = O_SERPT;
    if (order == O_FCFS)
        return 0;
    if (order == O_SERPT || scratch)
        return r->alpha;
    return r->alpha - r->delta;
}

static void ref_start(ref *R, long j, double t)
{
    rreq *r = &R->q[j];
    int i = -1;
    for (int c = 0; c < r->next; c++)
        if (r->st[c] == 2) {
            i = c;
            break;
        }
    if (i < 0)
        i = r->next++;
    r->st[i] = 1;
    r->end[i] = t + r->rem[i];
    r->delta++;
    R->idle--;
    /* the NLU bound's V_j: the start that leaves none of j's needed chunks unassigned (mutated:
     * the first start) */
    const int steady = R->cf->arrivals > 0;
    const int measured = !steady || (j >= R->cf->warmup && j < R->cf->warmup + R->cf->arrivals);
    const int last = R->mut == MUT_V_FIRST ? r->delta == 1 && r->alpha == r->k : r->delta == r->alpha;
    if (R->P->order == O_SEDPT && R->P->redund == R_NR && !R->P->preempt && last && measured)
        R->vsum += t - r->a;
}

static void ref_preempt(ref *R, long j, double t)
{
    rreq *r = &R->q[j];
    int best = -1;
    for (int c = 0; c < r->next; c++) {
        if (r->st[c] != 1)
            continue;
        if (best < 0)
            best = c;
        else if (R->mut == MUT_VICTIM_SMALLEST ? r->end[c] < r->end[best]
                                               : r->end[c] >= r->end[best])
            best = c;
    }
    r->st[best] = 2;
    r->rem[best] = r->end[best] - t;
    r->delta--;
    R->idle++;
}

static int present(const ref *R, long j, long arrived)
{
    return j < arrived && !R->q[j].done;
}

static void ref_decide(ref *R, double t, long arrived, long newcomer)
{
    const rpol *P = R->P;
    if (P->redund == R_R && P->preempt) {
        long target[4096] = {0};
        char taken[4096] = {0};
        long order[4096], no = 0, left = R->L;
        while (left > 0) {
            long best = -1;
            for (long j = 0; j < arrived; j++) {
                if (!present(R, j, arrived) || taken[j])
                    continue;
                if (best < 0 || key_of(R, &R->q[j], 1) < key_of(R, &R->q[best], 1))
                    best = j;
            }
            if (best < 0)
                break;
            taken[best] = 1;
            const rreq *r = &R->q[best];
            long room = r->n - (r->k - r->alpha);
            target[best] = room < left ? room : left;
            left -= target[best];
            order[no++] = best;
        }
        for (long j = 0; j < arrived; j++)
            while (present(R, j, arrived) && R->q[j].delta > target[j])
                ref_preempt(R, j, t);
        for (long i = 0; i < no; i++)
            while (R->q[order[i]].delta < target[order[i]])
                ref_start(R, order[i], t);
        return;
    }
    if (P->redund == R_WCR && P->preempt && newcomer >= 0 && R->mut != MUT_NO_WCR_PREEMPT) {
        while (R->idle < R->q[newcomer].alpha) {
            long worst = -1;
            for (long j = 0; j < arrived; j++) {
                const rreq *r = &R->q[j];
                if (!present(R, j, arrived) || r->delta <= r->alpha)
                    continue;
                if (worst < 0 || key_of(R, r, 0) >= key_of(R, &R->q[worst], 0))
                    worst = j;
            }
            if (worst < 0)
                break;
            ref_preempt(R, worst, t);
        }
    }
    while (R->idle > 0) {
        long best = -1;
        for (int pass = 0; pass < 2 && best < 0; pass++) {
            if (pass == 1 && P->redund != R_WCR)
                break;
            for (long j = 0; j < arrived; j++) {
                const rreq *r = &R->q[j];
                if (!present(R, j, arrived))
                    continue;
                int ok = pass == 0 && P->redund != R_R ? r->delta < r->alpha : avail(r) > 0;
                if (ok && (best < 0 || key_of(R, r, 0) < key_of(R, &R->q[best], 0)))
                    best = j;
            }
        }
        if (best < 0)
            break;
        ref_start(R, best, t);
    }
}

static void ref_run(ref *R, const config *cf, const rpol *P, int mut, const storq_dist *ia,
                    double ia_scale, const storq_dist *dl, const double *share, const int *cn,
                    const int *ck, int nclass)
{
    memset(R, 0, sizeof *R);
    R->cf = cf;
    R->P = P;
    R->mut = mut;
    R->L = R->idle = cf->L;
    /* steady mode: requests warmup .. warmup + arrivals - 1 are measured, every request draws its
     * inter-arrival time, and arrivals go on while a measured request is unfinished (drawn here up
     * front: twice the measured range is plenty at these loads; running out aborts) */
    const int steady = cf->arrivals > 0;
    const long first = steady ? cf->warmup : 0, total = steady ? cf->warmup + cf->arrivals : cf->N;
    R->N = steady ? 2 * total : cf->N;
    R->q = calloc((size_t)R->N, sizeof *R->q);
    storq_stream_key key = {.seed = SEED, .point = 0, .replication = 0};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(&key, STORQ_STREAM_ROUTING);
    storq_rng svc = storq_rng_stream(&key, STORQ_STREAM_SERVICE);
    double t = 0.0;
    for (long j = 0; j < R->N; j++) { /* draw everything up front, in the contract's order */
        if (j > 0 || steady)
            t += storq_dist_sample(ia, &arr) * ia_scale;
        int c = nclass - 1;
        if (nclass > 1) {
            double u = storq_rng_uniform(&rte), cum = 0.0;
            for (int i = 0; i + 1 < nclass; i++) {
                cum += share[i];
                if (u < cum) {
                    c = i;
                    break;
                }
            }
        }
        rreq *r = &R->q[j];
        r->a = t;
        r->cls = c;
        r->n = cn[c];
        r->k = ck[c];
        r->alpha = r->k;
        for (int i = 0; i < r->n; i++)
            r->X[i] = r->rem[i] = storq_dist_sample(dl, &svc);
    }
    long arrived = 0, left = total - first;
    double now = 0.0;
    while (left > 0) {
        long bj = -1;
        int bi = -1;
        for (long j = 0; j < arrived; j++) {
            const rreq *r = &R->q[j];
            if (r->done)
                continue;
            for (int i = 0; i < r->next; i++)
                if (r->st[i] == 1 && (bj < 0 || r->end[i] < R->q[bj].end[bi]))
                    bj = j, bi = i; /* scanning j then i upward keeps (end, j, i) order */
        }
        if (steady && arrived == R->N && bj < 0) {
            fprintf(stderr, "%s: reference ran out of drawn requests\n", cf->label);
            abort();
        }
        if (bj >= 0 && (arrived == R->N || R->q[bj].end[bi] <= R->q[arrived].a)) {
            rreq *r = &R->q[bj];
            now = r->end[bi];
            r->st[bi] = 3;
            R->useful += r->X[bi];
            r->alpha--;
            r->delta--;
            R->idle++;
            if (r->alpha == 0) {
                for (int i = 0; i < r->next; i++) {
                    if (r->st[i] == 1) {
                        R->cancelled += r->X[i] - (r->end[i] - now);
                        R->idle++;
                    } else if (r->st[i] == 2) {
                        R->cancelled += r->X[i] - r->rem[i];
                    }
                }
                r->delta = 0;
                r->done = 1;
                if (bj >= first && bj < total) {
                    left--;
                    const double d = now - r->a;
                    R->sum += d;
                    if (steady && bj - first < cf->arrivals / 2)
                        R->half += d;
                    R->csum[r->cls] += d;
                    R->ccnt[r->cls]++;
                }
            }
            ref_decide(R, now, arrived, -1);
        } else {
            now = R->q[arrived].a;
            arrived++;
            ref_decide(R, now, arrived, arrived - 1);
        }
    }
    R->tend = now;
    free(R->q);
}

/* ------------------------------------------------------------------ comparison */

static int close_to(double a, double b)
{
    return fabs(a - b) <= REL_TOL * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* The number of observables on which the reference with mutation mut disagrees (0 = agree). */
static int compare(const config *cf, int mut, int verbose, int only)
{
    char pol[1024] = "";
    for (size_t p = 0; p < NPOL; p++)
        snprintf(pol + strlen(pol), sizeof pol - strlen(pol), "%s%s", p ? "+" : "", POLS[p].spec);
    /* the lower bounds, where the law allows them (exp and NLU; not the NSU hyperexp) */
    const int bound = strncmp(cf->download, "hyperexp", 8) != 0;
    if (bound)
        snprintf(pol + strlen(pol), sizeof pol - strlen(pol), "+bound");
    model_run r;
    model_run_init(&r, &storq_model_threads);
    model_setl(&r.p, "L", cf->L);
    model_setd(&r.p, "rho", cf->rho);
    model_set(&r.p, "classes", cf->classes);
    model_set(&r.p, "interarrival", cf->interarrival);
    model_set(&r.p, "download", cf->download);
    model_set(&r.p, "policy", pol);
    if (cf->arrivals > 0) {
        model_set(&r.p, "mode", "steady");
        model_setl(&r.p, "warmup", cf->warmup);
        model_setl(&r.p, "arrivals", cf->arrivals);
    } else {
        model_setl(&r.p, "requests", cf->N);
    }
    r.p.allow_unstable = 1;
    if (model_run_prepare(&r) || model_run_replicate(&r, SEED, 0, 0))
        abort();
    /* the classes and laws as the kernel read them */
    storq_error err = {0};
    storq_dist ia, dl;
    if (storq_dist_parse(cf->interarrival, "ia", &ia, &err) ||
        storq_dist_parse(cf->download, "dl", &dl, &err))
        abort();
    double share[MAXC];
    int cn[MAXC], ck[MAXC], nclass = 0;
    {
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", cf->classes);
        for (char *tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
            char nm[32];
            if (sscanf(tok, "%31[^:]:%lf:%d:%d", nm, &share[nclass], &cn[nclass], &ck[nclass]) != 4)
                abort();
            nclass++;
        }
    }
    int bad = 0;
    double Ek = 0.0;
    int dmin = MAXN;
    for (int c = 0; c < nclass; c++) {
        Ek += share[c] * ck[c];
        dmin = cn[c] - ck[c] + 1 < dmin ? cn[c] - ck[c] + 1 : dmin;
    }
    /* the last-start bound exists exactly with `bound`, an exp/NLU law and d_min >= L */
    const storq_obs_def *vdef = storq_obs_find(&r.obs, "bound_last_start_mean_flow_time");
    if ((vdef != NULL) != (bound && dmin >= cf->L)) {
        bad++;
        fprintf(stderr, "%s: bound_last_start_mean_flow_time %s\n", cf->label,
                vdef ? "present where it must not be" : "missing");
    }
    const double lambda = cf->rho * (double)cf->L / (Ek * dl.mean);
    const double ia_scale = 1.0 / (lambda * ia.mean);
    for (size_t p = 0; p < NPOL; p++) {
        if (only >= 0 && (size_t)only != p)
            continue;
        ref R;
        ref_run(&R, cf, &POLS[p], mut, &ia, ia_scale, &dl, share, cn, ck, nclass);
        if (vdef && POLS[p].order == O_SEDPT && POLS[p].redund == R_NR && !POLS[p].preempt) {
            /* bit for bit: the same sums in the same order; and from a companion SEDPT-NR (not
             * listed) the same, and the listed policy's numbers unchanged */
            const double N = (double)(cf->arrivals > 0 ? cf->arrivals : cf->N);
            const double got = r.rec.values[vdef->value_offset];
            double alone = NAN, fcfs = NAN, fcfs_with = NAN;
            if (mut == MUT_NONE) {
                model_run q;
                model_run_init(&q, &storq_model_threads);
                model_setl(&q.p, "L", cf->L);
                model_setd(&q.p, "rho", cf->rho);
                model_set(&q.p, "classes", cf->classes);
                model_set(&q.p, "interarrival", cf->interarrival);
                model_set(&q.p, "download", cf->download);
                model_set(&q.p, "policy", "fcfs-r:on+bound");
                if (cf->arrivals > 0) {
                    model_set(&q.p, "mode", "steady");
                    model_setl(&q.p, "warmup", cf->warmup);
                    model_setl(&q.p, "arrivals", cf->arrivals);
                } else {
                    model_setl(&q.p, "requests", cf->N);
                }
                q.p.allow_unstable = 1;
                if (model_run_prepare(&q) || model_run_replicate(&q, SEED, 0, 0))
                    abort();
                alone = q.rec.values[model_run_offset(&q, "bound_last_start_mean_flow_time", 0)];
                fcfs = q.rec.values[model_run_offset(&q, "fcfs_r_p_mean_flow_time", 0)];
                fcfs_with = r.rec.values[model_run_offset(&r, "fcfs_r_p_mean_flow_time", 0)];
                model_run_free(&q);
            }
            const double want = R.vsum / N;
            if (got != want || (mut == MUT_NONE && (alone != want || fcfs != fcfs_with))) {
                bad++;
                if (verbose)
                    fprintf(stderr, "%s: bound_last_start_mean_flow_time: kernel %.17g, with a "
                            "companion %.17g, reference %.17g (fcfs_r_p %.17g, %.17g)\n",
                            cf->label, got, alone, want, fcfs, fcfs_with);
            }
        }
        const int steady = cf->arrivals > 0;
        const double N = (double)(steady ? cf->arrivals : cf->N), T = R.tend, L = (double)cf->L;
        const long n1 = cf->arrivals / 2, n2 = cf->arrivals - n1;
        struct {
            const char *suffix;
            double want;
        } obs[] = {
            {"mean_flow_time", R.sum / N},
            {"throughput", N / T},
            {"utilisation_useful", R.useful / (L * T)},
            {"utilisation_cancelled", R.cancelled / (L * T)},
            {"mean_present", R.sum / T},
            /* steady mode: the flow time's mean, and the first policy's over the window's
             * halves (the steady-state check of docs/steady-state.md; not policy-prefixed) */
            {"warmup_first_half_mean", R.half / (double)n1},
            {"warmup_second_half_mean", (R.sum - R.half) / (double)n2},
        };
        /* finite mode: the first five; steady mode: the mean, and the halves for policy 0
         * (the window of the time averages runs past the reference's horizon there) */
        for (size_t o = 0; o < sizeof obs / sizeof *obs; o++) {
            if (steady ? (o > 0 && o < 5) || (o >= 5 && p != 0) : o >= 5)
                continue;
            char name[96];
            if (o >= 5)
                snprintf(name, sizeof name, "%s", obs[o].suffix);
            else
                snprintf(name, sizeof name, "%s_%s", POLS[p].name, obs[o].suffix);
            const double got = r.rec.values[model_run_offset(&r, name, 0)];
            if (!close_to(got, obs[o].want)) {
                bad++;
                if (verbose)
                    fprintf(stderr, "%s: %s: kernel %.15g, reference %.15g\n", cf->label, name,
                            got, obs[o].want);
            }
        }
        for (int c = 0; c < nclass && nclass > 1; c++) {
            char name[96], cname[32];
            sscanf(cf->classes + 0, "%31[^:]", cname);
            { /* the c-th class name */
                char buf[256], *save = NULL, *tok;
                snprintf(buf, sizeof buf, "%s", cf->classes);
                tok = strtok_r(buf, "|", &save);
                for (int i = 0; i < c; i++)
                    tok = strtok_r(NULL, "|", &save);
                sscanf(tok, "%31[^:]", cname);
            }
            snprintf(name, sizeof name, "%s_%s_mean_flow_time", POLS[p].name, cname);
            const double got = r.rec.values[model_run_offset(&r, name, 0)];
            const double want = R.ccnt[c] ? R.csum[c] / (double)R.ccnt[c] : NAN;
            if (!(close_to(got, want) || (isnan(got) && isnan(want)))) {
                bad++;
                if (verbose)
                    fprintf(stderr, "%s: %s: kernel %.15g, reference %.15g\n", cf->label, name,
                            got, want);
            }
        }
    }
    storq_dist_free(&ia);
    storq_dist_free(&dl);
    model_run_free(&r);
    return bad;
}

int main(void)
{
    static const config cfs[] = {
        {"exp L=3 (d_min >= L)", 3, 0.8, "small:0.9:3:1|large:0.1:14:10",
         "hyperexp:0.5,0.6,0.5,3", "exp:50", 400, 0, 0},
        {"exp L=5 (d_min < L)", 5, 0.85, "small:0.9:3:1|large:0.1:14:10",
         "hyperexp:0.5,0.6,0.5,3", "exp:50", 400, 0, 0},
        {"shexp L=3 (NLU)", 3, 0.7, "small:0.9:3:1|large:0.1:14:10", "exp:1",
         "shexp:0.01,100", 400, 0, 0},
        {"hyperexp L=4, three classes (NSU)", 4, 0.6, "a:0.5:3:1|b:0.3:6:4|c:0.2:2:2", "exp:1",
         "hyperexp:0.5,20,0.5,200", 400, 0, 0},
        {"det arrivals and downloads (ties)", 3, 0.9, "a:0.6:3:1|b:0.4:5:3", "det:1",
         "det:0.02", 300, 0, 0},
        {"steady: exp L=3, warm-up halves", 3, 0.8, "small:0.9:3:1|large:0.1:14:10",
         "hyperexp:0.5,0.6,0.5,3", "exp:50", 0, 150, 301},
    };
    const size_t ncf = sizeof cfs / sizeof *cfs;
    for (size_t i = 0; i < ncf; i++) {
        int bad = compare(&cfs[i], MUT_NONE, 1, -1);
        printf("%-40s %s (%d disagreement(s))\n", cfs[i].label, bad ? "DIFFERS" : "agrees", bad);
        CHECK(bad == 0);
    }
    /* the comparison can fail: each mutation is caught by some configuration */
    static const struct {
        int mut;
        const char *what;
    } muts[] = {
        {MUT_SEDPT_ALPHA, "SEDPT ordered by alpha alone"},
        {MUT_NO_WCR_PREEMPT, "preemptive WCR never preempting"},
        {MUT_VICTIM_SMALLEST, "preempting the chunk with the least remaining time"},
        {MUT_V_FIRST, "the NLU bound's V at a request's first chunk start"},
    };
    for (size_t m = 0; m < sizeof muts / sizeof *muts; m++) {
        int bad = 0;
        for (size_t i = 0; i < ncf; i++)
            bad += compare(&cfs[i], muts[m].mut, 0, -1);
        printf("mutation: %-50s caught by %d disagreement(s)\n", muts[m].what, bad);
        CHECK(bad > 0);
    }
    return check_report("test_threads_reference");
}
