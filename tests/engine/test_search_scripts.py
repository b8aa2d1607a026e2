"""Full text in scripts the word index cannot cut: Chinese, Japanese,
Korean, Thai and the Indic scripts go through the trigram index (vault_sync/index/trigram.py).

Notes are generated here from small vocabularies (seeded), written to a real vault and
indexed into real SQLite; searches go through MemoryService.search (full text only).
"""

from __future__ import annotations

import random
import sqlite3

import pytest
from conftest import make_service

from vault_sync.index import trigram
from vault_sync.index.schema import SCHEMA_VERSION

# words per language (no spaces between words in zh, ja, th; spaces between Korean words)
VOCAB = {
    "zh": (
        "",
        "。",
        "我们 今天 明天 学校 老师 学生 朋友 工作 时间 城市 天气 电脑 问题 办法 公司 会议 项目 数据 系统 "
        "用户 文件 服务 周末 早上 晚上 北京 上海 咖啡 面包 音乐 电影 历史 文化 经济 医院 银行 火车 飞机 "
        "准备 讨论 完成 开始 需要 喜欢 觉得 知道 发现 检查 修改 安排 记录 重要 简单 复杂 快速 安全".split(),
    ),
    "ja": (
        "",
        "。",
        "私 今日 明日 学校 先生 学生 友達 仕事 時間 会議 資料 確認 予定 電車 駅 天気 東京 大阪 "
        "コーヒー パン 音楽 映画 歴史 文化 病院 銀行 飛行機 準備 相談 完了 開始 必要 好き "
        "思います 知って 見つけた 直した 書いた 読んだ です ます では から まで について ために "
        "プロジェクト データ システム ユーザー ファイル サーバー 週末 朝 夜".split(),
    ),
    "ko": (
        " ",
        ".",
        "우리는 오늘 내일 학교에서 선생님 학생들 친구와 회사에서 시간이 회의를 자료를 확인했다 "
        "예정이다 기차를 타고 날씨가 서울에서 부산으로 커피를 빵을 음악을 영화를 역사와 문화 "
        "병원에 은행에서 비행기 준비했다 상담을 끝났다 시작했다 필요하다 좋아한다 생각한다 "
        "알고 있다 찾았다 고쳤다 썼다 읽었다 프로젝트 데이터 시스템 사용자 파일 서버 주말에 아침 저녁".split(),
    ),
    "th": (
        "",
        " ",
        "เรา วันนี้ พรุ่งนี้ โรงเรียน ครู นักเรียน เพื่อน ทำงาน เวลา เมือง อากาศ คอมพิวเตอร์ ปัญหา "
        "วิธี บริษัท ประชุม โครงการ ข้อมูล ระบบ ผู้ใช้ ไฟล์ บริการ สุดสัปดาห์ ตอนเช้า ตอนเย็น "
        "กรุงเทพ เชียงใหม่ กาแฟ ขนมปัง เพลง ภาพยนตร์ ประวัติศาสตร์ วัฒนธรรม โรงพยาบาล ธนาคาร "
        "รถไฟ เครื่องบิน เตรียม พูดคุย เสร็จ เริ่ม ต้องการ ชอบ คิดว่า รู้ว่า พบว่า ตรวจสอบ แก้ไข "
        "จัดการ บันทึก สำคัญ ง่าย ยาก รวดเร็ว ปลอดภัย".split(),
    ),
}
# words that are not in the vocabularies: planted in N notes each
PLANTED = {"zh": ["笔记", "图书馆"], "ja": ["勉強", "美術館"], "ko": ["도서관", "공책"], "th": ["ห้องสมุด", "ดินสอ"]}


def sentence(rng: random.Random, lang: str) -> str:
    joiner, end, words = VOCAB[lang]
    return joiner.join(rng.choice(words) for _ in range(rng.randint(8, 14))) + end


def body(rng: random.Random, lang: str, n: int = 6) -> list[str]:
    return [sentence(rng, lang) for _ in range(n)]


def write_vault(root, lang: str, notes: int, seed: int) -> dict[str, list[str]]:
    """`notes` notes in `lang` (plus a few in English), each a list of sentences; returns path -> sentences."""
    rng = random.Random(seed)
    out = {}
    for i in range(notes):
        sentences = body(rng, lang)
        out[f"{lang}-{i:03d}.md"] = sentences
    for i in range(5):
        out[f"en-{i}.md"] = ["A plain English note about coffee, trains and the weather. " * 3]
    for rel, sentences in out.items():
        (root / rel).write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
    return out


def found(svc, query: str, limit: int = 10) -> list[str]:
    return [r["path"] for r in svc.search(query, limit=limit)["results"]]


@pytest.mark.parametrize("lang", sorted(VOCAB))
def test_a_planted_word_is_found_in_nearly_every_note_holding_it(empty_vault, lang):
    rng = random.Random(5)
    notes = write_vault(empty_vault, lang, 90, seed=hash(lang) % 1000)
    langs = sorted(p for p in notes if p.startswith(lang))
    for word in PLANTED[lang]:
        holders = set(rng.sample(langs, 40))
        for rel in holders:
            sentences = notes[rel]
            i = rng.randrange(len(sentences))
            s = sentences[i]
            cut = rng.randrange(1, len(s) - 1)
            # inside a sentence, glued to its neighbours as the script writes it (Korean: a word)
            sentences[i] = s[:cut] + word + s[cut:] if lang != "ko" else s[:cut] + " " + word + " " + s[cut:]
    for rel, sentences in notes.items():
        (empty_vault / rel).write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
    svc = make_service(empty_vault)
    for word in PLANTED[lang]:
        holders = {rel for rel, sentences in notes.items() if any(word in s for s in sentences)}
        ranked = found(svc, word, limit=60)
        # notes holding the word first; a note holding only some of its trigrams comes after them
        leading = ranked[: next((i for i, p in enumerate(ranked) if p not in holders), len(ranked))]
        assert len(leading) >= 0.95 * len(holders), (word, len(leading), len(holders))
    svc.close()


@pytest.mark.parametrize("lang", sorted(VOCAB))
def test_a_sentence_copied_from_a_note_finds_it_in_the_top_3(empty_vault, lang):
    notes = write_vault(empty_vault, lang, 120, seed=17)
    svc = make_service(empty_vault)
    rng = random.Random(3)
    misses = []
    for rel in rng.sample(sorted(p for p in notes if p.startswith(lang)), 30):
        query = rng.choice(notes[rel]).strip("。. ")
        top = found(svc, query, limit=3)
        if rel not in top:
            misses.append((rel, query, top))
    assert misses == []
    svc.close()


def test_snippets_mark_the_cjk_words_found(empty_vault):
    (empty_vault / "a.md").write_text(
        "我今天在图书馆看了一本关于历史的书。然后我回家写了笔记，明天继续学习。\n", encoding="utf-8"
    )
    (empty_vault / "b.md").write_text("ภาษาไทยเขียนติดกันโดยไม่มีช่องว่างระหว่างคำ\n", encoding="utf-8")
    svc = make_service(empty_vault)
    [hit] = svc.search("笔记", limit=5)["results"]
    assert hit["path"] == "a.md" and "**笔记**" in hit["snippet"]
    [hit] = svc.search("图书馆看书", limit=5)["results"]
    assert "**图书馆看**" in hit["snippet"]
    [hit] = svc.search("ไม่มีช่องว่าง", limit=5)["results"]
    assert hit["path"] == "b.md" and "**ไม่มีช่องว่าง**" in hit["snippet"]
    svc.close()


def test_mixed_queries_rank_notes_holding_both_parts_first(empty_vault):
    (empty_vault / "both.md").write_text("Python 学习笔记：列表和字典的用法。\n", encoding="utf-8")
    (empty_vault / "words.md").write_text("Python lists and dictionaries.\n", encoding="utf-8")
    (empty_vault / "cjk.md").write_text("数学学习笔记：三角函数。\n", encoding="utf-8")
    svc = make_service(empty_vault)
    top = found(svc, "Python 学习笔记")
    assert top[0] == "both.md" and set(top) == {"both.md", "words.md", "cjk.md"}
    svc.close()


def test_indic_vowel_signs_do_not_cut_words(empty_vault):
    (empty_vault / "hi.md").write_text("हिन्दी भाषा में लिखा गया एक छोटा नोट।\n", encoding="utf-8")
    (empty_vault / "bn.md").write_text("বাংলা ভাষায় লেখা একটি ছোট নোট।\n", encoding="utf-8")
    (empty_vault / "km.md").write_text("នេះជាកំណត់ចំណាំខ្លីមួយជាភាសាខ្មែរ។\n", encoding="utf-8")
    svc = make_service(empty_vault)
    assert found(svc, "लिखा") == ["hi.md"]
    assert found(svc, "ভাষায়") == ["bn.md"]
    assert found(svc, "ភាសាខ្មែរ") == ["km.md"]
    svc.close()


def test_only_notes_in_such_scripts_get_a_trigram_row_and_edits_follow(empty_vault):
    (empty_vault / "en.md").write_text("Only English here.\n", encoding="utf-8")
    (empty_vault / "zh.md").write_text("中文笔记\n", encoding="utf-8")
    svc = make_service(empty_vault)
    rows = lambda: {r[0] for r in svc.store.query("SELECT n.path FROM trigram t JOIN notes n ON n.rowid = t.rowid")}  # noqa: E731
    assert rows() == {"zh.md"}
    (empty_vault / "zh.md").write_text("now English too\n", encoding="utf-8")
    (empty_vault / "en.md").write_text("Only English here. 加一句中文。\n", encoding="utf-8")
    svc.sync()
    assert rows() == {"en.md"}
    assert found(svc, "中文") == ["en.md"] and found(svc, "笔记") == []
    svc.close()


def test_an_index_of_the_previous_version_is_rebuilt_with_the_trigram_table(empty_vault):
    (empty_vault / "zh.md").write_text("中文笔记\n", encoding="utf-8")
    svc = make_service(empty_vault)
    index = svc.settings.index_path
    svc.close()
    db = sqlite3.connect(index)
    db.execute("DROP TABLE trigram")
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION - 1),))
    db.commit()
    db.close()
    svc = make_service(empty_vault)
    assert svc.store.rebuilt and found(svc, "笔记") == ["zh.md"]
    svc.close()


def test_dense_scripts_detected_and_cut_into_trigrams():
    assert trigram.needs("笔记") and trigram.needs("カタカナ") and trigram.needs("한국어") and trigram.needs("ภาษา")
    assert not trigram.needs("Plain, accented café and Ελληνικά and русский and العربية")
    assert trigram.runs("Python 学习笔记，数学。한국어 단어") == ["学习笔记", "数学", "한국어", "단어"]
    assert trigram.grams("学习笔记") == ["学习笔", "习笔记"]


PHRASES = {"th": ("ห้องสมุด", "ดินสอ"), "ja": ("勉強", "美術館"), "zh": ("笔记", "图书馆")}


@pytest.mark.parametrize("lang", sorted(PHRASES))
def test_a_phrase_finds_the_notes_holding_it_and_no_note_holding_only_its_pieces(empty_vault, lang):
    first, second = PHRASES[lang]
    rng = random.Random(11)
    holders = set()
    for i in range(90):
        sentences = body(rng, lang)
        if i < 47:  # the phrase, glued inside a sentence as the script writes it
            k = rng.randrange(len(sentences))
            cut = rng.randrange(1, len(sentences[k]) - 1)
            sentences[k] = sentences[k][:cut] + first + second + sentences[k][cut:]
            holders.add(f"{lang}-{i:03d}.md")
        else:  # both of its words, apart
            sentences[0], sentences[-1] = first + sentences[0], sentences[-1] + second
        (empty_vault / f"{lang}-{i:03d}.md").write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
    svc = make_service(empty_vault)
    assert set(found(svc, first + second, limit=200)) == holders
    # a phrase no note holds as written still finds the notes closest to it
    assert found(svc, first + second + first, limit=200)
    svc.close()
