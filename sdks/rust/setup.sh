#!/usr/bin/env bash
# Set-up for the Rust SDK's tests (run by the test command's set-up step; safe to run again):
# checks the toolchain, fetches the locked crates from crates.io, builds the SDK with its tests and
# examples and the example crate into one shared target folder, and checks formatting and lints.
# Everything it builds goes under <repo>/.test-data/cargo-target (git-ignored).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
sdk="$repo_root/sdks/rust"
example="$repo_root/examples/rust-sdk"
export CARGO_TARGET_DIR="$repo_root/.test-data/cargo-target"
minimum_rust="1.88"

install_hint="Install Rust $minimum_rust or newer with rustup: curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile default (then open a new shell or run: . \"\$HOME/.cargo/env\")"
# rustup installs into ~/.cargo/bin, which a non-login shell may not have on PATH.
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if ! command -v cargo >/dev/null 2>&1 && [ -x "$cargo_bin/cargo" ]; then
  export PATH="$cargo_bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "sdks/rust/setup.sh: cargo is not installed. $install_hint" >&2
  exit 1
fi
rust_version="$(rustc --version | awk '{print $2}')"
if [ "$(printf '%s\n%s\n' "$minimum_rust" "$rust_version" | sort -V | head -n1)" != "$minimum_rust" ]; then
  echo "sdks/rust/setup.sh: rustc $rust_version is older than $minimum_rust. Update it: rustup update stable" >&2
  exit 1
fi

mkdir -p "$CARGO_TARGET_DIR"
started=$SECONDS
for crate in "$sdk" "$example"; do
  (cd "$crate" && cargo fetch --locked --quiet)
done
(cd "$sdk" && cargo build --locked --offline --quiet --tests --examples)
(cd "$example" && cargo build --locked --offline --quiet)
echo "sdks/rust/setup.sh: built in $((SECONDS - started)) s"

# Formatting and lints fail the set-up on findings, when the components are installed.
if cargo fmt --version >/dev/null 2>&1; then
  for crate in "$sdk" "$example"; do
    (cd "$crate" && cargo fmt --check)
  done
else
  echo "sdks/rust/setup.sh: rustfmt not installed, formatting not checked (rustup component add rustfmt)"
fi
if cargo clippy --version >/dev/null 2>&1; then
  (cd "$sdk" && cargo clippy --locked --offline --quiet --all-targets -- -D warnings)
  (cd "$example" && cargo clippy --locked --offline --quiet -- -D warnings)
else
  echo "sdks/rust/setup.sh: clippy not installed, lints not checked (rustup component add clippy)"
fi
echo "sdks/rust/setup.sh: ready"
