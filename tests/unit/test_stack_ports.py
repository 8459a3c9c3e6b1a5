"""tests/stack/ports.py: each stack test run has loopback ports and a DNS stub address of
its own, reserved so that two runs on one machine never pick the same."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
from pathlib import Path

import pytest

from tests.stack import ports


def test_ports_read_back_as_written_and_a_bad_one_is_refused() -> None:
    chosen = {"smtp": 25025, "imap": 25143}
    assert ports.parse_ports(ports.format_ports(chosen)) == chosen
    assert ports.parse_ports(" smtp=1, ,wake=65535 ") == {"smtp": 1, "wake": 65535}
    assert ports.parse_ports("") == {}
    for bad in ("smtp", "smtp=x", "smtp=0", "smtp=65536", "pop3=110"):
        with pytest.raises(ValueError, match="NAME=PORT"):
            ports.parse_ports(bad)


def test_chosen_ports_are_free_and_not_taken_and_the_fixed_ones_are_kept() -> None:
    draws = random.Random(7)
    first, second = draws.choice(ports.PORT_RANGE), draws.choice(ports.PORT_RANGE)
    with socket.socket() as busy:
        try:
            busy.bind(("127.0.0.1", first))
            busy.listen()
        except OSError:
            pass  # in use already: busy all the same
        # the same draws: the first port listens, the second is another run's
        chosen = ports.choose_ports({}, {second}, random.Random(7))
        fixed = ports.choose_ports({"smtp": first}, (), random.Random(7))
    assert list(chosen) == list(ports.PORT_NAMES)
    assert len(set(chosen.values())) == len(chosen)
    assert first not in chosen.values() and second not in chosen.values()
    assert all(p in ports.PORT_RANGE for p in chosen.values())
    assert fixed["smtp"] == first  # set by hand: kept as it is


def test_a_run_reserves_away_from_live_runs_and_a_dead_runs_file_goes(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    (runs / f"{dead.pid}.json").write_text(json.dumps({"ports": "smtp=25025", "dns": "x"}))
    other = ports.reserve(tmp_path, os.getpid(), {}, "", random.Random(1))
    with subprocess.Popen(["sleep", "60"]) as alive:
        try:
            mine = ports.reserve(tmp_path, alive.pid, {}, "", random.Random(1))  # same draws
            assert not set(mine.ports.values()) & set(other.ports.values())
            assert mine.dns != other.dns
            assert mine.dns.startswith("127.0.") and mine.dns.endswith(".53")
            assert not (runs / f"{dead.pid}.json").exists()
            assert ports.live_runs(tmp_path) == {os.getpid(): other, alive.pid: mine}
        finally:
            alive.kill()
    assert ports.live_runs(tmp_path) == {os.getpid(): other}


def test_the_command_prints_the_ports_and_the_address(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    monkeypatch.setenv("RELAYBOT_STACK_PORTS", "smtp=25025")
    monkeypatch.setenv("RELAYBOT_STACK_DNS", "127.0.99.53")
    assert ports.main(["reserve", "--state", str(tmp_path), "--owner", "4242"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[1] == "127.0.99.53"
    chosen = ports.parse_ports(lines[0])
    assert chosen["smtp"] == 25025 and list(chosen) == list(ports.PORT_NAMES)
    assert json.loads((tmp_path / "runs" / "4242.json").read_text()) == \
        {"ports": lines[0], "dns": "127.0.99.53"}
