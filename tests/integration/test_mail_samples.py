"""Issue 15: every kind of mail the bot can send (``relaybot.mail.kinds``), produced by a
small club through the real pipeline and read as its reader gets it, in both languages,
with a sample of each in docs/mails/. No English word of the bot's in a Japanese mail
(results, terminations, "plies", TD command outcomes, kind names), names as each
language writes them, and the game-over mail carries the record file."""

from __future__ import annotations

import email
import re
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select

from relaybot.mail.kinds import ERROR_PREFIX, ERRORS, KINDS
from relaybot.store.models import Game, Member, Outbox
from tests.prose import SGF, english_words
from tests.sample_club import LEAGUE, MEMBERS, build, every_kind

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mails"
ERROR_SAMPLES = 3  # error replies are one family: a few of its reasons are sampled

GAME_IDS: set[str] = set()  # every game of the clubs: an id is data
GAME_KINDS: dict[str, str] = {}  # game id -> chess, shogi, go
RAW: list[tuple[str, str, bytes]] = []  # (kind, game id, the bytes as sent) of every mail


@pytest.fixture(scope="module")
def mails(tmp_path_factory: pytest.TempPathFactory,
          ) -> Iterator[list[tuple[str, str, EmailMessage]]]:
    """(kind, reader's language, mail) of two club runs: the bot in Japanese, then in
    English with every member reading the other language."""
    out = []
    for language, swap in (("ja", False), ("en", True)):
        club = build(Path(tmp_path_factory.mktemp(language)), language=language, swap=swap)
        every_kind(club)
        with club.store.session() as session:
            GAME_IDS.update(session.scalars(select(Game.id)))
            GAME_KINDS.update((gid, kind) for gid, kind
                              in session.execute(select(Game.id, Game.kind)))
            langs = {m.id: m.lang for m in session.scalars(select(Member))}
            for kind, member_id, game_id, raw in session.execute(
                    select(Outbox.kind, Outbox.member_id, Outbox.game_id, Outbox.raw)
                    .order_by(Outbox.id)):
                RAW.append((kind, game_id or "", raw))
                msg = email.message_from_bytes(raw, policy=policy.default)
                assert isinstance(msg, EmailMessage)
                out.append((kind, langs[member_id] if member_id else language, msg))
        club.store.dispose()
    yield out


def _text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def test_every_kind_comes_in_both_languages(mails: list[tuple[str, str, EmailMessage]]) -> None:
    kinds = {(k, lang) for k, lang, _ in mails}
    for kind in {k for k, _ in kinds}:
        assert {(kind, "ja"), (kind, "en")} <= kinds, kind


def test_every_kind_the_bot_can_send_is_sampled(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The list of kinds is the code's own (``Mail`` refuses any other): a kind added
    there without a way to it in tests/sample_club.py fails here; error replies need a
    few of their reasons, bad_move among them."""
    sent = {k for k, _, _ in mails}
    missing = sorted(set(KINDS) - sent)
    assert not missing, f"no sample of {missing}: add them to tests/sample_club.py"
    errors = {k for k in sent if k.startswith(ERROR_PREFIX)}
    assert {ERROR_PREFIX + reason for reason in ERRORS} >= errors
    assert "error_bad_move" in errors and len(errors) >= ERROR_SAMPLES, errors


def test_docs_mails_has_a_sample_of_every_kind() -> None:
    """docs/mails/ is regenerated after a kind is added (scripts/sample_mails.py)."""
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for kind in KINDS:
        for lang in ("ja", "en"):
            assert (DOCS / f"{kind}.{lang}.txt").is_file(), (kind, lang)
        assert f"| {kind} |" in index, kind
    errors = [p for p in DOCS.glob(f"{ERROR_PREFIX}*.ja.txt")]
    assert len(errors) >= ERROR_SAMPLES


def test_no_english_word_of_the_bots_in_a_japanese_mail(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    for kind, lang, msg in mails:
        if lang != "ja":
            continue
        words = english_words(str(msg["Subject"]) + "\n" + _text(msg), GAME_IDS)
        assert not words, f"{kind}: {words}"


def test_names_as_each_language_writes_them(mails: list[tuple[str, str, EmailMessage]]) -> None:
    """And the greeting opens the body (a subject line never swallows it)."""
    for kind, lang, msg in mails:
        text = _text(msg)
        if msg["To"].addresses[0].addr_spec == "td@club.example":
            continue
        first = text.splitlines()[0]
        assert text.splitlines()[1] == "", (kind, text[:80])  # a blank line after it
        if lang == "ja":
            assert first.endswith("様") and " 様" not in first, (kind, first)
        else:
            assert first.startswith("Dear ") and "," not in first[5:-1], (kind, first)
        for member in (*MEMBERS, *LEAGUE):
            assert f"Dear {member.name}" not in text


def _html_text(msg: EmailMessage) -> str:
    html = msg.get_body(preferencelist=("html",))
    if html is None:
        return ""
    text = re.sub(r"<[^>]+>|data:[^\"']+", " ", str(html.get_content()))
    # the record quoted there (PGN tags) is a format's, as in the text part
    return _prose("\n".join(line.strip() for line in text.splitlines()))


def test_no_comma_in_a_japanese_name(mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 26 item 2: a Japanese name is never "山田, 太郎" (the To: name, the subject,
    the text with its KIF lines, the HTML part; a PGN tag keeps "Family, Given"); a member
    with a name in Japanese script is 鈴木一郎 to a Japanese reader, Ichiro Suzuki to an
    English one, never in Western order in Japanese."""
    from relaybot.core.names import is_japanese_script, split_name

    japanese = [split_name(m.name) for m in (*MEMBERS, *LEAGUE)
                if is_japanese_script(m.name) or m.name_ja]
    assert ("Suzuki", "Ichiro") in japanese
    read = {"ja": False, "en": False}
    for kind, lang, msg in mails:
        to = msg["To"].addresses[0].display_name
        assert "," not in to, (kind, to)
        text = "\n".join((str(msg["Subject"]), _prose(_text(msg)), _html_text(msg)))
        for family, given in japanese:
            assert not re.search(rf"{family}\s*,\s*{given}", text), (kind, family, text)
        if lang == "ja":
            assert "Ichiro Suzuki" not in text and "Suzuki Ichiro" not in text, (kind, text)
            read["ja"] |= "鈴木一郎" in text
        else:
            read["en"] |= "Ichiro Suzuki" in text
        if msg["To"].addresses[0].addr_spec == "suzuki@example.jp":
            assert to == ("鈴木一郎" if lang == "ja" else "Ichiro Suzuki"), (kind, to)
    assert read == {"ja": True, "en": True}


def test_the_game_over_mail_carries_the_record_file(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    ends = [msg for kind, _, msg in mails if kind == "game_end"]
    assert ends
    for msg in ends:
        files = [p for p in msg.iter_attachments() if p.get_filename()
                 and p.get_content_maintype() != "image"]
        assert len(files) == 1
        if not str(files[0].get_filename()).endswith(".pgn"):
            continue  # a shogi or go game's own record (KIF, SGF)
        pgn = files[0].get_content()
        assert b'[TimeControl "10/2592000"]' in pgn and b"[Termination" in pgn
        html = msg.get_body(preferencelist=("html",))
        assert html is not None and "https://chess.club.example/games/" in html.get_content()


# Issue 26: every game in its own words. A chess result in a shogi mail (the score ``1-0``
# for 先手の勝ち, the draw ドロー for 引き分け) and, once go's plug-in says its results in
# words, a go result in chess's or SGF's form in a Japanese go mail
CHESS_RESULT = re.compile(r"(?<![\d./-])(?:1-0|0-1|1/2-1/2|½-½|0-0)(?![\d./-])")
GAME_WORDS = {
    "shogi": {"ja": (CHESS_RESULT, re.compile("ドロー|ステイルメイト|チェックメイト")),
              "en": (CHESS_RESULT, re.compile(r"\bdraws? agreed\b|stalemate"))},
    "go": {"ja": (CHESS_RESULT, re.compile(r"(?<![A-Za-z\[])[BW]\+(?:[\d.]+|R)|ドロー")),
           "en": (CHESS_RESULT,)},
}


# the go mails that state the result in the bot's words (a stated result, ``result B+4.5``,
# is the player's own and is quoted as written)
GO_RESULT_KINDS = ("game_end", "result_corrected", "td_result")


def _game_of(msg: EmailMessage) -> str:
    found = re.search(r"\[([a-z0-9]+)\]", str(msg["Subject"]))
    return GAME_KINDS.get(found.group(1), "") if found else ""


def _prose(text: str) -> str:
    """A mail's text without the record files it quotes (PGN tags, SGF): a record's own
    result marker is the format's, not the bot's words."""
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith(("[", "(;", "#")) and not SGF.match(line))


def test_every_game_in_its_own_words(mails: list[tuple[str, str, EmailMessage]]) -> None:
    """A shogi mail says 先手の勝ち（投了）, 引き分け and あなたの通算成績, never chess's
    1-0 or ドロー; go's words are checked once go's plug-in gives them (``result_words``)."""

    checked = {"shogi", "go"}  # go words its stored results (result_text_words)
    seen: set[tuple[str, str]] = set()
    for kind, lang, msg in mails:
        game = _game_of(msg)
        if game not in checked or (game == "go" and kind not in GO_RESULT_KINDS):
            continue
        seen.add((game, kind))
        text = str(msg["Subject"]) + "\n" + _prose(_text(msg))
        for pattern in GAME_WORDS[game][lang]:
            found = pattern.search(text)
            assert found is None, f"{game} {kind} ({lang}): {found.group(0)!r} in\n{text}"
    assert ("shogi", "game_end") in seen
    # every shogi game's end (the sample club also ends a season's games on time)
    ends: dict[str, str] = {}
    for kind, lang, msg in mails:
        if kind == "game_end" and _game_of(msg) == "shogi":
            ends[lang] = ends.get(lang, "") + "\n" + _text(msg)
    assert "対局が終了しました: 先手の勝ち（投了）" in ends["ja"]
    assert re.search(r"あなたの通算成績は \d+勝 \d+敗 \d+引き分け。", ends["ja"])
    assert "The game has ended: Sente wins (resignation)" in ends["en"]
    assert re.search(r"Your score: \d+ wins?, \d+ draws?, \d+ loss(?:es)?\.", ends["en"])


def test_the_loser_reads_their_own_score_not_the_winners(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """J15's score line in a player's mail is the reader's own (あなた / Your), in the
    game's words and English plurals (never "1 wins")."""
    for kind, _, msg in mails:
        if kind not in ("game_end", "result_corrected"):
            continue
        text = _text(msg)
        assert "通算成績" not in text or "あなたの通算成績" in text, text
        assert "'s score:" not in text and not re.search(r"\b1 (?:wins|draws|losses)\b", text)


def _raw_headers(raw: bytes) -> list[tuple[str, bytes]]:
    """The header fields of a mail as sent: (lower-case name, the raw value, folding
    kept), read from the bytes themselves rather than a parser's decoded value."""
    head = raw.split(b"\r\n\r\n", 1)[0]
    fields: list[tuple[str, bytes]] = []
    for line in head.split(b"\r\n"):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] = (fields[-1][0], fields[-1][1] + b"\r\n" + line)
        else:
            name, _, value = line.partition(b":")
            fields.append((name.decode("ascii").lower(), value))
    return fields


URI_LIST = re.compile(rb"^\s*<[!-;=?-~]+>(?:\s*,\s*<[!-;=?-~]+>)*\s*$")  # RFC 2369
# headers a client acts on: none of them may hide its value in an RFC 2047 encoded-word
ACTED_ON = ("list-unsubscribe", "list-unsubscribe-post", "list-id", "list-help",
            "list-post", "message-id", "in-reply-to", "references", "auto-submitted",
            "mime-version", "content-type", "content-transfer-encoding", "date")


def test_list_unsubscribe_is_rfc_2369_and_8058_in_the_bytes_sent(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The digest's List-Unsubscribe as the mail client gets it: a list of <URI>s in
    plain ASCII (a mailto and the https one-click link), folded only between them, never
    an encoded-word; List-Unsubscribe-Post exactly "List-Unsubscribe=One-Click"."""
    digests = [raw for kind, _, raw in RAW if kind == "digest"]
    assert digests
    for raw in digests:
        fields = dict(_raw_headers(raw))
        value = fields["list-unsubscribe"]
        assert b"=?" not in value, value
        unfolded = value.replace(b"\r\n", b"")
        assert URI_LIST.match(unfolded), value
        assert b"<mailto:" in unfolded and b"<https://" in unfolded, value
        assert fields["list-unsubscribe-post"].strip() == b"List-Unsubscribe=One-Click"
    for kind, _, raw in RAW:
        assert raw.isascii() and all(len(line) <= 998 for line in raw.split(b"\r\n")), kind
        for name, value in _raw_headers(raw):
            if name in ACTED_ON or name.startswith("list-"):
                assert b"=?" not in value, (kind, name, value)


def test_a_japanese_subject_keeps_its_spaces(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The words of a subject stay apart when it is encoded (a space between two
    encoded-words is not part of the text: "山田太郎 先手の勝ち" must not arrive as
    "山田太郎先手の勝ち")."""
    for kind, _, msg in mails:
        if kind == "game_end" and _game_of(msg) == "shogi":
            subject = str(msg["Subject"])
            assert re.search(r"\S \S+の勝ち$|\S \S+ wins$", subject), subject


def test_no_internal_rule_id_in_any_mail(mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 26 item 4: a reader gets the rule in words (or the seed's own number, 順位戦
    ルール16), never our ids (J5, R4, T1, "seed 002 rule 10", （規則J5）); the record files
    and the game's own record lines are left out (a go point such as J4 is a move)."""
    from tests.unit.test_no_internal_ids import internal_ids

    for kind, _, msg in mails:
        text = str(msg["Subject"]) + "\n" + _prose(_text(msg))
        if _game_of(msg) == "go":  # a go point (J4, R3, T5, D2) is a move, not an id
            text = "\n".join(line for line in text.splitlines()
                             if not re.search(r"\b[A-HJ-T]\d{1,2}\b", line))
        html = msg.get_body(preferencelist=("html",))
        assert internal_ids(text) == [], (kind, internal_ids(text), text)
        if html is not None and _game_of(msg) != "go":
            page = re.sub(r"<[^>]+>|data:[^\"']+", " ", str(html.get_content()))
            assert internal_ids(page) == [], (kind, internal_ids(page))


def test_english_counts_in_their_plural(mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 26 item 6: never "day(s)", "1 plies", "1 days", "1 wins" (CLDR via Babel)."""
    wrong = re.compile(r"\w\(s\)|(?<![\d.])1 (?:plies|days|mails|games|wins|draws|losses)\b"
                       r"|(?<![\d.])(?:[02-9]|\d\d+) (?:ply|day|mail|game|win|draw|loss)\b(?!-)")
    for kind, lang, msg in mails:
        if lang == "en":
            text = _prose(_text(msg))
            assert not wrong.search(text), (kind, wrong.search(text))


def test_the_html_part_shows_the_position_string_once(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 26 item 7: the FEN / SFEN line is in the HTML part once, not twice."""
    seen = 0
    for kind, _, msg in mails:
        html = msg.get_body(preferencelist=("html",))
        found = re.search(r"^S?FEN: (\S.*)$", _text(msg), re.MULTILINE)
        if html is None or found is None:
            continue
        seen += 1
        assert str(html.get_content()).count(found.group(1).strip()) == 1, kind
    assert seen


def test_zones_are_named_in_words(mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 26 item 5: 日本時間 / "Japan Time", not ``Asia/Tokyo``, in a mail's prose."""
    zone = re.compile(r"\b(?:Asia|Europe|America|Africa|Australia|Pacific|Etc)/[A-Za-z_]+")
    for kind, _, msg in mails:
        text = _prose(_text(msg))
        assert not zone.search(text), (kind, zone.search(text))


def test_the_digest_needs_no_fixed_width_font(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 26 item 7: the standings in the digest are lines (○佐藤花子 △山田太郎), not
    columns that line up only in a fixed-width font (Gmail shows a proportional one)."""
    digests = [_text(msg) for kind, _, msg in mails if kind == "digest"]
    assert digests
    for text in digests:
        assert not re.search(r"^-+ -+", text, re.MULTILINE), text
        assert not re.search(r"\S {3,}\S", text), text


def test_no_mail_lines_up_columns_with_spaces(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 26 item 7: no text part is a table padded with spaces (the TD's ledgers are
    lines: "Move 3: relayed ..., 2 days used"); the board picture and the record files
    are the only layout, and the HTML part shows the board as a picture."""
    board = re.compile(r"^\s*(?:\d{1,2}\s+)?(?:\S\s){3,}|^\s*(?:[a-t]\s+){4,}|^\s*[１-９]")
    for kind, _, msg in mails:
        for line in _prose(_text(msg)).splitlines():
            if board.search(line) or kind == "help":  # the help's game block: a board
                continue
            assert not re.search(r"\S {3,}\S|^-+ -+", line), (kind, line)


def test_the_help_needs_no_fixed_width_font(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 26 item 7: the keywords in the help are a list ("- resign: ...", 「投了」: ...),
    not two columns lined up with spaces."""
    helps = [_text(msg) for kind, _, msg in mails if kind == "help"]
    assert helps
    for text in helps:
        prose = text.split("\n\n対局 ")[0].split("\n\nGame ")[0]  # the game block follows
        assert not re.search(r"\S {3,}\S", prose), prose


def test_the_receipt_shows_the_board_not_the_record_again(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Issue 29: the sender's receipt is lean: the board and the clocks, not a second
    copy of the record the sender has just written; the forward keeps the record."""
    record = re.compile(r"^(?:Record|棋譜):\r?$", re.MULTILINE)
    acks = [(lang, _text(msg), msg) for kind, lang, msg in mails if kind == "ack"]
    forwards = [_text(msg) for kind, _, msg in mails if kind == "move"]
    assert acks and forwards
    for lang, text, msg in acks:
        assert not record.search(text), text
        assert re.search(r"^(?:Game|対局) ", text, re.MULTILINE), text  # the game line
        # the board: as text and as the HTML part's picture
        assert any(part.get_content_type() == "image/png" for part in msg.walk()), text
        assert ("Days used" if lang == "en" else "消費") in text, text
    assert any(record.search(text) for text in forwards)  # the forward keeps it


def test_only_the_player_to_move_is_asked_for_a_move(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The forward asks its reader, who is to move, for the game and a new move; the
    receipt of a move (the opponent is to move now) says their move will come by mail
    instead of asking for one; the receipt of a draw offer made without a move (its
    sender still to move) asks. In both languages (a go move is a 着手 in Japanese)."""
    ask = {"en": "Reply to this mail with", "ja": "このメールに返信し、"}
    waits = {"en": re.compile(r"Your opponent is to move: their move will reach you by mail\."),
             "ja": re.compile(r"相手の手番です。相手の(?:指し手|着手)はメールでお知らせします。")}
    moved = re.compile(r"^(?:Your move |あなたの(?:指し手|着手) )", re.MULTILINE)
    receipts = [(lang, _text(msg)) for kind, lang, msg in mails if kind == "ack"]
    forwards = [(lang, _text(msg)) for kind, lang, msg in mails if kind == "move"]
    offers = [(lang, text) for lang, text in receipts if not moved.search(text)]
    receipts = [(lang, text) for lang, text in receipts if moved.search(text)]
    # go's second pass: no move follows, the board asks both for the result (no wait line)
    stating = re.compile(r"Each now states the result|それぞれ結果を1行で申告")
    for lang, text in receipts + forwards:
        if stating.search(text):
            assert not waits[lang].search(text) and ask[lang] not in text, text
    receipts = [(lang, text) for lang, text in receipts if not stating.search(text)]
    forwards = [(lang, text) for lang, text in forwards if not stating.search(text)]
    assert {lang for lang, _ in receipts} == {lang for lang, _ in forwards} == {"en", "ja"}
    assert offers
    for lang, text in receipts:
        assert waits[lang].search(text) and ask[lang] not in text, text
    for lang, text in offers + forwards:
        assert ask[lang] in text and not waits[lang].search(text), text


def test_a_draw_offer_tells_a_waiting_reader_when_it_lapses(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """A draw offered without a move reaches a reader who is not to move: they cannot
    decline it by playing, so the mail says it lapses with the offerer's next move."""
    offers = {lang: _text(msg) for kind, lang, msg in mails if kind == "draw_offer"}
    assert set(offers) == {"en", "ja"}
    assert "the offer lapses with Tom Brown's next move." in offers["en"]
    assert "if you play a move instead" not in offers["en"]
    assert "次の指し手で消えます。" in offers["ja"] and "指し手を送ると" not in offers["ja"]


def test_a_bad_move_reply_counts_the_days_it_adds(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The reply to an illegal move says 5 days are added to the sender's time; its own
    figures count them (Black had used 0 days: 5 now, 25 left, 18 after the 7 days on the
    move), not the figures from before the penalty."""
    errors = {lang: _text(msg) for kind, lang, msg in mails if kind == "error_bad_move"}
    assert set(errors) == {"en", "ja"}
    assert "5 days are added to your time" in errors["en"]
    assert "Black 5 (left until move 10: 25)" in errors["en"]
    assert "On the current move so far: 7 days; left after it: 18." in errors["en"]
    assert "消費日数に5日が加算されます" in errors["ja"]
    assert "黒 5日（第10手まで残り 25日）" in errors["ja"]
    assert "現在の手番の消費: 7日、その後の残り: 18日。" in errors["ja"]


def test_a_first_move_silence_is_not_called_a_silence_after_a_relayed_move(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The samples' first silent players owe their first move: no opponent's move was ever
    sent to them. The reminder says the count runs from the game's start, with the days
    as they are (the sweep ran late: not 10); the TD reads that too, 10 days after the
    reminder went out (J11, seed 000 rule 12), with the day it really went out."""
    reminders = {lang: _text(msg) for kind, lang, msg in reversed(mails) if kind == "reminder"}
    silences = {lang: _text(msg) for kind, lang, msg in reversed(mails)
                if kind == "td_silence" and ("first move" in _text(msg) or "初手" in _text(msg))}
    # the first of each, as sampled: 25 days since the start on 2026-11-02, 5 of them on
    # leave for the English reader (Ann Smith: 2026-11-18 to 22)
    assert set(reminders) == set(silences) == {"en", "ja"}
    assert "no first move from you for 20 days since the game started" in reminders["en"]
    assert "対局開始から25日間、あなたの初手が届いていません。" in reminders["ja"]
    assert "opponent's move" not in reminders["en"]
    assert "相手の指し手をお送りしてから" not in reminders["ja"]
    en, ja = silences["en"], silences["ja"]
    assert "has not made the first move in the 35 days since the game started on 2026-11-02" \
        in en and "after the move was relayed" not in en
    assert "2026-11-02 の対局開始から35日間" in ja and "初手が届いていません" in ja
    assert "a reminder went out on 2026-11-27." in en and "day 10" not in en
    assert "2026-11-27 に督促を送りました。" in ja and "10日目" not in ja


def test_a_stated_go_result_asks_for_no_move(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """After both passes no move is legal: the mail of a stated result asks its reader for
    no move and promises no move by mail (the board asks for the result); the TD, who
    decides between two stated results, is not asked to state one."""
    declared = [(lang, _text(msg)) for kind, lang, msg in mails if kind == "declared"]
    assert {lang for lang, _ in declared} == {"en", "ja"}
    for lang, text in declared:
        assert ("states the result" if lang == "en" else "申告") in text, text
        for wrong in ("to move.", "Reply to this mail with", "their move will reach you",
                      "番（", "このメールに返信し、", "相手の指し手はメールで"):
            assert wrong not in text, (wrong, text)
    disputes = [_text(msg) for kind, _, msg in mails if kind == "td_declared"]
    assert disputes
    for text in disputes:
        for wrong in ("to state the result", "Each now states", "結果を申告する番",
                      "申告してください"):
            assert wrong not in text, (wrong, text)


def test_notices_say_the_same_of_reminders_in_both_languages(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Reminders go to the silent player only, and a long-thinking notice stops none
    (the bot still reminds after 10 days): the opponent's notices say so alike in both
    languages, not "you will get no reminders" nor "no reminder is needed"."""
    leave = {lang: _text(msg) for kind, lang, msg in mails if kind == "leave_notice"}
    think = {lang: _text(msg) for kind, lang, msg in mails if kind == "long_think"}
    assert set(leave) == set(think) == {"en", "ja"}
    assert "the bot sends them no reminders meanwhile" in leave["en"]
    assert "you will get no reminders" not in leave["en"]
    assert "相手への督促も送りません" in leave["ja"]
    assert "reminder" not in think["en"] and "督促" not in think["ja"]
    assert "The days are counted as usual." in think["en"] and "通常どおり数えます" in think["ja"]


def test_the_last_moves_dates_name_their_zone_when_not_the_readers(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The last move's three dates are its mover's calendar days: Tom Brown (Eastern
    Time) reads 山田太郎's 1. e4 sent on 3 November in Japan, the evening of the 2nd in New
    York. The mail says "Dates are in Eastern Time" for the rest, so the line names
    the mover's zone; a reader's own move keeps the plain line."""
    first = {(kind, lang): _text(msg) for kind, lang, msg in reversed(mails)}
    move_en, move_ja = first[("move", "en")], first[("move", "ja")]
    assert "Dates are in Eastern Time." in move_en
    assert "Last move (1.; its dates in Japan Time): relayed 2026-11-02" in move_en
    assert "日付は日本時間の暦日です。" in move_ja
    assert "最終手（1...、日付は米国東部時間）: 中継日 2026-11-02" in move_ja
    assert "Last move (1...): relayed" in first[("ack", "en")]  # Tom's own move
    assert "最終手（1.）: 中継日" in first[("ack", "ja")]


def test_the_digest_counts_the_days_on_ones_move_in_what_is_left(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """On the reader's move the digest's "left" counts the days already on it, as the
    game's mail does ("left after it"): 0 used + 19 on it so far + 11 left = 30, not 30
    left beside 19 days gone."""
    first = {(kind, lang): _text(msg) for kind, lang, msg in reversed(mails)}
    assert ("YOUR MOVE (19 days on it so far); you have used 0 days, 11 days left until move 10."
            in first[("digest", "en")])
    assert "あなたの手番（この手で11日経過）。消費 0日、残り 19日（第10手まで）。" \
        in first[("digest", "ja")]


def test_a_start_mail_says_the_first_step_once(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The start mail's own first lines say who moves first and what to send: the game
    block under them does not say it again (to the first mover or to the other)."""
    starts = [(lang, _text(msg)) for kind, lang, msg in mails if kind == "start"]
    assert {lang for lang, _ in starts} == {"en", "ja"}
    for lang, text in starts:
        told = ["first move", "Reply to this mail with", "their move will reach you"] \
            if lang == "en" else ["初手", "このメールに返信", "相手の指し手はメールで"]
        assert text.count(told[0]) == 1, text
        assert sum(text.count(t) for t in told[1:]) <= 1, text


def test_a_result_the_td_decided_is_not_reported_to_the_td(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """A game the players ended is reported to the TD (the end mail says so); a result
    the TD decided (here a go game adjudicated) says the TD decided it instead."""
    ends = [(lang, _text(msg)) for kind, lang, msg in mails if kind == "game_end"]
    decided = {"en": "The tournament director decided this result.",
               "ja": "この結果はTDの裁定です。"}
    reported = {"en": "The result has been reported to the tournament director.",
                "ja": "結果はTDに報告しました。"}
    by_td = [(lang, text) for lang, text in ends
             if "adjudicated by the tournament director" in text or "（TDの裁定）" in text]
    played = [(lang, text) for lang, text in ends if (lang, text) not in by_td]
    assert {lang for lang, _ in by_td} == {lang for lang, _ in played} == {"en", "ja"}
    for lang, text in by_td:
        assert decided[lang] in text and reported[lang] not in text, text
    for lang, text in played:
        assert reported[lang] in text and decided[lang] not in text, text


DIGEST_GAME = re.compile(r"^  ([a-z0-9]+) \(you play [^)]*\), (.+?): (?:YOUR MOVE|opponent)"
                         r"|^  ([a-z0-9]+)（あなたは[^）]*さん）(.+?): (?:あなたの|相手の)手番")
PROGRESS = {  # how far a game has gone, as its players count moves
    ("chess", "en"): re.compile(r"no move yet|after (?:White|Black)'s \d+(?:st|nd|rd|th) move"),
    ("chess", "ja"): re.compile(r"初手はまだ|[白黒]の第\d+手まで"),  # a chess 手 is a move of each
    ("shogi", "en"): re.compile(r"no move yet|1 move played|\d+ moves played"),
    ("shogi", "ja"): re.compile(r"初手はまだ|\d+手まで"),  # a shogi or go 手 is one ply
}


def test_the_digest_counts_moves_as_each_games_players_do(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The digest says how far each game has gone as its players count: chess by the
    last move's number and whose it was (1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 is "after Black's
    3rd move", 黒の第3手まで, never 6手まで), shogi and go a move a ply; no English mail
    says "plies" to its reader."""
    seen: set[tuple[str, str]] = set()
    texts: dict[str, str] = {"en": "", "ja": ""}
    for kind, lang, msg in mails:
        text = _prose(_text(msg))
        if lang == "en":
            assert not re.search(r"\b(?:ply|plies|half-moves?)\b", text), (kind, text)
        if kind != "digest":
            continue
        texts[lang] += text
        for line in text.splitlines():
            found = DIGEST_GAME.match(line)
            if found is None:
                continue
            game, said = found.group(1) or found.group(3), found.group(2) or found.group(4)
            game_kind = GAME_KINDS[game]
            pattern = PROGRESS[("chess" if game_kind == "chess" else "shogi", lang)]
            assert pattern.fullmatch(said), (game_kind, lang, line)
            seen.add((game_kind, lang))
    assert {("chess", "en"), ("chess", "ja"), ("shogi", "en"), ("shogi", "ja")} <= seen
    assert "), after Black's 3rd move: YOUR MOVE" in texts["en"]
    assert "さん）黒の第3手まで: あなたの手番" in texts["ja"]


def test_a_mail_for_several_games_greets_its_reader_once(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The reply to a mail with a section per game greets at its top, not again at the
    start of every game's section; each section still says what happened in its game."""
    greeting = {"en": re.compile(r"^Dear .+,$", re.M), "ja": re.compile(r"^\S+様$", re.M)}
    said = {"en": "was accepted and sent to your opponent", "ja": "を受け付け、相手に送りました"}
    replies = [(lang, _text(msg).replace("\r\n", "\n"))
               for kind, lang, msg in mails if kind == "sections"]
    assert {lang for lang, _ in replies} == {"en", "ja"}
    for lang, text in replies:
        head, *sections = text.split("\n==== ")
        assert len(sections) >= 2, text
        assert len(greeting[lang].findall(head)) == 1, text
        for section in sections:
            assert not greeting[lang].search(section), section
            assert said[lang] in section.split("\n")[1], section


def test_the_end_date_names_its_zone_when_not_the_readers(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The end date is the club's calendar day (Japan Time): a reader in another zone,
    whose mail says its dates are in their own zone, reads the end date with its zone.
    Tom Brown (Eastern Time) reads the go game the TD decided on 25 December in Japan,
    still the 24th in New York; a reader in Japan reads the plain date."""
    said = {"en": ("End date: {}.", "End date: {} (Japan Time)."),
            "ja": ("終局日: {}\n", "終局日: {}（日本時間）\n")}
    own = {"en": "Japan Time", "ja": "日本時間"}
    eastern = {"en": "Eastern Time", "ja": "米国東部時間"}
    zone = {"en": re.compile(r"Dates are in ([^.]+)\."),
            "ja": re.compile(r"日付は(\S+?)の暦日です")}
    end = {"en": re.compile(r"End date: (\d{4}-\d\d-\d\d)"),
           "ja": re.compile(r"終局日: (\d{4}-\d\d-\d\d)")}
    seen = set()
    for kind, lang, msg in mails:
        if kind != "game_end":
            continue
        text = _text(msg).replace("\r\n", "\n")
        reader_zone, day = zone[lang].search(text), end[lang].search(text)
        assert reader_zone and day, text
        other = reader_zone[1] != own[lang]
        plain, named = (form.format(day[1]) for form in said[lang])
        assert (named in text) == other and (plain in text) != other, text
        if reader_zone[1] == eastern[lang] and day[1] == "2028-12-25":
            seen.add(lang)
    assert seen == {"en", "ja"}, seen


def test_the_salon_calls_its_points_one_name(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """Seed 004: a go player's number is the salon's points (持点). The salon's final
    standings name it as their own text does, "salon points" in English and 持点 in
    Japanese, never a rating."""
    ends = [(lang, _text(msg)) for kind, lang, msg in mails if kind == "salon_end"]
    assert {lang for lang, _ in ends} == {"en", "ja"}
    for lang, text in ends:
        if lang == "en":
            assert "Salon points 1" in text and "then the salon points;" in text, text
            assert "Rating" not in text and "rating" not in text, text
            assert "the salon's points" not in text, text
        else:
            assert "持点 1" in text and "、持点の順" in text, text
            assert "レーティング" not in text and "持ち点" not in text, text
