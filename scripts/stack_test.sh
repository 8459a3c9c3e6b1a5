#!/usr/bin/env bash
# The compose stack, built and run on this machine (docs/deploy.md, "The stack, tested"):
# a Debian 12 base image from Debian's packages (debootstrap, docker import), every image
# of docker-compose.yml built, the stack up on loopback ports, a DKIM-signed move mail in
# through its Postfix, relayed by relaybot and out again signed, restarts and an upgrade
# that keep the data (tests/stack/test_stack.py). scripts/test.sh runs it beside the suite.
#
#   bash scripts/stack_test.sh        # log with timings: build/stack-test.log
#
# Installs what it needs on a fresh Debian machine (docker.io, docker-compose,
# debootstrap), starts a Docker daemon if none answers (no bridge, no iptables: the stack
# runs on the host's network) and stops it again after. Exit 3, with one line saying so,
# where no daemon can be started: then the stack was not tested.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
LOG="$(realpath -m "${RELAYBOT_STACK_LOG:-build/stack-test.log}")"
PY="${PYTHON:-python3}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

need_apt=()
command -v dockerd >/dev/null 2>&1 || need_apt+=(docker.io)
docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1 \
  || need_apt+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || need_apt+=(debootstrap)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== stack test: apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

started=""
if ! docker info >/dev/null 2>&1; then
  # no bridge and no iptables rules: nothing of the host's network is changed; builds and
  # containers use the host's network (tests/stack/harness.py)
  $SUDO dockerd --iptables=false --bridge=none >build/dockerd.log 2>&1 &
  started=$!
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$started" 2>/dev/null || break
    sleep 0.5
  done
  if ! docker info >/dev/null 2>&1; then
    kill "$started" 2>/dev/null || true
    echo "stack test: no Docker daemon could be started here ($(tail -n 1 build/dockerd.log)): the compose stack was NOT tested"
    exit 3
  fi
fi
stop_daemon() {
  if [ -n "$started" ]; then
    kill "$started" 2>/dev/null || true
    wait "$started" 2>/dev/null || true
  fi
}
trap stop_daemon EXIT
trap 'exit 143' TERM INT

start=$(date +%s)
status=0
RELAYBOT_STACK_TEST=1 RELAYBOT_STACK_LOG="$LOG" "$PY" -m pytest -q -p no:cacheprovider \
  -s tests/stack || status=$?
echo "stack test: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - start )) s; log: $LOG"
exit $status
