/* PCG64 random streams (128-bit LCG, DXSM output, as numpy's PCG64DXSM), keyed by global ids.
 *
 * A stream is a plain value: kernels may hold one per purpose (or per SIMD lane) on the stack.
 * storq_rng_stream() derives the stream of (seed, point, replication, purpose) from those ids only,
 * never from rank or thread, so any decomposition of the work draws the same numbers. */
#ifndef STORQ_RNG_H
#define STORQ_RNG_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 storq_u128;

typedef struct storq_rng {
    storq_u128 state;
    storq_u128 inc; /* odd: selects the stream */
} storq_rng;

/* What a stream is used for. A kernel draws each part of its randomness from its own stream so
 * that changing one part (say, the service law) leaves the others (arrivals, routing) unchanged. */
typedef enum storq_stream_purpose {
    STORQ_STREAM_ARRIVALS = 0,
    STORQ_STREAM_SIZES = 1,
    STORQ_STREAM_ROUTING = 2,
    STORQ_STREAM_SERVICE = 3,
    STORQ_STREAM_PLACEMENT = 4,
    STORQ_STREAM_TIES = 5,
    STORQ_STREAM_INITIAL = 6,
    STORQ_STREAM_EXTRA = 7
} storq_stream_purpose;

/* The global ids a replication's streams are derived from. */
typedef struct storq_stream_key {
    uint64_t seed;
    uint64_t point;       /* < 2^32 */
    uint64_t replication; /* < 2^32 */
} storq_stream_key;

#define STORQ_PCG_MULT_128 ((((storq_u128)2549297995355413924ULL) << 64) | 4865540595714422341ULL)
#define STORQ_PCG_CHEAP_MULT 0xda942042e4dd58b5ULL

/* The stream for one purpose of one replication. Substreams of different (point, replication)
 * pairs are disjoint stretches of 2^64 draws of the same per-(seed, purpose) sequence. */
storq_rng storq_rng_stream(const storq_stream_key *key, storq_stream_purpose purpose);

/* pcg-c style seeding (state 0, inc = 2 seq + 1, step, add initstate, step) with the cheap
 * multiplier (pcg_cm_srandom_r in numpy's C source). Note: numpy 1.24's PCG64DXSM(seed) seeds with
 * the 128-bit multiplier instead, so its states differ; the draws after seeding are the same. */
void storq_rng_seed(storq_rng *rng, storq_u128 initstate, storq_u128 initseq);

/* Jump ahead by delta draws in O(log delta) (cheap-multiplier LCG). */
void storq_rng_advance(storq_rng *rng, storq_u128 delta);

/* The same LCG jump for any multiplier: used for the 128-bit multiplier of classic PCG64. */
storq_u128 storq_lcg_advance(storq_u128 state, storq_u128 delta, storq_u128 mult, storq_u128 inc);

/* Classic PCG64 (XSL-RR output, 128-bit multiplier): the generator of numpy's PCG64 and of
 * pcg-cpp's pcg64. Only used to verify the LCG machinery against reference libraries. */
uint64_t storq_pcg64_xslrr_next(storq_rng *rng);

/* L distinct integers drawn uniformly from [0, n) without replacement, in uniformly random order
 * (every ordered L-tuple is equally likely), so the order can break ties. Requires L <= n. */
void storq_rng_sample_distinct(storq_rng *rng, uint64_t n, unsigned L, uint64_t *out);

/* ---- hot path: inline ---- */

static inline uint64_t storq_rng_next(storq_rng *rng)
{
    storq_u128 old = rng->state;
    rng->state = old * STORQ_PCG_CHEAP_MULT + rng->inc;
    uint64_t hi = (uint64_t)(old >> 64);
    uint64_t lo = (uint64_t)old | 1u;
    hi ^= hi >> 32;
    hi *= STORQ_PCG_CHEAP_MULT;
    hi ^= hi >> 48;
    hi *= lo;
    return hi;
}

/* Uniform on [0, 1) with 53 random bits (numpy's random() for the same generator). */
static inline double storq_rng_uniform(storq_rng *rng)
{
    return (double)(storq_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* Uniform on (0, 1]: safe to take the logarithm of. */
static inline double storq_rng_uniform_pos(storq_rng *rng)
{
    return (double)((storq_rng_next(rng) >> 11) + 1) * 0x1.0p-53;
}

/* Uniform integer in [0, bound), bound >= 1, without modulo bias (Lemire's multiply-and-reject). */
static inline uint64_t storq_rng_below(storq_rng *rng, uint64_t bound)
{
    storq_u128 m = (storq_u128)storq_rng_next(rng) * bound;
    uint64_t low = (uint64_t)m;
    if (low < bound) {
        uint64_t threshold = (uint64_t)(-bound) % bound;
        while (low < threshold) {
            m = (storq_u128)storq_rng_next(rng) * bound;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* Exponential with the given rate (mean 1/rate). */
static inline double storq_rng_exp(storq_rng *rng, double rate)
{
    return -log(storq_rng_uniform_pos(rng)) / rate;
}

/* The small cases of storq_rng_sample_distinct, inline (no call, no allocation); the general
 * function hands them here, so each algorithm exists once:
 *   L > n/2, n <= 256: a partial Fisher-Yates shuffle of 0..n-1 (position i takes a uniform pick
 *                      of the n - i values left);
 *   L <= n/2, L <= 64: sequential draws, each redrawn while it repeats an earlier one (a 64-bit
 *                      filter of the values taken skips most of the duplicate scans).
 * Other cases call the general function (a heap buffer, or a hash set for large L). */
#define STORQ_RNG_SMALL_SHUFFLE 256
#define STORQ_RNG_SMALL_REJECTION 64

static inline int storq_rng_sample_is_small(uint64_t n, unsigned L)
{
    return (uint64_t)L > n / 2 ? n <= STORQ_RNG_SMALL_SHUFFLE : L <= STORQ_RNG_SMALL_REJECTION;
}

/* The partial shuffle on a scratch array a of n values (both the inline and the general path). */
static inline void storq_rng_shuffle_take(storq_rng *rng, uint64_t *a, uint64_t n, unsigned L,
                                          uint64_t *out)
{
    for (uint64_t i = 0; i < n; i++)
        a[i] = i;
    for (unsigned i = 0; i < L; i++) {
        uint64_t j = i + storq_rng_below(rng, n - i);
        uint64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
        out[i] = a[i];
    }
}

static inline void storq_rng_sample_distinct_fast(storq_rng *rng, uint64_t n, unsigned L,
                                                  uint64_t *out)
{
    if (!storq_rng_sample_is_small(n, L)) {
        storq_rng_sample_distinct(rng, n, L, out);
    } else if ((uint64_t)L > n / 2) {
        uint64_t a[STORQ_RNG_SMALL_SHUFFLE];
        storq_rng_shuffle_take(rng, a, n, L, out);
    } else {
        uint64_t seen = 0; /* bit (v mod 64) of every value taken */
        for (unsigned i = 0; i < L; i++) {
            uint64_t v, bit;
            int dup;
            do {
                v = storq_rng_below(rng, n);
                bit = (uint64_t)1 << (v & 63);
                dup = 0;
                if (seen & bit)
                    for (unsigned j = 0; j < i; j++)
                        dup |= out[j] == v;
            } while (dup);
            seen |= bit;
            out[i] = v;
        }
    }
}

#endif
