/* Print raw outputs of storq's generators, one per line, for comparison with numpy and pcg-cpp.
 *
 *   rng_dump GEN STATE INC COUNT [ADVANCE [BOUND]]
 *
 * Numbers are decimal or 0x-prefixed hex, up to 128 bits. GEN is one of
 *   dxsm        STATE, INC set directly; storq_rng_next (numpy PCG64DXSM random_raw)
 *   double      same, storq_rng_uniform (numpy Generator.random)
 *   below       same, storq_rng_below(BOUND)
 *   dxsm-seed   storq_rng_seed(STATE = initstate, INC = initseq), then storq_rng_next
 *   xslrr       STATE, INC set directly; storq_pcg64_xslrr_next (numpy PCG64 random_raw)
 *   xslrr-seed  pcg-c seeding with the 128-bit multiplier, as pcg-cpp's pcg64(initstate, initseq)
 * ADVANCE jumps ahead that many steps after setting the state and before drawing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static int parse_u128(const char *s, storq_u128 *out)
{
    storq_u128 v = 0;
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s)
        return 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return 0;
        if (v > (~(storq_u128)0 - d) / base) /* more than 128 bits */
            return 0;
        v = v * base + d;
    }
    *out = v;
    return 1;
}

int main(int argc, char **argv)
{
    storq_u128 state, inc, count, advance = 0, bound = 0;
    if (argc < 5 || argc > 7 || !parse_u128(argv[2], &state) || !parse_u128(argv[3], &inc) ||
        !parse_u128(argv[4], &count) || (argc > 5 && !parse_u128(argv[5], &advance)) ||
        (argc > 6 && !parse_u128(argv[6], &bound))) {
        fprintf(stderr, "usage: rng_dump dxsm|double|below|dxsm-seed|xslrr|xslrr-seed "
                        "STATE INC COUNT [ADVANCE [BOUND]]\n");
        return 2;
    }
    const char *gen = argv[1];
    int xslrr = strncmp(gen, "xslrr", 5) == 0;
    storq_rng rng = {state, inc};
    if (strcmp(gen, "dxsm-seed") == 0) {
        storq_rng_seed(&rng, state, inc);
    } else if (strcmp(gen, "xslrr-seed") == 0) {
        rng.state = 0;
        rng.inc = (inc << 1) | 1u;
        rng.state = storq_lcg_advance(rng.state, 1, STORQ_PCG_MULT_128, rng.inc);
        rng.state += state;
        rng.state = storq_lcg_advance(rng.state, 1, STORQ_PCG_MULT_128, rng.inc);
    } else if (strcmp(gen, "dxsm") && strcmp(gen, "double") && strcmp(gen, "below") &&
               strcmp(gen, "xslrr")) {
        fprintf(stderr, "rng_dump: unknown generator '%s'\n", gen);
        return 2;
    }
    if (strcmp(gen, "below") == 0 && (bound == 0 || bound > UINT64_MAX)) {
        fprintf(stderr, "rng_dump: below needs 1 <= BOUND < 2^64\n");
        return 2;
    }
    if (xslrr)
        rng.state = storq_lcg_advance(rng.state, advance, STORQ_PCG_MULT_128, rng.inc);
    else
        storq_rng_advance(&rng, advance);

    for (storq_u128 i = 0; i < count; i++) {
        if (xslrr)
            printf("%llu\n", (unsigned long long)storq_pcg64_xslrr_next(&rng));
        else if (strcmp(gen, "double") == 0)
            printf("%.17g\n", storq_rng_uniform(&rng));
        else if (strcmp(gen, "below") == 0)
            printf("%llu\n", (unsigned long long)storq_rng_below(&rng, (uint64_t)bound));
        else
            printf("%llu\n", (unsigned long long)storq_rng_next(&rng));
    }
    return 0;
}
