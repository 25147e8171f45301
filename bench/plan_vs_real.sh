#!/usr/bin/env bash
# Predictions of `storq run ... --dry-run --workers W` against real runs: a small sweep
# (supermarket, 6 points x 4 replications, ARRIVALS per replication) run for real on each number of
# ranks R (one thread each, oversubscribed past the cores), its wall time (/run's wall_seconds, and
# the whole command's) beside the prediction for W = R and for W = min(R, cores) (oversubscribed
# ranks share the cores), calibrated here just before the run and from the first run's units
# (--calibrate-from); one markdown row per R, with the load average before each run.
#   usage: bench/plan_vs_real.sh STORQ [ARRIVALS [RANKS...]]   (defaults 8000000 and 1 2 4 8)
set -euo pipefail
[ $# -ge 1 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
storq=$(realpath "$1"); arrivals=${2:-8000000}; shift $(( $# >= 2 ? 2 : 1 ))
ranks=("$@"); [ ${#ranks[@]} -gt 0 ] || ranks=(1 2 4 8)
cores=$(nproc)
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
sweep=(run supermarket --n 100,1000,10000 --L 2,3 --k 1 --lambda 0.9 --warmup 10000
       --arrivals "$arrivals" -r 4 --seed 7)
echo "${sweep[*]}"
# the wall time predicted for W workers in a plan's output
wall_of() { awk -v w="$2" '$1 == w && $3 ~ /^[0-9]\.[0-9][0-9][0-9]$/ { print $2; exit }' <<<"$1"; }
echo "| ranks R | load before | predicted, W = R | W = min(R, $cores) | from the 1-rank file, W = R | W = min(R, $cores) | measured wall (/run) | whole command | recorded efficiency | work predicted / busy measured (s) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
first=""
for r in "${ranks[@]}"; do
  c=$(( r < cores ? r : cores ))
  load=$(cut -d' ' -f1 /proc/loadavg)
  here=$("$storq" "${sweep[@]}" --dry-run --workers "$r,$c")
  from_r="-"; from_c="-"
  if [ -n "$first" ]; then
    from=$("$storq" "${sweep[@]}" --dry-run --workers "$r,$c" --calibrate-from "$first")
    from_r=$(wall_of "$from" "$r"); from_c=$(wall_of "$from" "$c")
  fi
  t0=$(date +%s.%N)
  mpirun -np "$r" --oversubscribe "$storq" "${sweep[@]}" -o "r$r.h5" --quiet > /dev/null
  t1=$(date +%s.%N)
  info=$("$storq" info "r$r.h5" | grep '^run: ')
  wall=$(sed -E 's/.* wall ([0-9.e+-]+) s.*/\1/' <<<"$info")
  eff=$(sed -E 's/.*parallel efficiency ([0-9.]+).*/\1/' <<<"$info")
  # busy: CPU seconds simulating (an older storq's line: worker-seconds in units)
  busy=$(sed -E 's/.* busy ([0-9.e+-]+) (CPU|worker)-s.*/\1/' <<<"$info")
  work=$(sed -nE 's/^units: .*, work ([0-9.e+-]+) worker-s.*/\1/p' <<<"$here")
  [ -n "$first" ] || first="r$r.h5"
  printf "| %s | %s | %s s | %s s | %s | %s | %s s | %.2f s | %s | %s / %s |\n" "$r" \
    "$load" "$(wall_of "$here" "$r")" "$(wall_of "$here" "$c")" "$from_r" "$from_c" "$wall" \
    "$(echo "$t1 - $t0" | bc)" "$eff" "$work" "$busy"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
