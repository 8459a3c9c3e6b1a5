"""scripts/stack_test.sh side by side with itself, on stand-ins for Docker and pytest (the
real stack takes minutes: tests/stack/): each run has its own compose project, ports and
DNS stub address; the runs share one Docker daemon, which the last to leave stops; a run
stopped midway removes what its project left."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.stack import ports

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="the script runs dockerd with sudo unless root"),
]

ROOT = Path(__file__).resolve().parents[2]

# Each stand-in logs what it was asked into $FAKE.
FAKES = {
    # up while its pid file names a live process
    "docker": """echo "$*" >>"$FAKE/docker.log"
case "$1 $2" in
  "info "*) pid="$(cat "$FAKE/daemon.pid" 2>/dev/null)" && kill -0 "$pid" 2>/dev/null ;;
  "compose "*) exit 1 ;;
  "ps "*) echo "container-of-$PPID" ;;
  "volume ls") echo "volume-of-$PPID" ;;
  "images "*) echo "relaybot/relaybot:tag-of-$PPID" ;;
esac
""",
    "dockerd": """echo "$$" >>"$FAKE/starts"
[ -z "${FAKE_DOCKERD_FAILS:-}" ] || { echo "cannot start: no cgroups"; exit 1; }
trap 'rm -f "$FAKE/daemon.pid"; exit 0' TERM
sleep 0.3  # a daemon takes a moment to answer
echo "$$" >"$FAKE/daemon.pid"
while :; do sleep 0.1; done
""",
    # pytest: says what it was given, takes a while, and says whether the daemon still
    # answers at its end (one run's wait is the longer when $FAKE/slow is its project)
    "python": f"""if [ "$1 $2" = "-m pytest" ]; then
  echo "$$ $RELAYBOT_STACK_PROJECT $RELAYBOT_STACK_PORTS $RELAYBOT_STACK_DNS" >>"$FAKE/pytest"
  sleep "$FAKE_PYTEST_SECONDS"
  [ "$(cat "$FAKE/slow" 2>/dev/null)" != "$RELAYBOT_STACK_PROJECT" ] || sleep 2
  docker info && echo "$RELAYBOT_STACK_PROJECT" >>"$FAKE/daemon-up-at-end"
  exit 0
fi
exec {sys.executable} "$@"
""",
    "docker-compose": "exit 0\n",
    "debootstrap": "exit 0\n",
    "openssl": "exit 0\n",
}


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A copy of the script and what it imports, the stand-ins first on PATH, and the
    environment to run it in; a stand-in daemon a failing run left behind is stopped."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "stack_test.sh", tree / "scripts")
    (tree / "tests" / "stack").mkdir(parents=True)
    for name in ("tests/__init__.py", "tests/stack/__init__.py", "tests/stack/ports.py"):
        shutil.copy(ROOT / name, tree / name)
    fake = tmp_path / "fake"
    (fake / "bin").mkdir(parents=True)
    for name, body in FAKES.items():
        path = fake / "bin" / name
        path.write_text("#!/bin/bash\n" + body)
        path.chmod(0o755)
    env = {"PATH": f"{fake / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin", "FAKE": str(fake),
           "PYTHON": str(fake / "bin" / "python"), "FAKE_PYTEST_SECONDS": "2",
           "RELAYBOT_STACK_STATE": str(tmp_path / "state"), "HOME": str(tmp_path)}
    yield tree, env
    for pid in _daemons_left(fake):
        os.kill(pid, signal.SIGKILL)


def _start(tree: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    # its own process group, as scripts/test.sh starts it (setsid)
    return subprocess.Popen(["bash", str(tree / "scripts" / "stack_test.sh")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def _daemons_left(fake: Path) -> list[int]:
    """The stand-in daemons started here that still run."""
    starts = (fake / "starts").read_text().split() if (fake / "starts").exists() else []
    left = []
    for pid in map(int, starts):
        with contextlib.suppress(OSError):
            if str(fake) in Path(f"/proc/{pid}/cmdline").read_text():
                left.append(pid)
    return left


def _daemon_gone(fake: Path) -> bool:
    return not _daemons_left(fake)


def test_two_runs_at_once_have_their_own_project_and_ports_and_share_one_daemon(
        bench: tuple[Path, dict[str, str]]) -> None:
    tree, env = bench
    fake = Path(env["FAKE"])
    runs = [_start(tree, env), _start(tree, env)]
    # the second ends later: the first run out must leave it the daemon
    (fake / "slow").write_text(f"relaybot-stacktest-{runs[1].pid}")
    outputs = [run.communicate(timeout=60)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    given = [line.split() for line in (fake / "pytest").read_text().splitlines()]
    assert len(given) == 2 and all(len(g) == 4 for g in given)
    (_, project_a, ports_a, dns_a), (_, project_b, ports_b, dns_b) = given
    assert project_a != project_b
    assert {project_a, project_b} == {f"relaybot-stacktest-{run.pid}" for run in runs}
    assert not set(ports.parse_ports(ports_a).values()) & set(ports.parse_ports(ports_b).values())
    assert dns_a != dns_b
    assert len((fake / "starts").read_text().split()) == 1  # one daemon, shared
    assert sorted((fake / "daemon-up-at-end").read_text().split()) == sorted(
        [project_a, project_b])
    assert _daemon_gone(fake)  # stopped by the last run out
    log = (fake / "docker.log").read_text()
    for project in (project_a, project_b):  # each removed its own project, by its label
        assert f"ps -aq --filter label=com.docker.compose.project={project}" in log
        assert f"images --format {{{{.Repository}}}}:{{{{.Tag}}}} relaybot/*:{project}" in log
    assert not list((Path(env["RELAYBOT_STACK_STATE"]) / "runs").iterdir())


def test_a_run_stopped_midway_removes_its_project_and_stops_its_daemon(
        bench: tuple[Path, dict[str, str]]) -> None:
    tree, env = bench
    fake = Path(env["FAKE"])
    run = _start(tree, {**env, "FAKE_PYTEST_SECONDS": "60",
                        "RELAYBOT_STACK_PROJECT": "stack-by-hand"})
    deadline = time.monotonic() + 30
    while not (fake / "pytest").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(run.pid, signal.SIGTERM)  # as scripts/test.sh stops it
    output = run.communicate(timeout=60)[0]
    assert run.returncode == 143, output
    assert "stack-by-hand" in (fake / "pytest").read_text()
    log = (fake / "docker.log").read_text()
    assert "ps -aq --filter label=com.docker.compose.project=stack-by-hand" in log
    assert "rm -f container-of-" in log and "volume rm volume-of-" in log
    assert "rmi --no-prune relaybot/relaybot:tag-of-" in log  # the tags: layers stay cached
    assert _daemon_gone(fake)


def test_no_daemon_is_said_in_one_line_and_exit_3(bench: tuple[Path, dict[str, str]]) -> None:
    tree, env = bench
    run = _start(tree, {**env, "FAKE_DOCKERD_FAILS": "1"})
    output = run.communicate(timeout=60)[0]
    assert run.returncode == 3, output
    assert output.strip().endswith("(cannot start: no cgroups): the compose stack was NOT tested")
    assert not (Path(env["FAKE"]) / "pytest").exists()
    assert not list((Path(env["RELAYBOT_STACK_STATE"]) / "runs").iterdir())


def test_a_project_name_compose_would_change_is_refused(
        bench: tuple[Path, dict[str, str]]) -> None:
    tree, env = bench
    run = _start(tree, {**env, "RELAYBOT_STACK_PROJECT": "Stack Test"})
    output = run.communicate(timeout=60)[0]
    assert run.returncode == 2 and "RELAYBOT_STACK_PROJECT must be" in output
