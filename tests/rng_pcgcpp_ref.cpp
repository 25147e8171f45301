// Reference outputs from the PCG authors' C++ library (Debian libpcg-cpp-dev 0.98), printed in the
// format of rng_dump so rng_numpy_check.py --pcgcpp can compare them number for number.
//
//   rng_pcgcpp_ref GEN INITSTATE INITSEQ COUNT [DELTA [advance|discard]]
//
// GEN pcg64:   pcg64 rng(INITSTATE, INITSEQ), i.e. inc = 2 INITSEQ + 1,
//              state = bump(INITSTATE + inc) with the 128-bit multiplier; XSL-RR output of the
//              new state. Compare: rng_dump xslrr-seed.
// GEN cm-dxsm: pcg-cpp's engine template with the cheap multiplier and the DXSM output on the old
//              state (pcg-cpp 0.98 has no DXSM, so the output function is written here; the seeding
//              and the jump are the library's). Compare: rng_dump dxsm-seed.
// DELTA steps are skipped with the library's advance() or discard() before drawing.
#include <pcg_random.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>

typedef pcg_extras::pcg128_t u128;

struct cheap_multiplier {
    static constexpr u128 multiplier() { return u128(0xda942042e4dd58b5ULL); }
};

template <typename xtype, typename itype>
struct dxsm_output {
    static xtype output(itype internal)
    {
        uint64_t hi = uint64_t(internal >> 64);
        uint64_t lo = uint64_t(internal) | 1u;
        hi ^= hi >> 32;
        hi *= 0xda942042e4dd58b5ULL;
        hi ^= hi >> 48;
        return hi * lo;
    }
};

typedef pcg_detail::engine<uint64_t, u128, dxsm_output<uint64_t, u128>, true,
                           pcg_detail::specific_stream<u128>, cheap_multiplier>
    cm_dxsm;

static bool parse_u128(const char *s, u128 *out)
{
    u128 v = 0;
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s)
        return false;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = unsigned(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = unsigned(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = unsigned(*s - 'A' + 10);
        else
            return false;
        if (v > (~u128(0) - d) / base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

template <typename Engine>
static void dump(Engine rng, u128 delta, bool discard, u128 count)
{
    if (discard)
        rng.discard(delta);
    else
        rng.advance(delta);
    for (u128 i = 0; i < count; i++)
        std::printf("%llu\n", (unsigned long long)rng());
}

int main(int argc, char **argv)
{
    u128 initstate, initseq, count, delta = 0;
    bool discard = argc > 6 && std::strcmp(argv[6], "discard") == 0;
    if (argc < 5 || argc > 7 || !parse_u128(argv[2], &initstate) ||
        !parse_u128(argv[3], &initseq) || !parse_u128(argv[4], &count) ||
        (argc > 5 && !parse_u128(argv[5], &delta)) ||
        (argc > 6 && !discard && std::strcmp(argv[6], "advance") != 0)) {
        std::fprintf(stderr, "usage: rng_pcgcpp_ref pcg64|cm-dxsm INITSTATE INITSEQ COUNT "
                             "[DELTA [advance|discard]]\n");
        return 2;
    }
    if (std::strcmp(argv[1], "pcg64") == 0)
        dump(pcg64(initstate, initseq), delta, discard, count);
    else if (std::strcmp(argv[1], "cm-dxsm") == 0)
        dump(cm_dxsm(initstate, initseq), delta, discard, count);
    else {
        std::fprintf(stderr, "rng_pcgcpp_ref: unknown generator '%s'\n", argv[1]);
        return 2;
    }
    return 0;
}
