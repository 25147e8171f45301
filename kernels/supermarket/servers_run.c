/* `supermarket`, engine `servers`: a replication's setup and results around the event loop
 * (servers.c): the state sized (storq_smk_servers_bytes) and filled from the start, the loop run,
 * the histograms of task sojourn and job delay merged when they are the same. */
#include "servers_state.h"
#include "meanfield.h"
#include "memory.h"
#include "stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether two histograms have the same layout and the same contents: then adding the same values
 * to both in the same order keeps them equal, so one can be copied to the other at the end. */
static int hist_same(const storq_hist *a, const storq_hist *b)
{
    if (a->kind != b->kind || a->nbins != b->nbins || a->lo != b->lo || a->hi != b->hi ||
        a->emin != b->emin || a->sub_bits != b->sub_bits || *a->sum != *b->sum ||
        *a->min != *b->min || *a->max != *b->max)
        return 0;
    return memcmp(a->counts, b->counts, (a->nbins + 2) * sizeof *a->counts) == 0;
}

static void hist_copy(storq_hist *to, const storq_hist *from)
{
    memcpy(to->counts, from->counts, (from->nbins + 2) * sizeof *to->counts);
    *to->sum = *from->sum;
    *to->min = *from->min;
    *to->max = *from->max;
}

/* Entries of the busy list (exponential service): it is only kept while 2B < n, so B < n/2 before
 * an arrival and at most k more after it (a start with 2B >= n fills none: the run begins in
 * rejection mode). */
static size_t busy_entries(const smk_ctx *c)
{
    size_t most = c->n / 2 + c->k + 1;
    return most < c->n ? most : c->n;
}

/* Arena slots a steady run is expected to take: the tasks past the records at the mean-field
 * fixed point (as if the service were exponential), n (u_4 + sum_{i >= 4} u_i) (a long queue of
 * l >= 4 tasks keeps l - 2 in its block), times ARENA_SLACK for the power-of-two blocks and for
 * blocks kept at their largest until the queue is short again (measured at JSQ(2), lambda = 0.9:
 * the growth of the peak resident size beyond the lengths and records stays under 1.6x this
 * count, at n = 10^6 from empty and 10^7 from the fixed point). At a load >= 1 (no fixed point)
 * the queues grow without bound and nothing is stated. */
#define ARENA_SLACK 2.0
static double arena_slots_expected(const smk_ctx *c)
{
    if (c->mode != SMK_MODE_STEADY || c->load >= 1.0)
        return 0.0;
    size_t levels = storq_sm_auto_levels((int)c->L, (int)c->k, c->load, 1e-12, 100000);
    double *u = malloc(sizeof *u * levels), past = 0.0;
    if (!u)
        return 0.0;
    storq_sm_fixed_point((int)c->L, (int)c->k, c->load, levels, u);
    for (size_t i = SMK_INLINE + 1; i < levels; i++) /* u_4 twice: its own task and the third */
        past += u[i] * (i == SMK_INLINE + 1 ? 2.0 : 1.0);
    free(u);
    return ARENA_SLACK * past * (double)c->n;
}

/* Steady mode, the initial state: server s holds l tasks of no job (not measured); a long queue
 * keeps those past its record in a block of the least class that holds them. */
static int start_fill(sim *m, uint32_t s, uint32_t l)
{
    const task none = m->c->k == 1 ? (task){.t = -1.0} : (task){.job = NONE};
    srv *p = srv_of(m, s);
    if (l > LEN_MASK)
        return -1;
    if (l <= SMK_INLINE) {
        for (uint32_t j = 0; j < l; j++)
            p->q[j] = none;
    } else {
        uint32_t past = l - (SMK_INLINE - 1), b;
        unsigned c = 1;
        while ((1u << c) < past)
            c++;
        if (c > MAX_CLASS || block_alloc(m, c, &b))
            return -1;
        for (uint32_t j = 0; j < past; j++)
            m->arena[b + j] = none;
        p->q[0] = p->q[1] = none;
        p->q[2].far.blk = b;
        p->q[2].far.lc = l | (uint32_t)c << LEN_BITS;
    }
    set_len(m, s, l);
    return 0;
}

size_t storq_smk_servers_bytes(const smk_ctx *c)
{
    const int steady = c->mode == SMK_MODE_STEADY;
    size_t bytes =
        storq_big_array_bytes(storq_bytes_mul(c->n, steady ? sizeof(srv) : sizeof(uint32_t)));
    if (steady) /* the lengths, a byte each */
        bytes = storq_bytes_add(bytes, storq_big_array_bytes(c->n)); /* huge-page rounding */
    if (c->service_exp)
        bytes = storq_bytes_add(bytes, storq_bytes_mul(busy_entries(c), sizeof(uint32_t)));
    else
        bytes = storq_bytes_add(bytes, storq_bytes_mul(c->n, sizeof(hitem)));
    double arena = arena_slots_expected(c) * (double)sizeof(task);
    return storq_bytes_add(bytes, arena < (double)SIZE_MAX / 2 ? (size_t)arena : SIZE_MAX / 2);
}

int storq_smk_run_servers(const smk_ctx *c, const storq_stream_key *key, storq_record *rec,
                          storq_error *err)
{
    sim m;
    memset(&m, 0, sizeof m);
    m.c = c;
    m.n = (uint32_t)c->n;
    m.jfree = NONE;
    for (unsigned i = 0; i <= MAX_CLASS; i++)
        m.afree[i] = NONE;
    m.track = c->mode == SMK_MODE_STEADY;
    size_t n = m.n;
    unsigned L = c->L;
    size_t rsize = m.track ? sizeof(srv) : sizeof(uint32_t);

    uint64_t *buf = malloc(sizeof *buf * (RING + 2) * L);
    unsigned *chosen = malloc(sizeof *chosen * c->k);
    /* zeroed (every queue empty), aligned to a cache line, in huge pages when large (a random
     * server then rarely costs a TLB miss) */
    m.base = storq_big_array_zeroed(n * rsize);
    if (m.track)
        m.len8 = storq_big_array_zeroed(n);
    if (c->service_exp)
        m.busy = malloc(busy_entries(c) * sizeof *m.busy);
    else
        m.heap = malloc(n * sizeof *m.heap);
    int bad = !buf || !chosen || !m.base || (m.track && !m.len8) ||
              (c->service_exp ? !m.busy : !m.heap);
    if (bad || storq_smk_occ_init(&m.occ, c->n, c->levels + 1)) {
        free(buf);
        free(chosen);
        sim_free(&m);
        return STORQ_RUNTIME_FAIL(err, "out of memory for %zu servers; --engine counts needs "
                                  "memory independent of n (exponential service)", n);
    }
    loopio io = {.ring = buf, .lens = buf + RING * L, .scratch = buf + (RING + 1) * L,
                 .chosen = chosen, .rec = rec};
    io.arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    io.rout = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    m.serv = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    m.pick = storq_rng_stream(key, STORQ_STREAM_EXTRA);
    if (m.track) {
        m.aql = storq_record_hist(rec, c->id_aql);
        m.soj = storq_record_hist(rec, c->id_sojourn);
        m.dly = storq_record_hist(rec, c->id_delay);
        m.dly_is_soj = c->k == 1 && hist_same(&m.soj, &m.dly);
    }

    /* initial state: server s holds #{i >= 1 : s < N_i} tasks, which belong to no job (not
     * measured); busy servers enter the busy list (or draw their service) in server order */
    if (c->start_depth > 0) {
        size_t i = c->start_depth;
        if (storq_smk_occ_grow(&m.occ, i + 1))
            goto oom;
        for (size_t s = 0; s < n; s++) {
            while (i > 0 && c->start_N[i] <= s)
                i--;
            if (!m.track)
                ((uint32_t *)m.base)[s] = (uint32_t)i;
            else if (start_fill(&m, (uint32_t)s, (uint32_t)i))
                goto oom;
        }
        for (size_t j = 1; j <= c->start_depth; j++) {
            m.occ.N[j] = c->start_N[j];
            m.occ.Q += c->start_N[j];
        }
        m.occ.depth = c->start_depth + 1;
        /* with 2B >= n the loop starts in rejection mode, which keeps no list */
        const int list = 2 * c->start_N[1] < c->n;
        for (size_t s = 0; s < n; s++) {
            if (len_of(&m, (uint32_t)s, m.track) == 0)
                continue;
            if (c->service_exp) { /* the next departure is drawn once the list is complete */
                if (list)
                    m.busy[m.B] = (uint32_t)s;
                m.B++;
            } else
                heap_push(&m, (uint32_t)s, storq_dist_sample(&c->service, &m.serv));
        }
    }

    m.measured_left = c->run.arrivals;
    int rc = storq_smk_servers_loop(&m, &io);
    if (rc > 0) {
        free(buf);
        free(chosen);
        sim_free(&m);
        return storq_stopped(err);
    }
    if (rc)
        goto oom;

    if (m.track) {
        if (m.dly_is_soj) {
            hist_copy(&m.dly, &m.soj);
            m.dly_sum = m.soj_sum;
            m.dly_count = m.soj_count;
        }
        storq_smk_record_steady(c, &m.occ, io.T, rec);
        storq_record_scalar(rec, c->id_msojourn, m.soj_sum / (double)m.soj_count);
        storq_record_scalar(rec, c->id_mdelay, m.dly_sum / (double)m.dly_count);
    }
    rec->events = io.events;
    free(buf);
    free(chosen);
    sim_free(&m);
    return STORQ_OK;

oom:
    free(buf);
    free(chosen);
    sim_free(&m);
    return STORQ_RUNTIME_FAIL(err, "out of memory (or more than 2^32 task slots in system, or "
                              "2^26 tasks waiting at one server) simulating %zu servers; "
                              "--engine counts needs memory independent of n (exponential "
                              "service)", n);
}
