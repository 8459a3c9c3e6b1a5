"""JCCA grades (段級位, R3): tables 1 and 2 of seed 000, points, the grade reached.

Tables 1 and 2 are transcribed here (and compared with the seed file when present);
the expectations below come from these transcriptions, not from the module's data.
"""

from __future__ import annotations

import pytest

from relaybot.core.ratings import (
    CATEGORIES,
    GRADES,
    category_for,
    game_points,
    grade_for,
    grade_info,
    grade_points,
    introduction_bonus,
    section_points,
    title_points,
)
from tests.seeds import seed_text

# 付表1: 段級位認定点数表 (段位・級位, 点数, 次の位まで), tab-separated as in seed 000.
SEED_TABLE_1 = """\
入門\t0\t20
8級\t20\t30
7級\t50\t50
6級\t100\t100
5級\t200\t100
4級\t300\t100
3級\t400\t200
2級\t600\t400
1級\t1000\t600
初段\t1600\t800
二段\t2400\t1600
三段\t4000\t2400
四段\t6400\t3200
五段\t9600\t3200
六段\t12800\t4800
七段\t17600
"""

# 付表2: 段級位点数表 (カテゴリ, 平均Rate 以上, 勝ち, ドロー, 負け).
SEED_TABLE_2 = "\n".join(
    [
        "1\t0\t4\t2\t1",
        *(f"{c}\t{750 + 50 * c}\t{4 * c}\t{2 * c}\t{c}" for c in range(2, 26)),
    ]
)


def seed_lines_after(text: str, heading: str, count: int) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    body = [line.rstrip() for line in lines[start + 1 :] if line.strip()]
    return body[1 : count + 1]  # skip the column headings


def test_transcriptions_match_the_seed_file() -> None:
    text = seed_text("000")
    if text is None:
        pytest.skip("seed 000 not available here")
    assert seed_lines_after(text, "付表1", 16) == SEED_TABLE_1.splitlines()
    assert seed_lines_after(text, "付表2", 25) == SEED_TABLE_2.splitlines()


def test_table_1_is_the_module_data() -> None:
    rows = [line.split("\t") for line in SEED_TABLE_1.splitlines()]
    assert [(g.ja, g.points) for g in GRADES] == [(r[0], int(r[1])) for r in rows]
    for grade, row in zip(GRADES, rows, strict=True):
        if len(row) == 3:  # 次の位まで: the gap to the next grade
            assert grade.next_points is not None
            assert grade.next_points - grade.points == int(row[2])
        else:
            assert grade.next_points is None


def test_table_2_is_the_module_data() -> None:
    rows = [tuple(int(x) for x in line.split("\t")) for line in SEED_TABLE_2.splitlines()]
    assert [(c.number, c.min_average, c.win, c.draw, c.loss) for c in CATEGORIES] == rows


@pytest.mark.parametrize("line", SEED_TABLE_1.splitlines())
def test_grade_reached_at_each_threshold(line: str) -> None:
    name, points, *_ = line.split("\t")
    assert grade_info(int(points)).ja == name
    assert grade_for(int(points)).startswith(name + " (")
    if int(points):
        assert grade_info(int(points) - 1).ja != name


def test_grade_labels() -> None:
    assert grade_for(0) == "入門 (beginner)"
    assert grade_for(19) == "入門 (beginner)"
    assert grade_for(20) == "8級 (8th kyu)"
    assert grade_for(1599) == "1級 (1st kyu)"
    assert grade_for(1600) == "初段 (1st dan)"
    assert grade_for(17600) == "七段 (7th dan)"
    assert grade_for(10**6) == "七段 (7th dan)"
    with pytest.raises(ValueError):
        grade_for(-1)


@pytest.mark.parametrize("line", SEED_TABLE_2.splitlines())
def test_category_by_section_average(line: str) -> None:
    number, threshold, win, draw, loss = (int(x) for x in line.split("\t"))
    category = category_for([threshold, threshold])  # average exactly at the threshold
    assert category.number == number
    assert [game_points(category, s) for s in (1, 0.5, 0)] == [win, draw, loss]
    if threshold:
        # "以上": just below the threshold is the category before
        assert category_for([threshold, threshold - 1]).number == number - 1


def test_introduction_bonus() -> None:
    """R3: rating^3 / 10,000,000, fraction dropped."""
    assert introduction_bonus(1200) == 172  # 172.8
    assert introduction_bonus(1600) == 409  # 409.6
    assert introduction_bonus(2000) == 800
    assert introduction_bonus(0) == 0


def test_title_points() -> None:
    assert title_points(["japan_champion"]) == 2000
    assert title_points(["japan_champion", "japan_champion"]) == 4000  # 1回獲得につき
    assert title_points(["IM", "SIM", "GM"]) == 12000
    with pytest.raises(ValueError, match="unknown title"):
        title_points(["FM"])


def test_worked_example() -> None:
    """R3, a member introduced at 1600 who later wins the Japan championship.

    Introduction bonus: 1600^3 / 10^7 = 409.6 -> 409 points: 3級 (400).
    A preliminary group with ratings 1580, 1500, 1460, 1420: average 1490, category
    14 (1450 以上): win 56, draw 28, loss 14. Result 4 wins, 1 draw, 1 loss:
    4*56 + 28 + 14 = 266 points. 409 + 266 = 675: 2級 (600).
    Japan champion: +2000 -> 2675: 二段 (2400).
    """
    bonus = introduction_bonus(1600)
    assert bonus == 409 and grade_for(bonus) == "3級 (3rd kyu)"
    group = [1580, 1500, 1460, 1420]
    assert category_for(group).number == 14
    earned = section_points(group, [1, 1, 1, 1, 0.5, 0])
    assert earned == 266
    assert grade_for(grade_points(1600, (), earned)) == "2級 (2nd kyu)"
    total = grade_points(1600, ["japan_champion"], earned)
    assert total == 2675
    assert grade_for(total) == "二段 (2nd dan)"
    assert grade_info(total).next_points == 4000


def test_low_sections_and_bad_scores() -> None:
    assert category_for([800, 880]).number == 1  # average 840 < 850
    assert section_points([800, 880], [1, 0]) == 5
    assert grade_points() == 0
    with pytest.raises(ValueError):
        category_for([])
    with pytest.raises(ValueError):
        game_points(CATEGORIES[0], 0.25)
