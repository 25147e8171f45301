#include "point_memory.h"

#include <malloc.h>
#include <stdio.h>

#include "memory.h"
#include "observables.h"

/* Bytes the process has allocated (glibc: small blocks plus mmapped ones). */
static size_t heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

void storq_point_memory_start(storq_point_memory *m, size_t fixed)
{
    m->base = m->before = heap_bytes();
    m->each = 0;
    m->fixed = fixed;
}

void storq_point_memory_before(storq_point_memory *m)
{
    m->before = heap_bytes();
}

int storq_point_memory_after(storq_point_memory *m, size_t left, size_t npoints,
                             storq_error *err)
{
    const size_t now = heap_bytes();
    const size_t grown = now > m->before ? now - m->before : 0;
    /* the smallest point after the first: a one-off load (a trace file's cache, which the first
     * point or any later one may bring in) is not what every point takes; what is held is
     * measured, so larger points are counted as they come */
    if (m->before != m->base && (m->each == 0 || grown < m->each))
        m->each = grown;
    const size_t held = now > m->base ? now - m->base : 0;
    const size_t need = storq_bytes_add(m->fixed,
                                        storq_bytes_add(held, storq_bytes_mul(left, m->each)));
    char what[64], for_what[256];
    snprintf(what, sizeof what, "the run's %zu points", npoints);
    snprintf(for_what, sizeof for_what, "prepared at once with the run's records of them (%.3g "
             "GiB) and at least %.3g KiB each of the model's state, measured as they are "
             "prepared; --task I/N splits a sweep", (double)m->fixed / (1 << 30),
             (double)m->each / 1024.0);
    return storq_memory_check_rank(need, what, for_what, err);
}

int storq_point_memory_open_tables(const storq_point_memory *m, size_t open, size_t table,
                                   storq_error *err)
{
    const size_t now = heap_bytes(), held = now > m->base ? now - m->base : 0;
    const size_t need = storq_bytes_add(storq_bytes_add(m->fixed, held),
                                        storq_bytes_mul(open, table));
    char what[96], for_what[256];
    snprintf(what, sizeof what, "rank 0's collection: %zu points in progress at once", open);
    snprintf(for_what, sizeof for_what, "(each one's table of replications, at most %.3g GiB, "
             "besides the prepared points and the run's records of them, %.3g GiB); fewer "
             "replications (-r) or ranks hold less", (double)table / (1 << 30),
             (double)storq_bytes_add(m->fixed, held) / (1 << 30));
    return storq_memory_check_rank(need, what, for_what, err);
}

size_t storq_point_table_bytes(const storq_observables *obs, size_t reps)
{
    /* every replication's values and its mark (src/app/collect.c), the counts and extremes */
    size_t row = storq_bytes_add(storq_bytes_mul(obs->nvalues, sizeof(double)), 1);
    return storq_bytes_add(storq_bytes_mul(reps, row),
                           storq_bytes_mul(obs->ncounts + obs->nminmax + 2, sizeof(double)));
}
