#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian machine, then run the whole suite:
# ruff, mypy --strict on the core and the games (mypy on the whole package), the import
# contracts (import-linter), pytest on two workers (unit, integration, reliability,
# security), and the README's set-up from a clean clone (scripts/check_setup.sh).
#
# Debian's own python3 refuses `pip install` (PEP 668, "externally-managed-environment"):
# there the Python tools go into a venv of their own, .venv-test ($RELAYBOT_TEST_VENV).
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
# the deployment tests (tests/integration/test_deploy.py): Debian's docker-compose (v1)
# validates docker-compose.yml; the mail configs are checked by the packages themselves
command -v docker-compose >/dev/null 2>&1 || need_apt+=(docker-compose)
[ -x /usr/lib/dovecot/lmtp ] || need_apt+=(dovecot-lmtpd)
# the OAuth 2.0 tests: Dovecot's submission service and a throwaway certificate
[ -x /usr/lib/dovecot/submission ] || need_apt+=(dovecot-submissiond)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
command -v envsubst >/dev/null 2>&1 || need_apt+=(gettext-base)
[ -x /usr/sbin/postconf ] || need_apt+=(postfix)
[ -x /usr/sbin/opendkim ] || need_apt+=(opendkim)
command -v opendkim-genkey >/dev/null 2>&1 || need_apt+=(opendkim-tools)
[ -x /usr/sbin/opendmarc ] || need_apt+=(opendmarc)

# PEP 668: is this python3 one pip may not install into?
externally_managed() {
  python3 - <<'PY'
import os, sys, sysconfig
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
sys.exit(0 if sys.prefix == sys.base_prefix and os.path.exists(marker) else 1)
PY
}
PY=python3
if externally_managed; then
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 \
    || need_apt+=("python3.$(python3 -c 'import sys; print(sys.version_info[1])')-venv")
fi

# the web pages' browser test (issue 15): Debian's chromium and its driver, and a
# Japanese font so the screenshots (scripts/screens.py) show the Japanese pages
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
[ -e /usr/share/fonts/opentype/ipafont-gothic/ipag.ttf ] || need_apt+=(fonts-ipafont-gothic)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  # postfix is here for `postconf`/`postfix check` on deploy/'s config, not to serve mail
  echo "postfix postfix/main_mailer_type select No configuration" | $SUDO debconf-set-selections
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# Dovecot refuses to store mail as uid 0: the fixtures run it as this system user.
id vmail >/dev/null 2>&1 || $SUDO useradd --system --no-create-home --shell /usr/sbin/nologin vmail

bash scripts/start-postgres.sh

if externally_managed; then
  VENV="${RELAYBOT_TEST_VENV:-.venv-test}"
  [ -x "$VENV/bin/python" ] || { echo "== python3 -m venv $VENV"; python3 -m venv "$VENV"; }
  PY="$VENV/bin/python"
  export PATH="$PWD/$VENV/bin:$PATH"
fi

echo "== pip install -e .[test]"
"$PY" -m pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v -E '^(WARNING|DEPRECATION)' || true

# The compose stack (scripts/stack_test.sh: images built from Debian's packages, a move
# mail through Postfix, Dovecot, relaybot and Postfix again) takes minutes, mostly waiting
# on downloads: it runs beside the rest and its result is collected at the end.
mkdir -p build
echo "== stack test (scripts/stack_test.sh) in the background: build/stack-test.out"
# (its own process group: a run that stops early stops it too)
PYTHON="$PY" setsid bash scripts/stack_test.sh >build/stack-test.out 2>&1 &
stack_pid=$!
trap 'kill -TERM -- "-$stack_pid" 2>/dev/null || true' EXIT

echo "== ruff"
"$PY" -m ruff check relaybot tests bench
echo "== mypy --strict relaybot/core relaybot/games relaybot/pipeline; mypy relaybot"
"$PY" -m mypy --strict relaybot/core relaybot/games relaybot/pipeline
"$PY" -m mypy relaybot
echo "== import contracts (lint-imports)"
lint-imports --no-cache
# two workers (pytest-xdist), one per core of the 2-core machine this runs on; each test
# file stays whole on one worker, the files with slow tests handed out first
# (tests/conftest.py); the 25 slowest tests are listed at the end
echo "== pytest -n 2"
"$PY" -m pytest -q -p no:cacheprovider -n 2 --dist loadfile --no-loadscope-reorder \
  --durations=25 "$@"
echo "== the README's set-up from a clean clone (scripts/check_setup.sh)"
PYTHON=python3 bash scripts/check_setup.sh
echo "== stack test (scripts/stack_test.sh)"
stack_status=0
wait "$stack_pid" || stack_status=$?
trap - EXIT
tail -n 3 build/stack-test.out
if [ "$stack_status" -eq 3 ]; then
  :  # no Docker daemon here: its one line above says the stack was not tested
elif [ "$stack_status" -ne 0 ]; then
  echo "stack test failed: build/stack-test.out, build/stack-test.log" >&2
  exit "$stack_status"
fi
