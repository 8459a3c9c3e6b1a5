"""Why a shogi move was refused: the words of shogi's reasons in each language,
added to :mod:`relaybot.core.reasons` when the package is imported (the core holds
only the reasons every game shares)."""

from __future__ import annotations

from relaybot.core.reasons import add_reasons, phrase

add_reasons({
    "shogi_turn": phrase("it is {side}'s move", "{side}の手番です"),
    "shogi_form": phrase("write a move as ▲７六歩, 同歩, ５五角打, ２二角成, 7g7f or +7776FU",
                        "指し手は ▲７六歩、同歩、５五角打、２二角成、7g7f、+7776FU のように"
                        "書いてください"),
    "shogi_self_check": phrase("it leaves the king in check (王手放置)",
                              "王手放置・自殺手です"),
    "shogi_pawn_drop_mate": phrase("a pawn drop may not give mate (打ち歩詰め)", "打ち歩詰めです"),
    "shogi_not_in_hand": phrase("that piece is not in hand", "その駒を持っていません"),
    "shogi_occupied": phrase("the square is occupied", "その升には駒があります"),
    "shogi_double_pawn": phrase("a second unpromoted pawn on the file (二歩)", "二歩です"),
    "shogi_dead_piece": phrase("the piece could never move from there (行き所のない駒)",
                              "行き所のない駒です"),
    "shogi_no_own_piece": phrase("no piece of yours on the origin square",
                                "移動元に自分の駒がありません"),
    "shogi_cannot_move": phrase("that piece cannot move there", "その駒はそこへ動けません"),
    "shogi_no_piece_moves": phrase("no such piece can move there",
                                  "そこへ動ける駒がありません"),
    "shogi_none_reach": phrase("no {name} of yours can move to {square}",
                              "{square}へ動ける{name}がありません"),
    "shogi_relative_none": phrase(
        "{words} fits none of the moves to that square (possible: {moves})",
        "「{words}」に合う手がありません（その升へ指せる手: {moves}）"),
    "shogi_wrong_sign": phrase("wrong side's sign", "手番の記号（+ / -）が違います"),
    "shogi_not_csa_piece": phrase("not a CSA piece name: {name}",
                                 "CSA の駒名ではありません: {name}"),
    "shogi_promoted_drop": phrase("promoted pieces cannot be dropped", "成駒は打てません"),
    "shogi_no_previous": phrase("no move before 同", "「同」の前の手がありません"),
    "shogi_cannot_promote": phrase("that move cannot promote (成れません)", "そこでは成れません"),
    "shogi_must_promote": phrase("the piece must promote there (成らなければなりません)",
                                "成らなければなりません"),
    "shogi_say_promotion": phrase("say 成 or 不成", "成るか成らないかを書いてください"),
    "shogi_say_which": phrase("say which piece", "どの駒か書いてください"),
    "shogi_not_in_camp": phrase("your king is not in the enemy camp",
                               "玉が敵陣（三段目以内）に入っていません"),
}, words={
    "en": {"sente": "Sente (▲)", "gote": "Gote (△)"},
    "ja": {"sente": "先手（▲）", "gote": "後手（△）"},
})
