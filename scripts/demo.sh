#!/usr/bin/env bash
# The README's first command: run `relaybot demo` on a fresh machine (Debian 12 with
# Python 3.11 and nothing else). Makes its own venv (.venv, or $RELAYBOT_VENV), installing
# python3-venv with apt-get where Debian left it out, installs relaybot with its demo extra
# into it (not editable: the same wheel a club would install, plus the demo's own mail
# servers) and runs the demo: local mail servers on loopback, a throwaway database, two
# players playing a short game by mail.
#
#   bash scripts/demo.sh            # later runs reuse the venv
#   .venv/bin/relaybot --help       # the venv's relaybot, for trying further
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${RELAYBOT_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "demo.sh: $PYTHON not found; install Python 3.11 or newer (apt-get install python3)" >&2
  exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "demo.sh: relaybot needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1)" >&2
  exit 1
fi

if [ ! -x "$VENV/bin/python" ]; then
  # Debian's python3 has no ensurepip (so no venv) until python3-venv is installed
  if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    ver="$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
    echo "== apt-get install python${ver}-venv (Debian ships venv separately)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "python${ver}-venv" >/dev/null
  fi
  echo "== $PYTHON -m venv $VENV"
  "$PYTHON" -m venv "$VENV"
fi

# every time: a pulled update is what runs (pip skips the dependencies already there)
echo "== pip install .[demo] (into $VENV)"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check ".[demo]" 2>&1 \
  | grep -v -E '^(WARNING|DEPRECATION)' >&2 || true
"$VENV/bin/relaybot" --version >/dev/null

exec "$VENV/bin/relaybot" demo "$@"
