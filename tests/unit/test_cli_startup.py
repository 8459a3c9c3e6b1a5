"""The command line starts light (issue 29 item 4): ``relaybot --help``, ``--version`` and a
mistyped command answer without loading the database, the web, the pictures or any game,
so a quick script or a look at the help does not wait for them. bench/cli.py times it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("sqlalchemy", "alembic", "starlette", "PIL", "cairosvg", "jinja2", "chess",
         "shogi", "sgfmill", "rich", "babel")

# runs ``relaybot ARGV`` in this process as the console script does, then prints which
# top-level packages it loaded (argparse exits after help, version and a usage error)
_SNIPPET = """
import contextlib, io, json, sys
from relaybot.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps({"out": out.getvalue(),
                  "modules": sorted({name.split(".")[0] for name in sys.modules})}))
"""


def _run(*argv: str) -> tuple[str, set[str]]:
    proc = subprocess.run([sys.executable, "-c", _SNIPPET, *argv], capture_output=True,
                          text=True, timeout=120, check=True)
    result = json.loads(proc.stdout)
    return result["out"], set(result["modules"])


@pytest.mark.parametrize("argv", [("--help",), ("--version",), ("game", "--help"),
                                  ("game", "show", "--help"), ("gmae", "show", "x")])
def test_help_version_and_a_typo_load_no_heavy_library(argv: tuple[str, ...]) -> None:
    out, modules = _run(*argv)
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    if argv == ("--help",):  # the help is all there: every command, one a line
        listed = {line.split()[0] for line in out.splitlines() if line.startswith("    ")
                  and not line.startswith("     ")}
        assert listed == {"init", "check", "member", "game", "run", "host", "digest",
                          "event", "season", "club", "announce", "td", "demo", "web"}
    if argv == ("--version",):
        assert out.startswith("relaybot ") and out.strip() != "relaybot"


def test_help_texts_read_from_code_still_list_them() -> None:
    """The lists some help texts take from the code are filled in when that help is
    printed (and only then loaded): the games a rating is for, every TD command in both
    languages."""
    out, _modules = _run("member", "add", "--help")
    assert "chess|shogi|go" in " ".join(out.split())
    td_help, _modules = _run("td", "--help")
    assert "  forfeit <game> <side>\n    没収 <対局ID>" in td_help


def test_a_command_builds_its_own_group_only_and_a_typo_sees_them_all() -> None:
    """``relaybot game show`` registers the groups up to the one holding ``game``; the
    help, and a word no group holds, register every command (so the error lists them)."""
    from relaybot.cli import build_parser

    def commands(parser: object) -> set[str]:
        sub = next(a for a in parser._actions  # type: ignore[attr-defined]
                   if a.dest == "command")
        return set(sub.choices)

    every = commands(build_parser())
    assert every == commands(build_parser("gmae"))
    game = commands(build_parser("game"))
    assert "game" in game and "web" not in game and game < every
    assert commands(build_parser("web")) == every  # the last group: all of them
    # the command still parses as it did
    args = build_parser("game").parse_args(["game", "show", "x7"])
    assert (args.command, args.func.__name__) == ("game", "cmd_game_show")



def test_a_one_shot_command_collects_less_often_and_leaves_the_collector_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``main`` raises the collector's threshold while a one-shot command runs (its
    libraries load with fewer collections) and gives the interpreter its thresholds
    back when the command ends: ``main`` also runs inside other programs."""
    import gc

    import relaybot.cli.init as init_group
    from relaybot.cli import ONE_SHOT_GC_THRESHOLD, main

    seen: list[int] = []

    def command(cfg: object, args: object) -> int:
        seen.append(gc.get_threshold()[0])
        return 0

    monkeypatch.setattr(init_group, "cmd_init", command)
    before = gc.get_threshold()
    assert main(["init"]) == 0
    assert seen == [ONE_SHOT_GC_THRESHOLD] and ONE_SHOT_GC_THRESHOLD > before[0]
    assert gc.get_threshold() == before


@pytest.mark.parametrize(("argv", "near"), [(["gmae", "show", "x"], "game"),
                                            (["game", "shwo", "x"], "show"),
                                            (["member", "lsit"], "list")])
def test_a_mistyped_command_is_answered_with_the_nearest(
        argv: list[str], near: str, capsys: pytest.CaptureFixture[str]) -> None:
    from relaybot.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"; did you mean '{near}'? (see: relaybot" in err
    assert len(err.splitlines()) == 1  # one line: no usage block before it


def test_a_word_near_no_command_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    from relaybot.cli import main

    with pytest.raises(SystemExit):
        main(["zzz"])
    err = capsys.readouterr().err
    assert "invalid choice: 'zzz'" in err and "did you mean" not in err


def test_python_dash_m_relaybot_is_the_command() -> None:
    """`python -m relaybot` runs the same command as the console script (operating.md),
    for a source tree or a venv whose scripts are not on PATH."""
    proc = subprocess.run([sys.executable, "-m", "relaybot", "--version"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("relaybot "), proc.stderr
    typo = subprocess.run([sys.executable, "-m", "relaybot", "gmae"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert typo.returncode == 2 and typo.stderr.startswith("relaybot: ")
