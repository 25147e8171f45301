#!/usr/bin/env bash
# Results unchanged: rerun the corpus (tests/corpus/run.sh) and compare every file with the digest
# committed in tests/corpus/digests. A change that alters results on purpose (new random draws, a
# corrected kernel) states why in its commit and writes new digests with
#   tests/corpus/check.sh STORQ PYTHON --update
set -euo pipefail
storq=$1; python=$2; update=${3:-}; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$here/run.sh" "$storq" "$work"
status=0
for f in "$work"/*.h5; do
  name=$(basename "$f" .h5)
  if [[ $update == --update ]]; then
    "$python" "$here/../compare_h5.py" --digest "$f" > "$here/digests/$name.txt"
  else
    "$python" "$here/../compare_h5.py" "$f" "$here/digests/$name.txt" || status=1
  fi
done
for d in "$here"/digests/*.txt; do
  [[ -f $work/$(basename "$d" .txt).h5 ]] || { echo "$d: no such run in run.sh"; status=1; }
done
exit $status
