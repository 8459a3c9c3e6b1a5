"""A whole game by mail through Dovecot and the SMTP sink (J1, J15, J19)."""

from __future__ import annotations

import io

import chess.pgn
import pytest

from tests.integration.relay_harness import TD, Club, body_of

pytestmark = pytest.mark.integration

# Seed 000, "2nd Email Championship, final": Hayakawa - Horie, 1-0 (Black resigned)
SEED_GAME = (
    "1. e4 c5 2. Nc3 d6 3. f4 Nf6 4. e5 dxe5 5. fxe5 Nd5 6. Bb5+ Nc6 7. Nf3 Bg4 8. d3 e6 "
    "9. Bxc6+ bxc6 10. Ne4 Be7 11. 0-0 0-0 12. Qe1 Nb4 13. Qe2 Bxf3 14. Rxf3 Qd4+ 15. Nf2 Qd5 "
    "16. a3 Na6 17. Rh3 f6 18. d4 Nc7 19. Qh5 Qxd4 20. Qxh7+ Kf7 21. Rg3 Nd5 22. Qg6+"
)


def _sans() -> list[str]:
    return [t for t in SEED_GAME.split() if not t.endswith(".")]


def _record(sans: list[str]) -> str:
    out = []
    for i, san in enumerate(sans):
        out.append(f"{i // 2 + 1}. {san}" if i % 2 == 0 else san)
    return " ".join(out)


def play_seed_game(club: Club) -> str:
    white = club.member("Hayakawa, Satoru", "hayakawa@example.jp", lang="ja")
    black = club.member("Horie, Takahiro", "horie@example.org")
    game_id = club.game(white, black, event="2nd Email Championship, final")
    sans = _sans()
    for ply in range(len(sans)):
        mover = white if ply % 2 == 0 else black
        other = black if ply % 2 == 0 else white
        before = len(other.inbox())
        mover.send(f"Thank you.\n\n{_record(sans[: ply + 1])}\n\nBest regards")
        report = club.cycle()
        assert report.poll.processed == 1, report
        assert len(other.inbox()) == before + 1, f"ply {ply} not relayed"
    black.send(f"{_record(sans)}\n\nresign\n\nCongratulations on a fine attack.")
    club.cycle()
    return game_id


def test_seed_game_played_by_mail_end_to_end(club: Club) -> None:
    game_id = play_seed_game(club)
    pgn_text = club.cli("game", "pgn", game_id).stdout
    game = chess.pgn.read_game(io.StringIO(pgn_text))
    assert game is not None
    board = game.board()
    played = []
    for move in game.mainline_moves():
        played.append(board.san(move))
        board.push(move)
    assert [s.rstrip("+#") for s in played] == [
        s.rstrip("+#").replace("0-0", "O-O") for s in _sans()]
    assert game.headers["Result"] == "1-0"
    assert game.headers["White"] == "Hayakawa, Satoru"
    assert game.headers["Event"] == "2nd Email Championship, final"
    # J15: the result report goes to the TD, and a final mail to both players
    td_mail = club.mails_to(TD)
    assert len(td_mail) == 1 and "1-0" in body_of(td_mail[0])
    for address in ("hayakawa@example.jp", "horie@example.org"):
        assert "1-0" in body_of(club.mails_to(address)[-1])
    # the forward relays the sender's own words, not the quoted copy
    horie_last = body_of(club.mails_to("horie@example.org")[-2])
    assert "22. Qg6+" in horie_last
    # J19: every mail in is kept raw with the game; every mail out too
    show = club.cli("game", "show", game_id).stdout
    assert "finished" in show and "1-0" in show
    mbox_path = club.workdir / "game.mbox"
    club.cli("game", "export", game_id, "--out", str(mbox_path))
    import mailbox

    kept = list(mailbox.mbox(str(mbox_path)))
    mails_in = len(_sans()) + 1  # one mail per ply and the resignation
    mails_out = len([c for c in club.sink.captured
                     if c.parsed["X-Relaybot-Game"] == game_id])
    assert len(kept) == mails_in + mails_out


def test_store_on_postgresql_plays_the_seed_game(pg_club: Club) -> None:
    game_id = play_seed_game(pg_club)
    pgn_text = pg_club.cli("game", "pgn", game_id).stdout
    assert '[Result "1-0"]' in pgn_text and "22. Qg6+" in pgn_text
