"""Moving a note to a name that must be free: atomic, never clobbering."""

import pytest

from vault_sync import rename


@pytest.mark.parametrize("native", [True, False])
def test_rename_noreplace_never_overwrites_a_file(tmp_path, monkeypatch, native):
    if not native:
        monkeypatch.setattr(rename, "_renameat2", lambda: None)  # the portable link + unlink path
    a, b, c = tmp_path / "a.md", tmp_path / "b.md", tmp_path / "c.md"
    a.write_text("mine", encoding="utf-8")
    b.write_text("the person's", encoding="utf-8")
    with pytest.raises(FileExistsError):
        rename.rename_noreplace(a, b)
    assert b.read_text(encoding="utf-8") == "the person's" and a.exists()
    rename.rename_noreplace(a, c)
    assert not a.exists() and c.read_text(encoding="utf-8") == "mine"
