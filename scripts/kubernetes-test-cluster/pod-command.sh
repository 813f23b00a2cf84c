#!/usr/bin/env bash
# The fake node's container runtime, for pod-exec-server (its --pod-command). A pod is a
# bubblewrap sandbox shaped like the sandbox pod: the host's /usr and /etc read-only, the pod's
# own /workspace and /tmp (CAIRN_POD_DIR/{workspace,tmp}) writable, uid and gid 65532, user,
# mount, pid, network, ipc and uts namespaces of its own (only a loopback), and the language
# servers a sandbox image for them ships at /cairn/lsp/node_modules (CAIRN_POD_LSP_MODULES, read-only).
#
#   CAIRN_POD_DIR=<folder> pod-command.sh --hold
#       starts the pod's holder: the sandbox with nothing in it but bubblewrap's init and a
#       sleep. bubblewrap writes the init's host pid to fd 3 (as `{"child-pid": …}`) before the
#       sandbox is set up; the holder says `ready` on stdout once it is. It lives until its parent dies.
#   CAIRN_POD_HOLDER=<pid> pod-command.sh <argv…>
#       runs one exec inside that pod: in all of the holder's namespaces, as uid 65532 with no
#       capabilities and no new privileges, with the container's environment, killed with its
#       caller. So the execs of one pod share processes, files and loopback, as a container's do.
set -euo pipefail

if [[ ${1:-} == --hold ]]; then
  if [[ -z "${CAIRN_POD_DIR:-}" || ! -d "$CAIRN_POD_DIR/workspace" || ! -d "$CAIRN_POD_DIR/tmp" ]]; then
    echo "pod-command.sh: CAIRN_POD_DIR must hold the pod's workspace and tmp folders" >&2
    exit 126
  fi
  lsp=()
  if [[ -n "${CAIRN_POD_LSP_MODULES:-}" ]]; then
    lsp=(--ro-bind "$CAIRN_POD_LSP_MODULES" /cairn/lsp/node_modules)
  fi
  exec bwrap \
    --unshare-all --unshare-user --uid 65532 --gid 65532 --die-with-parent --new-session \
    --info-fd 3 \
    --ro-bind /usr /usr \
    --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    --ro-bind /etc /etc \
    --proc /proc --dev /dev \
    --bind "$CAIRN_POD_DIR/workspace" /workspace \
    --bind "$CAIRN_POD_DIR/tmp" /tmp \
    "${lsp[@]}" \
    --chdir / \
    --hostname "${CAIRN_POD_NAME:-sandbox}" \
    -- /bin/sh -c 'echo ready && exec sleep infinity'
fi

if [[ -z "${CAIRN_POD_HOLDER:-}" || $# -eq 0 ]]; then
  echo "usage: CAIRN_POD_HOLDER=<pid> pod-command.sh <argv…>, or CAIRN_POD_DIR=<folder> pod-command.sh --hold" >&2
  exit 126
fi
# Entering the holder's user namespace as the host's root is being its uid 65532, whose
# capabilities the command's execve drops (it is not uid 0 there).
exec nsenter --target "$CAIRN_POD_HOLDER" --all --root --wd --preserve-credentials -- \
  /usr/bin/setpriv --no-new-privs --pdeathsig KILL -- \
  /usr/bin/env -i \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/workspace TMPDIR=/tmp HOSTNAME="${CAIRN_POD_NAME:-sandbox}" \
  "$@"
