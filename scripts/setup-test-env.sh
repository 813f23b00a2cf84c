#!/usr/bin/env bash
# Set-up step of `npm test`: makes a fresh Debian 12 machine ready for the test suite.
# Installs bubblewrap, Chromium and tmux (for the browser and real-terminal tests), redis-server (the
# Redis rate-limit store's tests start their own), PostgreSQL 15 and pgvector (Debian 12 has no pgvector package, so it is built
# from Debian 13's source package), starts a throwaway PostgreSQL cluster for this checkout and
# writes .test-data/env (`source` it to get SVC_TEST_DATABASE_URL). Idempotent: a warm run only
# checks and reuses. One line per step on stdout; command output goes to .test-data/setup.log and is
# printed only when a command fails.
#
# Environment:
#   SVC_TEST_DATABASE_URL  use this database instead of a throwaway cluster (only verified)
#   CAIRN_TEST_PG_PORT     port for the throwaway cluster (default 55432, else the next free one)
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
test_data="$repo_root/.test-data"
log_file="$test_data/setup.log"
env_file="$test_data/env"

pg_major=15
pg_bin="/usr/lib/postgresql/$pg_major/bin"
vector_control="/usr/share/postgresql/$pg_major/extension/vector.control"
database_name=cairn_test
default_port=55432

# The cluster lives in /tmp, not inside the repo: the server must run as the unprivileged
# `postgres` user (initdb refuses root), and a checkout under a 0700 home directory or on a
# mount without chown support would force us to loosen permissions on the user's own
# directories. /tmp is always reachable, keeps the Unix socket path short (limit: 107 bytes)
# and a reboot wiping it only loses throwaway data. The repo-path hash keeps checkouts apart;
# .test-data/pg is a symlink to it. teardown-test-env.sh computes the same path: keep in sync.
repo_hash=$(printf '%s' "$repo_root" | sha256sum | cut -c1-12)
cluster_base="/tmp/cairn-test-pg-$repo_hash"
cluster_data="$cluster_base/data"
cluster_socket_dir="$cluster_base/run"
cluster_log="$cluster_base/server.log"

export DEBIAN_FRONTEND=noninteractive
# Wait for a concurrent apt/dpkg instead of failing on its lock.
apt_options=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0)

mkdir -p "$test_data"
# One set-up at a time per checkout (parallel test commands would race on initdb and apt).
# Every child command gets `9>&-`: a server started with fd 9 open would hold the lock forever.
exec 9>"$test_data/setup.lock"
if ! flock -n 9; then
  printf 'setup-test-env: waiting for another set-up of this checkout to finish\n'
  flock 9
fi
: >"$log_file"
started_at=$SECONDS

say() { printf 'setup-test-env: %s\n' "$*"; }

fail() {
  printf 'setup-test-env: ERROR: %s\n' "$*" >&2
  exit 1
}

# Runs a command with its output appended to the log; on failure shows just that output.
run() {
  local lines_before
  lines_before=$(wc -l <"$log_file")
  printf '\n$ %s\n' "$*" >>"$log_file"
  if ! "$@" >>"$log_file" 2>&1 9>&-; then
    printf 'setup-test-env: command failed: %s\n' "$*" >&2
    tail -n +"$((lines_before + 1))" "$log_file" >&2
    printf 'setup-test-env: full log: %s\n' "$log_file" >&2
    exit 1
  fi
}

is_root() { [[ $(id -u) -eq 0 ]]; }

is_installed() {
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true) == installed ]]
}

apt_updated=false
apt_install() {
  if [[ $apt_updated == false ]]; then
    run apt-get update -q -o DPkg::Lock::Timeout=300
    apt_updated=true
  fi
  run apt-get install "${apt_options[@]}" "$@"
}

# --- 1. What is missing? (checked before changing anything, so a non-root run can report) ---

use_external_database=false
if [[ -n ${SVC_TEST_DATABASE_URL:-} ]]; then use_external_database=true; fi

# The local sandbox runtime's host tools, as `npm run setup` installs them (scripts/sandbox-host.sh).
# shellcheck source=scripts/sandbox-host.sh
source "$script_dir/sandbox-host.sh"
read -ra sandbox_packages <<<"$(missing_sandbox_host_packages)"
missing_packages=("${sandbox_packages[@]}")
# The JavaScript SDK's browser test drives Debian's Chromium; the TUI's real-terminal test, tmux;
# the Redis rate-limit store's tests, a redis-server of their own (the package's service stays unused).
tool_packages=(chromium tmux redis-server)
for package in "${tool_packages[@]}"; do
  command -v "$package" >/dev/null 2>&1 || missing_packages+=("$package")
done
if [[ $use_external_database == true ]]; then
  command -v psql >/dev/null 2>&1 || missing_packages+=("postgresql-client-$pg_major")
else
  for package in "postgresql-$pg_major" "postgresql-server-dev-$pg_major"; do
    is_installed "$package" || missing_packages+=("$package")
  done
fi
need_pgvector=false
if [[ $use_external_database == false && ! -f $vector_control ]]; then
  need_pgvector=true
  # apt-get source unpacks with dpkg-source (dpkg-dev); the build needs make and a C compiler.
  is_installed build-essential || missing_packages+=(build-essential)
fi

if ! is_root && { ((${#missing_packages[@]} > 0)) || [[ $need_pgvector == true ]]; }; then
  printf 'setup-test-env: ERROR: system parts are missing and this is not root. Run:\n' >&2
  if ((${#missing_packages[@]} > 0)); then
    printf '  sudo apt-get update\n  sudo apt-get install -y %s\n' "${missing_packages[*]}" >&2
  fi
  if [[ $need_pgvector == true ]]; then
    printf '  sudo bash %s   # builds pgvector from Debian 13 source\n' "$script_dir/setup-test-env.sh" >&2
  fi
  exit 1
fi

# --- 2. bubblewrap and the sandbox runtime's other host tools ---

if ((${#sandbox_packages[@]} == 0)); then
  say "bubblewrap: present ($(bwrap --version 2>/dev/null | head -n 1))"
else
  apt_install "${sandbox_packages[@]}"
  say "sandbox host tools: installed ${sandbox_packages[*]} ($(bwrap --version 2>/dev/null | head -n 1))"
fi

# --- 3. Chromium, tmux and redis-server ---

missing_tools=()
for package in "${tool_packages[@]}"; do
  command -v "$package" >/dev/null 2>&1 || missing_tools+=("$package")
done
if ((${#missing_tools[@]} > 0)); then
  apt_install "${missing_tools[@]}"
  say "installed ${missing_tools[*]}"
else
  say "${tool_packages[*]}: present"
fi

# --- 4. PostgreSQL 15 + pgvector ---

install_postgres_packages() {
  local wanted=()
  for package in "${missing_packages[@]}"; do
    [[ " ${sandbox_packages[*]} ${tool_packages[*]} " == *" $package "* ]] || wanted+=("$package")
  done
  if ((${#wanted[@]} == 0)); then
    say "postgresql $pg_major: packages present"
  else
    apt_install "${wanted[@]}"
    say "postgresql $pg_major: installed ${wanted[*]}"
  fi
}

# Debian 12 has no pgvector package; Debian 13's source package builds against PostgreSQL 15.
# The trixie deb-src line never enters /etc/apt: it lives in a temporary sources list that
# only the two apt invocations below read, with their own lists and cache directories
# (Dir::State::Lists, Dir::Cache). So the machine's package selection, its index files and any
# later `apt-get update`/`apt-get source` stay exactly as before, and nothing is left behind.
# (A deb-src-only entry in /etc/apt would not change binary installs either, but every later
# update would fetch trixie Sources, and `apt-get source`/`build-dep` would prefer trixie.)
build_pgvector() {
  local build_dir
  build_dir=$(mktemp -d /tmp/cairn-pgvector-build.XXXXXX)
  # apt's downloads run as the _apt user, which must be able to enter the build directory.
  chmod 755 "$build_dir"
  mkdir -p "$build_dir/lists/partial" "$build_dir/cache/archives/partial" "$build_dir/source"
  # apt-get source downloads into the working directory as _apt (else it warns and falls back).
  if id _apt >/dev/null 2>&1; then chown _apt "$build_dir/source"; fi
  printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s trixie main\n' \
    http://deb.debian.org/debian >"$build_dir/trixie-src.list"
  local isolated=(
    -o "Dir::Etc::SourceList=$build_dir/trixie-src.list"
    -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$build_dir/lists"
    -o "Dir::Cache=$build_dir/cache"
  )
  run apt-get "${isolated[@]}" update -q
  (cd "$build_dir/source" && run apt-get "${isolated[@]}" source -q pgvector)
  local source_dir
  source_dir=$(find "$build_dir/source" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)
  [[ -n $source_dir ]] || fail "apt-get source pgvector produced no source directory (see $log_file)"
  # OPTFLAGS= drops pgvector's default -march=native, so the library also runs if this
  # machine's image is reused on another CPU.
  local make_options=(-C "$source_dir" "PG_CONFIG=$pg_bin/pg_config" OPTFLAGS=)
  run make "${make_options[@]}" -j "$(nproc)"
  run make "${make_options[@]}" install
  rm -rf "$build_dir"
  [[ -f $vector_control ]] || fail "pgvector built but $vector_control is missing"
  say "pgvector: built and installed $(basename "$source_dir") from Debian 13 source"
}

pgvector_version() {
  sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$vector_control"
}

# --- 5. Throwaway cluster ---

cluster_user=$(id -un)
if is_root; then cluster_user=postgres; fi

as_cluster_user() {
  if is_root; then
    # cd /: the repo may not be readable by postgres, and tools complain about an odd cwd.
    (cd / && runuser -u postgres -- "$@" 9>&-)
  else
    "$@" 9>&-
  fi
}

cluster_is_running() {
  [[ -f $cluster_data/PG_VERSION ]] && as_cluster_user "$pg_bin/pg_ctl" status -D "$cluster_data" >/dev/null 2>&1
}

running_port() { sed -n 4p "$cluster_data/postmaster.pid"; }

port_is_busy() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

choose_port() {
  if [[ -n ${CAIRN_TEST_PG_PORT:-} ]]; then
    [[ $CAIRN_TEST_PG_PORT =~ ^[0-9]+$ ]] || fail "CAIRN_TEST_PG_PORT must be a port number"
    port_is_busy "$CAIRN_TEST_PG_PORT" && fail "CAIRN_TEST_PG_PORT=$CAIRN_TEST_PG_PORT is already in use"
    printf '%s\n' "$CAIRN_TEST_PG_PORT"
    return
  fi
  local port
  for ((port = default_port; port < default_port + 100; port++)); do
    if ! port_is_busy "$port"; then
      printf '%s\n' "$port"
      return
    fi
  done
  fail "no free port in $default_port-$((default_port + 99)); set CAIRN_TEST_PG_PORT"
}

prepare_cluster_base() {
  if [[ -d $cluster_base ]]; then
    local owner
    owner=$(stat -c %U "$cluster_base")
    [[ $owner == "$cluster_user" ]] ||
      fail "$cluster_base belongs to $owner, not $cluster_user; remove it and re-run"
  else
    mkdir -m 700 "$cluster_base"
    if is_root; then chown postgres:postgres "$cluster_base"; fi
  fi
  ln -sfn "$cluster_base" "$test_data/pg"
}

initialise_cluster() {
  # initdb into a scratch directory and rename on success, so an interrupted run never leaves
  # a half-made cluster that later runs would try to start.
  local scratch="$cluster_base/data.partial"
  as_cluster_user rm -rf "$scratch"
  run as_cluster_user "$pg_bin/initdb" -D "$scratch" --username=postgres --auth=trust \
    --encoding=UTF8 --locale=C --no-sync
  # Test-only settings: loopback only, socket beside the data, durability off for speed.
  as_cluster_user tee -a "$scratch/postgresql.conf" >/dev/null <<EOF

# cairn throwaway test cluster (scripts/setup-test-env.sh)
listen_addresses = '127.0.0.1'
unix_socket_directories = '$cluster_socket_dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
  as_cluster_user mkdir -p "$cluster_socket_dir"
  as_cluster_user mv "$scratch" "$cluster_data"
}

start_cluster() {
  local port=$1
  # The port is passed at start rather than written to postgresql.conf, so a later run can
  # move the cluster to another port without editing its configuration. Shared buffers hold a
  # 100,000-memory account's HNSW index and postings, as a production server's would
  # (test/bench/semantic.ts; PostgreSQL's default of 128 MB does not).
  run as_cluster_user "$pg_bin/pg_ctl" start -w -t 60 -D "$cluster_data" -l "$cluster_log" \
    -o "-p $port -c shared_buffers=1GB"
}

stop_cluster() {
  run as_cluster_user "$pg_bin/pg_ctl" stop -w -m fast -D "$cluster_data"
}

run_sql() {
  local url=$1
  shift
  PGCONNECT_TIMEOUT=10 psql -X -q -v ON_ERROR_STOP=1 -d "$url" "$@"
}

ensure_cluster() {
  prepare_cluster_base
  local created=false
  if [[ ! -f $cluster_data/PG_VERSION ]]; then
    initialise_cluster
    created=true
  fi

  local port state
  if cluster_is_running; then
    port=$(running_port)
    if [[ -n ${CAIRN_TEST_PG_PORT:-} && $CAIRN_TEST_PG_PORT != "$port" ]]; then
      stop_cluster
      port=$(choose_port)
      start_cluster "$port"
      state="restarted on port $port (CAIRN_TEST_PG_PORT)"
    else
      state="reused (already running on port $port)"
    fi
  else
    port=$(choose_port)
    start_cluster "$port"
    state="started on port $port"
    if [[ $created == true ]]; then state="created and started on port $port"; fi
  fi

  local admin_url="postgres://postgres@127.0.0.1:$port/postgres"
  database_url="postgres://postgres@127.0.0.1:$port/$database_name"
  local exists
  exists=$(run_sql "$admin_url" -tA -c "SELECT 1 FROM pg_database WHERE datname = '$database_name'")
  [[ $exists == 1 ]] || run run_sql "$admin_url" -c "CREATE DATABASE $database_name"
  run run_sql "$database_url" -c 'CREATE EXTENSION IF NOT EXISTS vector'
  say "cluster: $state, data in $cluster_data, log $cluster_log"
}

# A function, so the URL (it may hold a password) stays out of the log's command lines.
verify_external_database() {
  run_sql "$SVC_TEST_DATABASE_URL" -c 'CREATE EXTENSION IF NOT EXISTS vector'
}

if [[ $use_external_database == true ]]; then
  database_url=$SVC_TEST_DATABASE_URL
  run verify_external_database
  say "postgresql: using SVC_TEST_DATABASE_URL (CREATE EXTENSION vector works); no local cluster"
else
  install_postgres_packages
  if [[ $need_pgvector == true ]]; then
    build_pgvector
  else
    say "pgvector: present ($(pgvector_version))"
  fi
  ensure_cluster
fi

# --- 6. Environment file for the test runner ---

printf 'export SVC_TEST_DATABASE_URL=%q\n' "$database_url" >"$env_file"
# Print it with any password masked: CI logs are often public.
say "env: wrote $env_file: $(sed 's#://\([^:/@]*\):[^@]*@#://\1:***@#' "$env_file")"

# --- 7. cgroup v1 controllers used by the sandbox runtime (reported, not required) ---

say "cgroup v1: $(cgroup_status memory), $(cgroup_status pids)"

# --- 8. JavaScript runtimes the built SDK and CLI are tested on (test/support/js-runtimes.ts) ---

# Node 20 and 22 from the npm `node` package, Bun from the npm `bun` package (its binary comes in
# the optional dependency @oven/bun-linux-x64), each in a folder of its own, kept between runs.
install_runtime() {
  local folder="$test_data/runtimes/$1" spec=$2 binary=$3 expected=$4
  local installed="$folder/node_modules/.bin/$binary"
  if [[ -x $installed && $("$installed" --version 2>/dev/null) == "$expected" ]]; then
    say "$spec: present"
    return
  fi
  rm -rf "$folder"
  mkdir -p "$folder"
  printf '{"private": true}\n' >"$folder/package.json"
  run npm install --prefix "$folder" --no-audit --no-fund --no-package-lock "$spec"
  [[ $("$installed" --version 2>/dev/null) == "$expected" ]] ||
    fail "$spec installed but $installed does not answer --version with $expected (see $log_file)"
  say "$spec: installed in $folder"
}
install_runtime node-20 node@20.20.2 node v20.20.2
install_runtime node-22 node@22.23.3 node v22.23.3
install_runtime bun bun@1.4.5 bun 1.4.5

say "ready in $((SECONDS - started_at))s"
