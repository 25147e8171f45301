/* Least-loaded group in O(log g): what `lwl` assignment needs to stay cheap for many groups.
 *
 * A tournament tree over the g groups keeps, for every subtree, the least key and how many groups
 * hold it, so the least load, the number of groups tied at it and the r-th of them in group order
 * (the tie rule of internal.h) each cost O(log g), and so does changing one key. A binary
 * heap of (time, group) events tells when loads change on their own (a group empties, a job
 * departs) between arrivals. */
#ifndef STORQ_FORKJOIN_LWL_H
#define STORQ_FORKJOIN_LWL_H

#include <stddef.h>
#include <stdint.h>

typedef struct fj_lwl {
    uint64_t g, size; /* groups; leaves (a power of two >= g) */
    double *key;      /* 2 size: node i's children are 2i and 2i+1, leaf of group G is size + G */
    uint64_t *cnt;    /* groups at the subtree's least key */
    double *ht;       /* event heap: times ... */
    uint64_t *hg;     /* ... and groups */
    size_t hn, hcap;
} fj_lwl;

/* All g keys start at key0. Returns -1 when out of memory. */
int storq_fj_lwl_init(fj_lwl *l, uint64_t g, double key0);
void storq_fj_lwl_free(fj_lwl *l);
void storq_fj_lwl_set(fj_lwl *l, uint64_t group, double key);
static inline double fj_lwl_leaf(const fj_lwl *l, uint64_t group)
{
    return l->key[l->size + group];
}
/* The least key and, in *ties, how many groups hold it. */
double storq_fj_lwl_min(const fj_lwl *l, uint64_t *ties);
/* The r-th (from 0, in group order) of the groups holding the least key; r < ties. */
uint64_t storq_fj_lwl_rank(const fj_lwl *l, uint64_t r);
/* A clock rebase: subtract dt from every event time, and from every key when the keys are times
 * (-inf keys stay). */
void storq_fj_lwl_shift(fj_lwl *l, double dt, int keys_are_times);

int storq_fj_lwl_push(fj_lwl *l, double time, uint64_t group);
/* The earliest event; requires hn > 0. */
static inline double fj_lwl_top_time(const fj_lwl *l) { return l->ht[0]; }
static inline uint64_t fj_lwl_top_group(const fj_lwl *l) { return l->hg[0]; }
void storq_fj_lwl_pop(fj_lwl *l);

#endif
