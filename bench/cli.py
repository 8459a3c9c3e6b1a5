"""Start-up of the command line (issue 29 item 4): how long ``relaybot`` takes to answer
the commands people type and scripts run, beside ``python -c pass`` on the same machine:

    python -m bench.cli              # 9 runs of each command
    python -m bench.cli --smoke      # 3 runs each, a few seconds (CI)
    python -m bench.cli --runs 21    # steadier medians on a busy machine

It makes a small club in a temporary folder with the command line itself (``relaybot
init``, two ``member add``, one ``game new``), then times, each as a new process
(``python -m relaybot.cli``, what the console script runs):

- ``relaybot --help`` (target under 0.3 s) and ``relaybot --version``: no database;
- ``relaybot game show ID`` (target under 0.5 s): the store and that game's package;
- ``relaybot member list``: the store and the ratings.

relaybot runs as installed: from a copy of the package with its bytecode compiled, as
``pip install`` (and the Docker image) leaves it. A development checkout installed with
``pip install -e`` under ``PYTHONDONTWRITEBYTECODE`` (as on the CI machines) compiles its
modules from source on every start, about 50 ms that no operator pays.

The commands take turns (one run of each per round), so a busy spell of a shared machine
falls on all of them alike. Beside each median: the ratio to ``python -c pass``, the best
run, the median CPU time (steadier than the wall time on a busy machine), and which of
the heavy libraries (SQLAlchemy, Alembic, Starlette, Pillow, cairosvg, Jinja2, rich, the
games' libraries) the command loaded, read from one more run under ``python -X
importtime``. A missed target is printed, not failed: timings on shared machines are
noisy. The exit status is 1 when a command itself failed.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HEAVY = ("sqlalchemy", "alembic", "starlette", "PIL", "cairosvg", "jinja2", "rich",
         "chess", "shogi", "sgfmill")
"""Top-level packages a command should load only when it needs them."""

TARGETS = {"--help": 0.3, "game show": 0.5}
"""Seconds a command should answer in (issue 29), by a piece of its words."""


@dataclass
class Timing:
    """One command's figures."""

    name: str
    median: float
    best: float
    cpu: float
    heavy: tuple[str, ...]
    target: float | None = None

    @property
    def ok(self) -> bool:
        return self.target is None or self.median < self.target


_SITE: Path | None = None
"""Where :func:`install_copy` put the package the commands run from."""


def install_copy(folder: Path) -> Path:
    """relaybot as ``pip install`` leaves it: the package copied into ``folder`` and its
    bytecode compiled (pip compiles what it installs). The commands import it from there
    (``PYTHONPATH``), ahead of an editable install's finder."""
    import relaybot

    global _SITE
    source = Path(relaybot.__file__).parent
    shutil.copytree(source, folder / "relaybot",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if not compileall.compile_dir(folder / "relaybot", quiet=1):
        raise RuntimeError("compileall failed on the copy of relaybot")
    _SITE = folder
    return folder


def _env() -> dict[str, str]:
    """This environment without any RELAYBOT_ setting, so the club's own relaybot.toml
    is the one read; the installed copy first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
    if _SITE is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(_SITE), *filter(None, [env.get("PYTHONPATH", "")])])
    return env


def imported_from(cwd: Path) -> Path:
    """Where the commands' ``import relaybot`` finds the package."""
    proc = subprocess.run([sys.executable, "-c", "import relaybot; print(relaybot.__file__)"],
                          cwd=cwd, env=_env(), capture_output=True, text=True, timeout=60,
                          check=True)
    return Path(proc.stdout.strip()).parent


def relaybot(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``relaybot ARGS`` in ``cwd`` as a new process; an exception when it fails."""
    proc = subprocess.run([sys.executable, "-m", "relaybot.cli", *args], cwd=cwd,
                          env=_env(), capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"relaybot {' '.join(args)} failed ({proc.returncode}): "
                           f"{proc.stderr.strip()}")
    return proc


def make_club(folder: Path) -> str:
    """A club of two members and one chess game in ``folder``, made with the command line
    (as an operator would); the game's id."""
    relaybot(folder, "init")
    relaybot(folder, "member", "add", "--name", "Hayakawa, Satoru",
             "--email", "hayakawa@example.jp", "--lang", "ja", "--rating", "1850")
    relaybot(folder, "member", "add", "--name", "Horie, Takahiro",
             "--email", "horie@example.org", "--rating", "1600")
    new = relaybot(folder, "game", "new", "--white", "hayakawa@example.jp",
                   "--black", "horie@example.org", "--start", "2026-11-01")
    return new.stdout.split()[0]


def loaded_heavy(cwd: Path, argv: Sequence[str]) -> tuple[str, ...]:
    """Which of :data:`HEAVY` one run of ``argv`` imports (``-X importtime`` lists every
    module imported, on stderr)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=300)
    names = {line.rsplit("|", 1)[-1].strip().split(".")[0]
             for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return tuple(name for name in HEAVY if name in names)


def _children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def seconds(cwd: Path, argv: Sequence[str]) -> tuple[float, float]:
    """The wall time and the CPU time of one run of ``python ARGV`` (output discarded);
    an exception when it fails. The CPU time counts only the command's own work, so it
    moves less than the wall time when other processes share the machine."""
    cpu = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *argv], cwd=cwd, env=_env(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=300)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"python {' '.join(argv)} failed ({proc.returncode}): "
                           f"{proc.stderr.strip()}")
    return elapsed, _children_cpu() - cpu


def measure(folder: Path, game_id: str, runs: int) -> list[Timing]:
    """Every command's median and best, the bare interpreter's first. The commands take
    turns, one run each per round, so that a busy spell of the machine falls on all of
    them alike and the ratios stay fair."""
    commands = [("python -c pass", ["-c", "pass"])] + [
        (f"relaybot {' '.join(words)}", ["-m", "relaybot.cli", *words])
        for words in (["--help"], ["--version"], ["game", "show", game_id],
                      ["member", "list"])]
    runs_of: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for (_name, argv), mine in zip(commands, runs_of, strict=True):
            mine.append(seconds(folder, argv))
    timings = []
    for (name, argv), mine in zip(commands, runs_of, strict=True):
        target = next((t for piece, t in TARGETS.items() if piece in name), None)
        walls = [wall for wall, _cpu in mine]
        timings.append(Timing(name.replace(game_id, "ID"), statistics.median(walls),
                              min(walls), statistics.median(cpu for _wall, cpu in mine),
                              loaded_heavy(folder, argv), target))
    return timings


def report(timings: list[Timing], runs: int) -> str:
    """The table: the median and best seconds, the median's ratio to ``python -c pass``,
    the median CPU seconds, the target (met by the median), the heavy libraries loaded."""
    base = timings[0].median
    lines = [f"relaybot start-up, {runs} runs each (Python "
             f"{sys.version.split()[0]}, {os.cpu_count()} cores, load "
             f"{os.getloadavg()[0]:.1f})",
             f"{'command':<24} {'median s':>8} {'x python':>9} {'best s':>7} {'cpu s':>6}  "
             f"{'target':<10} heavy loaded"]
    for t in timings:
        target = "" if t.target is None else f"< {t.target:.1f} " + ("ok" if t.ok else "MISS")
        ratio = t.median / base if base else 0.0
        lines.append(f"{t.name:<24} {t.median:>8.3f} {ratio:>9.1f} {t.best:>7.3f} "
                     f"{t.cpu:>6.3f}  {target:<10} {', '.join(t.heavy) or '-'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its table; 1 when a command failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per command (default 9)")
    parser.add_argument("--smoke", action="store_true", help="3 runs per command")
    args = parser.parse_args(argv)
    runs = 3 if args.smoke else max(1, args.runs)
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        folder = Path(tmp) / "club"
        folder.mkdir()
        try:
            site = install_copy(Path(tmp) / "site")
            if imported_from(folder) != site / "relaybot":
                raise RuntimeError(f"the commands do not import the copy in {site}")
            game_id = make_club(folder)
            timings = measure(folder, game_id, runs)
        except RuntimeError as exc:
            print(f"bench.cli: {exc}", file=sys.stderr)
            return 1
    print(report(timings, runs))
    print("relaybot as installed: a copy of the package, its bytecode compiled")
    missed = [t.name for t in timings if not t.ok]
    if missed:
        print("targets missed (printed, not failed): " + ", ".join(missed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
