#!/usr/bin/env bash
# Reproduces docs/performance.md's "Build flags" table: the benches of that page built three ways
# from one commit, and the kernels' throughput of each build over the default build's.
#   O2      the default Release build (-O2 -DNDEBUG, -ffp-contract=off: CMakeLists.txt)
#   native  -DSTORQ_NATIVE=ON (-O2 -march=native)
#   O3      -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG"
# Each round runs every bench under the three builds one after the other (interleaved), so that
# the three see the same stretches of the machine's load; a case's figure is the median over the
# rounds of its per-round ratio (a build's kernel throughput over the same round's O2 run). Per
# bench the range of those over its cases, then the median over all cases. The benches' own loops
# are not used: the kernels are compared with themselves.
#
# usage: bench/build_flags.sh [ROUNDS [REV [WORK_DIR]]]
#   ROUNDS: default 2 (6.5 minutes a round on the project's 2-core VM, plus 3 builds of about a
#   minute: 16 minutes for 2 rounds on 2026-12-02);
#   REV: the commit to build (default HEAD; its tree via git archive, not the work tree);
#   WORK_DIR: where the three builds and the logs go (default a new temp dir, kept).
set -euo pipefail
rounds=${1:-2}; rev=${2:-HEAD}
here=$(cd "$(dirname "$0")" && pwd)
top=$(git -C "$here" rev-parse --show-toplevel) # git archive in bench/ would take bench/ alone
cores=$(getconf _NPROCESSORS_ONLN) # before OMP_NUM_THREADS=1, which nproc obeys
work=${3:-$(mktemp -d /tmp/storq_build_flags.XXXXXX)}
mkdir -p "$work"; work=$(realpath "$work")
load() { cut -d' ' -f1-3 /proc/loadavg; }
export OMP_NUM_THREADS=1

commit=$(git -C "$top" rev-parse "$rev")
echo "build_flags: $commit, $rounds rounds, $cores cores, $(date -u +%FT%TZ), load $(load)"
echo "work dir: $work"
rm -rf "$work/src"; mkdir -p "$work/src"
git -C "$top" archive "$commit" | tar -x -C "$work/src"

builds=(O2 native O3)
declare -A flags=([O2]="" [native]="-DSTORQ_NATIVE=ON" [O3]="-DCMAKE_C_FLAGS_RELEASE=-O3 -DNDEBUG")
benches=(bench_supermarket bench_cluster bench_forkjoin bench_proxy bench_threads)
for b in "${builds[@]}"; do
  args=(-S "$work/src" -B "$work/$b" -DCMAKE_BUILD_TYPE=Release -DSTORQ_BUILD_TESTS=OFF)
  [[ $b == O2 ]] || args+=("${flags[$b]}")
  cmake "${args[@]}" >"$work/$b.cmake.log"
  cmake --build "$work/$b" -j 2 --target "${benches[@]}" >"$work/$b.build.log"
  echo "built $b: $(grep -m1 '^CMAKE_C_FLAGS_RELEASE' "$work/$b/CMakeCache.txt")" \
    "$(grep -m1 '^STORQ_NATIVE' "$work/$b/CMakeCache.txt")"
done

# The cases, with the arguments the page states. bench_threads runs at its default N: at
# N = 10^5 its 10% same-law check fails at rho 0.95 (one run each) and it exits 1.
cases=("bench_supermarket 1000 100000" "bench_cluster 500000 3" "bench_forkjoin 200000"
       "bench_proxy 100000" "bench_threads")

# "CASE RATE" lines of one bench's output: the kernels' throughput, one line per table row.
rates() { # BENCH FILE
  awk -F'|' -v bench="$1" '
    function num(s) { gsub(/^ +| +$/, "", s); return s }
    bench == "bench_supermarket" && num($2) ~ /^[0-9]+$/ {
      print num($2) ":" num($3) ":servers", num($4)
      print num($2) ":" num($3) ":counts", num($5)
    }
    bench == "bench_cluster" && num($2) ~ /^[0-9]+$/ && $4 ~ /\[/ { # "ns [min-max]"
      split(num($4), a, " "); print num($2) ":" num($3), 1e9 / a[1]
    }
    bench == "bench_forkjoin" && /^[0-9]\. / { part1 = /^1\. / } # part 1: (n,k), jobs/s
    bench == "bench_forkjoin" && part1 && num($2) ~ /^[0-9]+$/ {
      print "(" num($2) "," num($3) ")", num($5)
    }
    bench == "bench_proxy" && num($3) ~ /^[0-9]+$/ {
      c = num($2); gsub(/ /, "_", c); print c ":L" num($3), num($4)
    }
    bench == "bench_threads" && num($2) ~ /^[0-9.]+$/ { print num($2) ":" num($3), num($6) }
  ' "$2"
}

# The table from the "ROUND BUILD BENCH CASE RATE" lines of FILE.
summary() { # FILE ROUNDS
  awk -v rounds="$2" '
    function median(v, n,   i, j, t) { # insertion sort, then the middle
      for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    {
      rate[$1, $2, $3, $4] = $5
      if (!(($3, $4) in seen)) { seen[$3, $4] = 1; cbench[++nc] = $3; cname[nc] = $4 }
      if (!($3 in bseen)) { bseen[$3] = 1; bn[++nb] = $3 }
    }
    END {
      split("native O3", bl, " ")
      print "| bench | cases | -march=native / -O2 | -O3 / -O2 |"
      print "|---|---:|---|---|"
      for (bi = 1; bi <= nb; bi++) {
        cnt = 0
        for (k = 1; k <= 2; k++) { lo[k] = 1e300; hi[k] = -1e300 }
        for (i = 1; i <= nc; i++) {
          if (cbench[i] != bn[bi]) continue
          cnt++
          for (k = 1; k <= 2; k++) { # this case: median over the rounds of build / O2
            n = 0; delete v
            for (r = 1; r <= rounds; r++) {
              x = rate[r, bl[k], bn[bi], cname[i]]; o = rate[r, "O2", bn[bi], cname[i]]
              if (x > 0 && o > 0) v[++n] = x / o
            }
            if (n == 0) continue
            m = median(v, n); all[k, ++na[k]] = m
            lo[k] = m < lo[k] ? m : lo[k]; hi[k] = m > hi[k] ? m : hi[k]
            percase = percase sprintf("%s %s %s %.3f\n", bn[bi], cname[i], bl[k], m)
          }
        }
        printf "| %s | %d |", substr(bn[bi], 7), cnt
        for (k = 1; k <= 2; k++) printf " %.2f-%.2f |", lo[k], hi[k]
        print ""
      }
      printf "| all %d cases, median | |", na[1]
      for (k = 1; k <= 2; k++) {
        n = 0; delete v
        for (i = 1; i <= na[k]; i++) v[++n] = all[k, i]
        printf " %.2f |", median(v, n)
      }
      printf "\n\nper case (bench, case, build, median ratio):\n%s", percase
    }' "$1"
}

load0=$(load)
: >"$work/rates.txt" # ROUND BUILD BENCH CASE RATE
: >"$work/runs.txt"
for ((r = 1; r <= rounds; r++)); do
  for c in "${cases[@]}"; do
    read -r bench cargs <<<"$c"
    for b in "${builds[@]}"; do
      log="$work/r$r.$b.$bench.txt"
      t0=$(date +%s)
      # shellcheck disable=SC2086  # cargs: the bench's arguments, split on purpose
      if "$work/$b/bench/$bench" $cargs >"$log" 2>"$log.err"; then st=0; else st=$?; fi
      echo "round $r, $b, $c: exit $st, $(($(date +%s) - t0)) s, load $(load)" |
        tee -a "$work/runs.txt"
      rates "$bench" "$log" | while read -r name rate; do
        echo "$r $b $bench $name $rate" >>"$work/rates.txt"
      done
    done
  done
done
load1=$(load)

echo
echo "Kernel throughput over the O2 build's: per case the median over $rounds rounds of the"
echo "per-round ratio; per bench the range over its cases; load average $load0 at the start of"
echo "the runs, $load1 at the end ($(date -u +%FT%TZ))."
echo
summary "$work/rates.txt" "$rounds" | tee "$work/table.md"
echo; echo "runs that exited non-zero (their tables, if printed, are still counted):"
grep "exit [1-9]" "$work/runs.txt" || echo "  none"
echo "logs, rates.txt and table.md in $work"
