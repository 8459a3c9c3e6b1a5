#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian machine, then run the whole suite:
# ruff, mypy --strict on the core and the games (mypy on the whole package), the import
# contracts (import-linter), and pytest (unit, integration, reliability).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

need_apt=()
command -v dovecot >/dev/null 2>&1 || need_apt+=(dovecot-imapd dovecot-core)
command -v pg_isready >/dev/null 2>&1 || need_apt+=(postgresql-client)
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && ! command -v pg_ctlcluster >/dev/null 2>&1; then
  need_apt+=(postgresql)
fi
# the web pages' browser test (issue 15): Debian's chromium and its driver, and a
# Japanese font so the screenshots (scripts/screens.py) show the Japanese pages
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
[ -e /usr/share/fonts/opentype/ipafont-gothic/ipag.ttf ] || need_apt+=(fonts-ipafont-gothic)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# Dovecot refuses to store mail as uid 0: the fixtures run it as this system user.
id vmail >/dev/null 2>&1 || $SUDO useradd --system --no-create-home --shell /usr/sbin/nologin vmail

bash scripts/start-postgres.sh

echo "== pip install -e .[test]"
python3 -m pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v -E '^(WARNING|DEPRECATION)' || true

echo "== ruff"
python3 -m ruff check relaybot tests bench
echo "== mypy --strict relaybot/core relaybot/games relaybot/pipeline; mypy relaybot"
python3 -m mypy --strict relaybot/core relaybot/games relaybot/pipeline
python3 -m mypy relaybot
echo "== import contracts (lint-imports)"
lint-imports --no-cache
echo "== pytest"
python3 -m pytest -q -p no:cacheprovider "$@"
