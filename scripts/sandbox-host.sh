# What the local sandbox runtime (plugins/sandbox-local) needs from the host, shared by
# `npm run setup` (scripts/setup.sh) and the test set-up (scripts/setup-test-env.sh): its Debian
# packages and the cgroup v1 controllers it limits sandboxes with. Sourced, not run.

# The packages of the host tools the runtime runs, space-separated, for those that are missing:
# bubblewrap (the jail), a C compiler and libc headers (the session helper is built at start),
# mkfs.ext4 (sandbox disks) and losetup/mount (loop-mounting them).
missing_sandbox_host_packages() {
  local missing=()
  # sbin too: a non-root user's PATH may lack it, and the check must not depend on who runs it.
  local PATH="$PATH:/usr/sbin:/sbin"
  command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
  command -v cc >/dev/null 2>&1 || missing+=(gcc)
  [[ -f /usr/include/stdio.h ]] || missing+=(libc6-dev)
  command -v mkfs.ext4 >/dev/null 2>&1 || missing+=(e2fsprogs)
  command -v losetup >/dev/null 2>&1 || missing+=(mount)
  printf '%s\n' "${missing[*]}"
}

# "memory: writable", "pids: not mounted", …: whether the runtime can make a cgroup of its own.
cgroup_status() {
  local controller=$1 probe
  local root="/sys/fs/cgroup/$controller"
  if [[ ! -d $root ]] || ! grep -qw "$controller" <(awk '$3 == "cgroup" {print $4}' /proc/mounts); then
    printf '%s: not mounted' "$controller"
    return
  fi
  # Creating (and removing) a child group is the real test; access(2) can say yes and mkdir fail.
  probe="$root/cairn-setup-probe-$$"
  if mkdir "$probe" 2>/dev/null; then
    rmdir "$probe"
    printf '%s: writable' "$controller"
  else
    printf '%s: not writable' "$controller"
  fi
}
