"""Why a move or a proposal was refused, as a value, and its words in each language.

A game that refuses a move (:class:`relaybot.core.game.MoveError`) or the conditional
checker that refuses a proposal line says why with a :class:`Reason`: a code and its
parameters (squares, the move as the player wrote it, a piece). The mail layer
(``relaybot.mail.wording.reason_text``) turns it into the reader's language when it
writes the reply; the English words also serve the exception's message and the logs.

Pure data: the phrases of every code in English and Japanese. A parameter named in
:data:`WORD_PARAMS` is itself a word code (``knight``, ``kingside``, ``sente``) and is
said in the reader's language too; a parameter that is a :class:`Reason` is said whole
(a refused proposal quotes the move's own reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Union

LANGS = ("en", "ja")

Param = Union[str, int, "Reason"]


@dataclass(frozen=True)
class Reason:
    """A refusal's code (a key of :data:`PHRASES`) and its parameters."""

    code: str
    params: tuple[tuple[str, Param], ...] = ()

    @classmethod
    def of(cls, code: str, **params: Param) -> Reason:
        """``Reason.of("castling_moved", side="kingside")``."""
        if code not in PHRASES:
            raise KeyError(f"no words for the reason {code!r}")
        return cls(code, tuple(params.items()))

    def get(self, name: str) -> Param | None:
        """The parameter ``name``, or None."""
        return dict(self.params).get(name)


# Parameters whose value is a word code, said in the reader's language
WORD_PARAMS = frozenset({"piece", "side", "inner_kind"})

WORDS: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "en": MappingProxyType({
        "pawn": "pawn", "knight": "knight", "bishop": "bishop", "rook": "rook",
        "queen": "queen", "king": "king", "kingside": "kingside", "queenside": "queenside",
        "sente": "Sente (▲)", "gote": "Gote (△)",
        "illegal": "not a legal move", "ambiguous": "an ambiguous move",
        "unreadable": "not readable as a move"}),
    "ja": MappingProxyType({
        "pawn": "ポーン", "knight": "ナイト", "bishop": "ビショップ", "rook": "ルーク",
        "queen": "クイーン", "king": "キング", "kingside": "キングサイド",
        "queenside": "クイーンサイド", "sente": "先手（▲）", "gote": "後手（△）",
        "illegal": "指せない手です", "ambiguous": "不明瞭な手です",
        "unreadable": "指し手として読めません"}),
})

# The languages a piece letter set is named after (chess's letters de, fr, es, en)
LETTER_SET_NAMES: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "en": MappingProxyType({"en": "en", "de": "de", "fr": "fr", "es": "es"}),
    "ja": MappingProxyType({"en": "英語", "de": "ドイツ語", "fr": "フランス語",
                            "es": "スペイン語"}),
})

_NUMERIC_DIGITS_JA = "1=クイーン、2=ルーク、3=ビショップ、4=ナイト"


def _p(en: str, ja: str) -> Mapping[str, str]:
    return MappingProxyType({"en": en, "ja": ja})


PHRASES: Mapping[str, Mapping[str, str]] = MappingProxyType({
    # --- every game -----------------------------------------------------------
    "empty_move": _p("empty move", "指し手が書かれていません"),
    "not_a_move": _p("not a move", "指し手ではありません"),
    "no_declaration": _p("no such declaration", "そのような申告はありません"),
    # --- chess ------------------------------------------------------------------
    "chess_no_declaration": _p("chess has no such declaration", "チェスに申告はありません"),
    "not_chess_move": _p("not a chess move", "チェスの指し手として読めません"),
    "lower_case_letter": _p("piece letters must be upper case (e.g. Nf3)",
                            "駒の文字は大文字で書いてください（例: Nf3）"),
    "numeric_digits": _p("numeric squares use the digits 1-8 (a1=11, h8=88)",
                         "数字式の升目は1から8の数字で書きます（a1=11、h8=88）"),
    "numeric_promotion_digit": _p(
        "the promotion digit is 1=Q 2=R 3=B 4=N (e.g. 57581)",
        f"昇格の数字は {_NUMERIC_DIGITS_JA} です（例: 57581）"),
    "numeric_fifth_digit": _p("a fifth digit is only for a pawn promotion",
                              "5桁目の数字はポーンの昇格のときだけ書きます"),
    "numeric_promotion_missing": _p(
        "promotion piece missing: add a fifth digit 1=Q 2=R 3=B 4=N (e.g. {example})",
        f"昇格する駒がありません。5桁目に {_NUMERIC_DIGITS_JA} を書いてください"
        "（例: {example}）"),
    "numeric_ambiguous": _p("{digits} could be {plain} or the promotion {promotion}",
                            "{digits} は {plain} とも、昇格の {promotion} とも読めます"),
    "numeric_no_piece": _p("{move}: there is no piece on {square}",
                           "{move}: {square} に駒がありません"),
    "numeric_not_yours": _p("{move}: the piece on {square} is not yours",
                            "{move}: {square} の駒はあなたの駒ではありません"),
    "numeric_cannot_move": _p("{move}: the {piece} cannot legally move there",
                              "{move}: その{piece}はそこへ動けません"),
    "castling_moved": _p("castling {side} is not possible: the king or that rook has moved",
                         "{side}のキャスリングはできません。キングかそのルークがすでに"
                         "動いています"),
    "castling_check": _p("castling {side} is not possible: the king is in check",
                         "{side}のキャスリングはできません。キングが王手（チェック）されて"
                         "います"),
    "castling_blocked": _p(
        "castling {side} is not possible: a square between is occupied or attacked",
        "{side}のキャスリングはできません。間の升に駒があるか、相手の駒が利いています"),
    "no_piece_on": _p("there is no piece on {square}", "{square} に駒がありません"),
    "not_yours": _p("the piece on {square} is not yours",
                    "{square} の駒はあなたの駒ではありません"),
    "piece_is": _p("the piece on {square} is a {piece}", "{square} の駒は{piece}です"),
    "promotion_missing": _p("the promotion piece is missing (e.g. e8=Q)",
                            "昇格する駒が書かれていません（例: e8=Q）"),
    "no_such_piece_move": _p("no such {piece} move; legal {piece} moves to {dest}: {legal}",
                             "その{piece}の手はありません。{dest} へ指せる{piece}の手は "
                             "{legal} です"),
    "pawn_cannot_reach": _p("no pawn can legally move to {dest}",
                            "{dest} へ動けるポーンはありません"),
    "own_piece": _p("{dest} holds your own piece", "{dest} には自分の駒があります"),
    "pinned": _p("the {piece} on {where} cannot go to {dest}: the king would be in check",
                 "{where} の{piece}は {dest} へ動けません。動くとキングが王手（チェック）に"
                 "なります"),
    "cannot_reach": _p("no {piece} can reach {dest}", "{dest} へ行ける{piece}はありません"),
    "ambiguous_pieces": _p("{count} {piece}s can legally move to {dest}; write one of {sans}",
                           "{dest} へ動ける{piece}が{count}つあります。{sans} のどれかを"
                           "書いてください"),
    "pawn_cannot_capture": _p("no pawn can capture on {dest}",
                              "{dest} で駒を取れるポーンはありません"),
    "letter_unknown": _p("'{letter}' is not a piece letter here (your letters are {own})",
                         "「{letter}」はあなたの駒の文字ではありません（あなたの文字は {own}）"),
    "letter_other": _p("'{letter}' is not a piece letter here (your letters are {own}; "
                       "'{letter}' is a piece letter in {others})",
                       "「{letter}」はあなたの駒の文字ではありません（あなたの文字は {own}。"
                       "「{letter}」は{others}表記の駒の文字です）"),
    "not_promotion_piece": _p("'{letter}' is not a promotion piece",
                              "「{letter}」は昇格できる駒ではありません"),
    # --- shogi ------------------------------------------------------------------
    "shogi_turn": _p("it is {side}'s move", "{side}の手番です"),
    "shogi_form": _p("write a move as ▲７六歩, 同歩, ５五角打, ２二角成, 7g7f or +7776FU",
                     "指し手は ▲７六歩、同歩、５五角打、２二角成、7g7f、+7776FU のように"
                     "書いてください"),
    "shogi_self_check": _p("it leaves the king in check (王手放置)",
                           "王手放置・自殺手です"),
    "shogi_pawn_drop_mate": _p("a pawn drop may not give mate (打ち歩詰め)", "打ち歩詰めです"),
    "shogi_not_in_hand": _p("that piece is not in hand", "その駒を持っていません"),
    "shogi_occupied": _p("the square is occupied", "その升には駒があります"),
    "shogi_double_pawn": _p("a second unpromoted pawn on the file (二歩)", "二歩です"),
    "shogi_dead_piece": _p("the piece could never move from there (行き所のない駒)",
                           "行き所のない駒です"),
    "shogi_no_own_piece": _p("no piece of yours on the origin square",
                             "移動元に自分の駒がありません"),
    "shogi_cannot_move": _p("that piece cannot move there", "その駒はそこへ動けません"),
    "shogi_no_piece_moves": _p("no such piece can move there",
                               "そこへ動ける駒がありません"),
    "shogi_wrong_sign": _p("wrong side's sign", "手番の記号（+ / -）が違います"),
    "shogi_not_csa_piece": _p("not a CSA piece name: {name}",
                              "CSA の駒名ではありません: {name}"),
    "shogi_promoted_drop": _p("promoted pieces cannot be dropped", "成駒は打てません"),
    "shogi_no_previous": _p("no move before 同", "「同」の前の手がありません"),
    "shogi_cannot_promote": _p("that move cannot promote (成れません)", "そこでは成れません"),
    "shogi_must_promote": _p("the piece must promote there (成らなければなりません)",
                             "成らなければなりません"),
    "shogi_say_promotion": _p("say 成 or 不成", "成るか成らないかを書いてください"),
    "shogi_say_which": _p("say which piece", "どの駒か書いてください"),
    "shogi_not_in_camp": _p("your king is not in the enemy camp",
                            "玉が敵陣（三段目以内）に入っていません"),
    # --- go -----------------------------------------------------------------------
    "go_counting": _p("both players have passed: each now states the result "
                      "(result B+3.5 / 結果 黒3目半勝ち)",
                      "両者がパスしたため、もう着手できません。結果を申告してください"
                      "（「結果 黒3目半勝ち」または「result B+3.5」）"),
    "go_off_board": _p("no such point on a {size}x{size} board",
                       "{size}路盤にその点はありません"),
    "go_occupied": _p("{point} is occupied", "{point} にはすでに石があります"),
    "go_ko": _p("ko: the stone just taken may not be retaken at once; play elsewhere first",
                "コウです。取られた直後の石はすぐには取り返せません。先に別の所に打って"
                "ください"),
    "go_suicide": _p("suicide: the stone would have no liberty",
                     "自殺手（着手禁止点）です。打った石の呼吸点がなくなります"),
    "go_superko": _p("superko: the move repeats an earlier whole-board position",
                     "スーパーコウです。以前と同じ盤面が再び現れます"),
    "go_free_already": _p("this game is a free game already",
                          "この対局はすでに記録外（自由対局）です"),
    "go_result_too_early": _p("a result is stated after both players pass "
                              "(pass / パス twice in a row)",
                              "結果の申告は両者が続けてパスした後です（「パス」または「pass」）"),
    "go_result_form": _p("write the result as B+3.5, W+12, jigo (or 黒3目半勝ち, 持碁)",
                         "結果は「黒3目半勝ち」「白12目勝ち」「持碁」（または「B+3.5」"
                         "「W+12」「jigo」）のように書いてください"),
    "go_no_vertex": _p("no point {point} on a {size}x{size} board (columns skip I)",
                       "{size}路盤に {point} はありません（列は I を飛ばします）"),
    "go_no_sgf_point": _p("no point {point} on a {size}x{size} board (SGF letters a-{last})",
                          "{size}路盤に「{point}」はありません（SGF の文字は「a」から"
                          "「{last}」まで）"),
    "go_point_form": _p("write a point as Q16 (columns A-T without I), as an SGF point "
                        "(pd), or pass / パス",
                        "着手は Q16（列は A-T、I を除く）、SGF の座標（「pd」など）、"
                        "または「パス」（「pass」）と書いてください"),
    # --- conditional proposals (J16) ---------------------------------------------
    "proposal_no_answer": _p("a predicted move needs an answer (if ... then ...)",
                             "予想手には応手が必要です（「もし … なら …」）"),
    "proposal_too_long": _p("a proposal may have at most {max} moves",
                            "予想手順は {max} 手までです"),
    "move_kind": _p("{inner_kind}", "{inner_kind}"),
    # a plug-in's plain English detail: only English says it, Japanese says the kind
    "plain_detail": _p("{text}", "{inner_kind}"),
    "proposal_start": _p("the proposal is written for {start}; it must start with the "
                         "reply at {here} ({inner})",
                         "この予想手順は {start} からのものです。{here} の応手から始めて"
                         "ください（{inner}）"),
    "proposal_conflict": _p("{predicted} already has the answer {answer}; "
                            "a second answer {second} is refused",
                            "{predicted} にはすでに応手 {answer} があります。2つ目の応手 "
                            "{second} は受け付けません"),
})


def say(reason: Reason, lang: str) -> str:
    """The reason in ``lang`` (``en`` or ``ja``; anything else reads English)."""
    lang = lang if lang in LANGS else "en"
    words = WORDS[lang]
    values: dict[str, str] = {}
    for name, value in reason.params:
        if isinstance(value, Reason):
            values[name] = say(value, lang)
        elif name in WORD_PARAMS:
            values[name] = words.get(str(value), str(value))
        elif name == "others":
            values[name] = ("、" if lang == "ja" else ", ").join(
                LETTER_SET_NAMES[lang].get(code, code) for code in str(value).split(","))
        else:
            values[name] = str(value)
    return PHRASES[reason.code][lang].format(**values)
