#!/usr/bin/env bash
# Runs one exec of a pod of the test cluster's fake node (pod-exec-server's --pod-command) in a
# bubblewrap sandbox that looks like the sandbox pod: the host's /usr and /etc read-only, the
# pod's own /workspace and /tmp (CAIRN_POD_DIR/{workspace,tmp}, one pair per pod) writable, uid
# and gid 65532, no network, pid, ipc and uts namespaces of its own, the container's environment.
# Usage: CAIRN_POD_DIR=<folder> pod-command.sh <argv…>
set -euo pipefail
if [[ -z "${CAIRN_POD_DIR:-}" || ! -d "$CAIRN_POD_DIR/workspace" || ! -d "$CAIRN_POD_DIR/tmp" ]]; then
  echo "pod-command.sh: CAIRN_POD_DIR must hold the pod's workspace and tmp folders" >&2
  exit 126
fi
exec bwrap \
  --unshare-all --unshare-user --uid 65532 --gid 65532 --die-with-parent --new-session \
  --ro-bind /usr /usr \
  --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
  --ro-bind /etc /etc \
  --proc /proc --dev /dev \
  --bind "$CAIRN_POD_DIR/workspace" /workspace \
  --bind "$CAIRN_POD_DIR/tmp" /tmp \
  --chdir / \
  --clearenv \
  --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --setenv HOME /workspace --setenv TMPDIR /tmp --setenv HOSTNAME "${CAIRN_POD_NAME:-sandbox}" \
  -- "$@"
