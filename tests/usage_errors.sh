# Shared by the e2e usage-error scripts (sourced): `expect` runs storq and checks one refusal.
# The caller sets $storq (the binary) and $failures (a counter), and runs in a scratch directory.

# expect STATUS PATTERN -- ARGS...: run storq, check the exit status, the message and that no file exists.
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$storq" "$@" -o out.h5 2>&1 >/dev/null); status=$?
  if [ "$status" -ne "$want" ]; then
    echo "FAIL: storq $* exited $status, expected $want: $out"; failures=$((failures + 1)); return
  fi
  if ! grep -q -- "$pattern" <<<"$out"; then
    echo "FAIL: storq $*: message lacks '$pattern': $out"; failures=$((failures + 1)); return
  fi
  if [ "$(grep -c . <<<"$out")" -gt 2 ]; then
    echo "FAIL: storq $*: more than one message: $out"; failures=$((failures + 1)); return
  fi
  if ls out.h5 out.h5.partial >/dev/null 2>&1; then
    echo "FAIL: storq $*: left a file behind"; failures=$((failures + 1)); rm -f out.h5 out.h5.partial; return
  fi
  echo "ok: storq $* -> $status: $(head -n 1 <<<"$out")"
}
