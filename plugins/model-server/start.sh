#!/usr/bin/env bash
# `npm run model-server`: the memory model server on SVC_MODEL_HOST:SVC_MODEL_PORT (default
# 127.0.0.1:8000). Creates its Python environment under <repo>/.cairn/model-server-venv on first
# run (SVC_MODEL_VENV moves it), then hands the process to uvicorn. Every other SVC_ setting is
# read by the app.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${SVC_MODEL_VENV:-$repo/.cairn/model-server-venv}"
bash "$here/setup.sh" "$venv"
exec "$venv/bin/python" -m uvicorn --factory cairn_model_server.app:create_app \
  --app-dir "$here" \
  --host "${SVC_MODEL_HOST:-127.0.0.1}" --port "${SVC_MODEL_PORT:-8000}" \
  --no-access-log "$@"
