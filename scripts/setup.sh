#!/usr/bin/env bash
# `npm run setup`: makes this machine ready for local sandboxes (SVC_SANDBOX_RUNTIME=local). As
# root it installs the Debian packages of the host tools the runtime runs (scripts/sandbox-host.sh);
# as another user it prints the command to run and exits 1. Idempotent: a second run only checks.
# Then it reports what the server itself needs at run time: root, and writable cgroup v1
# controllers for per-sandbox memory, CPU and process limits.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/sandbox-host.sh
source "$script_dir/sandbox-host.sh"

say() { printf 'setup: %s\n' "$*"; }
is_root() { [[ $(id -u) -eq 0 ]]; }

read -ra missing <<<"$(missing_sandbox_host_packages)"
if ((${#missing[@]} == 0)); then
  say "sandbox host tools: present ($(bwrap --version 2>/dev/null | head -n 1))"
elif ! is_root; then
  printf 'setup: ERROR: local sandboxes need %s, and installing them needs root. Run:\n' "${missing[*]}" >&2
  printf '  sudo npm run setup\n' >&2
  exit 1
else
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q -o DPkg::Lock::Timeout=300
  apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}"
  read -ra still_missing <<<"$(missing_sandbox_host_packages)"
  if ((${#still_missing[@]} > 0)); then
    printf 'setup: ERROR: still missing after apt-get install: %s\n' "${still_missing[*]}" >&2
    exit 1
  fi
  say "sandbox host tools: installed ${missing[*]} ($(bwrap --version 2>/dev/null | head -n 1))"
fi

cgroups="$(cgroup_status memory), $(cgroup_status pids), $(cgroup_status cpu)"
if [[ $cgroups == *not* ]]; then
  cgroups+=" (sandboxes get rlimits only, no per-sandbox memory or CPU limit: plugins/sandbox-local/README.md)"
fi
say "cgroup v1: $cgroups"
if is_root; then
  say "ready: start the server as root (npm start, or deploy/systemd/cairn.service) for local sandboxes"
else
  say "ready: the server must run as root for local sandboxes (sudo npm start, or deploy/systemd/cairn.service)"
fi
