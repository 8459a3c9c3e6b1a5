#!/usr/bin/env bash
# CI (run by scripts/test.sh): the README's set-up works as a new club operator meets it.
#
# 1. A clean clone of the committed tree, a fresh venv: the README's first command
#    (bash scripts/demo.sh) plays the demo game, and leaves the clone as it was.
# 2. A non-editable install from a wheel (as pip or pipx installs it) in another fresh
#    venv, used from an empty folder with nothing from this environment: `relaybot
#    --version`, `relaybot init` (config and database, both 0600), `relaybot demo` saying
#    in one line that it needs the demo extra, and with that extra, the demo.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# the interpreter itself, not a shim (pyenv's would look for its root in the fresh HOME)
PY="$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK"

fail() { echo "check_setup: $*" >&2; exit 1; }
played() {  # the demo's output shows a whole game, in both languages
  grep -q "relaybot demo: game " "$1" || fail "$2: no game started"
  grep -q "対局開始" "$1" || fail "$2: no Japanese start mail"
  grep -q "Please correct your move" "$1" || fail "$2: the illegal move was not answered"
  grep -q "ended 1-0 (checkmate)" "$1" || fail "$2: the game did not end"
}
# nothing of this session: no PYTHONPATH pointing at a checkout, no RELAYBOT_* settings
clean_env=(env -i "PIP_DISABLE_PIP_VERSION_CHECK=1" "PATH=/usr/local/bin:/usr/bin:/bin:$(dirname "$(command -v "$PY")")"
           "HOME=$WORK" "LANG=C.UTF-8")
for var in PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_CERT PIP_CONFIG_FILE \
           PIP_DEFAULT_TIMEOUT PIP_CONSTRAINT http_proxy https_proxy no_proxy; do
  [ -n "${!var:-}" ] && clean_env+=("$var=${!var}")
done
# pip's own settings file (an index mirror, say) stays usable from the fresh HOME
[ -f "$HOME/.config/pip/pip.conf" ] && clean_env+=("PIP_CONFIG_FILE=$HOME/.config/pip/pip.conf")

echo "== check_setup: clean clone, README's first command (bash scripts/demo.sh)"
git clone -q --no-hardlinks "$ROOT" "$WORK/clone"
(cd "$WORK/clone" && "${clean_env[@]}" RELAYBOT_VENV="$WORK/venv-demo" PYTHON="$PY" \
   bash scripts/demo.sh) >"$WORK/demo.out" 2>"$WORK/demo.err" \
  || { cat "$WORK/demo.err" >&2; fail "bash scripts/demo.sh failed"; }
played "$WORK/demo.out" "scripts/demo.sh"
[ -z "$(git -C "$WORK/clone" status --porcelain)" ] \
  || fail "scripts/demo.sh left files in the clone: $(git -C "$WORK/clone" status --porcelain)"

echo "== check_setup: a wheel in a fresh venv: relaybot --version, init, demo"
"${clean_env[@]}" "$PY" -m pip wheel -q --no-deps -w "$WORK/dist" "$WORK/clone" >/dev/null
"${clean_env[@]}" "$PY" -m venv "$WORK/venv-wheel"
"${clean_env[@]}" "$WORK/venv-wheel/bin/python" -m pip install -q "$WORK"/dist/relaybot-*.whl \
  2>&1 | grep -v -E '^(WARNING|DEPRECATION)' >&2 || true
mkdir "$WORK/club"
cd "$WORK/club"
run() { "${clean_env[@]}" "PATH=$WORK/venv-wheel/bin:/usr/bin:/bin" "$@"; }
run relaybot --version | grep -q "^relaybot [0-9]" || fail "relaybot --version"
run relaybot init >"$WORK/init.out" || fail "relaybot init failed"
grep -q "database ready" "$WORK/init.out" || fail "relaybot init: no database"
[ "$(stat -c %a relaybot.toml)" = 600 ] || fail "relaybot.toml is not 0600"
[ "$(stat -c %a relaybot.db)" = 600 ] || fail "relaybot.db is not 0600"
mkdir "$WORK/empty"
cd "$WORK/empty"
# a plain install has no demo servers (the demo extra): the demo says in one line what to add
if run relaybot demo >"$WORK/no-extra.out" 2>"$WORK/no-extra.err"; then
  fail "relaybot demo ran without the demo extra"
fi
[ "$(wc -l <"$WORK/no-extra.err")" -eq 1 ] && grep -q "pip install 'relaybot\[demo\]'" "$WORK/no-extra.err" \
  || fail "relaybot demo without the demo extra: $(cat "$WORK/no-extra.err")"
"${clean_env[@]}" "$WORK/venv-wheel/bin/python" -m pip install -q "$(ls "$WORK"/dist/relaybot-*.whl)[demo]" \
  2>&1 | grep -v -E '^(WARNING|DEPRECATION)' >&2 || true
run relaybot demo >"$WORK/wheel-demo.out" || fail "relaybot demo (wheel) failed"
played "$WORK/wheel-demo.out" "relaybot demo from the wheel"
[ -z "$(ls -A .)" ] || fail "relaybot demo left files behind: $(ls -A .)"
echo "check_setup: ok"
