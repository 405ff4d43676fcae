#!/usr/bin/env bash
# Simulated hosts on one machine for multi-host MPI tests: each host is a network namespace with its
# own address and hostname (Open MPI treats ranks on different hosts as remote: TCP between them),
# all sharing this machine's file system, as a cluster's nodes share one. Needs root (ip netns,
# unshare) and iproute2; exit status 77 where they are missing (the test is then skipped).
#
#   sim-hosts.sh up N          hosts cwz1..cwzN on the bridge cwzbr0 (10.78.0.0/24)
#   sim-hosts.sh mpiexec ARGS  mpiexec across them: sim-hosts.sh mpiexec --host cwz1,cwz2,cwz3 -np 3 PROG
#   sim-hosts.sh down          removes everything it made
set -euo pipefail
dir=/tmp/chunkwise-sim-hosts
net=10.78.0
cmd=${1:-}; shift || true
need() {
  if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null || ! command -v unshare >/dev/null; then
    echo "sim-hosts: needs root, ip (iproute2) and unshare" >&2
    exit 77
  fi
}
case "$cmd" in
  up)
    need
    n=${1:?usage: sim-hosts.sh up N}
    "$0" down >/dev/null 2>&1 || true
    mkdir -p "$dir"
    if ! ip link add cwzbr0 type bridge 2>/dev/null; then
      echo "sim-hosts: cannot make a network bridge here" >&2
      exit 77
    fi
    ip addr add "$net.1/24" dev cwzbr0
    ip link set cwzbr0 up
    for ((i = 1; i <= n; i++)); do
      h=cwz$i
      ip netns add "$h"
      ip link add "cwzv$i" type veth peer name eth0 netns "$h"
      ip link set "cwzv$i" master cwzbr0 up
      ip -n "$h" addr add "$net.$((10 + i))/24" dev eth0
      ip -n "$h" link set eth0 up
      ip -n "$h" link set lo up
      grep -q " $h\$" /etc/hosts || echo "$net.$((10 + i)) $h" >>/etc/hosts
    done
    cat >"$dir/agent.sh" <<'AGENT'
#!/bin/bash
# rsh agent: "agent.sh HOST command..." runs the command in HOST's network and hostname namespace
h=$1; shift
exec ip netns exec "$h" unshare --uts /bin/bash -c 'hostname "$0"; exec /bin/bash -c "$*"' "$h" "$@"
AGENT
    chmod +x "$dir/agent.sh"
    echo "sim-hosts: $n hosts (cwz1..cwz$n)"
    ;;
  mpiexec)
    [[ -x $dir/agent.sh ]] || { echo "sim-hosts: no hosts; run 'sim-hosts.sh up N' first" >&2; exit 2; }
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    exec mpiexec --mca plm_rsh_agent "$dir/agent.sh" --mca plm_rsh_no_tree_spawn 1 \
      --mca oob_tcp_if_include "$net.0/24" --mca btl_tcp_if_include "$net.0/24" --mca btl tcp,vader,self \
      --bind-to none "$@"
    ;;
  down)
    for h in $(ip netns list 2>/dev/null | awk '/^cwz[0-9]+/ {print $1}'); do ip netns del "$h"; done
    ip link del cwzbr0 2>/dev/null || true
    sed -i '/ cwz[0-9]*$/d' /etc/hosts
    rm -rf "$dir"
    ;;
  *) sed -n "2,10p" "$0"; exit 2 ;;
esac
