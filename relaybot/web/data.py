"""What each page shows, read from the store as plain data for the templates.

Every function takes an open session and returns dicts: no ORM object reaches a
template, and no mail address is ever put into one.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from html import escape
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from relaybot.club.daybooks import clock_context
from relaybot.club.gamefile import GameFile
from relaybot.club.grade_book import grade_of, titles_of
from relaybot.club.rating_book import go_rank_of
from relaybot.club.results import result_form
from relaybot.club.tournaments import event_standings, salon_secretaries, standing_names
from relaybot.club.views import POSITION_NAMES, event_start, local_date, record_file
from relaybot.config import Config
from relaybot.core.clocks import pending
from relaybot.core.events import crosstable_data
from relaybot.core.game import (
    board_in,
    moves_in,
    progress_of,
    replay_from,
    start_of,
    stated_results,
    waits_for_result,
)
from relaybot.core.ratings import rank_name
from relaybot.core.text import display_name
from relaybot.games import rules_for
from relaybot.mail.wording import ending_text, result_text
from relaybot.pipeline.lifecycle import load_game
from relaybot.store.models import (
    Event,
    EventPlayer,
    Game,
    LadderRung,
    Member,
    MemberRating,
    RatingChange,
    Season,
    SeasonClass,
)

# what the tie-break columns of the crosstable are called (the mails' headings)
TIEBREAK_NAMES = {
    "en": {"sb": "SB", "solkoff": "Solkoff", "buchholz": "Buchholz", "median": "Median",
           "median_buchholz": "Median Buchholz", "direct": "Direct encounter", "wins": "Wins",
           "start": "Start order", "entry": "Entry order", "rate": "Win %",
           "margin": "Margin", "direct_pair": "Direct encounter (two)",
           "rating": "Rating", "salon_points": "Salon points",
           "sb_beaten": "SB (opponents beaten)",
           "median_beaten": "Median (opponents beaten)"},
    "ja": {"sb": "SB", "solkoff": "ソルコフ", "buchholz": "ソルコフ", "median": "ミディアム",
           "median_buchholz": "メディアン・ブッフホルツ", "direct": "直接対決", "wins": "勝数",
           "start": "開始時の順位", "entry": "参加表明順", "rate": "勝率（%）",
           "margin": "目数差", "direct_pair": "直接対決（2人）", "rating": "レーティング",
           "salon_points": "持点",
           "sb_beaten": "SB方式", "median_beaten": "ミディアム方式"},
}
EVENT_KINDS = {
    "en": {"group": "Preliminary group", "match": "Match", "ladder": "Ladder challenge",
           "section": "Section", "league": "League", "salon": "Salon league"},
    "ja": {"group": "予選グループ", "match": "マッチ", "ladder": "ラダー挑戦",
           "section": "セクション", "league": "リーグ", "salon": "サロンリーグ"},
}
TITLE_NAMES = {"en": {"japan_champion": "Japan Champion"},
               "ja": {"japan_champion": "日本チャンピオン"}}
KIND_NAMES = {"en": {"chess": "Chess", "shogi": "Shogi", "go": "Go"},
              "ja": {"chess": "チェス", "shogi": "将棋", "go": "囲碁"}}


def _result_words(game: Game, rules: Any, sides: tuple[str, str], lang: str) -> str:
    """A finished game's result as the page says it: in the game's own words where its
    plug-in has them (shogi 先手の勝ち, go 黒5目半勝ち: the same as the mail's), else as
    :func:`result_words` says a win or a draw."""
    if game.result == "*":  # J20: a game voided by a withdrawal ended with no result
        return result_words("Void", sides, lang)
    if any(getattr(rules, hook, None) is not None
           for hook in ("result_text_words", "result_words")):
        return result_text(game.kind, game.result or "", game.termination or "", lang)
    return result_words(game.result or "", sides, lang)


def result_words(result: str, sides: tuple[str, str], lang: str) -> str:
    """A finished game's result in the game's words: ``1-0`` is "White wins" in chess
    and 先手の勝ち in shogi; go's ``B+3.5`` is "Black wins by 3.5" or 黒の3目半勝ち."""
    ja = lang == "ja"
    wins = "{}の勝ち" if ja else "{} wins"
    if result in ("1-0", "0-1"):
        return wins.format(sides[0 if result == "1-0" else 1])
    if result in ("1/2-1/2", "jigo", "0"):
        return "引き分け" if ja else "Draw"
    if result == "Void":
        return "無効" if ja else "Void"
    if result == "-":
        return "双方負け" if ja else "Both lose"
    head, plus, how = result.partition("+")
    if plus and head.upper() in ("B", "W"):  # go: the side first named is Black
        side = sides[0 if head.upper() == "B" else 1]
        ways = {"R": ("中押し", "by resignation"), "T": ("時間切れ", "on time"),
                "F": ("反則", "by forfeit")}
        if how.upper() in ways:
            word = ways[how.upper()]
            return f"{side}の{word[0]}勝ち" if ja else f"{side} wins {word[1]}"
        try:
            margin = float(how)
        except ValueError:
            return result
        if ja:
            whole, half = int(margin), margin != int(margin)
            points = ("半目" if not whole else f"{whole}目半") if half else f"{whole}目"
            return f"{side}の{points}勝ち"
        return f"{side} wins by {margin:g}"
    return result


def _name(member: Member | None, lang: str) -> str:
    return display_name(member.name, lang) if member is not None else "?"


def _game_row(game: Game, people: dict[int, Member], lang: str,
              turns: dict[str, dict[str, str]] | None = None,
              events: set[str] | None = None) -> dict[str, Any]:
    """One line of a games table: players, moves as the game counts them, the result
    in the game's words or (``turns``) whose move it is and the last day to reply; the
    event linked only when it exists (``events``: the names that do; None: all)."""
    rules = rules_for(game.kind)
    sides = rules.side_names(lang)
    moves = progress_of(rules, game.ply_count).move  # chess 3 after 3... Nf6; shogi 6
    turn = (turns or {}).get(game.id, {})
    return {
        "id": game.id, "kind": KIND_NAMES[lang].get(game.kind, game.kind),
        "event": game.event or "", "status": game.status, "result": game.result or "",
        "event_exists": bool(game.event) and (events is None or game.event in events),
        "round": game.round if game.round not in ("", "-") else "",
        "side0": sides[0], "side1": sides[1],
        "white": _name(people.get(game.side0_id), lang), "white_id": game.side0_id,
        "black": _name(people.get(game.side1_id), lang), "black_id": game.side1_id,
        "moves": moves, "start": game.start_date.isoformat(),
        "end": game.end_date.isoformat() if game.end_date else "",
        "result_words": _result_words(game, rules, sides, lang) if game.result else "",
        "to_move": turn.get("side", ""), "to_move_name": turn.get("name", ""),
        "deadline": turn.get("deadline", ""), "stating": bool(turn.get("stating")),
        "disputed": bool(turn.get("disputed")),
    }


def _disputed(rules: Any, position: object) -> bool:
    """Both players stated the result, and not the same one: it is with the TD."""
    black, white = stated_results(rules, position)
    return bool(black and white and black != white)


def _turns(session: Session, games: list[Game], lang: str,
           now: datetime) -> dict[str, dict[str, str]]:
    """For each game being played: the side to move, its player and the last day to
    reply (J8, J9; none during an open pause)."""
    out: dict[str, dict[str, str]] = {}
    for game in games:
        if game.status != "active":
            continue
        gf = load_game(session, game, now)
        if gf.books is None:
            colour, deadline = gf.rules.to_move(gf.rules.load(game.position)), ""
        else:
            due = pending(gf.books, now)
            colour = due.colour
            deadline = ((due.overrun_day - timedelta(days=1)).isoformat()
                        if due.overrun_day is not None else "")
        if waits_for_result(gf.rules, game.position):  # go after both passed: nobody
            disputed = _disputed(gf.rules, game.position)  # then the TD's: no day is due
            out[game.id] = {"stating": "1", "deadline": "" if disputed else deadline,
                            "disputed": "1" if disputed else ""}  # moves; both state it
            continue
        out[game.id] = {"side": gf.rules.side_names(lang)[colour],
                        "name": _name(gf.player(colour), lang), "deadline": deadline}
    return out


def _people(session: Session, games: list[Game]) -> dict[int, Member]:
    ids = {g.side0_id for g in games} | {g.side1_id for g in games}
    if not ids:
        return {}
    return {m.id: m for m in session.scalars(select(Member).where(Member.id.in_(ids)))}


def _event_names(session: Session) -> set[str]:
    return set(session.scalars(select(Event.name)))


def home(session: Session, lang: str, now: datetime) -> dict[str, Any]:
    """The front page: every event, the games being played (whose move, the next
    deadline), the latest results."""
    events = []
    for event in session.scalars(select(Event).order_by(Event.start_date.desc(), Event.name)):
        count = len(session.scalars(select(EventPlayer.id).where(
            EventPlayer.event_id == event.id)).all())
        events.append({"name": event.name, "players": count,
                       "kind": EVENT_KINDS[lang].get(event.kind, event.kind),
                       "start": event.start_date.isoformat()})
    active = list(session.scalars(select(Game).where(Game.status == "active")
                                  .order_by(Game.start_date.desc(), Game.id).limit(200)))
    finished = list(session.scalars(select(Game).where(Game.status == "finished")
                                    .order_by(Game.end_date.desc(), Game.id).limit(50)))
    # J20: games the TD suspended are neither played nor finished: listed apart
    suspended = list(session.scalars(select(Game).where(Game.status == "suspended")
                                     .order_by(Game.start_date.desc(), Game.id).limit(50)))
    people = _people(session, active + finished + suspended)
    turns = _turns(session, active, lang, now)
    names = _event_names(session)
    # T3: the shogi league's seasons, each a page of its own (its classes are events)
    seasons = [{"name": s.name, "start": s.start_date.isoformat(),
                "end": s.end_date.isoformat(), "ended": s.ended_at is not None,
                "upcoming": s.ended_at is None and now.date() < s.start_date}
               for s in session.scalars(select(Season).order_by(Season.start_date.desc(),
                                                                Season.name))]
    # the ladders (梯子段) there are, one page each
    kinds = set(session.scalars(select(LadderRung.kind)))
    ladders = [{"kind": kind, "name": KIND_NAMES[lang].get(kind, kind)} for kind in
               [k for k in KIND_NAMES["en"] if k in kinds] + sorted(kinds - set(KIND_NAMES["en"]))]
    # the rating lists there are (the salon's points for go), one page each
    rated = set(session.scalars(select(MemberRating.kind)))
    ratings = [{"kind": kind, "name": KIND_NAMES[lang][kind]} for kind in KIND_NAMES["en"]
               if kind in rated]
    return {"events": events, "seasons": seasons, "ladders": ladders, "ratings": ratings,
            "active": [_game_row(g, people, lang, turns, names) for g in active],
            "finished": [_game_row(g, people, lang, None, names) for g in finished],
            "suspended": [_game_row(g, people, lang, None, names) for g in suspended]}


def game_page(session: Session, cfg: Config, game: Game, lang: str, viewer: int,
              now: datetime) -> dict[str, Any]:
    """One game: board from side ``viewer``'s seat and each position of its replay (a
    picture per ply from :func:`board_image`), the record with send dates, clocks."""
    gf = load_game(session, game, now)
    rules = gf.rules
    position = rules.load(game.position)
    sides = rules.side_names(lang)
    row = _game_row(game, {gf.white.id: gf.white, gf.black.id: gf.black}, lang)
    frames = _frames(rules, game, gf.plies, [m.text or m.canon for m in gf.moves], sides,
                     lang, final_words(game, row["result_words"], lang))
    rows: list[dict[str, Any]] = []
    for m in gf.moves:  # one row per move number: White's and Black's ply side by side
        number = rules.move_number(m.ply, "en").rstrip(".").removeprefix("move ")
        cell = {"ply": m.ply + 1, "text": frames[m.ply + 1]["move"],
                "label": frames[m.ply + 1]["label"],
                # the day the mover sent it, in the mover's own zone (the days a
                # player's clock counts are theirs)
                "sent": local_date(m.sent_at, gf.player((gf.first_mover + m.ply) % 2).tz)}
        if rows and rows[-1]["number"] == number:
            rows[-1]["plies"].append(cell)
        else:
            rows.append({"number": number, "plies": [cell]})
    clock: dict[str, Any] = {"clock_ok": False}
    if game.status == "active" and gf.books is not None:
        clock = clock_context(gf.books, None, now, gf.rules, lang)
        due = pending(gf.books, now)
        clock["deadline"] = (due.overrun_day - timedelta(days=1)).isoformat() \
            if due.overrun_day is not None else ""
        clock["paused"] = due.overrun_day is None  # J12, J13: an open leave or question
        stating = waits_for_result(rules, position)
        clock["stating"] = stating
        # what each side stated so far (go's counting): the page says who still has to,
        # or that two different results went to the TD
        claims = stated_results(rules, position) if stating else ("", "")
        clock["stated"] = [{"side": sides[c], "result": result_text(game.kind, claim, "", lang)}
                           for c, claim in enumerate(claims) if claim]
        clock["disputed"] = stating and _disputed(rules, position)
        if clock["disputed"]:  # the last position waits for the TD, not for the players
            frames[-1]["alt"] = (f"{frames[-1]['label']}まで、結果はTDの裁定待ち"
                                 if lang == "ja" else
                                 f"After {frames[-1]['label']}, the result is with the "
                                 "tournament director")
        clock["to_move"] = "" if stating else sides[due.colour]
        clock["to_move_name"] = "" if stating else _name(gf.player(due.colour), lang)
    return row | clock | {
        "viewer": viewer, "frames": frames, "last_ply": len(frames) - 1,
        "board_text": board_in(rules, position, lang, viewer,
                               over=game.status != "active"),
        "position": rules.position_text(game.position),
        "terms": rules.terms_text(position, lang),
        "position_name": POSITION_NAMES.get(game.kind, ""),
        "game_kind": game.kind,  # the page's words for a move are the game's (go 着手)
        "move_rows": rows,  # paired: a move number has two plies (chess)
        "paired": rules.move_number(0, "en").rstrip(".") == rules.move_number(1, "en")
        .rstrip("."),
        "time_control": game.time_control, "end": game.end_date.isoformat()
        if game.end_date else "", "termination": game.termination or "",
        "ending": ending_text(game.kind, game.termination or "", lang),
        "record_format": rules.record_format.upper(),
        "timezone": cfg.bot.timezone,
        "zones": game_zones(gf, sides),
    }


def game_zones(gf: GameFile, sides: tuple[str, str]) -> list[dict[str, str]]:
    """The zones a game's dates are in (issue 26 item 5): one when both players share it,
    else each side's (``[{"side": "White", "zone": "Europe/Berlin"}, ...]``); the page
    names them in words (the ``zone`` filter), never the club's zone for someone else's
    game."""
    zones = (gf.white.tz, gf.black.tz)
    if zones[0] == zones[1]:
        return [{"side": "", "zone": zones[0]}]
    return [{"side": sides[colour], "zone": zones[colour]} for colour in (0, 1)]


def final_words(game: Game, result_words: str, lang: str) -> str:
    """What a game that is no longer being played says instead of whose move it is:
    its result and how it ended (``Sente wins (resignation)``, ``黒4目半勝ち（TDの
    裁定）``), or that the TD suspended it; "" while it is being played."""
    if game.status == "active":
        return ""
    if game.status == "suspended":  # J20: a withdrawal the TD left undecided
        return "TDの判断で中断中" if lang == "ja" else "suspended by the tournament director"
    result = result_words or game.result or ""
    ending = ending_text(game.kind, game.termination or "", lang) if game.termination else ""
    if not ending:
        return result
    return f"{result}（{ending}）" if lang == "ja" else f"{result} ({ending})"


def _frames(rules: Any, game: Game, plies: list[str], texts: list[str],
            sides: tuple[str, str], lang: str, over: str = "") -> list[dict[str, Any]]:
    """Each position of the replay, from the start (0) to after the last ply: the move
    that led to it (as the record writes it) and a sentence saying so and whose turn it
    is, the picture's text alternative. ``over`` (:func:`final_words`): the game is no
    longer played, and its last position says so instead of naming a side to move."""
    board = start_of(rules, game.position)
    if not plies:
        board = rules.load(game.position)
    frames: list[dict[str, Any]] = []
    for n in range(len(plies) + 1):
        if n:
            rules.play(board, plies[n - 1])
        text = moves_in(rules, texts[n - 1], lang) if n and n <= len(texts) \
            else (plies[n - 1] if n else "")
        label = moves_in(rules, rules.move_label(n - 1, text), lang) if n else ""
        side = sides[rules.to_move(board)]
        if over and n == len(plies):  # a finished game: nobody is to move any more
            alt = (f"{label}まで、{over}" if lang == "ja" and n else
                   f"開始局面、{over}" if lang == "ja" else
                   f"After {label}: {over}" if n else f"Start: {over}")
        elif n and waits_for_result(rules, board):  # go: both passed, no one is to move
            alt = (f"{label}まで、両者が結果を申告" if lang == "ja" else
                   f"After {label}, both players state the result")
        elif lang == "ja":
            alt = (f"{label}まで、{side}の手番" if n else f"開始局面、{side}の手番")
        else:
            alt = (f"After {label}, {side} to move" if n else f"Start, {side} to move")
        frames.append({"ply": n, "move": text, "label": label, "alt": alt})
    return frames


def board_image(game: Game, ply: int, viewer: int,
                text_lang: str = "") -> tuple[bytes, str] | None:
    """The picture of the game's position after ``ply`` plies from ``viewer``'s seat, as
    the mail draws it (the game's PNG; its SVG where it draws none here): the bytes and
    their media type; with ``text_lang`` the board as text in that language instead
    (the picture's long text alternative: pieces in hand, captures, whose move). None
    when the game has no such ply."""
    rules = rules_for(game.kind)
    plies = game.plies.split()
    if not 0 <= ply <= len(plies):
        return None
    position = (replay_from(rules, game.position, plies[:ply]) if plies
                else rules.load(game.position))
    if text_lang:
        # the last position of a finished game names no side to move, as the page's does
        over = game.status != "active" and ply == len(plies)
        return (board_in(rules, position, text_lang, viewer, over=over).encode("utf-8"),
                "text/plain; charset=utf-8")
    draw = getattr(rules, "board_png", None)
    png = draw(position, viewer) if callable(draw) else b""
    if isinstance(png, bytes) and png:
        return png, "image/png"
    return rules.board_svg(position, viewer).encode("utf-8"), "image/svg+xml"


def record_download(session: Session, cfg: Config, game: Game) -> dict[str, str]:
    """The game's record file (the game plug-in's ``write_record``, standard headers)."""
    gf = GameFile.load(session, game)
    return record_file(cfg, gf, event_start(session, game.event))


def _score(game: Game, member_id: int) -> float | None:
    """The member's score in a finished game (1, ½, 0), None when it does not count."""
    form = result_form(game)
    if form is None:
        return None
    mine = form.split("-")[0 if game.side0_id == member_id else 1]
    return 0.5 if mine == "1/2" else float(mine)


def event_page(session: Session, event: Event, lang: str, now: datetime) -> dict[str, Any]:
    """An event: standings in rank order, each player numbered by their seat (as the
    CLI numbers them) with the rank beside it; a crosstable whose cells link to the
    games (every game of a pair: a double round robin has two), every tie-break column
    (T5); the games with results linked."""
    rows = event_standings(session, event)
    seated = list(session.execute(
        select(Member, EventPlayer).join(EventPlayer, EventPlayer.member_id == Member.id)
        .where(EventPlayer.event_id == event.id)).all())
    names = standing_names([m for m, _ in seated])  # the names the standings key
    seats: dict[str, tuple[int, int]] = {names[m.id]: (p.seat, m.id) for m, p in seated}
    # T3's order tie-breaks, as event_standings reads them: the starting order (a
    # season's, else the seat) and the entry order (the seat)
    orders = {p.member_id: (p.start_order or p.seat, p.seat) for _, p in seated}
    games = list(session.scalars(select(Game).where(Game.event == event.name)
                                 .order_by(Game.created_at, Game.id)))
    people = _people(session, games)
    sides_of = {g.id: rules_for(g.kind).side_names(lang) for g in games}
    table = crosstable_data(rows)
    order = sorted(seat for seat, _ in seats.values())
    by_id = {member_id: seat for seat, member_id in seats.values()}
    for row in table:
        seat, member_id = seats.get(str(row["player"]), (0, 0))
        row["no"], row["id"] = seat, member_id or None
        row["start"], row["entry"] = orders.get(member_id, (None, None))
        # the standings' own name (a PersonName): with its Japanese-script form and the
        # member's order, as every other page writes it (str() would lose both)
        row["player"] = display_name(row["player"], lang)  # type: ignore[arg-type]
        cells: dict[int, list[dict[str, Any]]] = {n: [] for n in order}
        for game in games:
            if member_id not in (game.side0_id, game.side1_id):
                continue
            other = game.side1_id if game.side0_id == member_id else game.side0_id
            if other in by_id:
                colour = 0 if game.side0_id == member_id else 1
                score = _score(game, member_id)
                cells[by_id[other]].append({
                    "id": game.id, "score": score, "side": sides_of[game.id][colour],
                    # ended without a result (J20's void, go's 勝負なし): counts for no
                    # one, and is no game still being played
                    "void": score is None and game.status == "finished"})
        row["cells"] = [{"seat": n, "games": cells[n]} for n in order]
    order_keys = [t.strip() for t in event.tiebreaks.split(",") if t.strip()]
    if event.kind == "salon":
        order_keys.insert(0, "rate")  # T4: the win rate ranks first
    turns = _turns(session, games, lang, now)
    # T3: a class of a season of the shogi league links back to its season's page
    of_season = session.execute(select(Season.name, SeasonClass.letter).join(
        SeasonClass, SeasonClass.season_id == Season.id).where(
        SeasonClass.event_id == event.id)).first()
    # which game the event plays (its games'; a salon's is go): the header names it
    game_kind = games[0].kind if games else ("go" if event.kind == "salon" else "")
    return {"name": event.name, "kind": EVENT_KINDS[lang].get(event.kind, event.kind),
            "game_name": KIND_NAMES[lang].get(game_kind, game_kind),
            "season": {"name": of_season[0], "letter": of_season[1]} if of_season else None,
            # a ladder challenge links the ladder of its game (issue 30: /ladder/<kind>)
            "ladder": ({"kind": games[0].kind,
                        "name": KIND_NAMES[lang].get(games[0].kind, games[0].kind)}
                       if event.kind == "ladder" and games else None),
            "start": event.start_date.isoformat(), "seats": order,
            "time_control": event.time_control, "rows": table,
            "tiebreaks": [{"key": t, "title": TIEBREAK_NAMES[lang].get(
                # go's rating is the salon's points (seed 004), and the page says so
                "salon_points" if t == "rating" and rows and rows[0].rating_game == "go"
                else t, t)} for t in order_keys],
            "games": [_game_row(g, people, lang, turns) for g in games],
            # a drawn go game is a jigo (持碁): the table's column and legend say so
            "go_event": bool(rows) and rows[0].rating_game == "go",
            # seed 004 section 6: the next league's secretaries, once a salon league ended
            "secretaries": [{"id": m.id, "name": display_name(m.name, lang)}
                            for m in salon_secretaries(session, event) or ()]}


def rating_plot(points: list[int], label: str) -> str:
    """A small line chart of a rating's history (oldest first) as inline SVG, drawn
    here: no script, no library; ``label`` is its text alternative (escaped)."""
    width, height, pad, left = 240, 64, 8, 40  # left: room for the highest and lowest
    if not points:
        return ""
    low, high = min(points), max(points)
    span = max(high - low, 1)
    step = (width - left - pad) / max(len(points) - 1, 1)
    xy = [(left + i * step, pad + (high - p) * (height - 2 * pad) / span)
          for i, p in enumerate(points)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    last_x, last_y = xy[-1]
    title = escape(label)
    return (f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{title}"><title>{title}</title>'
            f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" fill="#fafafa" '
            f'stroke="#ddd"/>'
            f'<text x="4" y="{pad + 4}" font-size="11" fill="#555">{high}</text>'
            f'<text x="4" y="{height - pad + 4}" font-size="11" fill="#555">{low}</text>'
            f'<polyline points="{line}" fill="none" stroke="#1a63c9" '
            f'stroke-width="2" stroke-linejoin="round"/>'
            f'<circle cx="{last_x:.1f}" cy="{last_y:.1f}" r="3" fill="#1a63c9"/></svg>')


def player_page(session: Session, member: Member, lang: str, now: datetime) -> dict[str, Any]:
    """A player: per game their rating (provisional in brackets) with its history as a
    small plot, wins/draws/losses; the chess grade and titles; their games (being
    played, whose move and the deadline; then finished) and the calendar."""
    games = list(session.scalars(
        select(Game).where(or_(Game.side0_id == member.id, Game.side1_id == member.id))
        .order_by(Game.status, Game.start_date.desc(), Game.id)))
    people = _people(session, games)
    history: dict[str, list[int]] = {}
    for change, kind in session.execute(
            select(RatingChange, Game.kind).join(Game, Game.id == RatingChange.game_id)
            .where(RatingChange.member_id == member.id)
            .order_by(RatingChange.at, RatingChange.id)):
        points = history.setdefault(kind, [])
        if not points:
            points.append(change.before)
        points.append(change.after)
    records: dict[str, list[int]] = {}
    for game in games:
        score = _score(game, member.id) if game.status == "finished" else None
        if score is not None:
            wdl = records.setdefault(game.kind, [0, 0, 0])
            wdl[0 if score == 1 else 1 if score == 0.5 else 2] += 1
    rated = {r.kind: r for r in session.scalars(select(MemberRating).where(
        MemberRating.member_id == member.id))}
    kinds = sorted(set(rated) | set(records), key=lambda k: (k not in KIND_NAMES["en"], k))
    name = _name(member, lang)
    per_kind = []
    for kind in kinds:
        word = KIND_NAMES[lang].get(kind, kind)
        row = rated.get(kind)
        wins, draws, losses = records.get(kind, [0, 0, 0])
        points = history.get(kind, [])
        # seed 004: go's number is the salon's points (持点), never a rating
        measure = (("持点" if kind == "go" else "レーティング") if lang == "ja"
                   else "salon points" if kind == "go" else "rating")
        label = (f"{name}の{word}の{measure}の推移: " if lang == "ja"
                 else f"{name}'s {word} {measure} over time: ") + " → ".join(map(str, points))
        per_kind.append({
            "kind": word, "rating": row.rating if row else None, "salon": kind == "go",
            "provisional": bool(row.provisional) if row else False,
            "games": row.rated_games if row else 0,
            # seed 004: the go rank beside the points (初段, 1d)
            "rank": rank_name(go_rank_of(row), lang) if row and kind == "go" else "",
            "wins": wins, "draws": draws, "losses": losses,
            "plot": rating_plot(points, label) if len(points) > 1 else ""})
    grade_points, grade = grade_of(session, member) if "chess" in rated else (0, "")
    if lang == "ja":
        grade = grade.split(" (")[0]  # 初段 (1st dan): the gloss is for English readers
    turns = _turns(session, games, lang, now)
    return {"id": member.id, "name": name, "ratings": per_kind,
            "grade": grade, "grade_points": grade_points,
            "titles": [TITLE_NAMES[lang].get(t, t) for t in titles_of(session, member.id)],
            "active": [_game_row(g, people, lang, turns) for g in games
                       if g.status == "active"],
            # the latest ended first, as on the front page
            "finished": [_game_row(g, people, lang) for g in sorted(
                (g for g in games if g.status == "finished"),
                key=lambda g: (g.end_date or date.min, g.id), reverse=True)],
            # J20: suspended by the TD, neither played nor finished: apart, as on the front
            "suspended": [_game_row(g, people, lang) for g in games
                          if g.status == "suspended"]}


def deadlines(session: Session, member: Member, now: datetime) -> list[dict[str, Any]]:
    """Each active game's next deadline as the member's calendar shows it: the last day
    the player on move may send their reply before the clock is lost (J8, J9)."""
    out = []
    today = now.astimezone(ZoneInfo(member.tz)).date()
    for game in session.scalars(select(Game).where(
            Game.status == "active", or_(Game.side0_id == member.id,
                                         Game.side1_id == member.id)).order_by(Game.id)):
        gf = load_game(session, game, now)
        if gf.books is None:
            continue
        due = pending(gf.books, now)
        if due.overrun_day is None:
            continue  # an open pause: no day can be named
        stating = waits_for_result(gf.rules, game.position)
        if stating and _disputed(gf.rules, game.position):
            continue  # go: two different results are the TD's to decide, no one's to send
        # go after both passed: the side still to state the result (the board says who)
        colour = gf.rules.to_move(gf.rules.load(game.position)) if stating else due.colour
        last: date = due.overrun_day - timedelta(days=1)
        mine = gf.player(colour).id == member.id
        opponent = gf.player(1 - colour)
        out.append({"game_id": game.id, "ply": gf.game.ply_count, "day": max(last, today),
                    "mine": mine, "move": due.move, "stating": stating,
                    "opponent": _name(opponent if mine else gf.player(colour),
                                      member.lang),
                    "left": due.left})
    return out


def ratings_page(session: Session, kind: str, lang: str) -> dict[str, Any] | None:
    """The rating list of one game (R1, R2; for go the salon's points and ranks, R4, seed
    004 section 2): every member rated in it, highest first, equal ratings sharing a
    place; a provisional rating is marked as such. None for a game no one is rated in."""
    if kind not in KIND_NAMES["en"]:
        return None
    rows = session.execute(
        select(Member, MemberRating).join(MemberRating, MemberRating.member_id == Member.id)
        .where(MemberRating.kind == kind)
        .order_by(MemberRating.rating.desc(), Member.id)).all()
    if not rows:
        return None
    listed: list[dict[str, Any]] = []
    for number, (member, row) in enumerate(rows, start=1):
        shared = bool(listed) and listed[-1]["rating"] == row.rating
        listed.append({
            "place": listed[-1]["place"] if shared else number, "id": member.id,
            "name": display_name(member.name, lang), "rating": row.rating,
            "provisional": bool(row.provisional), "games": row.rated_games,
            "rank": rank_name(go_rank_of(row), lang) if kind == "go" else ""})
    return {"kind": kind, "kind_name": KIND_NAMES[lang][kind], "salon": kind == "go",
            "rows": listed}
