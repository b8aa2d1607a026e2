"""Memories in six scripts, as a person writes them: each text with a query in the same
script that must find it, and a text too short to be a memory. Only the script's own
words: a Latin word in the text would let the word index find it without the script."""

from __future__ import annotations

# language -> (memory, query in its script, too short)
SCRIPTS: dict[str, tuple[str, str, str]] = {
    "zh": ("我们决定把项目的数据库迁移到新的服务器，因为需要更好的全文搜索。", "数据库", "明天开会"),
    "ja": ("来週の月曜日から、プロジェクトのデータベースを新しいサーバーに移行します。", "データベース", "こんにちは"),
    "ko": ("다음 주 월요일부터 프로젝트 데이터베이스를 새 서버로 옮기기로 했습니다.", "데이터베이스", "회의 있다"),
    "th": ("เราตัดสินใจย้ายฐานข้อมูลของโครงการไปยังเซิร์ฟเวอร์ใหม่ตั้งแต่วันจันทร์หน้า", "ฐานข้อมูล", "ประชุม"),
    "ar": ("قررنا نقل قاعدة بيانات المشروع إلى خادم جديد بدءا من يوم الاثنين القادم.", "قاعدة بيانات", "مرحبا بك"),
    "ru": (
        "Мы решили перенести базу данных проекта на новый сервер со следующего понедельника.",
        "базу данных",
        "Привет мир",
    ),
}
LANGS = sorted(SCRIPTS)
