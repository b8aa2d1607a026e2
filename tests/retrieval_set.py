"""Known-item retrieval set: questions a person would ask of sample-vault/, plus topical distractors.

QUERIES: (question, expected note path). Many share no word with their note (checked by the
test with the index's own stemmer). DISTRACTORS: notes on the same topics as the sample vault
(databases, on-call, coffee, research...), written into the test's temp copy of the vault so
that every target competes with near neighbours.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from pathlib import Path

QUERIES: list[tuple[str, str]] = [
    # paraphrases (mostly sharing no word with the note)
    ("is pre-prod already on the new database major version", "STM/Staging runs Postgres 16.md"),
    ("where do we manage switches that hide half-built work from users", "STM/Feature flags live in LaunchDarkly.md"),
    (
        "will tweaks to monitoring panels done in the browser stick",
        "STM/Grafana dashboards are provisioned from the infra repo.md",
    ),
    ("what dairy-free option should I order for my colleague's latte", "STM/Lena takes oat milk in her coffee.md"),
    ("who should I contact when invoicing breaks overnight", "STM/Marta owns billing on-call.md"),
    (
        "which typesetting layout does our manuscript follow, and how long may it be",
        "STM/Paper draft uses the ACL template.md",
    ),
    ("how long until a logged-in user's cache entry expires", "STM/Redis session TTL is 30 minutes.md"),
    ("how many graphics cards can our lab use at once", "STM/Research cluster GPU quota is 8 A100s.md"),
    ("what inflation should my racing bicycle tyres have", "STM/Road bike tire pressure is 80 psi.md"),
    ("how often should I feed the bread yeast jar", "STM/Sourdough starter feeding ratio.md"),
    (
        "which storage holds the infrastructure-as-code state file",
        "STM/Terraform state lives in the infra-tfstate bucket.md",
    ),
    ("where do we sleep during the Portugal trip", "STM/Conference hotel booking in Lisbon.md"),
    (
        "acceptable delay for event processing before someone gets woken up",
        "STM/Kafka consumer lag alert fires at 5000 messages.md",
    ),
    ("what is the throttling quota for outside developers", "STM/Atlas API rate limit is 600 requests per minute.md"),
    ("how did our recovery time compare with the target objective", "STM/Backup restore drill took 47 minutes.md"),
    ("my laptop can't reach intranet sites when remote access is on", "STM/VPN split tunneling breaks internal DNS.md"),
    ("which accommodation did we reserve abroad for the event", "STM/Conference hotel booking in Lisbon.md"),
    (
        "a colleague can't eat nuts, what should we check when we go out for a meal together",
        "STM/Team dinner venue must be peanut-free.md",
    ),
    ("how should a teammate who hates meetings receive feedback", "STM/Priya prefers async code reviews.md"),
    ("are we allowed to push to prod before the weekend", "STM/Production deploys freeze Friday afternoons.md"),
    ("which rules govern pull request turnaround", "LTM/Code review norms.md"),
    ("what do the brewing numbers for a double shot look like", "LTM/Espresso recipe.md"),
    ("which package manager replaces pip for us", "STM/Use uv for Python environments.md"),
    # questions sharing some words with their note
    ("how long does rebuilding the search index take", "STM/Atlas search reindex takes 40 minutes.md"),
    (
        "how many calls per minute can a client make to our public endpoint",
        "STM/Atlas API rate limit is 600 requests per minute.md",
    ),
    ("how do we branch and merge code on Atlas", "STM/Atlas uses trunk-based development.md"),
    ("what grind setting for filter coffee", "STM/Coffee grinder setting 18 for pour-over.md"),
    ("when is the funding agency progress report due", "STM/Grant report is due December 15.md"),
    ("which restaurant is closed at the start of the week", "STM/Lunch place on 5th Street closes Mondays.md"),
    ("my two-sided print jobs hang at the office", "STM/Office printer needs the IPP driver.md"),
    ("what was the name of the old build server", "STM/Old Jenkins host was ci-legacy-01.md"),
    ("when do I need to renew my passport", "STM/Passport renewal due before March 2027.md"),
    ("can we ship to production late on a Friday", "STM/Production deploys freeze Friday afternoons.md"),
    ("what day is the weekly research group meeting now", "STM/Research sync moved to Tuesdays.md"),
    ("how should I post my weekly update for the manager", "STM/Sam wants weekly status in Slack.md"),
    ("how do I set up a virtual environment for a Python project", "STM/Use uv for Python environments.md"),
    ("the login test keeps failing randomly, is there a workaround", "STM/Workaround for the flaky login test.md"),
    ("what are the espresso shot ratios and temperature", "LTM/Espresso recipe.md"),
    ("who do I escalate to if the primary doesn't acknowledge a page", "LTM/On-call handbook.md"),
    ("how fast should code reviews be done and how big can a change be", "LTM/Code review norms.md"),
    ("what are the main services and data stores of the analytics platform", "LTM/Atlas architecture overview.md"),
]

# (folder, title, tags, body)
DISTRACTORS: list[tuple[str, str, list[str], str]] = [
    (
        "STM",
        "Analytics warehouse is ClickHouse",
        ["infra", "data"],
        "The analytics warehouse runs ClickHouse 24.3 on three shards; dashboards query it through the reporting API.",
    ),
    (
        "STM",
        "Local development uses SQLite",
        ["dev", "testing"],
        "For local development the test suite uses an in-memory SQLite database, so a laptop needs no database server.",
    ),
    (
        "STM",
        "QA environment is refreshed weekly",
        ["infra", "qa"],
        "The QA environment gets a fresh anonymised dump every Sunday night; test data added during the week is lost.",
    ),
    (
        "STM",
        "Database migrations run with Alembic",
        ["infra", "python"],
        "Schema migrations are Alembic revisions; run `alembic upgrade head` before starting the API after pulling.",
    ),
    (
        "STM",
        "Read replicas lag up to two seconds",
        ["infra", "postgres"],
        "Reads from the replica can be up to two seconds behind the primary; read-your-writes paths must use the primary.",
    ),
    (
        "STM",
        "Connection pool size is 20 per pod",
        ["infra", "postgres"],
        "PgBouncer allows 20 server connections per API pod; raise it in the Helm values, not in the app config.",
    ),
    (
        "STM",
        "Prometheus retention is 15 days",
        ["observability"],
        "Prometheus keeps metrics for 15 days; longer history lives in Thanos with 5-minute downsampling.",
    ),
    (
        "STM",
        "Alert routing goes through Alertmanager",
        ["observability", "on-call"],
        "Alertmanager routes critical alerts to PagerDuty and warnings to the #alerts Slack channel; silences expire after 4 hours.",
    ),
    (
        "STM",
        "Log search uses Loki",
        ["observability"],
        'Application logs go to Loki; query them in Grafana Explore with `{app="atlas-api"}` and a time range under a day.',
    ),
    (
        "STM",
        "Search team owns the indexer",
        ["people", "search"],
        "The search team owns atlas-indexer; questions about relevance tuning go to them, not to the platform team.",
    ),
    (
        "STM",
        "Payments provider is Stripe",
        ["billing"],
        "Customer payments go through Stripe; refunds over 500 EUR need a second approval in the finance tool.",
    ),
    (
        "STM",
        "Invoices are generated on the first of the month",
        ["billing"],
        "The billing job generates invoices on the first of each month at 02:00 UTC and emails them an hour later.",
    ),
    (
        "STM",
        "Holiday on-call rota is set in November",
        ["on-call", "process"],
        "The holiday on-call rota for December is agreed in the last week of November; swaps go through the team lead.",
    ),
    (
        "STM",
        "Incident postmortems within five days",
        ["process", "on-call"],
        "Every sev-1 or sev-2 incident gets a blameless postmortem within five working days, shared in #incidents.",
    ),
    (
        "STM",
        "Release notes are written by the PM",
        ["process", "deploys"],
        "Release notes for each customer-facing release are written by the product manager and published on Tuesdays.",
    ),
    (
        "STM",
        "Canary deploys get 5 percent of traffic",
        ["deploys", "project/atlas"],
        "A canary build receives 5% of traffic for 30 minutes before the rollout continues automatically.",
    ),
    (
        "STM",
        "Docker images are built by GitHub Actions",
        ["ci", "infra"],
        "Container images are built by GitHub Actions on every merge to main and pushed to the internal registry.",
    ),
    (
        "STM",
        "CI caches are keyed by the lockfile",
        ["ci"],
        "CI dependency caches are keyed by the lockfile hash; a cache miss adds about four minutes to a pipeline.",
    ),
    (
        "STM",
        "Merge requests need two approvals on the API",
        ["code-review", "project/atlas"],
        "Changes to atlas-api need two approvals, one from an owner listed in CODEOWNERS.",
    ),
    (
        "STM",
        "Style is enforced by ruff and gofmt",
        ["code-review", "tooling"],
        "Python style is enforced by ruff and Go style by gofmt in pre-commit; reviewers should not comment on formatting.",
    ),
    (
        "STM",
        "Node projects use pnpm",
        ["tooling", "javascript"],
        "JavaScript projects use pnpm workspaces; npm install in a workspace breaks the lockfile.",
    ),
    (
        "STM",
        "Jupyter notebooks are not committed",
        ["python", "research"],
        "Notebooks stay out of the repository; export the analysis to a script before opening a PR.",
    ),
    (
        "STM",
        "Type hints are required in new Python code",
        ["python", "code-review"],
        "New Python modules must pass mypy in strict mode; legacy modules are listed in the mypy exclude list.",
    ),
    (
        "STM",
        "Git commit messages follow conventional commits",
        ["git", "process"],
        "Commit messages use the conventional commits format (feat:, fix:, chore:) so the changelog can be generated.",
    ),
    (
        "STM",
        "Wifi password for guests is on the fridge",
        ["office", "it"],
        "Guests use the office-guest wifi; the weekly password is printed on the note on the kitchen fridge.",
    ),
    (
        "STM",
        "Laptops must have disk encryption",
        ["it", "security"],
        "Company laptops must have full-disk encryption turned on; IT checks it before granting access to production.",
    ),
    (
        "STM",
        "Meeting rooms are booked in the calendar",
        ["office", "meetings"],
        "Meeting rooms on the third floor are booked through the shared calendar; the big room seats twelve.",
    ),
    (
        "STM",
        "Monitor arms are available from facilities",
        ["office"],
        "Facilities hands out monitor arms and standing-desk converters; file a request in the facilities portal.",
    ),
    (
        "STM",
        "Tea preferences of the team",
        ["people", "life"],
        "Jonas drinks green tea without sugar and Amira likes chai with honey; buy loose-leaf tea, not bags.",
    ),
    (
        "STM",
        "Amira is vegetarian",
        ["people", "events"],
        "Amira is vegetarian; for team lunches order at least one vegetarian main, not just salad.",
    ),
    (
        "STM",
        "Jonas prefers email for decisions",
        ["people", "communication"],
        "Jonas wants decisions written down in an email after a meeting so he can find them later.",
    ),
    (
        "STM",
        "Kofi reviews infrastructure changes",
        ["people", "infra"],
        "Kofi reviews every Terraform change touching networking; tag him on the PR and give him a day.",
    ),
    (
        "STM",
        "Birthday cake order needs two days notice",
        ["life", "events"],
        "The bakery on Elm Street needs two days' notice for a birthday cake and can do gluten-free on request.",
    ),
    (
        "STM",
        "French press ratio",
        ["life/cooking", "coffee"],
        "French press: 30 g of coarse coffee to 500 ml of water just off the boil, steep four minutes, then press slowly.",
    ),
    (
        "STM",
        "Cold brew steeps overnight",
        ["life/cooking", "coffee"],
        "Cold brew: 100 g coarse coffee in one litre of cold water in the fridge for 16 hours, then filter through paper.",
    ),
    (
        "STM",
        "Coffee beans from the Saturday market",
        ["life/cooking", "coffee"],
        "The roaster at the Saturday market sells a washed Ethiopian that works best within three weeks of roasting.",
    ),
    (
        "STM",
        "Pizza dough hydration",
        ["life/cooking", "recipe"],
        "Pizza dough at 65% hydration with 2% salt, cold-fermented in the fridge for 48 hours, stretches without tearing.",
    ),
    (
        "STM",
        "Rye bread needs a long proof",
        ["life/cooking", "recipe"],
        "A 100% rye loaf needs a long final proof of about three hours and should rest a day before slicing.",
    ),
    (
        "STM",
        "Yogurt maker temperature",
        ["life/cooking"],
        "Homemade yogurt sets in about eight hours at 43 °C; keep two spoons of the last batch as the next starter.",
    ),
    (
        "STM",
        "Chain lube every 300 km",
        ["life/cycling"],
        "Lube the bike chain every 300 km or after any ride in the rain; wipe off the excess after ten minutes.",
    ),
    (
        "STM",
        "Mountain bike suspension sag",
        ["life/cycling"],
        "Set the mountain bike fork sag to 20% and the shock to 30%; check again after changing the riding weight.",
    ),
    (
        "STM",
        "Car tyres were changed to winter tyres",
        ["life/admin", "car"],
        "The car got its winter tyres in October at the garage on Mill Road; summer tyres are stored there until April.",
    ),
    (
        "STM",
        "Car insurance renews in February",
        ["life/admin", "deadlines"],
        "The car insurance renews automatically on February 1; compare quotes in January before it rolls over.",
    ),
    (
        "STM",
        "Driving licence photo must be updated",
        ["life/admin"],
        "The driving licence photo expires in 2028; the renewal form needs a new photo taken at an approved booth.",
    ),
    (
        "STM",
        "Train to the Berlin workshop",
        ["travel"],
        "Train tickets to the Berlin workshop are booked for the 08:12 from the central station, seat reservation included.",
    ),
    (
        "STM",
        "Flights are booked through the travel agency",
        ["travel", "process"],
        "Work flights must be booked through the university travel agency so they are covered by the travel insurance.",
    ),
    (
        "STM",
        "Per diem rates for conference travel",
        ["travel", "research/grant"],
        "Conference trips get the national per diem rate; keep every receipt and submit the claim within 30 days.",
    ),
    (
        "STM",
        "Reviewer comments on the journal paper",
        ["research/nlp", "writing"],
        "Reviewer 2 asked for an ablation without the retrieval component and a comparison with BM25 on the same data.",
    ),
    (
        "STM",
        "Dataset licence allows research use only",
        ["research", "data"],
        "The annotated corpus is licensed for research use only; it cannot be used in the company's product.",
    ),
    (
        "STM",
        "Thesis committee meets in January",
        ["research", "meetings"],
        "The thesis committee meeting is scheduled for the second week of January; send the chapter draft two weeks before.",
    ),
    (
        "STM",
        "Storage quota on the shared drive",
        ["research", "compute"],
        "Each group gets 5 TB on the shared research drive; old checkpoints should be moved to tape storage.",
    ),
    (
        "STM",
        "Ethics approval for the user study",
        ["research", "deadlines"],
        "The ethics board must approve the user study protocol before recruiting; the next board meeting is December 3.",
    ),
    (
        "STM",
        "Citation style is natbib",
        ["research/nlp", "writing"],
        "Use natbib with \\citet and \\citep; the bibliography lives in refs.bib and is shared across papers.",
    ),
    (
        "STM",
        "Slack channel for the reading group",
        ["research", "communication"],
        "The reading group discusses papers in #reading-group; the paper for the week is posted on Monday.",
    ),
    (
        "STM",
        "SSH keys are rotated yearly",
        ["security", "infra"],
        "SSH keys for servers are rotated every January; old keys are removed from the bastion automatically.",
    ),
    (
        "STM",
        "Secrets live in Vault",
        ["security", "infra"],
        "Application secrets live in HashiCorp Vault under `secret/atlas/`; never put them in environment files in the repo.",
    ),
    (
        "STM",
        "S3 buckets block public access",
        ["security", "infra"],
        "Every S3 bucket has public access blocked at the account level; sharing a file needs a presigned URL.",
    ),
    (
        "Notes",
        "Reading list",
        ["reading"],
        "# Reading list\n\nBooks to read next: a history of the bicycle, a book about bread baking, and one on distributed databases.",
    ),
    (
        "Notes",
        "Team offsite ideas",
        ["events"],
        "# Team offsite ideas\n\nA cooking class, a bike tour along the river, or a day in the mountains with a shared dinner.",
    ),
    (
        "Notes",
        "Home network setup",
        ["life", "networking"],
        "# Home network setup\n\nThe router hands out addresses from 192.168.1.100; the NAS is at .10 and the printer at .20.",
    ),
]


def write_distractors(vault: Path, now: datetime) -> list[str]:
    """Write the distractor notes into `vault`; returns their paths."""
    paths = []
    for i, (folder, title, tags, body) in enumerate(DISTRACTORS):
        target = vault / folder / f"{title}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        if folder == "STM":
            used = now - timedelta(hours=6 + (i * 37) % (24 * 12))
            created = used - timedelta(days=i % 9)
            fmt = "%Y-%m-%dT%H:%M:%SZ"
            text = (
                "---\n"
                f"id: {uuid.UUID(int=0xD15 << 64 | i)}\n"
                f"tags: [{', '.join(tags)}]\n"
                f"created: {created.strftime(fmt)}\n"
                f"last_used: {used.strftime(fmt)}\n"
                f"use_count: {1 + i % 3}\n"
                "strength: 1.0\n"
                "status: active\n"
                "---\n"
                f"{body}\n"
            )
        else:
            text = f"---\ntags: [{', '.join(tags)}]\n---\n{body}\n"
        target.write_text(text, encoding="utf-8")
        paths.append(f"{folder}/{title}.md")
    return paths


_SHARED: dict = {}


def shared_embedder():
    """One real model per test session (loading it takes seconds)."""
    if "embedder" not in _SHARED:
        from vault_sync.search.embeddings import Embedder

        embedder = Embedder()
        embedder.load()
        _SHARED["embedder"] = embedder
    return _SHARED["embedder"]


def semantic_service(vault: Path, embedder=None, **overrides):
    """A service over `vault` with embeddings on, using the shared model, fully embedded."""
    from conftest import make_service

    from vault_sync.index import queries
    from vault_sync.search.embeddings import backfill

    svc = make_service(vault, embeddings=True, **overrides)
    svc.use_embedder(embedder or shared_embedder())
    # vectors are keyed by content hash: reuse those computed by earlier tests (encoding is slow)
    known = _SHARED.setdefault("vectors", {})
    hashes = queries.content_hashes(svc.store)
    queries.add_embeddings(svc.store, svc.embedder.name, [(h, known[h]) for h in hashes if h in known])
    backfill(svc.engine)
    known.update(queries.embeddings_of(svc.store, svc.embedder.name))
    return svc
