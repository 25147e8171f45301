#!/usr/bin/env bash
# A real single-node Slurm cluster on localhost, for trying the batch scripts and for the tests.
#   jobs/slurm/local-cluster.sh start | stop | status
# Needs root and Debian's slurm-wlm and munge (jobs/install-deps.sh installs them).
set -euo pipefail
cmd=${1:-status}
conf=/etc/slurm/slurm.conf
host=$(hostname -s)

start_munge() {
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return; fi
  mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
  [ -f /etc/munge/munge.key ] || mungekey --create --keyfile /etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key /run/munge /var/log/munge /var/lib/munge
  chmod 0400 /etc/munge/munge.key
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 1 50); do munge -n | unmunge >/dev/null 2>&1 && return; sleep 0.1; done
  echo "local-cluster: munged did not start" >&2; exit 1
}

# Installed (share/storq/slurm), this may be run on a machine with a real Slurm: never touch a
# configuration this script did not write.
check_conf_ours() {
  if [ -f "$conf" ] && ! grep -qx 'ClusterName=storqlocal' "$conf"; then
    echo "local-cluster: $conf exists and is not this script's (no ClusterName=storqlocal);" \
         "leaving it and its Slurm alone: this helper is for a machine without Slurm of its own" >&2
    exit 1
  fi
}

write_conf() {
  local node
  node=$(slurmd -C | head -n 1)
  # More CPUs than cores lets tests run several ranks; config_overrides accepts that.
  local cpus mem
  cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node")
  mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
  mkdir -p /etc/slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
  cat > "$conf" <<CONF
ClusterName=storqlocal
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
SlurmdParameters=config_overrides
ReturnToService=2
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=${host} NodeAddr=127.0.0.1 CPUs=$((cpus < 4 ? 4 : cpus)) RealMemory=${mem} State=UNKNOWN
PartitionName=local Nodes=${host} Default=YES MaxTime=INFINITE State=UP
CONF
}

case "$cmd" in
start)
  [ "$(id -u)" -eq 0 ] || { echo "local-cluster: needs root" >&2; exit 1; }
  check_conf_ours
  start_munge
  # up, idle or running jobs (alloc, mix, completing): leave it alone, jobs and all
  if scontrol ping 2>/dev/null | grep -q UP &&
     sinfo -h -o %t 2>/dev/null | grep -Eq '^(idle|alloc|mix|comp)'; then
    echo "local-cluster: already up"; exit 0
  fi
  write_conf
  slurmctld
  for _ in $(seq 1 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
  slurmd
  for _ in $(seq 1 100); do
    state=$(sinfo -h -o %t 2>/dev/null || true)
    case "$state" in
      idle*) echo "local-cluster: up (node ${host})"; exit 0 ;;
      down*|drain*) scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
    esac
    sleep 0.2
  done
  echo "local-cluster: node did not become idle: $(sinfo 2>&1)" >&2; exit 1 ;;
stop)
  check_conf_ours
  for f in /run/slurmd.pid /run/slurmctld.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  echo "local-cluster: stopped" ;;
status)
  if ! scontrol ping >/dev/null 2>&1; then
    echo "local-cluster: not running ($0 start starts it)"; exit 1
  fi
  scontrol ping; sinfo ;;
*)
  echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
