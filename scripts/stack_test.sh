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
#
# Runs side by side on one machine (two scripts/test.sh at once) do not clash: each has
# its own compose project ($RELAYBOT_STACK_PROJECT, default relaybot-stacktest-<PID>),
# and so its own containers, volumes and image tags, and its own loopback ports and DNS
# stub address, reserved under a machine-wide lock in $RELAYBOT_STACK_STATE
# (tests/stack/ports.py; RELAYBOT_STACK_PORTS="smtp=25025,..." and RELAYBOT_STACK_DNS fix
# some or all). The daemon is shared: the last run to leave stops one a run started. On
# exit (an interrupt too) the run removes what its project left: containers, volumes and
# its image tags (their layers stay, as the next build's cache).
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

PROJECT="${RELAYBOT_STACK_PROJECT:-relaybot-stacktest-$$}"
# compose labels its containers and volumes with the name lowercased and stripped of other
# characters (v1), or refuses it (v2): the clean-up below finds them by that label
if ! [[ "$PROJECT" =~ ^[a-z0-9][a-z0-9_-]*$ ]]; then
  echo "stack test: RELAYBOT_STACK_PROJECT must be lowercase letters, digits, - and _: $PROJECT" >&2
  exit 2
fi
STATE="${RELAYBOT_STACK_STATE:-/tmp/relaybot-stack-test}"
mkdir -p "$STATE/runs"

# One run at a time in here: the port choice, and starting or stopping the shared daemon.
# The lock's descriptor (9) is closed for every process that could outlive the section.
locked() { ( flock 9; "$@" ) 9>"$STATE/lock"; }

start_daemon() {
  docker info >/dev/null 2>&1 && return 0  # maybe one another run started: shared
  # no bridge and no iptables rules: nothing of the host's network is changed; builds and
  # containers use the host's network (tests/stack/harness.py). Its own session: the
  # process group scripts/test.sh stops may go before another run is done with it.
  $SUDO setsid dockerd --iptables=false --bridge=none >build/dockerd.log 2>&1 9>&- &
  local pid=$!
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if ! docker info >/dev/null 2>&1; then
    kill "$pid" 2>/dev/null || true
    return 3
  fi
  echo "$pid" >"$STATE/dockerd.pid"
}

# whether PID is still a dockerd (or the sudo running one); not a zombie, nor a reused PID
is_dockerd() {
  tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q dockerd
}

# this run leaves: unregister, and stop the daemon if a stack test started it and no
# other run is alive
leave_daemon() {
  rm -f "$STATE/runs/$$.json"
  local f pid
  for f in "$STATE"/runs/*.json; do
    [ -e "$f" ] || continue
    pid="$(basename "$f" .json)"
    if kill -0 "$pid" 2>/dev/null; then return 0; fi
    rm -f "$f"  # a run that died without leaving
  done
  pid="$(cat "$STATE/dockerd.pid" 2>/dev/null || true)"
  rm -f "$STATE/dockerd.pid"
  [ -n "$pid" ] && is_dockerd "$pid" || return 0  # none, or not one a stack test started
  kill "$pid" 2>/dev/null || true
  # not this shell's child (the locked section's subshell started it): poll
  for _ in $(seq 60); do is_dockerd "$pid" || break; sleep 0.5; done
}

# what this run's project left, found by compose's labels (v1 and v2 set the same), so
# that it goes even when pytest was stopped before its own `down`
remove_project() {
  docker info >/dev/null 2>&1 || return 0
  local label="label=com.docker.compose.project=$PROJECT"
  local -a ids
  mapfile -t ids < <(docker ps -aq --filter "$label")
  [ ${#ids[@]} -eq 0 ] || docker rm -f "${ids[@]}" >/dev/null 2>&1 || true
  mapfile -t ids < <(docker volume ls -q --filter "$label")
  [ ${#ids[@]} -eq 0 ] || docker volume rm "${ids[@]}" >/dev/null 2>&1 || true
  # the tags only (--no-prune): the layers stay as the next run's build cache
  mapfile -t ids < <(docker images --format '{{.Repository}}:{{.Tag}}' "relaybot/*:$PROJECT")
  [ ${#ids[@]} -eq 0 ] || docker rmi --no-prune "${ids[@]}" >/dev/null 2>&1 || true
}

leave() {
  remove_project
  locked leave_daemon
}

# this run's ports and DNS address (a dead run's reservation is dropped on the way), and
# a daemon (run as `locked reserve || ...`, where set -e does not stop at a failure)
reserve() {
  "$PY" -m tests.stack.ports reserve --state "$STATE" --owner $$ >"$STATE/$$.env" || return 1
  start_daemon
}

trap leave EXIT
trap 'exit 143' TERM INT
status=0
locked reserve || status=$?
if [ $status -eq 3 ]; then
  rm -f "$STATE/$$.env"
  echo "stack test: no Docker daemon could be started here ($(tail -n 1 build/dockerd.log)): the compose stack was NOT tested"
  exit 3
fi
[ $status -eq 0 ] || exit $status
{ read -r ports; read -r dns; } <"$STATE/$$.env"
rm -f "$STATE/$$.env"
echo "stack test: project $PROJECT, ports $ports, DNS stub $dns"

start=$(date +%s)
RELAYBOT_STACK_TEST=1 RELAYBOT_STACK_LOG="$LOG" RELAYBOT_STACK_PROJECT="$PROJECT" \
  RELAYBOT_STACK_PORTS="$ports" RELAYBOT_STACK_DNS="$dns" \
  "$PY" -m pytest -q -p no:cacheprovider -s tests/stack || status=$?
echo "stack test: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - start )) s; log: $LOG"
exit $status
