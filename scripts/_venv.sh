# Sourced by scripts/play, scripts/test and scripts/bench: make sure .venv exists at the
# repository root and holds the project as pyproject.toml describes it. Idempotent: the
# install runs again only when pyproject.toml changed since the last one (its hash is kept
# in .venv/.dudo-installed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    echo "setting up $VENV (first run)..." >&2
    "$PY" -m venv "$VENV"
fi
stamp="$VENV/.dudo-installed"
want="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "installing dudo-p2p and its dependencies into .venv..." >&2
    "$VENV/bin/python" -m pip install -q --upgrade pip >&2
    "$VENV/bin/python" -m pip install -q -e "$ROOT[dev]" >&2
    echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
