"""The bench table, with each figure's target beside it."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _f(value: float | None, fmt: str = "{:.3f}") -> str:
    if value is None or value != value:  # None or NaN
        return "-"
    return fmt.format(value)


def _cost(r: dict[str, Any]) -> float | None:
    plain = r.get("cold_index_no_trigram_s")
    return r["cold_index_s"] / plain - 1 if plain else None


def rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    out = [
        ("notes", str(r["vault"].get("notes")), ""),
        ("floor: read+parse+FTS5 (s)", _f(r["floor_s"]), ""),
        ("cold index (s)", _f(r["cold_index_s"]), "< 3 s at 10k"),
        (
            "cold index / floor: wall clock, CPU",
            f"{_f(r['cold_ratio_to_floor'], '{:.2f}x')}, {_f(r.get('cold_cpu_ratio_to_floor'), '{:.2f}x')}",
            "<= 3x",
        ),
        (
            "  the same without the trigram index (s) / cost of it",
            f"{_f(r.get('cold_index_no_trigram_s'))} / {_f(_cost(r), '{:+.1%}')}",
            "within 10%",
        ),
    ]
    if "code_heavy" in r:
        c = r["code_heavy"]
        out += [
            (
                f"code-heavy vault ({c['with_code']} of {c['notes']} notes hold code): floor / cold index (s)",
                f"{_f(c['floor_s'])} / {_f(c['cold_index_s'])}",
                "",
            ),
            (
                "  cold index / floor: wall clock, CPU",
                f"{_f(c['ratio'], '{:.2f}x')}, {_f(c.get('cpu_ratio'), '{:.2f}x')}",
                "<= 3x",
            ),
        ]
    out += [
        ("no-change restart (s)", _f(r["restart_s"]), "< 0.5 s at 10k"),
        (
            "edit-to-searchable p50 / p95 (ms)",
            f"{_f(r['edit_to_searchable_ms']['p50'], '{:.1f}')} / {_f(r['edit_to_searchable_ms']['p95'], '{:.1f}')}",
            "p95 < 150 ms",
        ),
        (
            "full-text search p50 / p95 (ms)",
            f"{_f(r['fulltext']['p50_ms'], '{:.2f}')} / {_f(r['fulltext']['p95_ms'], '{:.2f}')}",
            "p50 < 5 ms",
        ),
        (
            "full-text recall@5 / MRR",
            f"{_f(r['fulltext']['recall_at_5'], '{:.2f}')} / {_f(r['fulltext']['mrr'], '{:.2f}')}",
            "",
        ),
        (
            "brief 800 tokens, model off: p50 no topic / topic (ms)",
            f"{_f(r.get('brief', {}).get('p50_ms'), '{:.1f}')} / "
            f"{_f(r.get('brief', {}).get('topic_p50_ms'), '{:.1f}')}",
            "< 50 ms at 10k",
        ),
        ("sweep (s) / written", f"{_f(r['sweep']['seconds'])} / {r['sweep']['written']}", ""),
        (
            "second sweep (s) / written",
            f"{_f(r['sweep']['second_seconds'])} / {r['sweep']['second_written']}",
            "0 written",
        ),
        (
            "sweep an hour later (s) / written",
            f"{_f(r['sweep']['hour_later_seconds'])} / {r['sweep']['hour_later_written']}",
            "",
        ),
    ]
    if "stm_sweep" in r:
        s = r["stm_sweep"]
        out += [
            (
                f"sweep of {s['notes']} STM notes (s) / written",
                f"{_f(s['seconds'])} / {s['written']}",
                "< 2 s at 10k STM",
            ),
            (
                "  floor: bare atomic rewrite (s) / ratio",
                f"{_f(s['floor_s'])} / {_f(s['ratio_to_floor'], '{:.2f}x')}",
                "",
            ),
            ("  second sweep (s) / written", f"{_f(s['second_seconds'])} / {s['second_written']}", "0 written"),
        ]
    if "quiet_day" in r:
        q = r["quiet_day"]
        u, t, x = q["untouched"], q["touched"], q["exact"]
        out += [
            (
                f"file writes per STM note per simulated day, {u['notes']} notes, no use",
                _f(u["writes_per_note_per_day"], "{:.2f}"),
                "<= 1.0",
            ),
            (
                "  10% touched each hour: beyond the touches (of which score rewrites)",
                f"{_f(t['writes_per_note_per_day'], '{:.2f}')} ({_f(t['rewrites_per_note_per_day'], '{:.2f}')})",
                "<= 1.0",
            ),
            (
                "  score_refresh_hours 0 (the exact write-back of before)",
                _f(x["writes_per_note_per_day"], "{:.1f}"),
                "",
            ),
        ]
    if "quiet_sweep" in r:
        q = r["quiet_sweep"]
        out += [
            (
                f"sweep of {q['notes']} unchanged STM notes, nothing due (s) / files written",
                f"{_f(q['seconds'], '{:.4f}')} / {q['files_changed']}",
                "< 0.1 s / 0",
            ),
            (
                "  floor: the STM rows read from the index (s) / ratio",
                f"{_f(q['floor_s'])} / {_f(q['ratio_to_floor'], '{:.3f}x')}",
                "",
            ),
            (
                "  first pass after a change: every row scored (s) / ratio",
                f"{_f(q['first_look_s'])} / {_f(q['first_look_ratio'], '{:.1f}x')}",
                "",
            ),
        ]
    if "import" in r:
        m = r["import"]
        out += [
            (
                f"import of {m['memories']} CortexGraph memories (s) / created",
                f"{_f(m['seconds'])} / {m['created']}",
                "< 10 s at 10k",
            ),
            (
                "  floor: parse + write + bare index (s) / ratio",
                f"{_f(m['floor_s'])} / {_f(m['ratio_to_floor'], '{:.2f}x')}",
                "",
            ),
            ("  the same import again (s) / created", f"{_f(m['rerun_seconds'])} / {m['rerun_created']}", "0 created"),
        ]
    out += [
        (
            "promote: candidates / moved / per s",
            f"{r['promote']['candidates']} / {r['promote']['moved']} / {_f(r['promote']['per_s'], '{:.1f}')}",
            "",
        ),
        (
            "gc: candidates / moved / per s",
            f"{r['gc']['candidates']} / {r['gc']['moved']} / {_f(r['gc']['per_s'], '{:.1f}')}",
            "",
        ),
    ]
    if "hybrid" in r:
        out += [
            (
                "hybrid search p50 / p95 (ms)",
                f"{_f(r['hybrid']['p50_ms'], '{:.1f}')} / {_f(r['hybrid']['p95_ms'], '{:.1f}')}",
                "p50 < 30 ms",
            ),
            (
                "hybrid recall@5 / MRR",
                f"{_f(r['hybrid']['recall_at_5'], '{:.2f}')} / {_f(r['hybrid']['mrr'], '{:.2f}')}",
                ">= 0.9",
            ),
            (
                "embedding: backfill / raw (notes/s)",
                f"{_f(r['embedding']['backfill_per_s'], '{:.1f}')} / {_f(r['embedding']['raw_per_s'], '{:.1f}')}",
                ">= 90% of raw",
            ),
        ]
    if "cli_search" in r:
        out.append(
            (
                "CLI search: direct / via daemon (s)",
                f"{_f(r['cli_search']['direct_s'], '{:.2f}')} / {_f(r['cli_search']['daemon_s'], '{:.2f}')}",
                "< 0.5 s / < 0.3 s",
            )
        )
    if "mcp" in r:
        m = r["mcp"]
        kind = "hybrid" if m["semantic"] else "full text"
        out += [
            (
                "mcp proxy: start to tools/list (s) / in-process",
                f"{_f(m['proxy_list_s'], '{:.2f}')} / {_f(m['in_process_list_s'], '{:.2f}')}",
                "< 0.5 s",
            ),
            (
                f"mcp proxy: first search, {kind} (ms) p50 / in-process",
                f"{_f(m['proxy_search_p50_ms'], '{:.0f}')} / {_f(m['in_process_search_ms'], '{:.0f}')}",
                "p50 < 100 ms",
            ),
            (
                "mcp proxy: first search right after the daemon starts (ms)",
                _f(m.get("first_after_daemon_start_search_ms"), "{:.0f}"),
                "no wait for the model",
            ),
            (
                "  the same search over the daemon's HTTP API p50 (ms)",
                _f(m.get("daemon_search_p50_ms"), "{:.0f}"),
                "the floor",
            ),
            (
                "mcp proxy: peak RSS (MB) / in-process",
                f"{_f(m['proxy_rss_mb'], '{:.0f}')} / {_f(m['in_process_rss_mb'], '{:.0f}')}",
                "< 80 MB",
            ),
        ]
    if "cold_start" in r:
        c = r["cold_start"]
        out += [
            (
                "cold start: relay starting the daemon, to tools/list (s) median / max",
                f"{_f(c['list_s'], '{:.2f}')} / {_f(c['list_max_s'], '{:.2f}')}",
                "< 2 s",
            ),
            (
                "cold start: first save_memory (ms) median / max" + (" (model loading)" if c["semantic"] else ""),
                f"{_f(c['first_save_ms'], '{:.0f}')} / {_f(c['first_save_max_ms'], '{:.0f}')}",
                "< 200 ms",
            ),
        ]
        if "first_call_save_ms" in c:
            out.append(
                (
                    "cold start: save as the session's first call (ms) median / max, x a bare python start",
                    f"{_f(c['first_call_save_ms'], '{:.0f}')} / {_f(c['first_call_save_max_ms'], '{:.0f}')}, "
                    f"x{_f(c['first_call_save_ratio_to_python_start'], '{:.0f}')}",
                    "< 1000 ms",
                )
            )
    for name, u in r.get("update_detection", {}).items():  # may_supersede on bridge/bench/update_set.py
        kind = "model" if name == "model" else "model off"
        held = u["held_out"]
        out += [
            (
                f"update detection, {kind}: recall / precision",
                f"{_f(u['recall'], '{:.2f}')} / {_f(u['precision'], '{:.2f}')}",
                ">= 0.85 / >= 0.9" if name == "model" else "",
            ),
            (
                "  false alarms / held out: recall, precision",
                f"{_f(u['false_alarms'], '{:.2f}')} / {_f(held['recall'], '{:.2f}')}, "
                f"{_f(held['precision'], '{:.2f}')}",
                "",
            ),
        ]
        if "kinds_held_out" in u:  # policy reversed, verb of change, component replaced
            kinds, held = u["kinds"], u["kinds_held_out"]
            out.append(
                (
                    f"  updates as written ({kind}), held out: recall / precision (tuning set)",
                    f"{_f(held['recall'], '{:.2f}')} / {_f(held['precision'], '{:.2f}')} "
                    f"({_f(kinds['recall'], '{:.2f}')} / {_f(kinds['precision'], '{:.2f}')})",
                    ">= 0.85 / >= 0.85" if name == "model" else "",
                )
            )
    for name, u in r.get("repeat_recognition", {}).items():  # ops/repeats.py on bridge/bench/repeat_set.py
        kind = "model" if name == "model" else "words only (model not loaded)"
        held = u["held_out"]
        out.append(
            (
                f"repeats, {kind}, held out: paraphrases reinforced / different facts kept apart (tuning set)",
                f"{_f(held['reinforced'], '{:.2f}')} / {_f(held['separate'], '{:.2f}')} "
                f"({_f(u['reinforced'], '{:.2f}')} / {_f(u['separate'], '{:.2f}')})",
                ">= 0.90 / >= 0.95" if name == "model" else "",
            )
        )
    rss = r.get("rss_mb", {})
    out.append(
        (
            "daemon RSS model off / on (MB)",
            f"{_f(rss.get('model_off'), '{:.0f}')} / {_f(rss.get('model_on'), '{:.0f}')}",
            "off < 150 MB",
        )
    )
    return out


def render(r: dict[str, Any]) -> None:
    t = Table(title="mnemovault bench")
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_column("target")
    for name, value, target in rows(r):
        t.add_row(name, value, target)
    Console().print(t)
