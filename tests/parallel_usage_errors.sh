# Shared by the models' usage-error scripts (sourced): cases run a few at a time (every storq
# start pays for MPI's start-up), each in its own directory under $work; their verdicts are printed
# in order by `report`. The caller sets $storq and $work before calling any of these.
parallel=${STORQ_TEST_PARALLEL:-8}
ncase=0

# verdict ID TEXT: record the outcome of case ID.
verdict() { printf '%s\n' "$2" > "$work/result.$1"; }

# refused ID STATUS PATTERN ABSENT ARGS...: the run exits STATUS with one message that contains
# PATTERN (and not ABSENT, unless empty), and leaves no out.h5 or out.h5.partial.
refused() {
  local id=$1 want=$2 pattern=$3 absent=$4; shift 4
  mkdir "$work/case.$id" && cd "$work/case.$id" || { verdict "$id" "FAIL: no case directory"; return; }
  local out status
  out=$("$storq" "$@" -o out.h5 2>&1 >/dev/null); status=$?
  if [ "$status" -ne "$want" ]; then
    verdict "$id" "FAIL: storq $* exited $status, expected $want: $out"
  elif ! grep -q -- "$pattern" <<<"$out"; then
    verdict "$id" "FAIL: storq $*: message lacks '$pattern': $out"
  elif [ -n "$absent" ] && grep -q -- "$absent" <<<"$out"; then
    verdict "$id" "FAIL: storq $*: message should not contain '$absent': $out"
  elif [ "$(grep -c . <<<"$out")" -gt 2 ]; then
    verdict "$id" "FAIL: storq $*: more than one message: $out"
  elif ls out.h5 out.h5.partial >/dev/null 2>&1; then
    verdict "$id" "FAIL: storq $*: left a file behind"
  else
    verdict "$id" "ok: storq $* -> $status: $(head -n 1 <<<"$out")"
  fi
}

# accepted ID PATTERN ARGS...: the run exits 0 and writes out.h5 (no .partial); its stderr
# contains PATTERN, or, when PATTERN is empty, neither a warning nor an error.
accepted() {
  local id=$1 pattern=$2; shift 2
  mkdir "$work/case.$id" && cd "$work/case.$id" || { verdict "$id" "FAIL: no case directory"; return; }
  local out status
  out=$("$storq" "$@" -o out.h5 --quiet 2>&1 >/dev/null); status=$?
  if [ "$status" -ne 0 ]; then
    verdict "$id" "FAIL: storq $* exited $status, expected 0: $out"
  elif [ ! -f out.h5 ] || [ -f out.h5.partial ]; then
    verdict "$id" "FAIL: storq $*: exit 0 but no out.h5 (or a .partial left)"
  elif [ -n "$pattern" ] && ! grep -q -- "$pattern" <<<"$out"; then
    verdict "$id" "FAIL: storq $*: stderr lacks '$pattern': $out"
  elif [ -z "$pattern" ] && grep -qi "warning\|error" <<<"$out"; then
    verdict "$id" "FAIL: storq $*: a valid run complained: $out"
  else
    verdict "$id" "ok: storq $* -> 0, wrote out.h5${pattern:+ with: $(head -n 1 <<<"$out")}"
  fi
  rm -f out.h5 out.h5.partial
}

# launch FUNCTION ARGS...: run FUNCTION ID ARGS... in the background, at most $parallel at a time.
launch() {
  local fn=$1; shift
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  ncase=$((ncase + 1))
  "$fn" "$(printf '%03d' "$ncase")" "$@" &
}
# expect STATUS PATTERN [--not ABSENT] -- ARGS...
expect() {
  local want=$1 pattern=$2 absent=""; shift 2
  if [ "$1" = "--not" ]; then absent=$2; shift 2; fi
  shift
  launch refused "$want" "$pattern" "$absent" "$@"
}
# expect_ok PATTERN -- ARGS...
expect_ok() {
  local pattern=$1; shift 2
  launch accepted "$pattern" "$@"
}

# report: wait for every case, print the verdicts in order, and exit 1 if any failed.
report() {
  wait
  failures=0
  for f in "$work"/result.*; do
    cat "$f"
    grep -q "^FAIL" "$f" && failures=$((failures + 1))
  done
  [ "$(ls "$work"/result.* | wc -l)" -eq "$ncase" ] || { echo "FAIL: only $(ls "$work"/result.* | wc -l) of $ncase cases reported"; failures=$((failures + 1)); }
  echo "$ncase case(s), $failures failure(s)"
  [ $failures -eq 0 ]
}
