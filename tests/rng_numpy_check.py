#!/usr/bin/python3
"""Compare storq's generators (through rng_dump) with reference implementations, number for number.

    rng_numpy_check.py RNG_DUMP                  against numpy's PCG64DXSM and PCG64
    rng_numpy_check.py RNG_DUMP --pcgcpp REF     against pcg-cpp (REF = rng_pcgcpp_ref)

Exits 1 on the first mismatch, after printing it; prints what matched otherwise.
"""
import random
import subprocess
import sys

import numpy as np

MASK = (1 << 128) - 1
CHEAP_MULT = 0xDA942042E4DD58B5
N = 1000  # outputs compared per case
DELTAS = [0, 1, 2, 1000, 12345, (1 << 64) + 7, (1 << 96) + (3 << 64), (1 << 127) + 3, MASK]

failures = 0


def run(prog, *args):
    out = subprocess.run([str(prog)] + [str(a) for a in args], check=True,
                         capture_output=True, text=True).stdout
    return out.split()


def compare(what, got, want):
    global failures
    got = list(got)
    want = list(want)
    if len(got) != len(want):
        print(f"MISMATCH {what}: {len(got)} outputs, expected {len(want)}")
        failures += 1
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print(f"MISMATCH {what}: output {i}: storq {g}, reference {w}")
            failures += 1
            return


def verdict():
    return f"{failures} MISMATCH(ES) so far" if failures else "all matched"


def numpy_bitgen(cls, state, inc):
    b = cls()
    b.state = {"bit_generator": cls.__name__, "state": {"state": state, "inc": inc},
               "has_uint32": 0, "uinteger": 0}
    return b


def cases():
    """(state, inc) pairs: edge values, then random 128-bit ones from a fixed seed."""
    fixed = [(0, 1), (1, 3), (MASK, MASK), (0x0123456789ABCDEF0123456789ABCDEF, 0xDEADBEEF | 1),
             ((1 << 64) | 5, (1 << 127) | 1)]
    r = random.Random(20240611)
    rand = [(r.getrandbits(128), r.getrandbits(128) | 1) for _ in range(5)]
    return fixed + rand


def check_numpy(dump):
    count = 0
    for state, inc in cases():
        for gen, cls in (("dxsm", np.random.PCG64DXSM), ("xslrr", np.random.PCG64)):
            b = numpy_bitgen(cls, state, inc)
            compare(f"{gen} state={state:#x} inc={inc:#x}", map(int, run(dump, gen, state, inc, N)),
                    map(int, b.random_raw(N)))
            count += N
            for delta in DELTAS:
                b = numpy_bitgen(cls, state, inc)
                b.advance(delta)
                compare(f"{gen} state={state:#x} inc={inc:#x} advance {delta}",
                        map(int, run(dump, gen, state, inc, 100, delta)),
                        map(int, b.random_raw(100)))
                count += 100
        # Uniform doubles: both are (x >> 11) 2^-53 of the same draws.
        g = np.random.Generator(numpy_bitgen(np.random.PCG64DXSM, state, inc))
        compare(f"double state={state:#x} inc={inc:#x}",
                map(float, run(dump, "double", state, inc, N)), g.random(N))
        count += N
        # Bounded integers: numpy's 64-bit Lemire path (bounds above 2^32 + 1) is the same
        # algorithm.
        for bound in ((1 << 40) + 3, 3 << 62, (1 << 63) + 1, (1 << 64) - 1):
            g = np.random.Generator(numpy_bitgen(np.random.PCG64DXSM, state, inc))
            compare(f"below {bound} state={state:#x} inc={inc:#x}",
                    map(int, run(dump, "below", state, inc, N, 0, bound)),
                    map(int, g.integers(0, bound, size=N, dtype=np.uint64)))
            count += N
    print(f"numpy: {count} outputs of PCG64DXSM (raw, advance, random(), integers()) and PCG64 "
          f"compared on {len(cases())} (state, inc) pairs: {verdict()}")

    # Seeding. storq_rng_seed is pcg-c's scheme with the cheap multiplier; written out here.
    r = random.Random(7)
    for _ in range(5):
        initstate, initseq = r.getrandbits(128), r.getrandbits(128)
        inc = ((initseq << 1) | 1) & MASK
        state = (((inc + initstate) & MASK) * CHEAP_MULT + inc) & MASK
        b = numpy_bitgen(np.random.PCG64DXSM, state, inc)
        compare(f"dxsm-seed {initstate:#x} {initseq:#x}",
                map(int, run(dump, "dxsm-seed", initstate, initseq, N)), map(int, b.random_raw(N)))
    # numpy's own seeding from a SeedSequence is pcg-c's scheme with the 128-bit multiplier
    # (PCG64 and, in numpy 1.24, PCG64DXSM too): check the 128-bit variant against it directly.
    for seed in (0, 1, 12345, 2**63 + 11):
        w = [int(x) for x in np.random.SeedSequence(seed).generate_state(4, np.uint64)]
        initstate, initseq = (w[0] << 64) | w[1], (w[2] << 64) | w[3]
        compare(f"xslrr-seed from SeedSequence({seed})",
                map(int, run(dump, "xslrr-seed", initstate, initseq, N)),
                map(int, np.random.PCG64(seed).random_raw(N)))
    print("numpy: seeding (cheap-multiplier formula; 128-bit multiplier vs PCG64(SeedSequence)): "
          + verdict())


def check_pcgcpp(dump, ref):
    count = 0
    r = random.Random(99)
    seeds = [(42, 54), (0, 0), (MASK, MASK)] + [(r.getrandbits(128), r.getrandbits(128))
                                               for _ in range(5)]
    for initstate, initseq in seeds:
        for ours, theirs in (("xslrr-seed", "pcg64"), ("dxsm-seed", "cm-dxsm")):
            compare(f"{theirs}({initstate:#x}, {initseq:#x})",
                    run(dump, ours, initstate, initseq, N), run(ref, theirs, initstate, initseq, N))
            count += N
            for delta in DELTAS:
                for how in ("advance", "discard"):
                    compare(f"{theirs}({initstate:#x}, {initseq:#x}).{how}({delta})",
                            run(dump, ours, initstate, initseq, 100, delta),
                            run(ref, theirs, initstate, initseq, 100, delta, how))
                    count += 100
    print(f"pcg-cpp: {count} outputs of pcg64 and of the cheap-multiplier DXSM engine (seeding, "
          f"advance, discard) compared on {len(seeds)} seeds: {verdict()}")


def main():
    if len(sys.argv) == 2:
        check_numpy(sys.argv[1])
    elif len(sys.argv) == 4 and sys.argv[2] == "--pcgcpp":
        check_pcgcpp(sys.argv[1], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    if failures:
        print(f"{failures} mismatch(es)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
