#!/usr/bin/env bash
# Stops the throwaway PostgreSQL cluster that scripts/setup-test-env.sh started for this
# checkout. Does nothing if it is not running. With --purge also deletes its data, so the next
# set-up starts from an empty cluster.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)

# Same location as in setup-test-env.sh (keep in sync): /tmp, keyed by the repo path.
repo_hash=$(printf '%s' "$repo_root" | sha256sum | cut -c1-12)
cluster_base="/tmp/cairn-test-pg-$repo_hash"
cluster_data="$cluster_base/data"
pg_ctl=/usr/lib/postgresql/15/bin/pg_ctl

purge=false
case "${1:-}" in
  "") ;;
  --purge) purge=true ;;
  *)
    printf 'usage: %s [--purge]\n' "$0" >&2
    exit 2
    ;;
esac

say() { printf 'teardown-test-env: %s\n' "$*"; }

# pg_ctl refuses to run as root; the cluster belongs to postgres when set up as root.
as_cluster_user() {
  if [[ $(id -u) -eq 0 ]]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

if [[ -f $cluster_data/PG_VERSION && -x $pg_ctl ]] &&
  as_cluster_user "$pg_ctl" status -D "$cluster_data" >/dev/null 2>&1; then
  as_cluster_user "$pg_ctl" stop -w -m fast -D "$cluster_data" >/dev/null
  say "cluster stopped ($cluster_data)"
else
  say "cluster not running"
fi

if [[ $purge == true ]]; then
  rm -rf "$cluster_base" "$repo_root/.test-data/pg" "$repo_root/.test-data/env"
  say "removed $cluster_base"
fi
