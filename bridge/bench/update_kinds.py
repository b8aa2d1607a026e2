"""Updates as people write them, for update detection (`may_supersede`): the tuning part.
The held-out part is update_kinds_held_out.py.

KIND_UPDATES: (kind, phrasing, old memory, new memory) as update_set.UPDATES, of three kinds
a reworded update often takes:
- "policy": a policy or habit reversed ("we stopped doing X", "no longer", "dropped");
- "change-verb": a value changed, said with a verb of change ("was extended to", "went up to");
- "component": a component replaced ("was rewritten in", "we replaced X with Y", "moved off").
KIND_NEGATIVES: (related memory, new memory): near-misses that look like those updates (the
same verbs, the same subject or the same kind of sentence) but replace nothing: a change to
another subject, another attribute of the same one, or a fact that holds beside the old one.
"""

from __future__ import annotations

KIND_UPDATES: list[tuple[str, str, str, str]] = [
    # a policy or habit reversed
    (
        "policy",
        "reworded",
        "We run load tests before every major release",
        "We stopped running load tests before major releases",
    ),
    (
        "policy",
        "reworded",
        "Every pull request needs two approvals",
        "We dropped the two-approval rule for pull requests",
    ),
    (
        "policy",
        "reworded",
        "The team holds a retro every two weeks",
        "We stopped doing the biweekly retros",
    ),
    ("policy", "reworded", "I drink a glass of wine with dinner", "I quit drinking wine with dinner"),
    (
        "policy",
        "reworded",
        "Remote work is allowed two days a week",
        "The company ended remote work; everyone is back in the office full time",
    ),
    (
        "policy",
        "reworded",
        "We write design docs for every new service",
        "We no longer write design docs for new services",
    ),
    (
        "policy",
        "reworded",
        "The kids get pocket money every Saturday",
        "We stopped giving the kids weekly pocket money",
    ),
    (
        "policy",
        "reworded",
        "Releases are cut from the main branch every second Thursday",
        "We gave up the biweekly release train; releases ship continuously from main",
    ),
    ("policy", "reworded", "Visitors must sign in at reception", "Visitors don't need to sign in at reception anymore"),
    ("policy", "reworded", "We pair program on every bug fix", "Pair programming on bug fixes was abandoned"),
    ("policy", "reworded", "I go to pottery class on Mondays and Thursdays", "I cancelled my pottery classes"),
    (
        "policy",
        "reworded",
        "The nightly integration tests block the morning release",
        "The nightly integration tests are no longer a gate for the morning release",
    ),
    # a value changed, said with a verb of change
    (
        "change-verb",
        "reworded",
        "The free trial lasts 14 days",
        "The free trial was extended to 30 days",
    ),
    (
        "change-verb",
        "reworded",
        "The grant report is due on 15 March",
        "The grant report deadline was pushed back to 2 April",
    ),
    (
        "change-verb",
        "reworded",
        "The monthly Spotify family plan costs 16 euros",
        "Spotify family went up to 18 euros a month",
    ),
    (
        "change-verb",
        "reworded",
        "The database query timeout is 30 seconds",
        "The database query timeout was cut to 10 seconds",
    ),
    (
        "change-verb",
        "reworded",
        "The build cache keeps artifacts for 7 days",
        "Build cache retention was bumped to 21 days",
    ),
    ("change-verb", "reworded", "The data team has 6 analysts", "The data team grew to 9 analysts"),
    (
        "change-verb",
        "reworded",
        "Our Slack message retention is one year",
        "Slack retention was shortened to 90 days",
    ),
    (
        "change-verb",
        "reworded",
        "The swimming pool opens at 7 am on weekdays",
        "The pool's weekday opening was moved earlier to 6 am",
    ),
    (
        "change-verb",
        "reworded",
        "The quarterly sales target is 2 million euros",
        "The quarterly sales target was revised down to 1.5 million",
    ),
    (
        "change-verb",
        "reworded",
        "The office lease runs until June 2026",
        "The office lease was renewed until June 2028",
    ),
    (
        "change-verb",
        "reworded",
        "The support hotline is open until 6 pm",
        "Support hotline hours were expanded to 9 pm",
    ),
    (
        "change-verb",
        "reworded",
        "Our cloud bill is about 40k dollars a month",
        "The monthly cloud bill doubled to about 80k dollars",
    ),
    # a component replaced
    (
        "component",
        "reworded",
        "The notification service is written in Ruby",
        "The notification service was rewritten in Go",
    ),
    ("component", "reworded", "We use Jenkins for CI", "We replaced Jenkins with GitHub Actions"),
    (
        "component",
        "reworded",
        "The search backend is Solr",
        "We moved search off Solr onto Typesense",
    ),
    ("component", "reworded", "The desktop app is built with Electron", "The desktop app was rebuilt in Tauri"),
    (
        "component",
        "reworded",
        "Our metrics are stored in InfluxDB",
        "Metrics storage was swapped from InfluxDB to Prometheus",
    ),
    ("component", "reworded", "The home router is a Fritzbox 7490", "The Fritzbox gave way to a new Eero mesh router"),
    (
        "component",
        "reworded",
        "The frontend uses Webpack for bundling",
        "The frontend's bundler was switched over to Vite",
    ),
    ("component", "reworded", "The task queue runs on Celery", "Celery was retired; background jobs run on Temporal"),
    ("component", "reworded", "The blog runs on WordPress", "The blog was ported to Hugo"),
    (
        "component",
        "reworded",
        "Authentication goes through our own login service",
        "Our own login service was replaced by Auth0",
    ),
    ("component", "reworded", "I write my notes in Evernote", "I migrated all my notes from Evernote to Obsidian"),
    ("component", "reworded", "The payments provider is Adyen", "Payments now go through Stripe instead of Adyen"),
]

KIND_NEGATIVES: list[tuple[str, str]] = [
    # the same verbs, about something else
    ("We run load tests before every major release", "We stopped the Friday afternoon team drinks before releases"),
    ("Every pull request needs two approvals", "We dropped the PR template's screenshot section"),
    ("The team holds a retro every two weeks", "We stopped inviting stakeholders to sprint demos"),
    ("I drink a glass of wine with dinner", "I quit smoking three years ago"),
    ("The free trial lasts 14 days", "The beta programme was extended to partner companies"),
    ("The grant report is due on 15 March", "The kickoff meeting was pushed back to next week"),
    ("The database query timeout is 30 seconds", "The database backups were moved to a new bucket"),
    ("The data team has 6 analysts", "The design team grew to 4 people"),
    ("The notification service is written in Ruby", "The invoice PDF generator was rewritten in Go"),
    ("We use Jenkins for CI", "We replaced the office coffee machine with a new one"),
    ("The desktop app is built with Electron", "The desktop app's onboarding screens were rebuilt"),
    ("The blog runs on WordPress", "The company wiki was ported to Notion"),
    # the same subject, another attribute (a fact beside the old one)
    ("We run load tests before every major release", "Load tests run against the staging cluster"),
    ("Every pull request needs two approvals", "Pull requests are labelled by the area they touch"),
    ("Remote work is allowed two days a week", "Remote workers get a 300 euro equipment budget"),
    ("We write design docs for every new service", "Design docs are stored in the architecture folder of the wiki"),
    ("The kids get pocket money every Saturday", "The kids save their pocket money in a jar"),
    ("Visitors must sign in at reception", "Reception is staffed from 8 am to 6 pm"),
    ("The free trial lasts 14 days", "The free trial includes all premium features"),
    ("The swimming pool opens at 7 am on weekdays", "The swimming pool has a sauna in the basement"),
    ("Our Slack message retention is one year", "Slack is connected to our Jira instance"),
    ("The notification service is written in Ruby", "The notification service sends its emails through SES"),
    ("We use Jenkins for CI", "The Jenkins server runs on a VM in the basement rack"),
    ("The search backend is Solr", "Solr indexes are snapshotted to S3 nightly"),
    ("Our metrics are stored in InfluxDB", "Metrics are sampled every 15 seconds"),
    ("The task queue runs on Celery", "Celery workers autoscale between 2 and 10 pods"),
    ("The payments provider is Adyen", "Adyen pays out to our account every Wednesday"),
    # a change that holds beside the old fact (it changes something else)
    ("The team holds a retro every two weeks", "The retro format was changed to start with a round of kudos"),
    ("The office lease runs until June 2026", "The landlord replaced the office boiler last month"),
    ("The support hotline is open until 6 pm", "Support tickets were moved to a new queue for enterprise customers"),
    ("Our cloud bill is about 40k dollars a month", "Our cloud bill is now split by team in the cost dashboard"),
    ("The frontend uses Webpack for bundling", "The frontend's test runner was switched to Vitest"),
    ("I write my notes in Evernote", "I switched my phone's keyboard to Gboard"),
    ("Authentication goes through our own login service", "The login page was redesigned with the new brand colours"),
    ("The home router is a Fritzbox 7490", "The Wi-Fi network was renamed to Casa-5G"),
    ("The quarterly sales target is 2 million euros", "The sales team moved to a new floor"),
]
