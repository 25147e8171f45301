#!/usr/bin/env bash
# Help where people look for it: every help form exits 0 and prints the usage or the model's
# parameters; `storq help MODEL` prints the page's summary; unknown topics exit 2; docs/storq.1 is
# what `storq --man` generates; `cmake --install` puts storq and the man page under a prefix.
# Usage: e2e_help.sh STORQ SOURCE_DIR BUILD_DIR [CMAKE]
set -uo pipefail
storq=$(realpath "$1"); src=$(realpath "$2"); build=$(realpath "$3"); cmake=${4:-cmake}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# shows STATUS PATTERN ARGS...: storq ARGS exits STATUS and prints PATTERN (stdout or stderr)
shows() {
  local want=$1 pattern=$2; shift 2
  local out status
  out=$("$storq" "$@" 2>&1); status=$?
  if [ "$status" -ne "$want" ]; then fail "storq $* exited $status, expected $want: $(head -3 <<<"$out")"; return; fi
  if ! grep -qF -- "$pattern" <<<"$out"; then fail "storq $*: output lacks '$pattern'"; return; fi
  echo "ok: storq $* -> $status"
}

# every parameter of the model (from its own table) on its own row of OUTPUT
has_params() { # MODEL ARGS...
  local model=$1; shift
  local out names missing=""
  out=$("$storq" "$@" 2>&1) || { fail "storq $* exited $?"; return; }
  names=$("$storq" models "$model" | awk 'NR > 3 && !NF { exit } NR > 3 { print $1 }') # the table
  [ "$(wc -l <<<"$names")" -ge 3 ] || { fail "storq models $model lists no parameters"; return; }
  for n in $names; do grep -qE "^  $n +(int|real|string) " <<<"$out" || missing+=" $n"; done
  if [ -n "$missing" ]; then fail "storq $*: parameters missing:$missing"; else echo "ok: storq $* lists the $(wc -w <<<"$names") parameters of $model"; fi
}

# The usage.
for form in --help -h help; do shows 0 "storq run MODEL" $form; done
shows 0 "storq help [COMMAND|MODEL]" --help
out=$("$storq" 2>&1); [ $? -eq 2 ] && grep -q "usage:" <<<"$out" && echo "ok: storq -> 2 with the usage" || fail "storq without arguments"
shows 0 "storq run SWEEP.ini" run --help
shows 0 "storq theory MODEL" theory --help
# git-style: one command's usage
shows 0 "storq run SWEEP.ini" help run
shows 0 "storq theory MODEL" help theory
shows 0 "storq models [MODEL]" help models
shows 0 "storq info FILE.h5" help info
shows 0 "storq merge [--force]" help merge
shows 0 "storq convert [--force]" help convert
shows 0 "storq help [COMMAND|MODEL]" help help
shows 0 "storq models [MODEL]" models --help
shows 0 "storq info FILE.h5" info --help
shows 0 "storq merge [--force]" merge --help
shows 0 "storq convert [--force]" convert --help
out=$("$storq" help merge); grep -q "storq run" <<<"$out" && fail "storq help merge prints run's usage too" || echo "ok: storq help merge prints merge's usage only"

# A model's parameters, wherever --help stands (also where a value was due).
mkdir -p sub
printf '[run]\nmodel = proxy\n\n[proxy]\nL = 4\n' > sub/p.ini
models=$("$storq" models | awk '{print $1}') # every registered model: a new one is covered
[ -n "$models" ] || fail "storq models lists no model"
for model in $models; do
  has_params $model run $model --help
  has_params $model run --help $model
  has_params $model run -r 2 $model --lambda --help
  has_params $model theory $model --help
  has_params $model theory $model -h
  has_params $model help $model
  # the page's summary: the first line of its "What it models" section, and its source
  first=$(awk '/^## What it models/ { getline; getline; print; exit }' "$src/docs/models/$model.md")
  [ -n "$first" ] || fail "docs/models/$model.md: no '## What it models' section"
  shows 0 "$first" help $model
  shows 0 "Source:" help $model
done
has_params proxy run sub/p.ini --help
shows 0 "docs/models/threads.md" help threads

# Unknown topics: exit 2, naming what is known.
shows 2 "'nosuch' is neither a command nor a model; commands: run theory" help nosuch
shows 2 "models: supermarket cluster" help nosuch
shows 2 "unknown model 'nosuch'" run nosuch --help
shows 2 "unknown model 'nosuch'" theory nosuch --help
shows 2 "usage: storq help" help run supermarket
printf '[run]\nmodel = nosuch\n' > bad.ini
shows 2 "bad.ini:2: [run] model: unknown model 'nosuch'" run bad.ini --help

# The man page: the checked-in one is the generated one, and it renders.
if "$storq" --man | diff -u "$src/docs/storq.1" - > man.diff; then
  echo "ok: docs/storq.1 is current"
else
  fail "docs/storq.1 differs from \`storq --man\`; regenerate it: cmake --build build --target man"; head -20 man.diff
fi
for model in $models; do
  grep -q "^\.SS $model\$" "$src/docs/storq.1" || fail "docs/storq.1 has no section for $model"
done
grep -qF '\fB\-\-arrivals\fR' "$src/docs/storq.1" || fail "docs/storq.1 lacks the parameters"
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$src/docs/storq.1" 2>&1)
  [ -z "$warnings" ] && echo "ok: groff renders docs/storq.1 without warnings" || fail "groff: $warnings"
fi
if command -v man >/dev/null; then
  MANWIDTH=100 man -l "$src/docs/storq.1" 2>/dev/null | grep -q "supermarket" && echo "ok: man -l docs/storq.1" || fail "man -l docs/storq.1"
fi

# The install: the binary and the man page under a prefix; the installed binary needs no source
# tree for its help.
if "$cmake" --install "$build" --prefix "$work/prefix" > install.log 2>&1; then
  [ -x prefix/bin/storq ] && echo "ok: installed bin/storq" || fail "no bin/storq under the prefix"
  cmp -s prefix/share/man/man1/storq.1 "$src/docs/storq.1" && echo "ok: installed share/man/man1/storq.1" || fail "no share/man/man1/storq.1 under the prefix"
  (cd / && "$work/prefix/bin/storq" help cluster) | grep -q "Source: Virag Shah" && echo "ok: the installed storq prints a page summary" || fail "installed storq help cluster"
else
  fail "cmake --install: $(cat install.log)"
fi

[ "$failures" -eq 0 ] && echo "all help checks passed" || { echo "$failures failure(s)"; exit 1; }
