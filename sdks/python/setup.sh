#!/usr/bin/env bash
# Set-up of the Python SDK's tests: a virtual environment at .test-data/python-venv with the pinned
# test dependencies (requirements-test.txt, from PyPI) and the SDK installed editable from
# sdks/python. Idempotent: a warm run checks a stamp and changes nothing. Fails, with the command
# that installs it, when Python 3.10+ or its venv module is missing; it never skips.
set -euo pipefail

sdk_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$sdk_dir/../.." && pwd)
venv="$repo_root/.test-data/python-venv"
stamp="$venv/.cairn-setup-stamp"

fail() {
  printf 'sdks/python/setup.sh: ERROR: %s\n' "$*" >&2
  exit 1
}

python=${CAIRN_PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 ||
  fail "python3 is not installed. Install it with: apt-get install -y python3 python3-venv python3-pip"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' ||
  fail "python3 is $("$python" -V 2>&1); the SDK needs 3.10 or newer. Install it with: apt-get install -y python3 python3-venv (Debian 12 ships 3.11)"
"$python" -c 'import venv, ensurepip' 2>/dev/null ||
  fail "python3's venv module is missing. Install it with: apt-get install -y python3-venv"

# The stamp records what the environment was built from; anything changed means a rebuild.
wanted=$( { "$python" -V 2>&1; cat "$sdk_dir/requirements-test.txt" "$sdk_dir/pyproject.toml"; } | sha256sum | cut -c1-16)
if [[ -x $venv/bin/python && -f $stamp && $(cat "$stamp") == "$wanted" ]]; then
  printf 'sdks/python/setup.sh: python environment ready (%s)\n' "$venv"
  exit 0
fi

mkdir -p "$repo_root/.test-data"
rm -rf "$venv"
"$python" -m venv "$venv"
log="$repo_root/.test-data/python-setup.log"
if ! {
  "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$sdk_dir/requirements-test.txt" &&
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --no-deps --no-build-isolation -e "$sdk_dir"
} >"$log" 2>&1; then
  cat "$log" >&2
  fail "installing the test dependencies from PyPI failed (log above, also in $log)"
fi
printf '%s\n' "$wanted" >"$stamp"
printf 'sdks/python/setup.sh: python environment built (%s)\n' "$venv"
