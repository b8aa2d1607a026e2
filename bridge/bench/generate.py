"""A deterministic, realistic vault: memories in every state, the person's notes, links."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from vault_sync.dates import format_datetime

SERVICES = [
    "atlas",
    "billing",
    "search",
    "ledger",
    "gateway",
    "auth",
    "metrics",
    "inbox",
    "render",
    "payments",
    "catalog",
    "notify",
    "scheduler",
    "vault",
    "export",
    "ingest",
    "profile",
    "orders",
    "pricing",
    "sync",
]
TECH = [
    "Postgres",
    "Redis",
    "Kafka",
    "SQLite",
    "Elasticsearch",
    "RabbitMQ",
    "S3",
    "DynamoDB",
    "Memcached",
    "ClickHouse",
    "Cassandra",
    "MySQL",
    "NATS",
    "Consul",
    "Vault",
    "Nginx",
    "Envoy",
    "Terraform",
    "Ansible",
    "Kubernetes",
]
PEOPLE = ["Marta", "Priya", "Sam", "Lena", "Tomas", "Aiko", "Dmitri", "Fatima", "Jonas", "Ines", "Kofi", "Ravi"]
TOPICS = [
    "deploys",
    "on-call",
    "database",
    "security",
    "frontend",
    "testing",
    "research",
    "hiring",
    "budget",
    "cooking",
    "travel",
    "fitness",
    "reading",
    "garden",
    "music",
    "tooling",
    "design",
    "release",
    "infra",
    "support",
]
FILLER = (
    "the team agreed that we should keep this in mind when planning next quarter and review it again after "
    "the migration because several people asked about it during standup and nobody remembered the exact "
    "details so writing it down here saves time later when the question comes back again"
).split()
VERBS = ["uses", "depends on", "moved to", "replaced", "caches data in", "stores events in", "talks to", "is backed by"]


@dataclass
class Generated:
    root: Path
    notes: int
    stm: int
    queries: list[tuple[str, str]]  # (query, expected path)


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(FILLER) for _ in range(n))


def _code(rng: random.Random, names: list[str]) -> str:
    """Code as notes about software hold it: inline spans and fenced, tilde and indented blocks,
    some inside list items, all holding text that looks like links and tags but is not."""
    fake = rng.choice(names) if names else "nothing"
    service, tech = rng.choice(SERVICES), rng.choice(TECH)
    parts = [f"Run `{service} --sync [[{fake}]]` first, or ``grep '#{service}' `log` `` when it fails."]
    for _ in range(rng.randint(1, 3)):
        lang = rng.choice(["python", "bash", "yaml", "sql", ""])
        lines = [
            f"# connect to {tech} #{service} [[{fake}]]",
            f"client = {tech.lower()}.connect('{service}')",
            f"rows = client.query('select * from {service} where tag = \"#{lang or 'x'}\"')",
            "for row in rows:",
            f"    print(row)  # see [docs](https://{service}.example/#setup)",
        ]
        body = "\n".join(lines[: rng.randint(2, len(lines))])
        form = rng.random()
        if form < 0.55:
            parts.append(f"```{lang}\n{body}\n```")
        elif form < 0.7:
            parts.append(f"~~~~{lang}\n{body}\n```\n~~~~")
        elif form < 0.85:
            parts.append(
                "1. Install it:\n\n   ```bash\n   pip install "
                + service
                + "  # [["
                + fake
                + "]]\n   ```\n2. Then run it."
            )
        else:
            parts.append("\n".join("    " + line for line in body.split("\n")))
        parts.append(_words(rng, rng.randint(10, 40)))
    return "\n\n".join(parts)


def generate(
    root: Path, n: int, now: datetime, seed: int = 7, stm_share: float = 0.4, code_share: float = 0.0
) -> Generated:
    """Write `n` notes under `root` (which must not exist); `code_share` of them hold code."""
    rng = random.Random(seed)
    root.mkdir(parents=True)
    for folder in ("STM", "LTM", "Archive", "Projects", "Daily", "Areas/People", "Areas/Home"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    names: list[str] = []
    queries: list[tuple[str, str]] = []
    stm = 0
    for i in range(n):
        service, tech, person = rng.choice(SERVICES), rng.choice(TECH), rng.choice(PEOPLE)
        code = f"{rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ')}{rng.randint(100, 999)}"
        fact = f"The {service} service {rng.choice(VERBS)} {tech} {code} since {person} changed it"
        title = f"{service.capitalize()} {tech} {code} {i}"
        tags = rng.sample(TOPICS, rng.randint(1, 3)) + ([f"project/{service}"] if rng.random() < 0.5 else [])
        body_words = rng.randint(50, 300)
        links = []
        if names:
            for _ in range(rng.randint(0, 4)):
                target = rng.choice(names)
                form = rng.random()
                if form < 0.5:
                    links.append(f"[[{target}]]")
                elif form < 0.7:
                    links.append(f"[[{target}|see this]]")
                elif form < 0.85:
                    links.append(f"[[{target}#Details]]")
                else:
                    links.append(f"![[{target}]]")
        body = f"{fact}. {_words(rng, body_words)}\n\n## Details\n\n{' '.join(links)} #{rng.choice(TOPICS)}\n"
        if code_share and rng.random() < code_share:
            body += "\n## How to\n\n" + _code(rng, names) + "\n"
        kind = rng.random()
        if kind < stm_share:
            folder, fm = "STM", _memory_fm(rng, now, tags)
            stm += 1
        elif kind < stm_share + 0.05:
            folder, fm = "LTM", _memory_fm(rng, now, tags, status="promoted")
        else:
            folder = rng.choice(["Projects", "Daily", "Areas/People", "Areas/Home", ""])
            fm = f"tags: [{', '.join(tags)}]\naliases: [{service} {code}]\n" if rng.random() < 0.6 else ""
        text = (f"---\n{fm}---\n" if fm else "") + body
        rel = f"{folder}/{title}.md" if folder else f"{title}.md"
        (root / rel).write_text(text, encoding="utf-8")
        names.append(title)
        if i % max(1, n // 200) == 0:
            queries.append((f"{service} {tech} {code}", rel))
    return Generated(root, n, stm, queries)


def _memory_fm(rng: random.Random, now: datetime, tags: list[str], status: str = "active") -> str:
    state = rng.random()
    if state < 0.2:  # fresh
        age, uses, strength = rng.uniform(0, 1), 1, 1.0
    elif state < 0.35:  # reinforced: promotion candidates
        age, uses, strength = rng.uniform(0, 2), rng.randint(3, 8), 1.2
    elif state < 0.6:  # fading into the danger zone
        age, uses, strength = rng.uniform(5, 25), rng.randint(1, 3), 1.0
    elif state < 0.8:  # due for GC
        age, uses, strength = rng.uniform(120, 400), 1, rng.uniform(0.3, 1.0)
    else:
        age, uses, strength = rng.uniform(2, 10), rng.randint(1, 2), 1.0
    last = now - timedelta(days=age)
    created = last - timedelta(days=rng.uniform(0, 30))
    tag_lines = "".join(f"  - {t}\n" for t in tags)
    return (
        f"id: {uuid.UUID(int=rng.getrandbits(128), version=4)}\ntags:\n{tag_lines}created: {format_datetime(created)}\n"
        f"last_used: {format_datetime(last)}\nuse_count: {uses}\nstrength: {strength:.2f}\nstatus: {status}\n"
        f"decay_score: 0.5\nreview_priority: 0.0\n"
    )
