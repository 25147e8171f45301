#!/usr/bin/env bash
# The corpus (tests/corpus/run.sh) run as `storq run --schema 2` finishes it, in schema 2.0: each
# file must hold what `storq convert` makes of its schema 1.x twin (tests/compare_h5.py, which
# leaves out how each was made). The 1.x files themselves are compared with the digests by
# check.sh. Usage: check_schema2.sh STORQ PYTHON
set -euo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$here/run.sh" "$storq" "$work/1.x" 1
"$here/run.sh" "$storq" "$work/2.0" 2
mkdir -p "$work/converted"
status=0
for f in "$work"/1.x/*.h5; do
  name=$(basename "$f")
  "$storq" convert "$f" "$work/converted/$name" >/dev/null || { echo "convert $name failed"; status=1; continue; }
  "$python" "$here/../compare_h5.py" "$work/2.0/$name" "$work/converted/$name" || status=1
done
exit $status
