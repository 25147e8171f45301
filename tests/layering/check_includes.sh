#!/usr/bin/env bash
# Every quoted include of every layer names a header of the same layer or of one below it:
#   toolkit (src/toolkit/) < kernels (kernels/) < mpi (mpi/), io (io/) < program (src/app/).
# The build already refuses what a layer's include paths do not reach; this also catches a header
# reached through the same folder and names the offending line.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd); cd "$root"
headers() { for d in "$@"; do find "$d" -maxdepth 2 -name '*.h' -printf '%P\n'; done; }
include_re='#include "([^"]+)"'
check() { # layer-folder maxdepth allowed-header-folders...
  local dir=$1 depth=$2; shift 2
  # bash only inside the loop (no process per line): the test stays well under its timeout on a
  # loaded machine
  local -A allowed=([storq_version.h]=1)
  local h; while IFS= read -r h; do allowed[$h]=1; done < <(headers "$@")
  local bad=0 hit file rest line inc own
  while IFS= read -r hit; do
    file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}
    [[ $rest =~ $include_re ]] || continue
    inc=${BASH_REMATCH[1]}
    own=${file%/*}
    if [[ -f $own/$inc ]]; then continue; fi  # a header of the file's own folder
    if [[ -z ${allowed[$inc]:-} ]]; then
      echo "$file:$line: includes \"$inc\", which is not in its layer or below"; bad=1
    fi
  done < <(grep -n '#include "' $(find "$dir" -maxdepth "$depth" -name '*.[ch]') /dev/null || true)
  return $bad
}
status=0
check src/toolkit 1 src/toolkit || status=1
check kernels 2 src/toolkit kernels || status=1
check mpi 1 src/toolkit mpi || status=1
check io 1 src/toolkit io || status=1
# A kernel folder's own headers are its business: no other kernel folder includes them.
while IFS= read -r hit; do
  file=${hit%%:*}
  [[ $hit =~ $include_re ]] || continue
  inc=${BASH_REMATCH[1]}
  model=${file#kernels/}; model=${model%%/*}
  if [[ $inc == */* && ${inc%%/*} != "$model" ]]; then
    echo "$hit: a kernel includes another model's header"; status=1
  fi
done < <(grep -n '#include "' kernels/*/*.[ch] || true)
[[ $status == 0 ]] && echo "layering holds: every include points down"
exit $status
