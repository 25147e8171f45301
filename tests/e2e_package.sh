#!/usr/bin/env bash
# The Debian package: CPack builds it (into a temporary folder); its control fields name the
# project's version and this machine's architecture, depend on the packages that hold the
# binary's shared libraries, on mpirun and on h5py and numpy, recommend pandas, matplotlib and
# xarray; its files are those of `cmake --install` under /usr plus what Debian policy adds (the man
# page gzipped, copyright, changelog.gz), with no byte-compiled Python. Then it is unpacked with
# dpkg-deb -x, never installed (CI shares the machine), and the unpacked storq runs the README's
# example (smaller) on 2 ranks, the unpacked Python package reads the file, and the man page opens.
# Skipped (77) without dpkg-deb. Usage: e2e_package.sh BUILD_DIR CPACK CMAKE PYTHON VERSION
set -uo pipefail
build=$(realpath "$1"); cpack=$2; cmake=$3; python=$4; version=$5
command -v dpkg-deb >/dev/null && command -v dpkg >/dev/null || { echo "no dpkg-deb: skipped"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

arch=$(dpkg --print-architecture)
(cd "$build" && "$cpack" -G DEB -B "$work/pkg" --config "$build/CPackConfig.cmake") > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
deb=$work/pkg/storq_${version}_${arch}.deb
[ -f "$deb" ] || { ls "$work/pkg"; echo "FAIL: cpack wrote no $(basename "$deb")"; exit 1; }
ok "cpack -G DEB wrote $(basename "$deb") ($(du -k "$deb" | cut -f1) kB)"
cd "$work" || exit 1

# Control fields.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = storq ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), project version $version"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture), dpkg says $arch"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
summary=$(field Description | head -n 1)
[ -n "$summary" ] && [ "${#summary}" -lt 80 ] || fail "Description's summary line: '$summary'"
[ "$(field Description | wc -l)" -gt 2 ] || fail "no extended Description"
names() { field "$1" | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/[[:space:]]//g' | grep .; }
depends=$(names Depends); recommends=$(names Recommends)
dpkg-deb -x "$deb" root
# every shared library the binary needs comes from a package it depends on
libs=$(objdump -p root/usr/bin/storq 2>/dev/null | awk '$1 == "NEEDED" { print $2 }')
[ "$(wc -w <<<"$libs")" -ge 3 ] || fail "objdump found no shared libraries of storq: '$libs'"
for lib in $libs; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
  owner=$(dpkg -S "$(realpath "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
  [ -z "$owner" ] && owner=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
  grep -qx "$owner" <<<"$depends" && echo "ok: $lib: $owner in Depends" || fail "$lib (package '$owner') not in Depends: $(field Depends)"
done
for p in openmpi-bin python3 python3-h5py python3-numpy; do
  grep -qx "$p" <<<"$depends" || fail "$p not in Depends: $(field Depends)"
done
for p in python3-pandas python3-matplotlib python3-xarray; do
  grep -qx "$p" <<<"$recommends" || fail "$p not in Recommends: $(field Recommends)"
done
# every name is a real package here (jobs/install-deps.sh installs them all)
for p in $depends $recommends; do
  dpkg-query -W "$p" >/dev/null 2>&1 || apt-cache show "$p" >/dev/null 2>&1 || fail "Depends/Recommends name unknown package '$p'"
done
ok "control: $(field Package) $(field Version) $(field Architecture); Depends: $(field Depends); Recommends: $(field Recommends)"
info=$(dpkg-deb -I "$deb")
grep -q ' postinst ' <<<"$info" && grep -q ' prerm ' <<<"$info" ||
  fail "no postinst/prerm (byte-compiling the Python package)"

# The files: cmake --install's under /usr, but the man page gzipped, plus copyright and changelog.
DESTDIR=$work/inst "$cmake" --install "$build" --prefix /usr > install.log 2>&1 || fail "cmake --install: $(tail -3 install.log)"
{
  (cd inst && find . -type f) | sed 's|^\./|/|; s|\(/share/man/man[1-9]/.*\.[1-9]\)$|\1.gz|'
  echo /usr/share/doc/storq/copyright
  echo /usr/share/doc/storq/changelog.gz
} | sort > expected.txt
dpkg-deb -c "$deb" | awk '$1 ~ /^-/ { print $NF }' | sed 's|^\./|/|' | sort > packaged.txt
if diff -u expected.txt packaged.txt > files.diff; then
  ok "the package holds the $(wc -l < packaged.txt) files of cmake --install (man page gzipped) and copyright, changelog.gz"
else
  fail "packaged files differ (- expected, + in the package):"; grep '^[-+][^-+]' files.diff | head -20
fi
grep -E '\.pyc$|__pycache__' packaged.txt && fail "byte-compiled Python in the package"
for f in usr/bin/storq usr/share/storq/slurm/storq.sbatch usr/share/storq/slurm/storq-array.sbatch; do
  [ -x "root/$f" ] || fail "/$f is not executable in the package"
done
grep -qx "default_storq='/usr/bin/storq'" root/usr/share/storq/slurm/storq.sbatch &&
  ok "the packaged storq.sbatch runs /usr/bin/storq" || fail "the packaged storq.sbatch does not default to /usr/bin/storq"
first=$(zcat root/usr/share/doc/storq/changelog.gz | head -n 1)
[[ $first == "storq ($version) "* ]] ||
  fail "changelog.gz does not start with 'storq ($version)'"

# Unpacked: the binary, the README's example (fewer servers and jobs), the Python package, man.
storq=$work/root/usr/bin/storq
out=$("$storq" --version)
re="^storq ${version//./\\.} \\(([0-9a-f]{7,}|unknown)\\)$"
[[ $out =~ $re ]] && ok "unpacked storq --version: $out" || fail "unpacked storq --version printed '$out'"
OMP_NUM_THREADS=1 mpirun -np 2 "$storq" run supermarket --n 100 --L 2 --k 1 --lambda 0.9 \
  --warmup 10000 --arrivals 100000 -r 4 --seed 1 -o example.h5 > example.log 2>&1 ||
  fail "unpacked storq, the README example on 2 ranks: $(tail -3 example.log)"
grep -q "mean_queue_length" example.log && ok "the unpacked storq ran the README example on 2 ranks" || fail "no report: $(head -3 example.log)"
PYTHONPATH=$work/root/usr/lib/python3/dist-packages "$python" - "$work/root" <<'PY' || fail "the unpacked Python package"
import sys
import storq
assert storq.__file__.startswith(sys.argv[1] + "/"), storq.__file__
r = storq.open("example.h5")
u = r.observable(0, "u")
assert abs(u["mean"][1] - 0.9) < 0.01, u["mean"][:3]
print("ok: the unpacked package", storq.__file__, "reads example.h5: u_1 =", u["mean"][1])
PY
if command -v man >/dev/null; then
  page=$(MANWIDTH=100 man -l root/usr/share/man/man1/storq.1.gz 2>/dev/null)
  grep -q "supermarket" <<<"$page" &&
    ok "man -l opens the packaged man page" || fail "man -l storq.1.gz"
fi

[ "$failures" -eq 0 ] && echo "all package checks passed" || { echo "$failures failure(s)"; exit 1; }
