"""The wheel stands on its own: built from this checkout and installed into a fresh venv,
``relaybot init`` and ``relaybot demo`` work from an empty folder (issue 11).

Templates and migrations are package data; a wheel that left them out, or code that looked
for them next to the checkout, fails here and nowhere else, because every other test runs
against the source tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

# Build byproducts and local state that must not leak into the copy the wheel is built from.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "*.db",
    "relaybot.toml",
)


def _run(args: list[str | Path], cwd: Path, env: dict[str, str],
         timeout: int) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"{args} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with relaybot installed from a wheel of this checkout."""
    tmp = tmp_path_factory.mktemp("packaging")
    # pip builds in the source tree (build/, *.egg-info): build from a copy so the checkout,
    # which other runs may be using, is left as it was.
    src = tmp / "src"
    shutil.copytree(ROOT, src, symlinks=True, ignore=_NOT_SOURCE)
    # The host's pip settings (index, cache, certificates) stay; PYTHONPATH would put the
    # checkout ahead of what gets installed, so it goes.
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    dist = tmp / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, src],
         cwd=tmp, env=env, timeout=300)
    wheels = list(dist.glob("relaybot-*.whl"))
    assert len(wheels) == 1, wheels
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp, env=env, timeout=120)
    # the demo extra: `relaybot demo`'s own mail servers, which a plain install leaves out
    # (scripts/check_setup.sh shows the plain install's one-line answer)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", f"{wheels[0]}[demo]"], cwd=tmp,
         env=env, timeout=600)
    return venv


def _clean_env(venv: Path, home: Path) -> dict[str, str]:
    # Nothing from this session's environment: no PYTHONPATH, no RELAYBOT_* settings.
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}


def test_runtime_needs_neither_demo_servers_nor_postgresql_driver(venv: Path) -> None:
    # the wheel's own requirements: what run, web and the CLI need, and nothing of the demo's
    # servers or PostgreSQL's driver, which come as extras
    script = "from importlib.metadata import requires; print('\\n'.join(requires('relaybot')))"
    proc = _run([venv / "bin" / "python", "-c", script],
                cwd=venv, env=_clean_env(venv, venv), timeout=60)
    plain = [r for r in proc.stdout.splitlines() if "extra ==" not in r]
    names = {r.split(">")[0].split("[")[0].split("<")[0].split("=")[0].strip().lower()
             for r in plain}
    assert "imapclient" in names and "sqlalchemy" in names, names
    assert not names & {"aiosmtpd", "pymap", "psycopg"}, names
    extras = "\n".join(r for r in proc.stdout.splitlines() if "extra ==" in r)
    assert 'aiosmtpd>=1.4; extra == "demo"' in extras, extras
    assert 'psycopg[binary]>=3.1; extra == "postgresql"' in extras, extras


def test_installed_relaybot_is_the_wheels(venv: Path, tmp_path: Path) -> None:
    proc = _run([venv / "bin" / "python", "-c", "import relaybot; print(relaybot.__file__)"],
                cwd=tmp_path, env=_clean_env(venv, tmp_path), timeout=60)
    installed = Path(proc.stdout.strip()).resolve()
    assert installed.is_relative_to(venv.resolve()), installed


def test_init_from_an_empty_folder(venv: Path, tmp_path: Path) -> None:
    work = tmp_path / "club"
    work.mkdir()
    proc = _run([venv / "bin" / "relaybot", "init"], cwd=work,
                env=_clean_env(venv, tmp_path), timeout=120)
    assert "wrote" in proc.stdout and "database ready" in proc.stdout, proc.stdout
    assert (work / "relaybot.toml").is_file()
    assert (work / "relaybot.db").stat().st_size > 0


def test_demo_from_an_empty_folder(venv: Path, tmp_path: Path) -> None:
    work = tmp_path / "club"
    work.mkdir()
    proc = _run([venv / "bin" / "relaybot", "demo"], cwd=work,
                env=_clean_env(venv, tmp_path), timeout=300)
    out = proc.stdout
    assert out.startswith("relaybot demo: game ")
    # the bot's mails, rendered from the packaged templates, in both players' languages
    assert "relaybot -> hayakawa@example.jp" in out and "relaybot -> horie@example.org" in out
    assert "対局開始" in out and "Please correct your move" in out
    assert "ended 1-0 (checkmate)" in out and "4. Qxf7#" in out
    assert list(work.iterdir()) == []  # the demo keeps its database in a temp folder


def test_the_players_guide_is_in_the_wheel(venv: Path, tmp_path: Path) -> None:
    """Issue 23: ``relaybot web`` serves /help from the package's own markdown."""
    proc = _run([venv / "bin" / "python", "-c",
                 "from relaybot.web.guide import guide_html; "
                 "print(guide_html('ja').count('<h2>'), guide_html('en').count('<h2>'))"],
                cwd=tmp_path, env=_clean_env(venv, tmp_path), timeout=60)
    ja, en = (int(n) for n in proc.stdout.split())
    assert ja == en >= 8, proc.stdout
