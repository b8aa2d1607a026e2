"""A repeat reinforces only a memory the saving project sees: its own or a shared one."""

from __future__ import annotations

from conftest import make_service


def test_a_repeat_in_another_project_is_a_new_memory(empty_vault):
    svc = make_service(empty_vault)
    try:
        first = svc.save("Our build system is Bazel 7 for every backend service.", project="atlas")["note"]
        other = svc.save("For every backend service our build system is Bazel 7.", project="borealis")
        assert other["reinforced"] is False and other["note"]["id"] != first["id"]
        assert other["note"]["project"] == "borealis"
        same = svc.save("For every backend service our build system is Bazel 7.", project="atlas")
        assert same["reinforced"] is True and same["repeat_of"]["id"] == first["id"]
        shared = svc.save("The user prefers short answers without preamble.")["note"]
        again = svc.save("Without preamble, the user prefers short answers.", project="borealis")
        assert again["reinforced"] is True and again["repeat_of"]["id"] == shared["id"]
        batch = svc.save_many([{"text": "Our build system is Bazel 7 for all backend services."}], project="borealis")
        item = batch["results"][0] if "results" in batch else batch["items"][0]
        assert item.get("repeat_of", {}).get("id") != first["id"]
    finally:
        svc.close()
