#include "rng.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

static inline storq_u128 u128(uint64_t hi, uint64_t lo)
{
    return ((storq_u128)hi << 64) | lo;
}

void storq_rng_seed(storq_rng *rng, storq_u128 initstate, storq_u128 initseq)
{
    rng->state = 0;
    rng->inc = (initseq << 1) | 1u;
    rng->state = rng->state * STORQ_PCG_CHEAP_MULT + rng->inc;
    rng->state += initstate;
    rng->state = rng->state * STORQ_PCG_CHEAP_MULT + rng->inc;
}

/* Brown, "Random number generation with arbitrary strides" (1994): the map x -> m x + c applied
 * delta times is itself affine; compose it by repeated squaring over the bits of delta. */
storq_u128 storq_lcg_advance(storq_u128 state, storq_u128 delta, storq_u128 mult, storq_u128 inc)
{
    storq_u128 acc_mult = 1, acc_plus = 0;
    while (delta > 0) {
        if (delta & 1u) {
            acc_mult *= mult;
            acc_plus = acc_plus * mult + inc;
        }
        inc = (mult + 1) * inc;
        mult *= mult;
        delta >>= 1;
    }
    return acc_mult * state + acc_plus;
}

void storq_rng_advance(storq_rng *rng, storq_u128 delta)
{
    rng->state = storq_lcg_advance(rng->state, delta, STORQ_PCG_CHEAP_MULT, rng->inc);
}

uint64_t storq_pcg64_xslrr_next(storq_rng *rng)
{
    rng->state = rng->state * STORQ_PCG_MULT_128 + rng->inc;
    uint64_t x = (uint64_t)(rng->state >> 64) ^ (uint64_t)rng->state;
    unsigned rot = (unsigned)(rng->state >> 122);
    return (x >> rot) | (x << ((64u - rot) & 63u));
}

/* splitmix64's finaliser: a bijection of 64-bit words with full avalanche. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Word j of the (seed, purpose) seeding material. The inner mix64 is a bijection of the seed and
 * the outer one of (inner + odd multiple of purpose + 1), so for a fixed j two keys differing
 * only in seed, or only in purpose, always get different words; other pairs collide with
 * chance 2^-64. */
static uint64_t seed_word(uint64_t seed, unsigned purpose, unsigned j)
{
    static const uint64_t salt[4] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL,
                                     0xa4093822299f31d0ULL, 0x082efa98ec4e6c89ULL};
    return mix64(mix64(seed ^ salt[j]) + ((uint64_t)purpose + 1) * 0x9e3779b97f4a7c15ULL);
}

/* Stream design. Each (seed, purpose) owns one PCG sequence: initseq (which selects the LCG
 * increment) and initstate are 128-bit values made of seed_word()s, so different seeds or purposes
 * get unrelated increments and starting points, and seeding goes through storq_rng_seed(). The
 * replication (point, r) then jumps to draw number point * 2^96 + r * 2^64 of that sequence
 * (period 2^128): with point < 2^32 and r < 2^32, every (point, replication) owns a disjoint
 * stretch of 2^64 draws. Nothing depends on rank or thread. */
storq_rng storq_rng_stream(const storq_stream_key *key, storq_stream_purpose purpose)
{
    assert(key->point < (1ULL << 32) && key->replication < (1ULL << 32));
    unsigned p = (unsigned)purpose;
    storq_u128 initseq = u128(seed_word(key->seed, p, 0), seed_word(key->seed, p, 1));
    storq_u128 initstate = u128(seed_word(key->seed, p, 2), seed_word(key->seed, p, 3));
    storq_rng rng;
    storq_rng_seed(&rng, initstate, initseq);
    storq_rng_advance(&rng, ((storq_u128)key->point << 96) + ((storq_u128)key->replication << 64));
    return rng;
}

/* Sequential draws with rejection of duplicates: each new value is uniform over the values not
 * yet taken, so every ordered tuple is equally likely. Used when L <= n/2 (at most 2 expected
 * draws per value). L <= 64 is done inline by storq_rng_sample_distinct_fast (a scan of the
 * values taken); larger L uses an open-addressing set instead of the O(L^2) scan. Both consume
 * the same draws, so the result does not depend on which one runs. */
static void sample_rejection(storq_rng *rng, uint64_t n, unsigned L, uint64_t *out)
{
    size_t cap = 256;
    while (cap < 2 * (size_t)L)
        cap *= 2;
    uint64_t *set = malloc(cap * sizeof *set); /* holds v + 1; 0 marks an empty slot */
    if (!set) {
        fprintf(stderr, "storq: out of memory in storq_rng_sample_distinct (L = %u)\n", L);
        abort();
    }
    for (size_t s = 0; s < cap; s++)
        set[s] = 0;
    for (unsigned i = 0; i < L; i++) {
        for (;;) {
            uint64_t v = storq_rng_below(rng, n);
            size_t s = (size_t)(mix64(v) & (cap - 1));
            while (set[s] && set[s] != v + 1)
                s = (s + 1) & (cap - 1);
            if (!set[s]) {
                set[s] = v + 1;
                out[i] = v;
                break;
            }
        }
    }
    free(set);
}

/* Partial Fisher-Yates shuffle of 0..n-1: position i takes a uniform pick of the n - i values
 * left. Used when L > n/2; n <= 256 is done inline by storq_rng_sample_distinct_fast, larger n
 * here with a heap buffer. */
static void sample_shuffle(storq_rng *rng, uint64_t n, unsigned L, uint64_t *out)
{
    uint64_t *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "storq: out of memory in storq_rng_sample_distinct (n = %llu)\n",
                (unsigned long long)n);
        abort();
    }
    storq_rng_shuffle_take(rng, a, n, L, out);
    free(a);
}

void storq_rng_sample_distinct(storq_rng *rng, uint64_t n, unsigned L, uint64_t *out)
{
    assert(L <= n);
    if (storq_rng_sample_is_small(n, L))
        storq_rng_sample_distinct_fast(rng, n, L, out);
    else if ((uint64_t)L > n / 2)
        sample_shuffle(rng, n, L, out);
    else
        sample_rejection(rng, n, L, out);
}
