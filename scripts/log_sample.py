"""Print (or write into docs/operating.md) what ``relaybot run --once`` logs, from a real run.

A throwaway club on the test servers (tests/servers/: a real Dovecot on loopback and the
aiosmtpd sink): two members, one game; the players' mails arrive in Dovecot, and the real
``relaybot`` command runs one cycle, whose log lines (stderr) are the sample.

    python scripts/log_sample.py            # print the text lines and one JSON line
    python scripts/log_sample.py --write    # put them into docs/operating.md between the markers

Needs Dovecot (``.ci/install-system.sh``). tests/integration/test_logs.py runs
:func:`collect` too, so the sample and the test see the same run.
"""

from __future__ import annotations

import sys
import tempfile
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPERATING = ROOT / "docs" / "operating.md"  # the operator's reference, "Logs"
BEGIN = "<!-- log-sample: scripts/log_sample.py --write -->"
END = "<!-- /log-sample -->"


def collect(form: str = "text") -> list[str]:
    """The log lines of two ``relaybot run --once`` cycles of a short game (``form``:
    ``text`` or ``json``): a move relayed, then an illegal move answered."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.integration.relay_harness import Club
    from tests.servers import Dovecot, SmtpSink

    lines: list[str] = []
    with Dovecot() as server, SmtpSink() as sink, tempfile.TemporaryDirectory() as tmp:
        club = Club(server.new_account(), sink, f"sqlite:///{tmp}/club.db", Path(tmp))
        try:
            white = club.member("Hayakawa, Satoru", "hayakawa@example.jp", lang="ja")
            black = club.member("Horie, Takahiro", "horie@example.org")
            club.game(white, black, event="Club 2026")
            env = {"RELAYBOT_LOG_FORMAT": form}

            def cycle() -> None:
                proc = club.cli("run", "--once", "--now", club.clock.isoformat(),
                                extra_env=env)
                lines.extend(proc.stderr.splitlines())

            white.send("1. e4")
            cycle()
            black.send("1. e4 e5")
            club.clock += timedelta(hours=1)
            cycle()
            white.send("1. e4 e5 2. Ke3")  # illegal: answered with the reason
            cycle()
        finally:
            club.store.dispose()
    return lines


def _block(text_lines: list[str], json_lines: list[str]) -> str:
    body = "\n".join("    " + line for line in text_lines)
    sample = "\n".join("    " + line for line in json_lines[:1])
    return (f"{BEGIN}\n{body}\n\nWith `[log] format = \"json\"` (`RELAYBOT_LOG_FORMAT=json`), "
            f"the same lines as JSON objects:\n\n{sample}\n{END}")


def main(argv: list[str]) -> int:
    """Print the sample, or with ``--write`` replace the one in docs/operating.md."""
    text_lines = collect("text")
    json_lines = [line for line in collect("json") if '"event": "inbound"' in line]
    block = _block(text_lines, json_lines)
    if "--write" not in argv:
        print(block)
        return 0
    readme = OPERATING.read_text(encoding="utf-8")
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        print(f"docs/operating.md has no {BEGIN} ... {END} block", file=sys.stderr)
        return 1
    OPERATING.write_text(readme[:start] + block + readme[end + len(END):], encoding="utf-8")
    print("wrote the log sample into docs/operating.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
