"""Why a go move was refused: the words of go's reasons in each language,
added to :mod:`relaybot.core.reasons` when the package is imported (the core holds
only the reasons every game shares)."""

from __future__ import annotations

from relaybot.core.reasons import add_reasons, phrase

add_reasons({
    "go_counting": phrase("both players have passed: each now states the result "
                         "(result B+3.5 / 結果 黒3目半勝ち)",
                         "両者がパスしたため、もう着手できません。結果を申告してください"
                         "（「結果 黒3目半勝ち」または「result B+3.5」）"),
    "go_off_board": phrase("no such point on a {size}x{size} board",
                          "{size}路盤にその点はありません"),
    "go_occupied": phrase("{point} is occupied", "{point} にはすでに石があります"),
    "go_ko": phrase("ko: the stone just taken may not be retaken at once; play elsewhere first",
                   "コウです。取られた直後の石はすぐには取り返せません。先に別の所に打って"
                   "ください"),
    "go_suicide": phrase("suicide: the stone would have no liberty",
                        "自殺手（着手禁止点）です。打った石の呼吸点がなくなります"),
    "go_superko": phrase("superko: the move repeats an earlier whole-board position",
                        "スーパーコウです。以前と同じ盤面が再び現れます"),
    "go_free_already": phrase("this game is a free game already",
                             "この対局はすでに記録外（自由対局）です"),
    "go_result_too_early": phrase("a result is stated after both players pass "
                                 "(pass / パス twice in a row)",
                                 "結果の申告は両者が続けてパスした後です（「パス」または「pass」）"),
    "go_result_form": phrase("write the result as B+3.5, W+12, jigo (or 黒3目半勝ち, 持碁)",
                            "結果は「黒3目半勝ち」「白12目勝ち」「持碁」（または「B+3.5」"
                            "「W+12」「jigo」）のように書いてください"),
    "go_no_vertex": phrase("no point {point} on a {size}x{size} board (columns skip I)",
                          "{size}路盤に {point} はありません（列は I を飛ばします）"),
    "go_no_sgf_point": phrase("no point {point} on a {size}x{size} board (SGF letters a-{last})",
                             "{size}路盤に「{point}」はありません（SGF の文字は「a」から"
                             "「{last}」まで）"),
    "go_point_form": phrase("write a point as {first} (columns A-{last_column} without I), "
                           "as an SGF point ({sgf}), or pass / パス",
                           "着手は {first}（列は A-{last_column}、I を除く）、SGF の座標"
                           "（「{sgf}」など）、または「パス」（「pass」）と書いてください"),
})
