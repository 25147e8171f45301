#!/usr/bin/env bash
# Every paper's key figures from one command: runs the sweep files (jobs/sweeps/*.ini, with the
# run lengths of the mode) and draws docs/figures/*.png and *.svg, simulation with 95% CIs beside
# the theory each model stores, plus docs/figures/manifest.json (the plotted data and the checks
# on it). Figure definitions: io/python/storq/figures/<model>.py; a model this storq lacks is
# skipped with a message.
#   jobs/figures.sh            full run lengths (budget 20 minutes on a 2-core machine; writes docs/gallery.md)
#   jobs/figures.sh --quick    reduced (budget 300 s; the test python_figures runs it)
#   jobs/figures.sh --ci       smallest (the checks only, for a quick look)
#   jobs/figures.sh --only cluster,forkjoin [--out DIR]   those models redrawn; the other models'
#                              entries of OUT's manifest (same mode) kept, its gallery rewritten
# Exit status 1 when a check on the plotted data fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=full
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --ci) mode=ci ;;
    --full) mode=full ;;
    --only|--out|--work|--storq)
      [ $# -ge 2 ] || { echo "figures.sh: $1 needs a value" >&2; exit 2; }
      args+=("$1" "$2"); shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "figures.sh: unknown option '$1' (--quick, --ci, --only MODELS, --out DIR)" >&2; exit 2 ;;
  esac
  shift
done
storq="$root/build/storq"
given=0
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = --storq ] && { storq=${args[$((i + 1))]}; given=1; }
done
if [ "$given" = 1 ] && [ ! -x "$storq" ]; then
  echo "figures.sh: --storq '$storq' is not an executable file" >&2; exit 2
fi
if [ ! -x "$storq" ]; then
  echo "figures.sh: building storq first (jobs/build.sh)"
  "$root/jobs/build.sh"
fi
export MPLBACKEND=Agg
export PYTHONPATH="$root/io/python${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s)
/usr/bin/python3 -m storq.figures --mode "$mode" --storq "$storq" "${args[@]}"
echo "figures.sh: $mode mode took $(( $(date +%s) - start )) s"
