#!/usr/bin/env bash
# Request classes given one at a time: `--class` (repeatable) and sweep-file [class.NAME]
# sections give exactly the points the one-string `--classes` gives; misuse exits 2 with the
# parameter (and file:line). Checked with --dry-run: nothing is simulated.
set -uo pipefail
. "$(dirname "$0")/usage_errors.sh" # before the cd: $0 may be relative
storq=$1; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0
same() { # LABEL FILE1 FILE2: the two dry runs list the same points
  if [ -s "$2" ] && diff <(grep '^point' "$2") <(grep '^point' "$3") >/dev/null; then
    echo "ok: $1"
  else
    echo "FAIL: $1"; diff "$2" "$3"; failures=$((failures + 1))
  fi
}
read='read:0.9:3:6:shexp:0.1,1.25'; write='write:0.1:3:6:shexp:0.6,2.5'
"$storq" run proxy --L 16 --lambda 1,2 --classes "$read|$write" --dry-run > listed.txt
"$storq" run proxy --L 16 --lambda 1,2 --class "$read" --class "$write" --dry-run > flags.txt
same "--class twice = --classes" listed.txt flags.txt
cat > sections.ini <<'INI'
[run]
model = proxy
[proxy]
L = 16
lambda = 1, 2
[class.read]
share = 0.9
k = 3
nmax = 6
delay = shexp:0.1,1.25
[class.write]
delay = shexp:0.6,2.5
nmax = 6
k = 3
share = 0.1
INI
"$storq" run sections.ini --dry-run > sections.txt
same "[class.NAME] sections = --classes (fields in any order)" listed.txt sections.txt
# the command line overrides the file's classes
"$storq" run sections.ini --class "a:1:2:4:exp:1" --dry-run > over.txt
"$storq" run proxy --L 16 --lambda 1,2 --classes "a:1:2:4:exp:1" --dry-run > over_listed.txt
same "--class overrides the sweep file's sections" over_listed.txt over.txt

bad() { # NAME LINE... : a sweep file from the lines after the [run] header
  local name=$1; shift
  { printf '[run]\nmodel = proxy\n[proxy]\nL = 16\n'; printf '%s\n' "$@"; } > "$name"
}
bad list.ini '[class.read]' 'share = 0.9, 1' 'k = 3' 'nmax = 6' 'delay = exp:1'
expect 2 "list.ini:6: \[class.read\] share: one value per class field" -- run "$work/list.ini"
bad field.ini '[class.read]' 'share = 1' 'k = 3' 'nmax = 6' 'delay = exp:1' 'speed = 2'
expect 2 "field.ini:10: \[class.read\] speed: not a field of a class; accepted: share:k:nmax:delay" -- run "$work/field.ini"
bad missing.ini '[class.read]' 'share = 1' 'k = 3' 'delay = exp:1'
expect 2 "missing.ini:5: \[class.read\]: no \`nmax =\`" -- run "$work/missing.ini"
bad both.ini 'classes = a:1:3:6:exp:1' '[class.read]' 'share = 1' 'k = 3' 'nmax = 6' 'delay = exp:1'
expect 2 "both.ini:5: \[proxy\] classes: the classes are also given as \[class.NAME\] sections (line 6)" -- run "$work/both.ini"
bad noname.ini '[class.]' 'share = 1'
expect 2 "noname.ini:5: \[class.\]: a class section needs a name" -- run "$work/noname.ini"
bad shares.ini '[class.a]' 'share = 0.5' 'k = 3' 'nmax = 6' 'delay = exp:1' '[class.b]' 'share = 0.6' 'k = 3' 'nmax = 6' 'delay = exp:1'
expect 2 "the shares sum to 1.1, not 1" -- run "$work/shares.ini"
printf '[run]\nmodel = supermarket\n[class.a]\nshare = 1\n' > other.ini
expect 2 "other.ini:3: \[class.a\]: unknown section; accepted: \[run\], \[supermarket\]" -- run "$work/other.ini"
expect 2 "\-\-class: give the classes one by one (\-\-class) or all at once (\-\-classes), not both" -- run proxy --class "$read" --classes "$write"
expect 2 "\-\-class: not a parameter of model 'supermarket'" -- run supermarket --class "$read"

[ "$failures" -eq 0 ] && echo "all class checks passed" || { echo "$failures failed"; exit 1; }
