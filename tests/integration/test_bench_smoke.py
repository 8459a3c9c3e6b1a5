"""The benchmarks of issue 29 run and print their figures (their smoke sizes).

Speed is never asserted here (timings on a shared machine are noise): only that each
bench runs against the real servers on SQLite and PostgreSQL, does its work without a
problem (exit status 0) and prints the figures bench/README.md describes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _bench(module: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    proc = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PROBLEM" not in proc.stderr, proc.stderr
    return proc.stdout


def test_relay_bench_prints_the_bot_against_the_fair_baseline_on_both_stores() -> None:
    out = _bench("bench.relay", "--smoke")
    for backend in ("sqlite", "postgresql"):
        assert f"relaybot run_once, {backend}" in out
        assert f"null relay, {backend}" in out
        assert f"ratio relaybot/null, {backend}" in out
        # one part of the bot's work measured alone, beside what the target leaves it
        found = re.search(rf"composing alone, {backend}\s+(\d+\.\d+) ms/move .*"
                          r"the target leaves the bot (\d+\.\d+) ms/move", out)
        assert found and float(found.group(1)) > 0, out
    # the baseline replays the bot's own mails: their sizes are printed with it
    assert "the bot's forward (" in out and "receipt (" in out
    assert "ms/move" in out


@pytest.mark.slow
def test_latency_bench_prints_its_percentiles_on_both_stores() -> None:
    out = _bench("bench.latency", "--smoke")
    for backend in ("sqlite", "postgresql"):
        # without Dovecot's push (IDLE alone) and with it ([imap] wake_listen)
        for run in (backend, f"{backend}+push"):
            rows = [row for row in out.splitlines() if row.split()[:1] == [run]]
            # the whole latency, then its split at the poll that found each mail
            for label in ("APPEND -> sink", "seen after", "the bot's own"):
                line = next(row for row in rows if label in row)
                assert "5 mails" in line
                for figure in ("p50", "p90", "p99", "max"):
                    assert figure in line
            # every mail was found by a poll the bot logged, and the reason is named
            found = next(row for row in rows if "found by:" in row)
            assert sum(int(n) for n in re.findall(r" (\d+)(?:,|$)", found)) == 5, found
            # with the push, the bot was woken by it (the first mail lands while it idles)
            assert ("Dovecot's push" in found) == run.endswith("+push"), found


def test_season_bench_prints_how_standings_grow_with_the_players() -> None:
    out = _bench("bench.season", "--smoke")
    sizes = [row for row in out.splitlines() if "players" in row and "classes" in row]
    assert len(sizes) == 2, out
    for row in sizes:
        for figure in ("standings", "outcomes", "season show --json", "per player"):
            assert figure in row
    # S of 8 and classes of 10: 18 players play 28 + 40 games, 28 play 28 + 2 x 40
    assert "18 players" in sizes[0] and " 68 games" in sizes[0]
    assert "28 players" in sizes[1] and "108 games" in sizes[1]
    assert "players x1.6, games x1.6" in out
