#!/usr/bin/env bash
# CTest fixture around the Slurm tests: `up STATE` starts the local cluster
# (jobs/slurm/local-cluster.sh) and writes to STATE the daemons it started itself (name and pid);
# `down STATE` stops exactly those, and waits for them to go. A daemon that was running before
# (munged, slurmctld, slurmd of the machine or of another test run) is never touched.
set -uo pipefail
cmd=$1; state=$2
root=$(cd "$(dirname "$0")/.." && pwd)
daemons=(munged slurmctld slurmd)
start=("$root/jobs/slurm/local-cluster.sh" start)
pidfile() { case $1 in munged) echo /run/munge/munged.pid ;; *) echo "/run/$1.pid" ;; esac; }
# tests/e2e_slurm_fixture.sh checks this script on stand-in daemons: their names, pid files and
# start command
if [ -n "${STORQ_FIXTURE_DAEMONS:-}" ]; then
  read -r -a daemons <<<"$STORQ_FIXTURE_DAEMONS"
  start=("$STORQ_FIXTURE_START")
  pidfile() { echo "$STORQ_FIXTURE_PIDDIR/$1.pid"; }
fi
# the pid of a running daemon NAME (its pid file, checked against /proc), or nothing
running() {
  local pid
  pid=$(cat "$(pidfile "$1")" 2>/dev/null) || pid=""
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ] && { echo "$pid"; return; }
  pgrep -x "$1" | head -n 1
}
case "$cmd" in
up)
  : > "$state"
  if [ -z "${STORQ_FIXTURE_DAEMONS:-}" ]; then
    command -v sbatch >/dev/null && command -v slurmctld >/dev/null || { echo "no Slurm: nothing to start"; exit 0; }
    [ "$(id -u)" -eq 0 ] || { echo "not root: the Slurm tests skip themselves"; exit 0; }
  fi
  declare -A before
  for d in "${daemons[@]}"; do before[$d]=$(running "$d"); done
  "${start[@]}" || echo "the cluster did not start; the Slurm tests will say why"
  for d in "${daemons[@]}"; do
    pid=$(running "$d")
    if [ -z "${before[$d]}" ] && [ -n "$pid" ]; then echo "$d $pid" >> "$state"; echo "started $d (pid $pid)"; fi
    [ -n "${before[$d]}" ] && echo "$d was running (pid ${before[$d]}): left alone"
  done
  exit 0 ;;
down)
  [ -f "$state" ] || exit 0
  # slurmd before slurmctld before munged: the reverse of their start
  tac "$state" | while read -r d pid; do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$d" ] || continue # gone, or the pid reused
    kill "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { echo "$d (pid $pid) did not stop; killed"; kill -9 "$pid"; }
    echo "stopped $d (pid $pid)"
  done
  rm -f "$state"
  exit 0 ;;
*) echo "usage: $0 up|down STATE" >&2; exit 2 ;;
esac
