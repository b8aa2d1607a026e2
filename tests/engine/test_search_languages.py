"""A sentence copied from a note finds that note: over every note of the
sample vault with enough text, and over a vault of notes in 33 languages written here."""

from __future__ import annotations

# ruff: noqa: E501  (one paragraph per language, one line each)
import re
import shutil

from conftest import SAMPLE, make_service

from vault_sync.note import parse_note

# three sentences per language, about taking notes; the query is always the second
LANGUAGES = {
    "en": "Notes link to each other with double brackets. A link to a note that does not exist yet is shown in another colour. Click it to create the note.",
    "de": "Notizen verweisen mit doppelten eckigen Klammern aufeinander. Ein Link auf eine Notiz, die es noch nicht gibt, erscheint in einer anderen Farbe. Ein Klick darauf legt sie an.",
    "fr": "Les notes se relient entre elles avec des doubles crochets. Un lien vers une note qui n'existe pas encore apparaît dans une autre couleur. Cliquez dessus pour la créer.",
    "es": "Las notas se enlazan entre sí con corchetes dobles. Un enlace a una nota que todavía no existe aparece de otro color. Haz clic en él para crearla.",
    "it": "Le note si collegano tra loro con doppie parentesi quadre. Un collegamento a una nota che non esiste ancora appare di un altro colore. Fai clic per crearla.",
    "pt": "As notas ligam-se umas às outras com colchetes duplos. Um link para uma nota que ainda não existe aparece noutra cor. Clique nele para criar a nota.",
    "nl": "Notities verwijzen naar elkaar met dubbele vierkante haken. Een link naar een notitie die nog niet bestaat krijgt een andere kleur. Klik erop om haar te maken.",
    "sv": "Anteckningar länkar till varandra med dubbla hakparenteser. En länk till en anteckning som inte finns än visas i en annan färg. Klicka på den för att skapa den.",
    "da": "Noter linker til hinanden med dobbelte firkantede parenteser. Et link til en note, der endnu ikke findes, vises i en anden farve. Klik på det for at oprette noten.",
    "nb": "Notater lenker til hverandre med doble hakeparenteser. En lenke til et notat som ikke finnes ennå vises i en annen farge. Klikk på den for å lage notatet.",
    "fi": "Muistiinpanot linkittyvät toisiinsa kaksinkertaisilla hakasulkeilla. Linkki muistiinpanoon, jota ei vielä ole, näkyy eri värillä. Napsauta sitä luodaksesi sen.",
    "pl": "Notatki łączą się ze sobą podwójnymi nawiasami kwadratowymi. Link do notatki, która jeszcze nie istnieje, ma inny kolor. Kliknij go, aby ją utworzyć.",
    "cs": "Poznámky se na sebe odkazují dvojitými hranatými závorkami. Odkaz na poznámku, která ještě neexistuje, má jinou barvu. Klepnutím ji vytvoříte.",
    "hu": "A jegyzetek dupla szögletes zárójellel hivatkoznak egymásra. Egy még nem létező jegyzetre mutató hivatkozás más színnel jelenik meg. Kattintson rá a létrehozásához.",
    "ro": "Notițele se leagă între ele cu paranteze pătrate duble. Un link către o notiță care încă nu există apare în altă culoare. Dați clic pe el pentru a o crea.",
    "tr": "Notlar birbirine çift köşeli parantezlerle bağlanır. Henüz var olmayan bir nota giden bağlantı başka bir renkte görünür. Oluşturmak için üzerine tıklayın.",
    "el": "Οι σημειώσεις συνδέονται μεταξύ τους με διπλές αγκύλες. Ένας σύνδεσμος προς σημείωση που δεν υπάρχει ακόμη εμφανίζεται με άλλο χρώμα. Πατήστε τον για να τη δημιουργήσετε.",
    "ru": "Заметки ссылаются друг на друга с помощью двойных квадратных скобок. Ссылка на заметку, которой ещё нет, показана другим цветом. Нажмите на неё, чтобы создать заметку.",
    "uk": "Нотатки посилаються одна на одну подвійними квадратними дужками. Посилання на нотатку, якої ще немає, має інший колір. Натисніть на нього, щоб створити нотатку.",
    "ar": "ترتبط الملاحظات ببعضها بأقواس مربعة مزدوجة. يظهر الرابط إلى ملاحظة غير موجودة بعد بلون مختلف. انقر عليه لإنشاء الملاحظة.",
    "he": "פתקים מקשרים זה לזה בסוגריים מרובעים כפולים. קישור לפתק שעדיין לא קיים מוצג בצבע אחר. לחצו עליו כדי ליצור את הפתק.",
    "fa": "یادداشت‌ها با کروشه‌های دوتایی به هم پیوند می‌خورند. پیوند به یادداشتی که هنوز وجود ندارد با رنگ دیگری نشان داده می‌شود. برای ساختن آن رویش کلیک کنید.",
    "hi": "नोट्स दोहरे वर्गाकार कोष्ठकों से एक-दूसरे से जुड़ते हैं। ऐसे नोट का लिंक जो अभी मौजूद नहीं है, दूसरे रंग में दिखता है। उसे बनाने के लिए उस पर क्लिक करें।",
    "bn": "নোটগুলো দ্বিগুণ বর্গাকার বন্ধনী দিয়ে একে অপরের সাথে যুক্ত হয়। এখনও নেই এমন নোটের লিঙ্ক অন্য রঙে দেখা যায়। নোটটি তৈরি করতে তাতে ক্লিক করুন।",
    "ta": "குறிப்புகள் இரட்டை சதுர அடைப்புக்குறிகளால் ஒன்றையொன்று இணைக்கின்றன. இன்னும் இல்லாத குறிப்புக்கான இணைப்பு வேறு நிறத்தில் தெரியும். அதை உருவாக்க அதன் மீது சொடுக்கவும்.",
    "th": "โน้ตเชื่อมโยงกันด้วยวงเล็บเหลี่ยมคู่ ลิงก์ไปยังโน้ตที่ยังไม่มีอยู่จะแสดงเป็นสีอื่น คลิกที่ลิงก์เพื่อสร้างโน้ตนั้น",
    "vi": "Các ghi chú liên kết với nhau bằng dấu ngoặc vuông kép. Liên kết tới một ghi chú chưa tồn tại được hiển thị bằng màu khác. Nhấp vào đó để tạo ghi chú.",
    "id": "Catatan saling terhubung dengan kurung siku ganda. Tautan ke catatan yang belum ada ditampilkan dengan warna lain. Klik tautan itu untuk membuat catatannya.",
    "zh": "笔记之间用双方括号互相链接。指向尚不存在的笔记的链接会以另一种颜色显示。点击它即可创建这条笔记。",
    "zh-tw": "筆記之間以雙方括號彼此連結。指向尚未存在之筆記的連結會以不同顏色顯示。點擊即可建立該筆記。",
    "ja": "ノートは二重の角括弧で互いにリンクします。まだ存在しないノートへのリンクは別の色で表示されます。クリックするとそのノートが作成されます。",
    "ko": "노트는 이중 대괄호로 서로 연결됩니다. 아직 존재하지 않는 노트로 가는 링크는 다른 색으로 표시됩니다. 클릭하면 노트가 만들어집니다.",
    "km": "កំណត់ចំណាំភ្ជាប់គ្នាដោយប្រើតង្កៀបការ៉េពីរ។ តំណទៅកំណត់ចំណាំដែលមិនទាន់មាន បង្ហាញជាពណ៌ផ្សេង។ ចុចលើវាដើម្បីបង្កើតកំណត់ចំណាំនោះ។",
}
_SENTENCE_END = re.compile(r"(?<=[.!?。！？។।])\s*|\s{2,}|(?<=[ก-๛])\s(?=[ก-๛])")


def second_sentence(text: str) -> str:
    parts = [p.strip() for p in _SENTENCE_END.split(text) if p and p.strip()]
    return parts[1]


def test_33_languages_each_note_is_found_by_a_sentence_copied_from_it(empty_vault):
    assert len(LANGUAGES) == 33
    for lang, text in LANGUAGES.items():
        (empty_vault / f"Help {lang}.md").write_text(f"# {lang}\n\n{text}\n", encoding="utf-8")
    svc = make_service(empty_vault)
    misses = {}
    for lang, text in LANGUAGES.items():
        query = second_sentence(text)
        top = [r["path"] for r in svc.search(query, limit=3)["results"]]
        if f"Help {lang}.md" not in top:
            misses[lang] = (query, top)
    assert misses == {}
    svc.close()


def test_every_sample_vault_note_is_found_by_a_sentence_copied_from_it(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE, vault)
    svc = make_service(vault)
    checked, misses = 0, {}
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        body = parse_note(rel, path.read_bytes()).body
        # a sentence of the prose: not a heading, list of links or table
        lines = [
            ln.strip()
            for ln in body.splitlines()
            if ln.strip() and not ln.lstrip().startswith(("#", "|", "-", "*", ">", "!"))
        ]
        sentences = [
            s.strip() for ln in lines for s in re.split(r"(?<=[.!?])\s+", ln) if len(s.split()) >= 6 and "[[" not in s
        ]
        if not sentences:
            continue
        query = sentences[len(sentences) // 2]
        checked += 1
        scope = "archive" if rel.startswith("Archive/") else "all"  # "all" leaves archived memories out
        top = [r["path"] for r in svc.search(query, limit=3, scope=scope)["results"]]
        if rel not in top:
            misses[rel] = (query, top)
    assert checked >= 30 and misses == {}
    svc.close()
