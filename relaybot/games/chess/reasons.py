"""Why a chess move was refused: the words of chess's reasons in each language,
added to :mod:`relaybot.core.reasons` when the package is imported (the core holds
only the reasons every game shares)."""

from __future__ import annotations

from relaybot.core.reasons import add_reasons, phrase

_NUMERIC_DIGITS_JA = "1=クイーン、2=ルーク、3=ビショップ、4=ナイト"

add_reasons({
    "chess_no_declaration": phrase("chess has no such declaration", "チェスに申告はありません"),
    "not_chess_move": phrase("not a chess move", "チェスの指し手として読めません"),
    "lower_case_letter": phrase("piece letters must be upper case (e.g. Nf3)",
                               "駒の文字は大文字で書いてください（例: Nf3）"),
    "numeric_digits": phrase("numeric squares use the digits 1-8 (a1=11, h8=88)",
                            "数字式の升目は1から8の数字で書きます（a1=11、h8=88）"),
    "numeric_promotion_digit": phrase(
        "the promotion digit is 1=Q 2=R 3=B 4=N (e.g. 57581)",
        f"昇格の数字は {_NUMERIC_DIGITS_JA} です（例: 57581）"),
    "numeric_fifth_digit": phrase("a fifth digit is only for a pawn promotion",
                                 "5桁目の数字はポーンの昇格のときだけ書きます"),
    "numeric_promotion_missing": phrase(
        "promotion piece missing: add a fifth digit 1=Q 2=R 3=B 4=N (e.g. {example})",
        f"昇格する駒がありません。5桁目に {_NUMERIC_DIGITS_JA} を書いてください"
        "（例: {example}）"),
    "numeric_ambiguous": phrase("{digits} could be {plain} or the promotion {promotion}",
                               "{digits} は {plain} とも、昇格の {promotion} とも読めます"),
    "numeric_no_piece": phrase("{move}: there is no piece on {square}",
                              "{move}: {square} に駒がありません"),
    "numeric_not_yours": phrase("{move}: the piece on {square} is not yours",
                               "{move}: {square} の駒はあなたの駒ではありません"),
    "numeric_cannot_move": phrase("{move}: the {piece} cannot legally move there",
                                 "{move}: その{piece}はそこへ動けません"),
    "castling_moved": phrase("castling {side} is not possible: the king or that rook has moved",
                            "{side}のキャスリングはできません。キングかそのルークがすでに"
                            "動いています"),
    "castling_check": phrase("castling {side} is not possible: the king is in check",
                            "{side}のキャスリングはできません。キングが王手（チェック）されて"
                            "います"),
    "castling_blocked": phrase(
        "castling {side} is not possible: a square between is occupied or attacked",
        "{side}のキャスリングはできません。間の升に駒があるか、相手の駒が利いています"),
    "no_piece_on": phrase("there is no piece on {square}", "{square} に駒がありません"),
    "not_yours": phrase("the piece on {square} is not yours",
                       "{square} の駒はあなたの駒ではありません"),
    "piece_is": phrase("the piece on {square} is a {piece}", "{square} の駒は{piece}です"),
    "promotion_missing": phrase("the promotion piece is missing (e.g. e8=Q)",
                               "昇格する駒が書かれていません（例: e8=Q）"),
    "no_such_piece_move": phrase("no such {piece} move; legal {piece} moves to {dest}: {legal}",
                                "その{piece}の手はありません。{dest} へ指せる{piece}の手は "
                                "{legal} です"),
    "pawn_cannot_reach": phrase("no pawn can legally move to {dest}",
                               "{dest} へ動けるポーンはありません"),
    "own_piece": phrase("{dest} holds your own piece", "{dest} には自分の駒があります"),
    "pinned": phrase("the {piece} on {where} cannot go to {dest}: the king would be in check",
                    "{where} の{piece}は {dest} へ動けません。動くとキングが王手（チェック）に"
                    "なります"),
    "cannot_reach": phrase("no {piece} can reach {dest}", "{dest} へ行ける{piece}はありません"),
    "ambiguous_pieces": phrase("{count} {piece}s can legally move to {dest}; write one of {sans}",
                              "{dest} へ動ける{piece}が{count}つあります。{sans} のどれかを"
                              "書いてください"),
    "pawn_cannot_capture": phrase("no pawn can capture on {dest}",
                                 "{dest} で駒を取れるポーンはありません"),
    "letter_unknown": phrase("'{letter}' is not a piece letter here (your letters are {own})",
                            "「{letter}」はあなたの駒の文字ではありません（あなたの文字は {own}）"),
    "letter_other": phrase("'{letter}' is not a piece letter here (your letters are {own}; "
                          "'{letter}' is a piece letter in {others})",
                          "「{letter}」はあなたの駒の文字ではありません（あなたの文字は {own}。"
                          "「{letter}」は{others}表記の駒の文字です）"),
    "not_promotion_piece": phrase("'{letter}' is not a promotion piece",
                                 "「{letter}」は昇格できる駒ではありません"),
}, words={
    "en": {"pawn": "pawn", "knight": "knight", "bishop": "bishop", "rook": "rook",
           "queen": "queen", "king": "king", "kingside": "kingside",
           "queenside": "queenside"},
    "ja": {"pawn": "ポーン", "knight": "ナイト", "bishop": "ビショップ", "rook": "ルーク",
           "queen": "クイーン", "king": "キング", "kingside": "キングサイド",
           "queenside": "クイーンサイド"},
}, lists={
    # ``others``: the languages a piece letter set is named after (de, fr, es, en)
    "others": {"en": {"en": "en", "de": "de", "fr": "fr", "es": "es"},
               "ja": {"en": "英語", "de": "ドイツ語", "fr": "フランス語", "es": "スペイン語"}},
})
