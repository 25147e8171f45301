#!/usr/bin/env bash
# Special files: a FIFO, a device, a directory or a socket given where storq reads or writes a
# file (a sweep file, a trace, an input to info or merge, the output) is refused at once: exit 2,
# one message naming the path and what it is, nothing blocks (each command under a timeout: a
# FIFO opened for reading would wait forever for a writer), and no file is left beside it.
set -uo pipefail
storq=$1; python=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=1
failures=0
mkfifo fifo.ini fifo.h5 fifo.txt
mkdir dir.ini dir.h5
"$python" -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock.h5
dev=/dev/zero # a character device (/dev/null is a regular file in some containers)
ok=(supermarket --n 10 --L 2 --lambda 0.5 --warmup 10 --arrivals 200 -r 2 --quiet)
"$storq" run "${ok[@]}" -o good.h5 || { echo "FAIL: a plain run"; exit 1; }

# refused PATTERN -- ARGS...: exit 2, one message with PATTERN, no out.h5* left; a run blocked on a
# special file is cut at 30 s (a refusal took up to 1.9 s beside two busy loops)
refused() {
  local pattern=$1; shift 2
  local out status
  out=$(timeout 30 "$storq" "$@" 2>&1 >/dev/null); status=$?
  if [ "$status" -ne 2 ]; then
    echo "FAIL: storq $* exited $status, expected 2 (124: it blocked): $out"
    failures=$((failures + 1)); return
  fi
  if ! grep -qF -- "$pattern" <<<"$out" || [ "$(grep -vc '^(run `storq --help`' <<<"$out")" -ne 1 ]; then
    echo "FAIL: storq $*: not one message with '$pattern': $out"; failures=$((failures + 1)); return
  fi
  local left
  left=$(ls -d out.h5* fifo.h5.* dir.h5.* sock.h5.* zero.* 2>/dev/null)
  [ -z "$left" ] || { echo "FAIL: storq $*: left $left"; failures=$((failures + 1)); rm -rf $left; return; }
  echo "ok: storq $* -> 2: $(head -n 1 <<<"$out")"
}

# sweep files, for a run and a dry run
refused "'fifo.ini' is not a regular file but a FIFO" -- run fifo.ini --dry-run
refused "'fifo.ini' is not a regular file but a FIFO" -- run fifo.ini -o out.h5
refused "'dir.ini' is not a regular file but a directory" -- run dir.ini -o out.h5
# traces (--service trace:PATH)
refused "trace file 'fifo.txt' is not a regular file but a FIFO" -- run "${ok[@]}" --service trace:fifo.txt -o out.h5
refused "trace file '$dev' is not a regular file but a character device" -- run "${ok[@]}" --service "trace:$dev" -o out.h5
refused "trace file '.' is not a regular file but a directory" -- run "${ok[@]}" --service trace:. -o out.h5
# the output
refused "'fifo.h5' exists and is not a regular file but a FIFO" -- run "${ok[@]}" -o fifo.h5
refused "'dir.h5' exists and is not a regular file but a directory" -- run "${ok[@]}" -o dir.h5
refused "'sock.h5' exists and is not a regular file but a socket" -- run "${ok[@]}" -o sock.h5
refused "'$dev' exists and is not a regular file but a character device" -- run "${ok[@]}" -o "$dev"
# a FIFO where the output's lock goes: read as a lock that does not say whose, never opened to wait
mkfifo lk.h5.lock
refused "'lk.h5' is locked by lk.h5.lock, which does not say by whom" -- run "${ok[@]}" -o lk.h5
refused "'lk.h5' is locked by lk.h5.lock, which does not say by whom" -- merge lk.h5 good.h5
# a FIFO where --resume looks for the partial file
mkfifo res.h5.partial
refused "--resume: 'res.h5.partial' is not a regular file but a FIFO" -- run "${ok[@]}" -o res.h5 --resume
# info's input
refused "'fifo.h5' is not a regular file but a FIFO" -- info fifo.h5
refused "'sock.h5' is not a regular file but a socket" -- info sock.h5
refused "'dir.h5' is not a regular file but a directory" -- info dir.h5
refused "'$dev' is not a regular file but a character device" -- info "$dev"
# merge's inputs and output
refused "merge: 'fifo.h5' is not a regular file but a FIFO" -- merge out.h5 good.h5 fifo.h5
refused "merge: '$dev' is not a regular file but a character device" -- merge out.h5 "$dev" good.h5
refused "merge: 'fifo.h5' exists and is not a regular file but a FIFO" -- merge fifo.h5 good.h5
refused "merge: 'sock.h5' exists and is not a regular file but a socket" -- merge sock.h5 good.h5
[ -p fifo.h5 ] && [ -p lk.h5.lock ] && [ -p res.h5.partial ] && [ ! -e lk.h5 ] && [ -S sock.h5 ] && [ -d dir.h5 ] || { echo "FAIL: a special file was replaced"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ] && echo "every special file refused at once, naming what it is"
exit $((failures > 0))
