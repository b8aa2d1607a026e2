"""The intake's length rule counts what a memory says in any script, and names its file
sensibly: characters where words are written without spaces, words elsewhere."""

from __future__ import annotations

import pytest
from scripts_corpus import LANGS, SCRIPTS

from vault_sync.errors import Refused
from vault_sync.names import slug_from
from vault_sync.ops.save import check_intake
from vault_sync.wordcount import first_words, width, words


@pytest.mark.parametrize(
    "text,expected",
    [
        ("The billing API retries webhooks", 5),
        ("a - b", 2),  # a dash alone is not a word
        ("明天开会", 2),  # four Han characters: about two words
        ("東京でPythonを使う", 1 + 6 / 2),  # the Latin run inside is one word
        ("회의 있다", 2),  # Korean writes spaces between words
        ("ประชุมพรุ่งนี้", len("ประชุมพรุ่งนี้") / 4),  # Thai: four code points a word
        ("مرحبا بك", 2),
        ("Привет мир", 2),
    ],
)
def test_words_in_any_script(text, expected):
    assert words(text) == pytest.approx(expected)


def test_width_counts_wide_characters_twice():
    assert width("abc") == 3 and width("明天") == 4 and width("회의") == 4 and width("ประชุม") == 6


def test_a_280_character_japanese_memory_is_saved(service, vault):
    sentence = "来週の月曜日から、プロジェクトのデータベースを新しいサーバーに移行します。"
    text = (sentence * 8)[:280]
    assert len(text) == 280 and " " not in text
    out = service.save(text)
    assert out["saved"] is True
    name = out["note"]["path"].removeprefix("STM/").removesuffix(".md")
    assert name == "来週の月曜日から"  # the first clause, not 280 characters


@pytest.mark.parametrize("lang", LANGS)
def test_every_script_passes_and_its_short_text_is_refused(lang):
    text, _, short = SCRIPTS[lang]
    assert check_intake(text) == text
    with pytest.raises(Refused, match=r"too short to be a useful memory \(\d+ characters, about \d+ words\)"):
        check_intake(short)


@pytest.mark.parametrize(
    "text",
    [
        "ok",
        "yes no",
        "a b c",  # three words, but five characters
        "明天",
        "ありがとう",
        "좋아요",
        "ครับ",
        "نعم لا",
        "Да нет",
    ],
)
def test_short_texts_are_refused_in_every_script(text):
    with pytest.raises(Refused, match="too short"):
        check_intake(text)


@pytest.mark.parametrize(
    "text",
    [
        "明天下午三点开会",  # meeting at three tomorrow afternoon
        "ห้องสมุดปิดวันจันทร์",  # the library is closed on Mondays
        "내일 오후 세시에 회의",
        "Встреча завтра в три",
        "الاجتماع غدا الساعة الثالثة",
    ],
)
def test_a_short_sentence_is_enough_in_every_script(text):
    assert check_intake(text) == text


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "我们决定把项目的数据库迁移到新的服务器，因为需要更好的全文搜索。",
            "我们决定把项目的数据库迁移到新的",
        ),  # 16 characters: about 8 words
        ("来週の月曜日から、プロジェクトのデータベースを新しいサーバーに移行します。", "来週の月曜日から"),
        ("短い。次の文", "短い"),  # the first sentence at most
        (
            "다음 주 월요일부터 프로젝트 데이터베이스를 새 서버로 옮기기로 했습니다.",
            "다음 주 월요일부터 프로젝트 데이터베이스를 새 서버로 옮기기로",
        ),
        ("เราตัดสินใจย้ายฐานข้อมูลของโครงการไปยังเซิร์ฟเวอร์ใหม่ตั้งแต่วันจันทร์หน้า", "เราตัดสินใจย้ายฐานข้อมูลของโครงการไปยั"),
        (
            "\u200fقررنا نقل قاعدة بيانات المشروع إلى خادم جديد بدءا من يوم\u200f",
            "قررنا نقل قاعدة بيانات المشروع إلى خادم جديد",
        ),
        ("Мы решили перенести базу данных проекта на новый сервер", "Мы решили перенести базу данных проекта на новый"),
    ],
)
def test_file_names_from_every_script_are_short_and_readable(text, expected):
    stem = slug_from(text)
    assert stem == expected
    assert all(ch not in stem for ch in "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def test_first_words_never_splits_a_mark_from_its_letter():
    # every cut of a Thai line ends on a whole letter (its vowel signs and tone marks kept)
    line = "เราตัดสินใจย้ายฐานข้อมูลของโครงการ"
    for n in range(1, 8):
        cut = first_words(line, n)
        assert line.startswith(cut)
        rest = line[len(cut) :]
        assert not rest or not __import__("unicodedata").category(rest[0]).startswith("M"), (n, cut)


def test_a_short_secret_is_refused_as_a_secret_not_as_short():
    token = "gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
    with pytest.raises(Refused) as err:
        check_intake(token)
    assert "secret" in str(err.value) and "too short" not in str(err.value) and token not in str(err.value)


def test_a_secret_title_with_a_short_text_is_refused_as_a_secret(service, vault):
    token = "np" + "m_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
    for call in (
        lambda: service.save("ok", title=token),
        lambda: service.save("明天", tags=[token]),
    ):
        with pytest.raises(Refused, match="contains a secret") as err:
            call()
        assert token not in str(err.value)
    results = service.save_many([{"text": "ok", "title": token}])["results"]
    assert "contains a secret" in results[0]["error"] and token not in results[0]["error"]
