#!/usr/bin/env bash
# The whole test suite, as `npm test` runs it: set up what the machine lacks (bubblewrap, Chromium,
# tmux, PostgreSQL 15 + pgvector in a throwaway cluster, the Python, Go and Rust SDKs' and the model
# server's environments, the Kubernetes test cluster's programs), check format, lint and types,
# then run every suite. A suite that cannot run fails the command; nothing is skipped silently.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n== %s\n' "$*"; }

step "set-up"
# The Kubernetes test cluster's programs (etcd, kube-apiserver, controller manager, scheduler,
# kwok, the snapshot controller) from the Go module proxy, cached in .test-data/kubernetes by
# version: a cold build takes about ten minutes on two cores, a warm Go cache about half a
# minute, a cached one nothing. It runs beside the other set-up steps, which mostly wait on
# downloads and disks, and is waited for before the suites.
mkdir -p .test-data
cluster_build_log=.test-data/kubernetes-build.log
bash scripts/kubernetes-test-cluster/build.sh >/dev/null 2>"$cluster_build_log" &
cluster_build=$!
bash scripts/setup-test-env.sh
# The other languages' toolchains and dependencies (each fails with the install command when a
# toolchain is missing; none is skipped): the Python, Go and Rust SDKs and the model server.
for setup in sdks/python/setup.sh sdks/go/setup.sh sdks/rust/setup.sh plugins/model-server/setup.sh; do
  bash "$setup"
done
# The built `cairn` (cli/dist), once, before the suites that run it in parallel (the bin would
# build it on first use otherwise).
node cli/bin/build-bundle.js
# shellcheck source=/dev/null
source .test-data/env
export SVC_TEST_DATABASE_URL

step "format, lint and types"
biome check .
tsc --noEmit -p .

step "the Kubernetes test cluster's programs"
cluster_status=0
wait "$cluster_build" || cluster_status=$?
if [[ $cluster_status -ne 0 ]]; then
  cat "$cluster_build_log"
  echo "building the Kubernetes test cluster failed (exit $cluster_status); its log is above" >&2
  exit "$cluster_status"
fi
# Its own lines (built or cached, and how long); the module downloads stay in the log file.
grep '^kubernetes test cluster:' "$cluster_build_log" || true

step "every suite (vitest: core, plugins, transports, CLI, TUI, SQLite and PostgreSQL, Deno, a browser; the Python, Go and Rust SDKs and the model server through their own runners)"
status=0
vitest run --reporter=default --reporter=json --outputFile.json=.test-data/vitest.json || status=$?
# Sandbox disks a killed test run left mounted after its data directory was removed: their image
# is deleted, so nothing can use them again; unmounting gives their loop device and blocks back.
for target in $(findmnt -rn -o TARGET | grep '^/run/cairn-sandboxes/' || true); do
  device=$(findmnt -rn -o SOURCE --target "$target" | head -n 1)
  if [[ $device == /dev/loop* ]] && losetup -n -O BACK-FILE "$device" 2>/dev/null | grep -q '(deleted)'; then
    umount --recursive --lazy "$target" 2>/dev/null || true
  fi
done
# One plain closing line with the counts, whatever the reporter printed above it.
node -e '
  const report = JSON.parse(require("node:fs").readFileSync(".test-data/vitest.json", "utf8"));
  const skipped = report.numPendingTests + report.numTodoTests;
  console.log(`\nvitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
  if (report.numTotalTests === 0) { console.error("no test ran"); process.exit(1); }
'
exit "$status"
