"""The first held-out part of the update kinds (update_kinds.py), now part of the tuning set.

Written and committed before the detector was changed for update_kinds.py; measured once with
that change (recall 0.96, precision 0.79, short of 0.85), then used to tune the next change,
so it no longer counts as held out: update_kinds_held_out.py, written afterwards, does.
"""

from __future__ import annotations

FIRST_KIND_UPDATES: list[tuple[str, str, str, str]] = [
    (
        "policy",
        "reworded",
        "We hold a bug bash the week before each release",
        "We stopped doing bug bashes before releases",
    ),
    (
        "policy",
        "reworded",
        "All meetings have a written agenda",
        "We dropped the written agenda requirement for meetings",
    ),
    ("policy", "reworded", "I eat meat only on weekends", "I stopped eating meat altogether"),
    ("policy", "reworded", "New hires shadow on-call for two weeks", "New hires no longer shadow on-call"),
    (
        "policy",
        "reworded",
        "The office is closed on the last Friday of the month",
        "The office stays open on the last Friday of the month from now on",
    ),
    ("policy", "reworded", "Customers get a paper invoice by post", "We stopped sending paper invoices to customers"),
    ("policy", "reworded", "The team demos its work every sprint", "Sprint demos were discontinued"),
    ("policy", "reworded", "I commute to work by car", "I gave up the car and cycle to work"),
    (
        "change-verb",
        "reworded",
        "The warranty on the laptops is 2 years",
        "The laptop warranty was extended to 3 years",
    ),
    ("change-verb", "reworded", "The conference is on 14 May", "The conference was postponed to 11 June"),
    ("change-verb", "reworded", "The daycare fee is 450 euros a month", "Daycare fees went up to 520 euros a month"),
    (
        "change-verb",
        "reworded",
        "Web login sessions expire after 12 hours of inactivity",
        "Web login session expiry was cut to 2 hours",
    ),
    (
        "change-verb",
        "reworded",
        "The on-call rotation is one week long",
        "The on-call rotation was lengthened to two weeks",
    ),
    (
        "change-verb",
        "reworded",
        "The bakery delivers bread until 10 am",
        "Bread delivery hours were extended until noon",
    ),
    (
        "change-verb",
        "reworded",
        "The support team's hiring plan is 5 agents this year",
        "The support team's hiring plan shrank to 2 agents",
    ),
    ("change-verb", "reworded", "The storage quota per user is 50 GB", "Per-user storage quota was raised to 200 GB"),
    ("component", "reworded", "The data pipeline is written in Scala", "The data pipeline was rewritten in Python"),
    ("component", "reworded", "We plan sprints in Jira", "We replaced Jira with Linear for sprint planning"),
    ("component", "reworded", "The website is hosted on Heroku", "We moved the website off Heroku to Fly.io"),
    ("component", "reworded", "The team chats on HipChat", "HipChat was retired and the team chats on Slack"),
    ("component", "reworded", "My tablet is an iPad Air", "I swapped my iPad Air for a Galaxy Tab S9"),
    ("component", "reworded", "The event bus is RabbitMQ", "The event bus was migrated from RabbitMQ to Kafka"),
    (
        "component",
        "reworded",
        "Our password manager is LastPass",
        "We switched password managers from LastPass to 1Password",
    ),
    ("component", "reworded", "The backend API is a Flask app", "The backend API was rebuilt on FastAPI"),
]

FIRST_KIND_NEGATIVES: list[tuple[str, str]] = [
    ("We hold a bug bash the week before each release", "We stopped publishing release notes on the blog"),
    ("All meetings have a written agenda", "Meeting notes are kept in the shared drive"),
    ("I eat meat only on weekends", "I stopped drinking soda last year"),
    ("New hires shadow on-call for two weeks", "New hires get a laptop on their first day"),
    ("The office is closed on the last Friday of the month", "The office canteen was moved to the second floor"),
    ("Customers get a paper invoice by post", "Customers can download invoices from the portal"),
    ("The team demos its work every sprint", "The sprint length was changed for the design team only"),
    ("I commute to work by car", "The car's registration was renewed in March"),
    ("The warranty on the laptops is 2 years", "The laptop refresh programme was extended to contractors"),
    ("The conference is on 14 May", "The conference venue is near the central station"),
    ("The daycare fee is 450 euros a month", "The daycare closes for two weeks in August"),
    ("Web login sessions expire after 12 hours of inactivity", "Session tokens are signed with RS256"),
    ("The on-call rotation is one week long", "The on-call handover was moved to Monday mornings"),
    ("The bakery delivers bread until 10 am", "The bakery was taken over by the owner's son"),
    ("The support team's hiring plan is 5 agents this year", "Two support agents were promoted to team lead this year"),
    ("The storage quota per user is 50 GB", "Storage usage is reported in the admin dashboard"),
    ("The data pipeline is written in Scala", "The data pipeline's tests were rewritten to use fixtures"),
    ("We plan sprints in Jira", "Jira tickets are linked from every commit message"),
    ("The website is hosted on Heroku", "We moved the company newsletter to Substack"),
    ("The team chats on HipChat", "The team replaced its weekly sync with a written update"),
    ("My tablet is an iPad Air", "I replaced the cracked screen protector on my tablet"),
    ("The event bus is RabbitMQ", "RabbitMQ queues are mirrored across three nodes"),
    ("Our password manager is LastPass", "We switched the shared email inbox to Front"),
    ("The backend API is a Flask app", "The backend API was extended with a bulk export endpoint"),
]
