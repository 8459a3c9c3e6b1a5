"""T11: many moves over many games plus junk; bounded memory, each game's mail in UID
order, nothing sent to unknown senders (RELIABILITY.md).

Default size: 20 games x 10 moves + 1,000 junk mails. ``RELAYBOT_T11_SCALE=10`` gives
the full 2,000 moves over 200 games plus 10,000 junk mails (several minutes).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import timedelta

import pytest
from sqlalchemy import select

from relaybot.app.service import start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.store.models import Game, Inbound, Member, Move, Outbox
from tests.integration.relay_harness import TD, Club
from tests.reliability.harness import assert_lint, emit, folder_ids
from tests.reliability.test_crash import record

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

SCALE = int(os.environ.get("RELAYBOT_T11_SCALE", "1"))
GAMES, PLIES, JUNK = 20 * SCALE, 10, 1000 * SCALE
LINE = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]
RUN = ("import resource, sys\nfrom relaybot.cli import main\nsys.argv = ['relaybot', *sys.argv[1:]]"
       "\ntry:\n    rc = main()\nfinally:\n    print('MAXRSS_KB', resource.getrusage("
       "resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\nsys.exit(rc)")


def run_measured(club: Club, now: str) -> tuple[int, str]:
    (club.workdir / "relaybot.toml").touch()
    proc = subprocess.run([sys.executable, "-c", RUN, "run", "--once", "--now", now],
                          cwd=club.workdir, env=club.env(), capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = re.search(r"MAXRSS_KB (\d+)", proc.stderr)
    assert found is not None
    return int(found.group(1)), proc.stdout


def junk(i: int) -> bytes:
    kinds = [
        f"From: spam{i}@spam.example\r\nTo: relay@club.example\r\nSubject: WIN {i}\r\n"
        f"Message-ID: <junk{i}@spam.example>\r\n\r\nBuy now! 1. e4 e5\r\n",
        f"From: news@list.example\r\nList-Id: <l.example>\r\nTo: relay@club.example\r\n"
        f"Subject: digest {i}\r\nMessage-ID: <junk{i}@list.example>\r\n\r\nnews\r\n",
        f"From: <>\r\nTo: relay@club.example\r\nSubject: bounce {i}\r\n"
        f"Message-ID: <junk{i}@mx.example>\r\n\r\nundeliverable\r\n",
        f"From: x{i}@evil.example\r\nTo: relay+g{i}@club.example\r\nSubject: [zz{i}]\r\n"
        f"Reply-To: victim@evil.example\r\nMessage-ID: <junk{i}@evil.example>\r\n\r\n1. d4\r\n",
    ]
    return kinds[i % len(kinds)].encode()


def test_t11_many_games_and_junk_bounded_memory_uid_order(club: Club) -> None:
    with club.store.session() as s:
        games = []
        for g in range(GAMES):
            pair = []
            for side in ("w", "b"):
                m = add_member(s, club.cfg, MemberInput(f"P{g}{side}, X",
                                                        f"p{g}{side}@example.jp"), club.clock)
                pair.append(m.email)
            game = create_game(s, club.cfg, GameInput(pair[0], pair[1]), club.clock)
            start_mails(s, club.cfg, game, club.clock)
            games.append((game.id, pair))
    base_rss, _ = run_measured(club, club.clock.isoformat())  # sends the start mails
    when = club.clock
    n_junk = 0
    with club.account.client(None) as imap:
        for ply in range(PLIES):
            for gid, pair in games:
                when += timedelta(seconds=1)
                raw = (f"From: {pair[ply % 2]}\r\n"
                       f"To: {club.token_address(pair[ply % 2], gid)}\r\n"
                       f"Subject: Re: [{gid}]\r\nMessage-ID: <{gid}.{ply}@example.jp>\r\n\r\n"
                       f"{record(LINE[: ply + 1])}\r\n").encode()
                imap.append("INBOX", raw, msg_time=when)
            for _ in range(JUNK // PLIES):
                imap.append("INBOX", junk(n_junk), msg_time=when)
                n_junk += 1
    now = (when + timedelta(minutes=5)).isoformat()
    peak_rss, _ = run_measured(club, now)
    runs = 2
    while True:
        with club.store.session() as s:
            pending = len(s.scalars(select(Outbox.id).where(Outbox.status == "pending")).all())
        if not pending:
            break
        rss, _ = run_measured(club, now)
        peak_rss, runs = max(peak_rss, rss), runs + 1
        assert runs < 60
    assert folder_ids(club, "INBOX") == []
    with club.store.session() as s:
        members = set(s.scalars(select(Member.email)))
        assert all(len(g.plies.split()) == PLIES for g in s.scalars(select(Game)))
        rows = s.execute(select(Move.game_id, Move.ply, Inbound.uid).join(
            Inbound, Move.inbound_id == Inbound.id).order_by(Move.game_id, Move.ply)).all()
        strangers = s.scalars(select(Inbound.id).where(Inbound.outcome != "move")).all()
    by_game: dict[str, list[int]] = {}
    for gid, _ply, uid in rows:
        by_game.setdefault(gid, []).append(uid)
    assert all(uids == sorted(uids) for uids in by_game.values())  # each game in UID order
    assert len(rows) == GAMES * PLIES
    assert len(strangers) == n_junk
    rcpts = {r for c in club.sink.captured for r in c.rcpt_tos}
    assert rcpts <= members | {TD}, rcpts - members  # nothing to unknown senders
    grown_mb = (peak_rss - base_rss) / 1024
    assert grown_mb < 80, f"memory grew {grown_mb:.0f} MB over the idle run"
    out = len(club.sink.captured)
    assert out == len({c.parsed["Message-ID"] for c in club.sink.captured})
    assert_lint(club)
    emit("T11", in_=GAMES * PLIES + n_junk, applied=len(rows), out=out, duplicates=0, lost=0,
         games=GAMES, junk=n_junk, scale=SCALE, base_rss_mb=base_rss // 1024,
         peak_rss_mb=peak_rss // 1024, runs=runs)
