"""JCCA ratings: the whole quick table (R1), provisional Rb and its display (R2).

The quick table is checked band by band, both ends of every band in both columns,
against a transcription of seed 000 kept in this file (``SEED_TABLE``), which is
in turn compared line by line with the seed file itself when the seed is present.
Nothing here reads ``QUICK_TABLE`` to decide what to expect.
"""

from __future__ import annotations

import pytest

from relaybot.core.ratings import (
    QUICK_TABLE,
    START_RATING,
    RatingState,
    apply_result,
    display_rating,
    provisional_rating,
    quick_row,
    rating_change,
)
from tests.seeds import seed_text

# Seed 000, "JPCAレーティング速算表", the data lines exactly as printed (tab-separated):
# 上位者 (difference, higher player's column) | 下位者 (lower player's column) |
# 上位勝ち (上位+ 下位-) | 下位勝ち (上位- 下位+) | ドロー (上位- 下位+)
SEED_TABLE = """\
0 ~ 11\t0\t30\t30\t0
12 ~ 23\t1 ~ 12\t29\t31\t1
24 ~ 35\t13 ~ 24\t28\t32\t2
36 ~ 47\t25 ~ 36\t27\t33\t3
48 ~ 59\t37 ~ 48\t26\t34\t4
60 ~ 71\t49 ~ 60\t25\t35\t5
72 ~ 83\t61 ~ 72\t24\t36\t6
84 ~ 95\t73 ~ 84\t23\t37\t7
96 ~ 107\t85 ~ 96\t22\t38\t8
108 ~ 120\t97 ~ 108\t21\t39\t9
121 ~ 133\t109 ~ 121\t20\t40\t10
134 ~ 146\t122 ~ 134\t19\t41\t11
147 ~ 159\t135 ~ 147\t18\t42\t12
160 ~ 173\t148 ~ 160\t17\t43\t13
174 ~ 187\t161 ~ 174\t16\t44\t14
188 ~ 201\t175 ~ 188\t15\t45\t15
202 ~ 216\t189 ~ 202\t14\t46\t16
217 ~ 233\t203 ~ 217\t13\t47\t17
234 ~ 250\t218 ~ 234\t12\t48\t18
251 ~ 268\t235 ~ 251\t11\t49\t19
269 ~ 287\t252 ~ 269\t10\t50\t20
288 ~ 306\t270 ~ 288\t9\t51\t21
307 ~ 328\t289 ~ 307\t8\t52\t22
329 ~ 352\t308 ~ 329\t7\t53\t23
353 ~ 379\t330 ~ 353\t6\t54\t24
380 ~ 409\t354 ~ 380\t5\t55\t25
410 ~ 449\t381 ~ 410\t4\t56\t26
450 ~ 499\t411 ~ 450\t3\t57\t27
500 ~ 559\t451 ~ 500\t2\t58\t28
560 ~ 679\t501 ~ 560\t1\t59\t29
680以上\t561以上\t0\t60\t30
"""

Band = tuple[int, int | None]


def parse_band(text: str) -> Band:
    text = text.strip()
    if text.endswith("以上"):
        return int(text[: -len("以上")]), None
    if "~" in text:
        lo, hi = text.split("~")
        return int(lo), int(hi)
    return int(text), int(text)


def parse_table(text: str) -> list[tuple[Band, Band, int, int, int]]:
    rows = []
    for line in text.splitlines():
        higher, lower, hw, lw, d = line.split("\t")
        rows.append((parse_band(higher), parse_band(lower), int(hw), int(lw), int(d)))
    return rows


ROWS = parse_table(SEED_TABLE)


def test_transcription_matches_the_seed_file() -> None:
    text = seed_text("000")
    if text is None:
        pytest.skip("seed 000 not available here")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "レーティング速算表" in line)
    data = [
        line.rstrip()
        for line in lines[start + 1 : start + 40]
        if line[:1].isdigit()  # the data lines; headings start with 相手 / 上位
    ]
    assert data == SEED_TABLE.splitlines()


def test_bands_cover_every_difference_once() -> None:
    for bands in ([row[0] for row in ROWS], [row[1] for row in ROWS]):
        expected_lo = 0
        for i, (lo, hi) in enumerate(bands):
            assert lo == expected_lo
            if hi is None:
                assert i == len(bands) - 1
            else:
                expected_lo = hi + 1
    assert len(ROWS) == 31


def test_module_data_is_the_seed_table() -> None:
    as_data = [
        ((r.higher_lo, r.higher_hi), (r.lower_lo, r.lower_hi), r.higher_wins, r.lower_wins, r.draw)
        for r in QUICK_TABLE
    ]
    assert as_data == ROWS


def ends(band: Band) -> tuple[int, ...]:
    lo, hi = band
    return (lo, hi) if hi is not None else (lo, lo + 1, lo + 1000)


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_higher_rated_side_both_ends_of_every_band(index: int) -> None:
    """R1: the higher-rated player reads the 上位者 column."""
    band, _, hw, lw, d = ROWS[index]
    for diff in ends(band):
        high, low = 1500 + diff, 1500
        assert quick_row(diff, "higher").higher_wins == hw
        # higher as White, then as Black
        assert rating_change(high, low, "1-0")[0] == hw
        assert rating_change(high, low, "0-1")[0] == -lw
        assert rating_change(high, low, "1/2-1/2")[0] == -d
        assert rating_change(low, high, "0-1")[1] == hw
        assert rating_change(low, high, "1-0")[1] == -lw
        assert rating_change(low, high, "1/2-1/2")[1] == -d


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_lower_rated_side_both_ends_of_every_band(index: int) -> None:
    """R1: the lower-rated player reads the 下位者 column."""
    _, band, hw, lw, d = ROWS[index]
    for diff in ends(band):
        high, low = 1500 + diff, 1500
        assert quick_row(diff, "lower").lower_wins == lw
        # lower as Black, then as White
        assert rating_change(high, low, "1-0")[1] == -hw
        assert rating_change(high, low, "0-1")[1] == lw
        assert rating_change(high, low, "1/2-1/2")[1] == d
        assert rating_change(low, high, "0-1")[0] == -hw
        assert rating_change(low, high, "1-0")[0] == lw
        assert rating_change(low, high, "1/2-1/2")[0] == d


def test_worked_examples() -> None:
    # Equal ratings: row 1 for both, whoever is "higher".
    assert rating_change(1200, 1200, "1-0") == (30, -30)
    assert rating_change(1200, 1200, "0-1") == (-30, 30)
    assert rating_change(1200, 1200, "1/2-1/2") == (0, 0)
    # Difference 5: higher reads 0~11 (row 1), lower reads 1~12 (row 2).
    assert rating_change(1405, 1400, "1-0") == (30, -29)
    assert rating_change(1405, 1400, "1/2-1/2") == (0, 1)
    assert rating_change(1400, 1405, "1-0") == (31, -30)
    # Difference 12: both read row 2; 13: higher row 2, lower row 3.
    assert rating_change(1512, 1500, "1-0") == (29, -29)
    assert rating_change(1500, 1513, "1/2-1/2") == (2, -1)
    # Difference 700: beyond both 以上 bands.
    assert rating_change(1900, 1200, "1-0") == (0, 0)
    assert rating_change(1900, 1200, "0-1") == (-60, 60)
    assert rating_change(1900, 1200, "1/2-1/2") == (-30, 30)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="result"):
        rating_change(1200, 1200, "1-1")
    with pytest.raises(ValueError, match="difference"):
        quick_row(-1, "higher")
    with pytest.raises(ValueError, match="side"):
        quick_row(1, "middle")


def test_provisional_rating_worked_example() -> None:
    """R2: Rb = mean of the 12 opponents + 360 (W - L) / (W + L); draws in neither."""
    opponents = [1200, 1250, 1180, 1300, 1220, 1150, 1275, 1190, 1210, 1240, 1260, 1225]
    assert sum(opponents) == 14700  # mean 1225
    # 7 wins, 3 losses, 2 draws: 1225 + 360 * 4 / 10 = 1225 + 144 = 1369
    assert provisional_rating(opponents, 7, 3) == 1369
    # 5 wins, 4 losses, 3 draws: 1225 + 360 / 9 = 1265
    assert provisional_rating(opponents, 5, 4) == 1265
    # 2 wins, 10 losses: 1225 - 360 * 8 / 12 = 985
    assert provisional_rating(opponents, 2, 10) == 985
    # all drawn: no W - L information, the mean alone
    assert provisional_rating(opponents, 0, 0) == 1225


def test_provisional_rating_rounds_half_up() -> None:
    # mean 14706 / 12 = 1225.5, W = L: 1225.5 -> 1226
    assert provisional_rating([1225] * 6 + [1226] * 6, 3, 3) == 1226
    # 1225 + 360 * 1 / 7 = 1276.43 -> 1276; 1225 - 360 / 7 = 1173.57 -> 1174
    assert provisional_rating([1225] * 12, 4, 3) == 1276
    assert provisional_rating([1225] * 12, 3, 4) == 1174


def test_provisional_rating_bad_input() -> None:
    with pytest.raises(ValueError):
        provisional_rating([], 0, 0)
    with pytest.raises(ValueError):
        provisional_rating([1200] * 3, 3, 1)
    with pytest.raises(ValueError):
        provisional_rating([1200] * 3, -1, 1)


def test_display_in_parentheses_before_20_games() -> None:
    assert display_rating(1320, 0) == "(1320)"
    assert display_rating(1320, 19) == "(1320)"
    assert display_rating(1320, 20) == "1320"
    assert display_rating(1320, 57) == "1320"
    assert RatingState().display == f"({START_RATING})"
    assert RatingState(rating=1320, games=25, provisional=False).display == "1320"


def test_apply_result_uses_start_ratings_on_end_ratings() -> None:
    """R1: the row comes from the start ratings; the change goes on the end rating."""
    white = RatingState(rating=1530, games=40, provisional=False)
    black = RatingState(rating=1470, games=40, provisional=False)
    # Start ratings 1500 and 1487 (difference 13): White (higher) +29, Black -28.
    new_white, new_black = apply_result(white, black, 1500, 1487, "1-0")
    assert (new_white.rating, new_white.games) == (1559, 41)
    assert (new_black.rating, new_black.games) == (1442, 41)
    assert not new_white.provisional and new_white.opponents == ()


def test_a_new_player_through_20_games() -> None:
    """R1, R2: start 1200 provisional; Rb after game 12; official from game 20."""
    player = RatingState()
    assert (player.rating, player.provisional) == (1200, True)
    opponents = [1200, 1250, 1180, 1300, 1220, 1150, 1275, 1190, 1210, 1240, 1260, 1225]
    results = ["1-0"] * 7 + ["0-1"] * 3 + ["1/2-1/2"] * 2  # the player is White
    for game, (opp, result) in enumerate(zip(opponents, results, strict=True), start=1):
        opp_state = RatingState(rating=opp, games=50, provisional=False)
        player, _ = apply_result(player, opp_state, player.rating, opp, result)
        assert player.games == game
        if game < 12:
            assert player.display.startswith("(")
    # Game 12 replaced the table-based rating with Rb (the worked example above).
    assert player.rating == 1369
    assert (player.wins, player.losses) == (7, 3)
    assert player.provisional and player.display == "(1369)"
    for game in range(13, 21):
        before = player.rating
        rival = RatingState(rating=before, games=50, provisional=False)
        player, _ = apply_result(player, rival, before, before, "1-0")
        assert player.rating == before + 30  # equal ratings: row 1
        assert player.provisional == (game < 20)
        assert len(player.opponents) == 12  # Rb inputs stop growing after game 12
    assert player.display == str(player.rating) == "1609"


def test_provisional_opponent_is_rated_from_both_states() -> None:
    a = RatingState()  # provisional, 1200
    b = RatingState(rating=1350, games=3)
    new_a, new_b = apply_result(a, b, 1200, 1350, "1/2-1/2")
    # difference 150: higher (b) reads 147~159 (draw 12), lower (a) 148~160 (draw 13)
    assert (new_a.rating, new_b.rating) == (1213, 1338)
    assert new_a.opponents == (1350,) and new_b.opponents == (1200,)
    assert (new_a.wins, new_a.losses, new_b.wins, new_b.losses) == (0, 0, 0, 0)
