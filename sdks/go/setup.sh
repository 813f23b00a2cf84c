#!/usr/bin/env bash
# Set-up for the Go SDK's tests (run by the test command's set-up step; safe to run again):
# checks that Go 1.22 or newer is installed, then builds the SDK, its tests, the conformance
# runner and the example (examples/go-sdk) so the test run starts from a warm build cache. The
# SDK uses the standard library only, so nothing is fetched from the Go module proxy. Fails,
# with the command that installs Go, when the toolchain is missing or too old; it never skips.
set -euo pipefail

sdk_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$sdk_dir/../.." && pwd)
example_dir="$repo_root/examples/go-sdk"
minimum_go="1.22"
# Never download another toolchain behind the caller's back.
export GOTOOLCHAIN=local

fail() {
  printf 'sdks/go/setup.sh: ERROR: %s\n' "$*" >&2
  exit 1
}

install_hint="Install Go $minimum_go or newer: curl -fsSL https://go.dev/dl/go1.26.0.linux-amd64.tar.gz | tar -C /usr/local -xz && export PATH=\$PATH:/usr/local/go/bin (Debian 12's golang package is 1.19, too old)"
command -v go >/dev/null 2>&1 || fail "go is not installed. $install_hint"
go_version=$(go env GOVERSION | sed 's/^go//')
if [[ $(printf '%s\n%s\n' "$minimum_go" "$go_version" | sort -V | head -n1) != "$minimum_go" ]]; then
  fail "go $go_version is older than $minimum_go. $install_hint"
fi

started=$SECONDS
(cd "$sdk_dir" && go build ./... && go test -count=1 -run '^$' ./... >/dev/null)
(cd "$example_dir" && go build -o /dev/null .)
printf 'sdks/go/setup.sh: go %s ready, built in %d s\n' "$go_version" "$((SECONDS - started))"
