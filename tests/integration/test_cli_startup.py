"""What a command that reads one game loads (issue 29 item 4): ``relaybot game show ID``
opens the store and loads that game's own package, and nothing else heavy: not Alembic
(the database is up to date), not the web, not the pictures, not the other games. And the
start-up benchmark (bench/cli.py) runs and prints its figures."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import make_club

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

# runs ``relaybot ARGV`` in this process as the console script does, then prints its
# exit status, its output and the top-level packages it loaded
_SNIPPET = """
import contextlib, io, json, sys
from relaybot.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(sys.argv[1:])
print(json.dumps({"status": status, "out": out.getvalue(),
                  "modules": sorted({name.split(".")[0] for name in sys.modules})}))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}


def _loaded(cwd: Path, *argv: str) -> tuple[str, set[str]]:
    proc = subprocess.run([sys.executable, "-c", _SNIPPET, *argv], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == 0, proc.stderr
    return result["out"], set(result["modules"])


def _relaybot(cwd: Path, *argv: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "relaybot.cli", *argv], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_game_show_loads_the_store_and_the_games_own_package_only(tmp_path: Path) -> None:
    game_id = make_club(tmp_path)
    out, modules = _loaded(tmp_path, "game", "show", game_id)
    assert f"game {game_id}  chess  active" in out
    assert "White: Hayakawa Satoru <hayakawa@example.jp>" in out
    assert {"sqlalchemy", "chess"} <= modules  # what showing a chess game needs
    unneeded = {"alembic", "starlette", "jinja2", "PIL", "cairosvg", "shogi", "sgfmill",
                "rich"}
    assert not modules & unneeded, sorted(modules & unneeded)


def test_a_go_game_is_shown_without_the_chess_and_shogi_libraries(tmp_path: Path) -> None:
    make_club(tmp_path)
    go_id = _relaybot(tmp_path, "game", "new", "--game", "go", "--size", "9",
                      "--players", "hayakawa@example.jp,horie@example.org").split()[0]
    out, modules = _loaded(tmp_path, "game", "show", go_id)
    assert f"game {go_id}  go  active" in out
    assert not modules & {"chess", "shogi", "alembic", "PIL", "cairosvg", "starlette"}


def test_bench_cli_smoke_prints_each_command_beside_python() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.cli", "--smoke"], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = {}  # command -> (median s, ratio to python, best s, cpu s)
    for line in proc.stdout.splitlines():
        found = re.match(r"(python -c pass|relaybot [^\d]+?)\s+(\d+\.\d{3})\s+(\d+\.\d)"
                         r"\s+(\d+\.\d{3})\s+(\d+\.\d{3})\b", line)
        if found:
            rows[found.group(1)] = tuple(float(found.group(i)) for i in range(2, 6))
    assert set(rows) == {"python -c pass", "relaybot --help", "relaybot --version",
                         "relaybot game show ID", "relaybot member list"}, proc.stdout
    assert rows["python -c pass"][1] == 1.0  # the baseline's own ratio
    assert all(0 < best <= median and cpu > 0 for median, _ratio, best, cpu in rows.values())
    assert "< 0.3" in proc.stdout and "< 0.5" in proc.stdout  # the targets are shown
    # timed as installed (bytecode compiled), checked to import that copy
    assert "relaybot as installed: a copy of the package" in proc.stdout
