#!/usr/bin/env bash
# What storq's bookkeeping costs when the simulation costs nothing (issue 37, item 7): a benchmark,
# not a timed test. Every unit is a tiny supermarket replication (n = 10, L = 2, no warm-up, 20
# arrivals: tens of microseconds), so that handing units out, collecting, summarising and writing
# set the pace. On 2 ranks of one thread (`mpirun -np 2 --bind-to none`, shared memory) it runs
#   - 1 point (lambda = 0.9) x R replications, R = 1e4, 2e4, 1e5, 1e6, and 1e6 again over tcp
#     (`--mca btl self,tcp`): time per replication;
#   - N points (N distinct lambdas evenly spaced in (0.001, 0.99), given in a sweep file since a
#     1e5-value --lambda list passes the 128 KB limit of one argument) x 1 replication, N = 1e3,
#     1e4, 2e4, 1e5: time per point, and bytes per point of the largest file;
#   - `storq info FILE >/dev/null` (wall time) and `storq.open(FILE).frame()` in /usr/bin/python3
#     (time.perf_counter inside Python, open and frame apart, and the whole process) on the
#     2e4-point file and on the largest one (1e5 points);
# and prints them side by side, then the issue's targets with PASS or MISS.
# Times are of the whole command (mpirun's start-up included), with /run's wall_seconds (the
# run's work phase) beside them. Rank 0's peak resident memory: each rank runs under
# `/usr/bin/time -f %M`. The points' theory (for "2e4 points within 3x of 2e4 replications plus the
# points' theory") is read from the 2e4-point run's own record, not computed again: the CPU seconds
# of its theory units (/run/units rows with rep = -1) over the 2 ranks that shared them. That is
# what the run spent on theory, without a process start or printing (`storq theory` over the same
# values, in chunks under the argument limit, took 0.23 ms a point on one core; the record, 0.17).
# Medians over ROUNDS interleaved rounds (each round runs every case once, in turn); the load
# average before and after. A case still running after $timeout_s seconds (BENCH_TIMEOUT) is
# stopped, printed as "did not finish in T s" and not run again in later rounds. --quick divides
# every size by 100 (and the timeout defaults to 60 s); --scale S divides them by S. On 2026-12-07
# (eaf047b, 2 cores at load 3-4) --quick took 2.7 minutes, --scale 10 22 minutes (one round each),
# most of it `storq info` and Python reading the points files. BENCH_ONLY=reps (a regex of case
# kinds: reps, points, points2, info, frame, convert, info2, frame2) runs those cases alone.
# convert, info2 and frame2: the points files converted to schema 2.0 (`storq convert`) and read;
# points2: the same runs finished into 2.0 by `storq run --schema 2`.
#   usage: bench/bench_bookkeeping.sh STORQ [ROUNDS] [--quick | --scale S]   (default 3 rounds)
set -euo pipefail
[ $# -ge 1 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
storq=$(realpath "$1"); shift
rounds=3; scale=1
while [ $# -gt 0 ]; do
  case $1 in
    --quick) scale=100 ;;
    --scale) scale=$2; shift ;;
    *) rounds=$1 ;;
  esac
  shift
done
timeout_s=${BENCH_TIMEOUT:-$([ "$scale" = 100 ] && echo 60 || echo 900)}
python=/usr/bin/python3
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PYTHONPATH=$(dirname "$(realpath "$0")")/../io/python
# the readers' check limit is on progress (no object read for that long), which a healthy file
# never reaches; set above our own timeout all the same, so that a stop is ours
export STORQ_CHECK_TIMEOUT=$((timeout_s + 60))
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
cp "$storq" ./storq; storq=$work/storq   # a copy: a rebuild during the bench must not mix builds

reps=(10000 20000 100000 1000000); points=(1000 10000 20000 100000)
for i in 0 1 2 3; do reps[i]=$((reps[i] / scale)); points[i]=$((points[i] / scale)); done
unit_args=(--n 10 --L 2 --warmup 0 --arrivals 20 --seed 1 --quiet)
for n in "${points[@]}"; do  # %.7f keeps 1e5 values spaced 1e-5 apart distinct
  awk -v n="$n" 'BEGIN { print "[run]\nmodel = supermarket\n[supermarket]\nlambda ="
    for (i = 0; i < n; i++) printf "  %.7f\n", 0.001 + 0.989 * (i + 0.5) / n }' > "sweep.$n.ini"
done
cases=(); for r in "${reps[@]}"; do cases+=("reps:$r:vader"); done; cases+=("reps:${reps[3]}:tcp")
for n in "${points[@]}"; do cases+=("points:$n"); done
for n in "${points[0]}" "${points[2]}"; do cases+=("points2:$n"); done
for n in "${points[2]}" "${points[3]}"; do cases+=("info:$n" "frame:$n"); done
# schema 2.0: the points files converted (storq convert), then read as above
for n in "${points[2]}" "${points[3]}"; do cases+=("convert:$n" "info2:$n" "frame2:$n"); done
if [ -n "${BENCH_ONLY:-}" ]; then  # e.g. BENCH_ONLY=reps: the replication cases alone
  kept=(); for c in "${cases[@]}"; do [[ $c =~ ^($BENCH_ONLY): ]] && kept+=("$c"); done
  cases=("${kept[@]}")
fi
declare -A skip=()   # case -> why it is no longer run

# run CASE: one case, once; appends "CASE figures..." to figures.txt, or "CASE dnf|failed|absent"
run() {
  local case=$1 kind size extra=() out what t0 t1 rc=0
  IFS=: read -r kind size _ <<< "$case"
  rm -f rss.* err.txt
  t0=$EPOCHREALTIME
  case $kind in
    reps|points|points2)
      [ "${case##*:}" = tcp ] && extra=(--mca btl self,tcp)
      out=$kind.$size.h5; what=(supermarket --lambda 0.9 -r "$size")
      [ "$kind" = points ] && what=("sweep.$size.ini" -r 1)
      [ "$kind" = points2 ] && what=("sweep.$size.ini" -r 1 --schema 2)
      rm -f "$out" "$out.partial" "$out.lock"
      # each rank stops itself at the timeout (storq ends cleanly on SIGTERM), so that
      # /usr/bin/time still writes its peak RSS; the outer timeout is only a safety net
      timeout -k 30 $((timeout_s + 120)) mpirun -np 2 --bind-to none "${extra[@]}" \
        bash -c 'exec /usr/bin/time -f %M -o "rss.$OMPI_COMM_WORLD_RANK" timeout "$@"' _ \
        "$timeout_s" "$storq" run "${what[@]}" "${unit_args[@]}" -o "$out" 2> err.txt || rc=$? ;;
    info*|frame*|convert)  # then on to the next pattern that matches (;;&)
      file=points.$size.h5; [[ $kind == *2 ]] && file=conv.$size.h5
      if [ ! -f "$file" ]; then
        echo "$case absent" >> figures.txt; echo "round $round $case: no file" >&2; return
      fi ;;&
    convert)
      rm -f "conv.$size.h5"
      timeout -k 30 "$timeout_s" "$storq" convert "$file" "conv.$size.h5" > /dev/null 2> err.txt ||
        rc=$? ;;
    info*)
      timeout -k 30 "$timeout_s" "$storq" info "$file" > /dev/null 2> err.txt || rc=$? ;;
    frame*)
      timeout -k 30 "$timeout_s" "$python" -c 'import sys, time, storq
t0 = time.perf_counter(); r = storq.open(sys.argv[1]); t1 = time.perf_counter(); r.frame()
print(t1 - t0, time.perf_counter() - t1)' "$file" > py.txt 2> err.txt || rc=$? ;;
  esac
  t1=$EPOCHREALTIME
  local wall; wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then   # with rank 0's peak RSS when stopped, if known
    echo "$case dnf $(tail -1 rss.0 2> /dev/null | grep -x '[0-9][0-9]*' || echo nan)" >> figures.txt
    skip[$case]="did not finish in $timeout_s s"
    [ -z "${out:-}" ] || rm -f "$out" "$out.partial" "$out.lock"  # info and frame read no stopped run
    [ "$kind" = convert ] && rm -f "conv.$size.h5" "conv.$size.h5.partial"
  elif [ "$rc" != 0 ]; then
    echo "$case failed" >> figures.txt; skip[$case]="failed (exit $rc), its stderr above"
    grep -v "not in steady state" err.txt | head -20 >&2
  else
    case $kind in
      info*) echo "$case $wall" >> figures.txt ;;
      frame*) echo "$case $wall $(cat py.txt)" >> figures.txt ;;
      convert) echo "$case $wall $(stat -c %s "conv.$size.h5")" >> figures.txt ;;
      *) # units, command's wall, /run wall, rank 0's peak RSS (KiB), file bytes, theory CPU s
        echo "$case $size $wall $("$python" -c 'import sys, os, h5py
f = h5py.File(sys.argv[1], "r"); u = f["run/units"][()]
print(f["run"].attrs["wall_seconds"], open("rss.0").read().split()[-1], os.path.getsize(sys.argv[1]),
      u[u["rep"] < 0]["cpu_seconds"].sum())' "$out")" >> figures.txt
        [ "$kind" != points ] && rm -f "$out" ;;  # the points files are read by info and frame
    esac
  fi
  echo "round $round $case: ${skip[$case]:-$wall s}" >&2
}

echo "$("$storq" --version); sizes divided by $scale; $rounds round(s); timeout $timeout_s s a case;" \
  "$(getconf _NPROCESSORS_ONLN) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for case in "${cases[@]}"; do
    if [ -n "${skip[$case]:-}" ]; then echo "$case skipped" >> figures.txt; else run "$case"; fi
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

"$python" - "$timeout_s" "$scale" "${reps[*]}" "${points[*]}" <<'PY'
import sys, math, numpy as np
T, scale = float(sys.argv[1]), int(sys.argv[2])
reps, points = ([int(x) for x in a.split()] for a in sys.argv[3:5])
R0, R1, R3, N0, N2, N3 = reps[0], reps[1], reps[3], points[0], points[2], points[3]
rows, why, dnf, stop_rss = {}, {}, set(), {}
for text in open("figures.txt"):
    case, *v = text.split()
    if v[0] == "dnf":
        why[case] = f"did not finish in {T:g} s"; dnf.add(case)
        if v[1] != "nan":
            stop_rss[case] = float(v[1])
    elif v[0] == "failed":
        why[case] = "failed (its stderr was printed)"
    elif v[0] == "absent":
        why.setdefault(case, "no file: its run did not finish")
    elif v[0] != "skipped":
        rows.setdefault(case, []).append([float(x) for x in v])
med = {c: np.median(np.array(r), axis=0) for c, r in rows.items()}  # columns: see run()
MB = lambda kib: kib * 1024 / 1e6

def line(*cells):
    print("| " + " | ".join(str(c) for c in cells) + " |")

def rule(*align):
    print("|" + "|".join(align) + "|")

def table(title, head, kinds, sizes, per_scale, extra):
    """One row per run case: wall, /run wall, time per unit, its ratio to the first size's, ..."""
    print(f"\n{title}\n")
    line(*head)
    rule(*["---:"] * len(head))
    base = med.get(kinds[0])
    for case, n in zip(kinds, sizes):
        if case not in med:
            rss = stop_rss.get(case, math.nan)
            stopped = "" if math.isnan(rss) else f" (rank 0 at {MB(rss):.0f} MB when stopped)"
            cells = [*case.split(":")[1:], 0, why.get(case, "-") + stopped]
            line(*cells, *[""] * (len(head) - len(cells)))
            continue
        m = med[case]; per = m[1:3] / n
        rel = per / (base[1:3] / sizes[0]) if base is not None else [math.nan] * 2
        line(*case.split(":")[1:], len(rows[case]), f"{m[1]:.2f} s", f"{m[2]:.2f} s",
             f"{per_scale * per[0]:.3g}, {per_scale * per[1]:.3g}", f"{rel[0]:.2f}, {rel[1]:.2f}",
             f"{MB(m[3]):.0f} MB", *extra(m, n))

table("1 point x R replications, 2 ranks of one thread (medians; per replication = wall / R)",
      ["R", "btl", "rounds", "wall (command)", "/run wall_seconds", "us per replication (command, /run)",
       f"ratio to R = {R0} (command, /run)", "rank 0 peak RSS"],
      [f"reps:{n}:vader" for n in reps] + [f"reps:{R3}:tcp"], reps + [R3], 1e6, lambda m, n: [])
table("N points x 1 replication, 2 ranks of one thread (medians; per point = wall / N)",
      ["N", "rounds", "wall (command)", "/run wall_seconds", "ms per point (command, /run)",
       f"ratio to N = {N0} (command, /run)", "rank 0 peak RSS", "theory CPU (in the run)", "file",
       "bytes per point"],
      [f"points:{n}" for n in points], points, 1e3,
      lambda m, n: [f"{m[5]:.2f} s", f"{m[4] / 1e6:.1f} MB", f"{m[4] / n:.0f}"])
table("The same, finished into schema 2.0 (`storq run --schema 2`: the 1.x partial, then the 2.0 file)",
      ["N", "rounds", "wall (command)", "/run wall_seconds", "ms per point (command, /run)",
       f"ratio to N = {N0} (command, /run)", "rank 0 peak RSS", "theory CPU (in the run)", "file",
       "bytes per point"],
      [f"points2:{n}" for n in (N0, N2)], [N0, N2], 1e3,
      lambda m, n: [f"{m[5]:.2f} s", f"{m[4] / 1e6:.1f} MB", f"{m[4] / n:.0f}"])

print("\nReading a points file (medians; storq.open() and .frame() timed inside Python)\n")
line("file", "`storq info` >/dev/null", "storq.open()", ".frame()", "open + frame", "python3, whole process")
rule("---", "---:", "---:", "---:", "---:", "---:")
for n in (N2, N3):
    for s2, what in (("", "1.x, as `storq run` writes it"), ("2", "2.0, after `storq convert`")):
        i, f = med.get(f"info{s2}:{n}"), med.get(f"frame{s2}:{n}")
        line(f"{n} points, {what}", f"{i[0]:.2f} s" if i is not None else why.get(f"info{s2}:{n}", "-"),
             *([f"{f[1]:.2f} s", f"{f[2]:.2f} s", f"{f[1] + f[2]:.2f} s", f"{f[0]:.2f} s"]
               if f is not None else [why.get(f"frame{s2}:{n}", "-"), "", "", ""]))

print("\n`storq convert` of the points files to schema 2.0 (medians)\n")
line("file", "convert wall", "per point", "2.0 file", "bytes per point", "1.x bytes per point")
rule("---", "---:", "---:", "---:", "---:", "---:")
for n in (N2, N3):
    c, p = med.get(f"convert:{n}"), med.get(f"points:{n}")
    line(f"{n} points", *([f"{c[0]:.1f} s", f"{c[0] / n * 1e3:.2f} ms", f"{c[1] / 1e6:.1f} MB",
                          f"{c[1] / n:.0f}"] if c is not None else [why.get(f"convert:{n}", "-"), "", "", ""]),
         f"{p[4] / n:.0f}" if p is not None else "-")

# The targets. A case that did not finish ran at least T seconds: a figure made of it is a lower
# bound (shown with >=), a MISS when the bound is already past the limit, else unknown (-).
def fig(case, col):  # (median of a column, whether it is a lower bound); None when unknown
    if case in med:
        return med[case][col], False
    if case in dnf and case.split(":")[0] in ("info", "frame", "info2", "frame2", "convert"):
        return T, True
    if case in dnf:  # a stopped run: its wall, and rank 0's RSS when stopped if known
        return {1: T, 3: stop_rss.get(case)}.get(col), True
    return None, False

def target(label, value, lower, limit, unit="", digits=2, below=False):  # below: < limit, not <=
    bound = f"{'<' if below else '<='} {limit:g}{unit}"
    if value is None or math.isnan(value):
        line(label, "-", bound, "-")
        return
    verdict = "PASS" if value < limit or (value == limit and not below) else "MISS"
    line(label, f"{'>= ' if lower else ''}{value:.{digits}f}{unit}", bound,
         "-" if lower and verdict == "PASS" else verdict)

def over(a, b, na, nb):  # (a / na) / (b / nb), a lower bound when a is; unknown when b is one
    (x, lx), (y, ly) = a, b
    return (None if None in (x, y) or ly else (x / na) / (y / nb)), lx

print("\nTargets (issue 37, item 7)"
      + ("" if scale == 1 else f"; sizes divided by {scale}: the targets are for full size") + "\n")
line("target", "measured", "limit", "")
rule("---", "---:", "---:", "---")
target(f"time per replication, R = {R3} over R = {R0} (command's wall)",
       *over(fig(f"reps:{R3}:vader", 1), fig(f"reps:{R0}:vader", 1), R3, R0), 1.3)
target("the same over /run's wall_seconds (no MPI start-up)",
       *over(fig(f"reps:{R3}:vader", 2), fig(f"reps:{R0}:vader", 2), R3, R0), 1.3)
for btl, name in (("vader", "shared memory"), ("tcp", "tcp")):
    c = f"reps:{R3}:{btl}"
    line(f"{R3} replications on 2 ranks finish ({name})",
         f"in {med[c][1]:.1f} s" if c in med else why.get(c, "-"), f"within {T:g} s",
         "PASS" if c in med else "MISS" if c in why else "-")  # "-": not run (BENCH_ONLY)
(p, lp), (q, lq), (th, _) = fig(f"points:{N2}", 1), fig(f"reps:{R1}:vader", 1), fig(f"points:{N2}", 5)
th = 0 if lp else th  # a stopped run left no record of its theory: 0 keeps p's ratio a lower bound
target(f"{N2} points x 1, over {R1} replications + the points' theory "
       f"({'-' if th is None else f'{th / 2:.2f}'} s: its CPU / 2 ranks)",
       None if None in (p, q, th) or lq else p / (q + th / 2), lp, 3)
target(f"time per point, N = {N3} over N = {N0} (command's wall)",
       *over(fig(f"points:{N3}", 1), fig(f"points:{N0}", 1), N3, N0), 1.3)
big = max((n for n in points if f"points:{n}" in med), default=None)
target(f"KB per point (the largest file: {big} points)", med[f"points:{big}"][4] / big / 1e3 if big else None,
       False, 12, " KB", 1)
target(f"`storq info` on the {N2}-point file", *fig(f"info:{N2}", 0), 5, " s")
f = med.get(f"frame:{N2}")
target(f"`storq.open(FILE).frame()` on the {N2}-point file",
       *((f[1] + f[2], False) if f is not None else fig(f"frame:{N2}", 0)), 5, " s")
c = med.get(f"convert:{N2}")
target(f"KB per point, the {N2}-point file converted to 2.0", c[1] / N2 / 1e3 if c is not None else None,
       False, 12, " KB", 2)
target(f"`storq info` on the {N2}-point 2.0 file", *fig(f"info2:{N2}", 0), 5, " s")
f = med.get(f"frame2:{N2}")
target(f"`storq.open(FILE).frame()` on the {N2}-point 2.0 file",
       *((f[1] + f[2], False) if f is not None else fig(f"frame2:{N2}", 0)), 5, " s")
r, lr = fig(f"reps:{R3}:vader", 3)
target(f"rank 0's peak RSS at {R3} replications", None if r is None else MB(r), lr, 150, " MB", 0, True)
PY
