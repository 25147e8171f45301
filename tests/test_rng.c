/* RNG unit tests: known answers (from numpy 1.24 and pcg-c/pcg-cpp), jumps, stream derivation,
 * uniform and bounded draws, random distinct subsets.
 *
 * Statistical checks use fixed streams, so they are deterministic; each chi-square check fails
 * when its p-value is below ALPHA = 1e-6, i.e. a correct generator would fail a given check with
 * probability 1e-6 over the choice of seed. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "stats.h"
#include "rng.h"

#define ALPHA 1e-6

static storq_u128 u128(uint64_t hi, uint64_t lo)
{
    return ((storq_u128)hi << 64) | lo;
}

/* Chi-square p-value of observed counts against expected counts (same total). */
static double chi2_pvalue(const uint64_t *obs, const double *expct, int cells)
{
    double x = 0;
    for (int i = 0; i < cells; i++)
        x += ((double)obs[i] - expct[i]) * ((double)obs[i] - expct[i]) / expct[i];
    return storq_chi2_sf(x, cells - 1);
}

static double chi2_uniform_pvalue(const uint64_t *obs, int cells)
{
    uint64_t total = 0;
    for (int i = 0; i < cells; i++)
        total += obs[i];
    double e[4096];
    for (int i = 0; i < cells; i++)
        e[i] = (double)total / cells;
    return chi2_pvalue(obs, e, cells);
}

static void test_chi2_helper(void)
{
    /* Closed forms: df 1 erfc(sqrt(x/2)); df 2 exp(-x/2); df 3 adds sqrt(2x/pi) exp(-x/2);
     * even df: exp(-x/2) sum_{j < df/2} (x/2)^j / j!. */
    static const double xs[] = {0.01, 0.5, 3, 10, 23.928127, 40, 80};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double x = xs[i], h = x / 2, e = exp(-h);
        CHECK_NEAR(storq_chi2_sf(x, 1) / erfc(sqrt(h)), 1, 1e-9);
        CHECK_NEAR(storq_chi2_sf(x, 2) / e, 1, 1e-9);
        CHECK_NEAR(storq_chi2_sf(x, 3) / (erfc(sqrt(h)) + sqrt(2 * x / M_PI) * e), 1, 1e-9);
        CHECK_NEAR(storq_chi2_sf(x, 10) / (e * (1 + h + h * h / 2 + h * h * h / 6 + h * h * h * h / 24)),
                   1, 1e-9);
    }
    CHECK_NEAR(storq_chi2_sf(23.928127, 1), 1e-6, 1e-12); /* the 1e-6 critical value at df 1 */
}

/* ---------------------------------------------------------------- known answers */

static const storq_u128 KA_STATE_HI = 0x0123456789abcdefULL, KA_STATE_LO = 0xfedcba9876543210ULL;
static const storq_u128 KA_INC_HI = 0x2545f4914f6cdd1dULL, KA_INC_LO = 0x3c6ef372fe94f82bULL;

static void test_known_answers(void)
{
    storq_u128 S = u128(KA_STATE_HI, KA_STATE_LO), I = u128(KA_INC_HI, KA_INC_LO);

    /* numpy PCG64DXSM random_raw() from this (state, inc). */
    static const uint64_t dxsm[5] = {0xa5c2f45958c644a2ULL, 0xad5a8ae1893f9a39ULL,
                                     0xa70e0f7b6b84f033ULL, 0x1998cc1228eb7cf0ULL,
                                     0x9ed94b8fd367a54fULL};
    storq_rng r = {S, I};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_U64(storq_rng_next(&r), dxsm[i]);

    /* storq_rng_seed(initstate, initseq): the resulting (state, inc) computed by the pcg-c formula
     * with the cheap multiplier, and numpy PCG64DXSM's outputs from that state. */
    static const uint64_t seeded[5] = {0x6263bad2bde967b6ULL, 0xbd9d9d02f199bd7aULL,
                                       0x234194539241514fULL, 0x9522f70f605affc9ULL,
                                       0x9b21e7747e6afc92ULL};
    storq_rng_seed(&r, u128(0x2a, 0xff), 0x36);
    CHECK(r.state == u128(0xdc4d4af98c508ee8ULL, 0xca9ddf1d6aba21c9ULL));
    CHECK(r.inc == 0x6d);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_U64(storq_rng_next(&r), seeded[i]);

    /* numpy PCG64 (XSL-RR) random_raw() from the same (state, inc). */
    static const uint64_t xslrr[5] = {0x57e35d49a1c464bdULL, 0x57a1b7960309eb99ULL,
                                      0xd8c7055949c0d905ULL, 0x12953285058634a3ULL,
                                      0x2fc28ac3fd1dd043ULL};
    r = (storq_rng){S, I};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_U64(storq_pcg64_xslrr_next(&r), xslrr[i]);

    /* pcg-c's pcg64 demo: pcg64_srandom_r(42, 54), seeded here with single LCG jumps. */
    static const uint64_t demo[3] = {0x86b1da1d72062b68ULL, 0x1304aa46c9853d39ULL,
                                     0xa3670e9e0dd50358ULL};
    r.inc = ((storq_u128)54 << 1) | 1;
    r.state = storq_lcg_advance(0, 1, STORQ_PCG_MULT_128, r.inc) + 42;
    r.state = storq_lcg_advance(r.state, 1, STORQ_PCG_MULT_128, r.inc);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_U64(storq_pcg64_xslrr_next(&r), demo[i]);

    /* numpy's advance(2^100 + 12345) from (S, I): PCG64DXSM (cheap) and PCG64 (128-bit). */
    storq_u128 delta = ((storq_u128)1 << 100) + 12345;
    r = (storq_rng){S, I};
    storq_rng_advance(&r, delta);
    CHECK(r.state == u128(0xf4358997b9646c1bULL, 0x56e20f626c8356b3ULL));
    CHECK(storq_lcg_advance(S, delta, STORQ_PCG_MULT_128, I) ==
          u128(0xf949080ac00c72b6ULL, 0xc1683e238b1b0ef3ULL));
}

/* ---------------------------------------------------------------- jumps */

static void test_advance(void)
{
    storq_u128 S = u128(KA_STATE_HI, KA_STATE_LO), I = u128(KA_INC_HI, KA_INC_LO);
    static const unsigned deltas[] = {0, 1, 2, 3, 1000, 12345};
    for (size_t k = 0; k < sizeof deltas / sizeof deltas[0]; k++) {
        storq_rng stepped = {S, I}, jumped = {S, I};
        for (unsigned i = 0; i < deltas[k]; i++)
            storq_rng_next(&stepped);
        storq_rng_advance(&jumped, deltas[k]);
        CHECK(stepped.state == jumped.state && stepped.inc == jumped.inc);
        CHECK_EQ_U64(storq_rng_next(&stepped), storq_rng_next(&jumped));

        storq_rng s128 = {S, I};
        for (unsigned i = 0; i < deltas[k]; i++)
            storq_pcg64_xslrr_next(&s128);
        CHECK(s128.state == storq_lcg_advance(S, deltas[k], STORQ_PCG_MULT_128, I));
    }

    /* Huge jumps: two jumps adding up (mod 2^128) equal one. */
    storq_u128 a = ((storq_u128)1 << 100) + 5, b = ((storq_u128)1 << 127) + 0x123456789ULL;
    storq_u128 c = ~(storq_u128)0 - 77; /* a + c wraps around 2^128 */
    storq_rng one = {S, I}, two = {S, I};
    storq_rng_advance(&one, a + b);
    storq_rng_advance(&two, a);
    storq_rng_advance(&two, b);
    CHECK(one.state == two.state);
    storq_rng_advance(&one, c);
    storq_rng_advance(&two, c);
    CHECK(one.state == two.state);
    CHECK(storq_lcg_advance(storq_lcg_advance(S, a, STORQ_PCG_MULT_128, I), c,
                            STORQ_PCG_MULT_128, I) ==
          storq_lcg_advance(S, a + c, STORQ_PCG_MULT_128, I));

    /* The period is 2^128: jumping 2^128 - 1 then stepping once comes back. */
    storq_rng back = {S, I};
    storq_rng_advance(&back, ~(storq_u128)0);
    storq_rng_next(&back);
    CHECK(back.state == S);
}

/* ---------------------------------------------------------------- streams */

static int same_rng(storq_rng a, storq_rng b)
{
    return a.state == b.state && a.inc == b.inc;
}

static void test_streams(void)
{
    storq_stream_key k = {.seed = 20240611, .point = 7, .replication = 3};
    storq_rng a = storq_rng_stream(&k, STORQ_STREAM_ARRIVALS);
    storq_rng b = storq_rng_stream(&k, STORQ_STREAM_ARRIVALS);
    CHECK(same_rng(a, b));
    CHECK(a.inc & 1u);

    /* Changing any one id changes the stream (state and draws). */
    storq_stream_key kp = k, kr = k, ks = k;
    kp.point++;
    kr.replication++;
    ks.seed++;
    storq_rng others[4] = {storq_rng_stream(&kp, STORQ_STREAM_ARRIVALS),
                           storq_rng_stream(&kr, STORQ_STREAM_ARRIVALS),
                           storq_rng_stream(&ks, STORQ_STREAM_ARRIVALS),
                           storq_rng_stream(&k, STORQ_STREAM_SIZES)};
    uint64_t first = storq_rng_next(&b);
    for (int i = 0; i < 4; i++) {
        CHECK(others[i].state != a.state);
        CHECK(storq_rng_next(&others[i]) != first);
    }

    /* Different (seed, purpose) pairs get different increments. */
    storq_u128 incs[5 * 8];
    int n = 0;
    for (uint64_t seed = 0; seed < 5; seed++)
        for (int p = STORQ_STREAM_ARRIVALS; p <= STORQ_STREAM_EXTRA; p++) {
            storq_stream_key kk = {.seed = seed * 0x100000001ULL};
            incs[n++] = storq_rng_stream(&kk, (storq_stream_purpose)p).inc;
        }
    int distinct = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            distinct &= incs[i] != incs[j];
    CHECK(distinct);

    /* (point, replication) is a jump of point 2^96 + replication 2^64 along the (seed, purpose)
     * sequence; the increment does not depend on them. */
    storq_stream_key k0 = k, k00 = k;
    k0.replication = 0;
    k00.point = 0;
    k00.replication = 0;
    storq_rng r0 = storq_rng_stream(&k0, STORQ_STREAM_ROUTING);
    storq_rng_advance(&r0, (storq_u128)k.replication << 64);
    CHECK(same_rng(r0, storq_rng_stream(&k, STORQ_STREAM_ROUTING)));
    storq_rng r00 = storq_rng_stream(&k00, STORQ_STREAM_ROUTING);
    storq_rng_advance(&r00, ((storq_u128)k.point << 96) + ((storq_u128)k.replication << 64));
    CHECK(same_rng(r00, storq_rng_stream(&k, STORQ_STREAM_ROUTING)));

    /* The largest ids allowed still give distinct streams. */
    storq_stream_key big = {.seed = UINT64_MAX, .point = 0xffffffffULL,
                            .replication = 0xffffffffULL};
    storq_stream_key big2 = big;
    big2.replication--;
    CHECK(!same_rng(storq_rng_stream(&big, STORQ_STREAM_EXTRA),
                    storq_rng_stream(&big2, STORQ_STREAM_EXTRA)));

    /* Regression pin: the first draws of one stream, reproduced independently by a python
     * transcription of the design in rng.c fed to numpy's PCG64DXSM (set state, advance). A
     * change here changes every result file; update it only on purpose. */
    storq_stream_key pin = {.seed = 1, .point = 2, .replication = 3};
    storq_rng rp = storq_rng_stream(&pin, STORQ_STREAM_SERVICE);
    uint64_t pin0 = storq_rng_next(&rp), pin1 = storq_rng_next(&rp);
    CHECK_EQ_U64(pin0, 0x98a67bd0d8f7697bULL);
    CHECK_EQ_U64(pin1, 0xba3895bed800e522ULL);
}

/* ---------------------------------------------------------------- uniform and bounded draws */

/* Multiplicative inverse of an odd number mod 2^64 (Newton: each step doubles the good bits). */
static uint64_t inverse_odd(uint64_t a)
{
    uint64_t x = a; /* correct to 3 bits */
    for (int i = 0; i < 5; i++)
        x *= 2 - a * x;
    return x;
}

static void test_uniform(void)
{
    /* Boundaries, reached by choosing the state: DXSM outputs 0 when the high half is 0, and
     * 2^64 - 1 when the low half is the inverse of the mixed high half. */
    storq_rng r = {u128(0, 12345), 1};
    CHECK(storq_rng_uniform(&r) == 0.0);
    r = (storq_rng){u128(0, 12345), 1};
    CHECK(storq_rng_uniform_pos(&r) == 0x1.0p-53);
    uint64_t hi = 1;
    hi ^= hi >> 32;
    hi *= STORQ_PCG_CHEAP_MULT;
    hi ^= hi >> 48; /* odd */
    storq_u128 top = u128(1, inverse_odd(hi) * UINT64_MAX);
    r = (storq_rng){top, 1};
    CHECK_EQ_U64(storq_rng_next(&r), UINT64_MAX);
    r = (storq_rng){top, 1};
    CHECK(storq_rng_uniform(&r) == 1.0 - 0x1.0p-53);
    r = (storq_rng){top, 1};
    CHECK(storq_rng_uniform_pos(&r) == 1.0);

    /* Range and moments of 10^6 draws; mean within 5 standard errors (false alarm 6e-7). */
    storq_stream_key k = {.seed = 11};
    r = storq_rng_stream(&k, STORQ_STREAM_EXTRA);
    const int n = 1000000;
    int in_range = 1;
    double s = 0, spos = 0;
    uint64_t bins[100] = {0};
    for (int i = 0; i < n; i++) {
        double u = storq_rng_uniform(&r), v = storq_rng_uniform_pos(&r);
        in_range &= u >= 0 && u < 1 && v > 0 && v <= 1;
        s += u;
        spos += v;
        bins[(int)(u * 100)]++;
    }
    CHECK(in_range);
    double se = sqrt(1.0 / 12 / n);
    CHECK_NEAR(s / n, 0.5, 5 * se);
    CHECK_NEAR(spos / n, 0.5, 5 * se);
    CHECK(chi2_uniform_pvalue(bins, 100) > ALPHA);
}

static void test_below(void)
{
    storq_stream_key k = {.seed = 12};
    storq_rng r = storq_rng_stream(&k, STORQ_STREAM_EXTRA);
    const int n = 1000000;

    int ok = 1;
    for (int i = 0; i < 1000; i++)
        ok &= storq_rng_below(&r, 1) == 0;
    CHECK(ok);

    static const uint64_t small[] = {2, 3, 7, 1000};
    for (size_t b = 0; b < sizeof small / sizeof small[0]; b++) {
        uint64_t bins[1000] = {0};
        ok = 1;
        for (int i = 0; i < n; i++) {
            uint64_t v = storq_rng_below(&r, small[b]);
            ok &= v < small[b];
            if (v < small[b])
                bins[v]++;
        }
        CHECK(ok);
        double p = chi2_uniform_pvalue(bins, (int)small[b]);
        if (!(p > ALPHA))
            fprintf(stderr, "below(%llu): chi-square p = %g\n", (unsigned long long)small[b], p);
        CHECK(p > ALPHA);
    }

    /* bound = 3 2^62: a quarter of the raw draws are rejected. Modulo bias would put half the
     * mass in the lowest third; multiply-shift without rejection would favour v = 0 mod 3. */
    uint64_t big = 3ULL << 62;
    uint64_t thirds[3] = {0}, mod3[3] = {0};
    ok = 1;
    for (int i = 0; i < n; i++) {
        uint64_t v = storq_rng_below(&r, big);
        ok &= v < big;
        thirds[v >> 62 < 3 ? v >> 62 : 2]++;
        mod3[v % 3]++;
    }
    CHECK(ok);
    CHECK(chi2_uniform_pvalue(thirds, 3) > ALPHA);
    CHECK(chi2_uniform_pvalue(mod3, 3) > ALPHA);

    /* bound = 2^63 + 1: about half the raw draws are rejected; check the top bit's balance
     * (P(v >= 2^62) = (2^62 + 1) / (2^63 + 1)) and that the bound is never reached. */
    big = (1ULL << 63) + 1;
    uint64_t halves[2] = {0};
    ok = 1;
    for (int i = 0; i < n; i++) {
        uint64_t v = storq_rng_below(&r, big);
        ok &= v < big;
        halves[v >= (1ULL << 62)]++;
    }
    CHECK(ok);
    double e[2] = {n * (0x1.0p62 / (0x1.0p63 + 1)), 0};
    e[1] = n - e[0];
    CHECK(chi2_pvalue(halves, e, 2) > ALPHA);

    /* The largest bound. */
    ok = 1;
    for (int i = 0; i < 1000; i++)
        ok &= storq_rng_below(&r, UINT64_MAX) < UINT64_MAX;
    CHECK(ok);
}

/* ---------------------------------------------------------------- random subsets */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_distinct_ranges(void)
{
    static const struct {
        uint64_t n;
        unsigned L;
    } cases[] = {{1, 1},    {1, 0},     {2, 1},     {2, 2},      {3, 2},       {5, 5},
                 {10, 5},   {10, 6},    {64, 64},   {256, 129},  {256, 256},   {300, 151},
                 {300, 300}, {1000, 64}, {1000, 65}, {1000, 500}, {1000, 501}, {100000, 3},
                 {1000000000, 3}, {1000000000, 64}, {1000000000, 1000}, {UINT64_MAX, 100}};
    uint64_t out[1000], sorted[1000];
    storq_stream_key k = {.seed = 13};
    storq_rng r = storq_rng_stream(&k, STORQ_STREAM_PLACEMENT);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int ok = 1;
        for (int rep = 0; rep < 50; rep++) {
            unsigned L = cases[c].L;
            storq_rng_sample_distinct(&r, cases[c].n, L, out);
            memcpy(sorted, out, L * sizeof *out);
            qsort(sorted, L, sizeof *sorted, cmp_u64);
            for (unsigned i = 0; i < L; i++)
                ok &= sorted[i] < cases[c].n && (i == 0 || sorted[i] != sorted[i - 1]);
            if (L == cases[c].n) /* a permutation */
                for (unsigned i = 0; i < L; i++)
                    ok &= sorted[i] == i;
        }
        if (!ok)
            fprintf(stderr, "sample_distinct(n = %llu, L = %u) broke range or distinctness\n",
                    (unsigned long long)cases[c].n, cases[c].L);
        CHECK(ok);
    }
}

/* Index of an ordered L-tuple of distinct values below n (mixed radix n, n-1, ...). */
static int tuple_index(const uint64_t *t, unsigned L, uint64_t n)
{
    int idx = 0;
    for (unsigned i = 0; i < L; i++) {
        uint64_t rank = t[i];
        for (unsigned j = 0; j < i; j++)
            rank -= t[j] < t[i];
        idx = idx * (int)(n - i) + (int)rank;
    }
    return idx;
}

static void test_distinct_uniform(void)
{
    storq_stream_key k = {.seed = 14};
    storq_rng r = storq_rng_stream(&k, STORQ_STREAM_PLACEMENT);
    uint64_t out[200];

    /* Every ordered tuple equally likely: (n, L) = (4, 2) (rejection path, 12 outcomes), (4, 3)
     * and (5, 5) (shuffle path, 24 and 120 outcomes), (6, 3) (rejection, 120). */
    static const struct {
        uint64_t n;
        unsigned L;
        int outcomes;
    } cases[] = {{4, 2, 12}, {4, 3, 24}, {5, 5, 120}, {6, 3, 120}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint64_t counts[120] = {0};
        const int n = 600000;
        for (int i = 0; i < n; i++) {
            storq_rng_sample_distinct(&r, cases[c].n, cases[c].L, out);
            counts[tuple_index(out, cases[c].L, cases[c].n)]++;
        }
        double p = chi2_uniform_pvalue(counts, cases[c].outcomes);
        if (!(p > ALPHA))
            fprintf(stderr, "sample_distinct(%llu, %u): tuple chi-square p = %g\n",
                    (unsigned long long)cases[c].n, cases[c].L, p);
        CHECK(p > ALPHA);
    }

    /* Position of the first element (value 0) in a full permutation of 8: uniform over 8. */
    uint64_t pos[8] = {0};
    for (int i = 0; i < 400000; i++) {
        storq_rng_sample_distinct(&r, 8, 8, out);
        for (int j = 0; j < 8; j++)
            pos[j] += out[j] == 0;
    }
    CHECK(chi2_uniform_pvalue(pos, 8) > ALPHA);

    /* Large-L rejection path (set instead of scan): n = 200, L = 100; the first and last
     * elements are each uniform over the 200 values. */
    uint64_t first[200] = {0}, last[200] = {0};
    for (int i = 0; i < 100000; i++) {
        storq_rng_sample_distinct(&r, 200, 100, out);
        first[out[0]]++;
        last[out[99]]++;
    }
    CHECK(chi2_uniform_pvalue(first, 200) > ALPHA);
    CHECK(chi2_uniform_pvalue(last, 200) > ALPHA);

    /* n = 10^9, L = 3: each position's value falls uniformly into ten deciles. */
    uint64_t dec[3][10] = {{0}};
    for (int i = 0; i < 200000; i++) {
        storq_rng_sample_distinct(&r, 1000000000, 3, out);
        for (int j = 0; j < 3; j++)
            dec[j][out[j] / 100000000]++;
    }
    for (int j = 0; j < 3; j++)
        CHECK(chi2_uniform_pvalue(dec[j], 10) > ALPHA);
}

/* The sampler's documented draws, written plainly: shuffle of 0..n-1 when L > n/2, else
 * sequential draws redrawn on repeats; the library (inline small cases, heap buffer, hash set for
 * large L) must give the same output and leave the stream in the same state. */
static void plain_sample(storq_rng *rng, uint64_t n, unsigned L, uint64_t *out)
{
    if ((uint64_t)L > n / 2) {
        uint64_t *a = malloc((size_t)n * sizeof *a);
        for (uint64_t i = 0; i < n; i++)
            a[i] = i;
        for (unsigned i = 0; i < L; i++) {
            uint64_t j = i + storq_rng_below(rng, n - i), t = a[i];
            a[i] = a[j];
            a[j] = t;
            out[i] = a[i];
        }
        free(a);
        return;
    }
    for (unsigned i = 0; i < L; i++) {
        int dup;
        do {
            out[i] = storq_rng_below(rng, n);
            dup = 0;
            for (unsigned j = 0; j < i; j++)
                dup |= out[j] == out[i];
        } while (dup);
    }
}

static void test_distinct_draws(void)
{
    static const struct { uint64_t n; unsigned L; } cases[] = {
        {1, 1}, {2, 2}, {4, 2}, {5, 2}, {7, 4}, {64, 20}, {100, 64}, {130, 65}, {200, 64},
        {256, 129}, {256, 256}, {257, 200}, {300, 65}, {1000, 100}, {1000000, 3}, {1ull << 40, 70},
    };
    uint64_t a[1000], b[1000];
    storq_stream_key key = {42, 1, 2};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        storq_rng r1 = storq_rng_stream(&key, STORQ_STREAM_PLACEMENT), r2 = r1, r3 = r1;
        int same = 1;
        for (int rep = 0; rep < 50; rep++) {
            storq_rng_sample_distinct(&r1, cases[c].n, cases[c].L, a);
            plain_sample(&r2, cases[c].n, cases[c].L, b);
            for (unsigned i = 0; i < cases[c].L; i++)
                same &= a[i] == b[i];
            storq_rng_sample_distinct_fast(&r3, cases[c].n, cases[c].L, b);
            for (unsigned i = 0; i < cases[c].L; i++)
                same &= a[i] == b[i];
        }
        same &= r1.state == r2.state && r1.state == r3.state;
        if (!same)
            fprintf(stderr, "sample_distinct(%llu, %u) differs from its plain algorithm\n",
                    (unsigned long long)cases[c].n, cases[c].L);
        CHECK(same);
    }
}

int main(void)
{
    test_chi2_helper();
    test_known_answers();
    test_advance();
    test_streams();
    test_uniform();
    test_below();
    test_distinct_ranges();
    test_distinct_uniform();
    test_distinct_draws();
    return check_report("test_rng");
}
