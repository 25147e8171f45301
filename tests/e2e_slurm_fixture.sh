#!/usr/bin/env bash
# The Slurm fixture (tests/slurm_cluster.sh) on stand-in daemons (copies of sleep under other
# names, so the machine's own munged and Slurm are never touched): `up` starts the missing ones
# and records them; `down` stops exactly those and leaves the one that was running before.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
mkdir "$work/bin" "$work/run"
for d in fakemunge fakectld fakeslurmd; do cp "$(command -v sleep)" "$work/bin/$d"; done
# the start command: each stand-in not yet running is started in the background, pid file written
cat > "$work/start.sh" <<START
#!/usr/bin/env bash
for d in fakemunge fakectld fakeslurmd; do
  pid=\$(cat "$work/run/\$d.pid" 2>/dev/null)
  [ -n "\$pid" ] && kill -0 "\$pid" 2>/dev/null && continue
  setsid "$work/bin/\$d" 300 </dev/null >/dev/null 2>&1 & echo \$! > "$work/run/\$d.pid"
done
START
chmod +x "$work/start.sh"
export STORQ_FIXTURE_DAEMONS="fakemunge fakectld fakeslurmd" STORQ_FIXTURE_START="$work/start.sh"
export STORQ_FIXTURE_PIDDIR="$work/run"
# one was running before the suite
"$work/bin/fakemunge" 300 & before=$!; pids+=("$before"); echo "$before" > "$work/run/fakemunge.pid"
"$here/slurm_cluster.sh" up "$work/state" || fail "up exited $?"
for d in fakectld fakeslurmd; do
  pid=$(cat "$work/run/$d.pid" 2>/dev/null); pids+=("$pid")
  kill -0 "$pid" 2>/dev/null || fail "up did not start $d"
done
grep -q fakemunge "$work/state" && fail "up recorded fakemunge, which was running before"
"$here/slurm_cluster.sh" down "$work/state" || fail "down exited $?"
for d in fakectld fakeslurmd; do
  pid=$(cat "$work/run/$d.pid"); kill -0 "$pid" 2>/dev/null && fail "down left $d (pid $pid) running"
done
kill -0 "$before" 2>/dev/null || fail "down stopped fakemunge, which was running before"
[ ! -e "$work/state" ] || fail "down left its state file"
[ "$failures" -eq 0 ] && echo "the fixture stops the daemons it started and only those"
exit $((failures > 0))
