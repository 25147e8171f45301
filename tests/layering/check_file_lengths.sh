#!/usr/bin/env bash
# No source file of the toolkit, the kernels, io/ or mpi/ (or the program) is over 700 lines
# (docs/architecture.md, "One shape per model"): a file that grows past it is split along a seam.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd); cd "$root"
status=0
while read -r lines file; do
  [ "$file" = total ] && continue
  if [ "$lines" -gt 700 ]; then echo "$file: $lines lines, over 700"; status=1; fi
done < <(find src kernels io mpi -name '*.[ch]' -print0 | xargs -0 wc -l)
[ $status -eq 0 ] && echo "ok: every source file of src/, kernels/, io/ and mpi/ is at most 700 lines"
exit $status
