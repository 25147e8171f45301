#!/usr/bin/env bash
# Install what storq needs from Debian 12's packages (idempotent: skips apt when all are present).
set -euo pipefail
packages=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools
          libpcg-cpp-dev python3-h5py python3-numpy python3-matplotlib python3-pandas
          python3-xarray python3-h5netcdf python3-scipy python3-pytest python3-setuptools python3-pip
          netcdf-bin
          slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get -o DPkg::Lock::Timeout=600 update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q \
  --no-install-recommends "${missing[@]}"
