"""A labelled set for repeat recognition (a save whose meaning is already held), written for
this project: the tuning part. The held-out part is repeat_held_out.py.

PARAPHRASES: (kind, stored memory, new memory): the same fact in other words, no detail added
or changed; the save should reinforce the stored memory. kind says how it was reworded:
"order" (the same words moved), "words" (other words for the same thing), "voice" (said from
another side: "X owns Y" / "Y is owned by X"), "casual" (the way an assistant repeats a fact
it recalled, a little looser).
DIFFERENT: (kind, stored memory, new memory): close to the stored memory but another fact;
the save should be a new memory. kind is what differs: "number", "name", "negation",
"version", "detail" (the same fact with a detail added), "subject" (the same statement about
another thing), "attribute" (the same thing, another property).

The vault holds every stored memory here and in repeat_held_out.py, plus the update set's
background (update_negatives.BACKGROUND); each new memory is checked against it alone.
"""

from __future__ import annotations

PARAPHRASES: list[tuple[str, str, str]] = [
    ("order", "The team standup is at 9:30 every weekday", "Every weekday the team standup is at 9:30"),
    ("voice", "Marta owns the billing on-call rotation", "The billing on-call rotation is owned by Marta"),
    ("words", "Redis session TTL is 30 minutes", "Sessions in Redis expire after 30 minutes"),
    ("words", "The staging database runs Postgres 16", "Staging uses Postgres 16 for its database"),
    ("casual", "Lena takes oat milk in her coffee", "Lena likes her coffee with oat milk"),
    ("words", "Production deploys are frozen on Friday afternoons", "No production deploys on Friday afternoons"),
    ("voice", "Priya prefers async code reviews", "Async code reviews are what Priya prefers"),
    (
        "words",
        "The API rate limit for partners is 600 requests per minute",
        "Partners may send 600 API requests a minute",
    ),
    ("casual", "My dentist is Dr. Okafor", "I go to Dr. Okafor for dental care"),
    ("order", "On Tuesdays the kids have swimming lessons", "The kids have swimming lessons on Tuesdays"),
    ("words", "We use uv to manage Python environments", "Python environments are managed with uv"),
    ("words", "The office closes at 7 pm", "The office shuts at 7 pm"),
    ("casual", "Feature flags live in LaunchDarkly", "We keep our feature flags in LaunchDarkly"),
    (
        "words",
        "Terraform state is stored in the infra-tfstate bucket",
        "The infra-tfstate bucket holds our Terraform state",
    ),
    ("words", "The quarterly planning meeting lasts two hours", "Quarterly planning takes 2 hours"),
    ("casual", "Sam is allergic to peanuts", "Sam has a peanut allergy"),
    ("words", "The backup job runs every night at 2 am", "Backups run nightly at 2 am"),
    ("voice", "Helen Park sponsors the Atlas project", "The Atlas project's sponsor is Helen Park"),
    ("words", "My passport expires in March 2029", "My passport is valid until March 2029"),
    ("casual", "The cat needs her thyroid pill every morning", "Every morning the cat gets her thyroid pill"),
    ("words", "The CI pipeline takes about 12 minutes", "A CI run lasts roughly 12 minutes"),
    (
        "words",
        "Grafana dashboards are provisioned from the infra repo",
        "The infra repo provisions our Grafana dashboards",
    ),
    ("casual", "I prefer aisle seats on flights", "On planes I like to sit on the aisle"),
    ("words", "The guest Wi-Fi password is sunflower88", "Password for the guest Wi-Fi: sunflower88"),
    ("words", "Dana is my manager", "I report to Dana"),
    ("casual", "The car's next service is due at 60000 km", "The car needs its next service at 60000 km"),
    ("words", "Invoices are due within 30 days", "Payment terms on invoices are 30 days"),
    ("order", "For the monorepo we use pnpm workspaces", "We use pnpm workspaces for the monorepo"),
    ("words", "The research cluster GPU quota is 8 A100s", "Our GPU quota on the research cluster is 8 A100 cards"),
    ("casual", "Jonas speaks fluent Japanese", "Jonas is fluent in Japanese"),
    ("words", "The mobile app supports iOS 16 and later", "The mobile app needs at least iOS 16"),
    ("words", "Our main customer database is in eu-west-1", "The primary customer database lives in eu-west-1"),
    ("casual", "The sourdough starter is fed twice a day", "I feed the sourdough starter two times a day"),
    ("voice", "Raj administers the Kubernetes cluster", "The Kubernetes cluster admin is Raj"),
    ("words", "The library books are due back on 12 May", "The library books have to be returned by 12 May"),
    ("words", "Code reviews need two approvals before merging", "Merging requires 2 approving reviews"),
    ("casual", "Alice is vegetarian", "Alice does not eat meat"),
    ("words", "The search reindex takes 40 minutes", "Reindexing search takes 40 minutes"),
    ("words", "We deploy the frontend to Vercel", "The frontend is deployed on Vercel"),
    ("casual", "I take the 8:15 train to work", "My train to work leaves at 8:15"),
    ("words", "The parking garage closes at midnight", "The parking garage is shut from midnight"),
    ("order", "In winter the heating is set to 20 degrees", "The heating is set to 20 degrees in winter"),
    ("words", "Logs are kept for 14 days", "Log retention is 14 days"),
    (
        "casual",
        "The kitchen tap drips when it is turned fully left",
        "Turning the kitchen tap all the way left makes it drip",
    ),
    ("words", "Tom is the point of contact for the Acme account", "For the Acme account, talk to Tom"),
    ("words", "The team retro happens every second Thursday", "Every other Thursday the team holds its retro"),
    ("casual", "My blood type is O negative", "I have O negative blood"),
    ("words", "The bike lock code is 4719", "The code for the bike lock is 4719"),
    (
        "words",
        "Error budgets are reviewed at the monthly SRE meeting",
        "The monthly SRE meeting reviews the error budgets",
    ),
    ("casual", "Grandma's birthday is on 3 August", "Grandma was born on 3 August"),
]

DIFFERENT: list[tuple[str, str, str]] = [
    # a number changed
    ("number", "The team standup is at 9:30 every weekday", "The team standup is at 10:00 every weekday"),
    ("number", "Redis session TTL is 30 minutes", "Redis session TTL is 60 minutes"),
    ("number", "The office closes at 7 pm", "The office closes at 6 pm"),
    ("number", "The backup job runs every night at 2 am", "The backup job runs every night at 4 am"),
    ("number", "The CI pipeline takes about 12 minutes", "The CI pipeline takes about 25 minutes"),
    ("number", "Code reviews need two approvals before merging", "Code reviews need three approvals before merging"),
    ("number", "The bike lock code is 4719", "The bike lock code is 4791"),
    ("number", "Logs are kept for 14 days", "Logs are kept for 90 days"),
    ("number", "The research cluster GPU quota is 8 A100s", "The research cluster GPU quota is 16 A100s"),
    ("number", "The car's next service is due at 60000 km", "The car's next service is due at 75000 km"),
    # a name changed
    ("name", "Marta owns the billing on-call rotation", "Jonas owns the billing on-call rotation"),
    ("name", "My dentist is Dr. Okafor", "My dentist is Dr. Lindqvist"),
    ("name", "Raj administers the Kubernetes cluster", "Ivan administers the Kubernetes cluster"),
    ("name", "We deploy the frontend to Vercel", "We deploy the frontend to Netlify"),
    ("name", "Feature flags live in LaunchDarkly", "Feature flags live in Unleash"),
    ("name", "Tom is the point of contact for the Acme account", "Tom is the point of contact for the Globex account"),
    ("name", "Our main customer database is in eu-west-1", "Our main customer database is in us-east-1"),
    ("name", "Jonas speaks fluent Japanese", "Jonas speaks fluent Korean"),
    # negated
    ("negation", "Alice is vegetarian", "Alice is not vegetarian"),
    (
        "negation",
        "Production deploys are frozen on Friday afternoons",
        "Production deploys are not frozen on Friday afternoons",
    ),
    ("negation", "Sam is allergic to peanuts", "Sam is not allergic to peanuts"),
    ("negation", "The mobile app supports iOS 16 and later", "The mobile app no longer supports iOS 16"),
    ("negation", "I prefer aisle seats on flights", "I never take aisle seats on flights"),
    ("negation", "The parking garage closes at midnight", "The parking garage never closes"),
    ("negation", "Priya prefers async code reviews", "Priya does not like async code reviews"),
    ("negation", "Invoices are due within 30 days", "Invoices are not due within 30 days for public clients"),
    # a version changed
    ("version", "The staging database runs Postgres 16", "The staging database runs Postgres 15"),
    ("version", "The mobile app supports iOS 16 and later", "The mobile app supports iOS 17 and later"),
    ("version", "The build image uses Node 18", "The build image uses Node 20"),
    ("version", "The data team pins pandas 2.1", "The data team pins pandas 2.2"),
    ("version", "The API gateway is on Kong 3.4", "The API gateway is on Kong 3.6"),
    ("version", "Our Django apps run on Python 3.11", "Our Django apps run on Python 3.12"),
    # a detail added
    ("detail", "The team standup is at 9:30 every weekday", "The team standup is at 9:30 every weekday in room 4B"),
    ("detail", "Lena takes oat milk in her coffee", "Lena takes oat milk and two sugars in her coffee"),
    ("detail", "Sam is allergic to peanuts", "Sam is allergic to peanuts and carries an EpiPen"),
    (
        "detail",
        "The backup job runs every night at 2 am",
        "The backup job runs every night at 2 am and emails a report to ops",
    ),
    ("detail", "My passport expires in March 2029", "My passport expires in March 2029; the renewal takes six weeks"),
    (
        "detail",
        "The guest Wi-Fi password is sunflower88",
        "The guest Wi-Fi password is sunflower88 and the network is called GuestNet",
    ),
    (
        "detail",
        "Grafana dashboards are provisioned from the infra repo",
        "Grafana dashboards are provisioned from the infra repo by a nightly job",
    ),
    ("detail", "Dana is my manager", "Dana is my manager and also my mentor"),
    # the same statement about another subject
    ("subject", "Redis session TTL is 30 minutes", "Redis cache TTL is 30 minutes"),
    ("subject", "The office closes at 7 pm", "The gym closes at 7 pm"),
    ("subject", "Lena takes oat milk in her coffee", "Lena takes oat milk in her tea"),
    ("subject", "Sam is allergic to peanuts", "Sam is allergic to cats"),
    ("subject", "The library books are due back on 12 May", "The rental car is due back on 12 May"),
    ("subject", "The search reindex takes 40 minutes", "The full backup takes 40 minutes"),
    (
        "subject",
        "The kitchen tap drips when it is turned fully left",
        "The bathroom tap drips when it is turned fully left",
    ),
    ("subject", "In winter the heating is set to 20 degrees", "In summer the air conditioning is set to 20 degrees"),
    ("subject", "The staging database runs Postgres 16", "The analytics database runs Postgres 16"),
    ("subject", "Grandma's birthday is on 3 August", "Grandpa's birthday is on 3 August"),
    # the same thing, another property
    ("attribute", "The team standup is at 9:30 every weekday", "The team standup lasts fifteen minutes"),
    ("attribute", "Redis session TTL is 30 minutes", "Redis sessions are stored as JSON"),
    ("attribute", "The guest Wi-Fi password is sunflower88", "The guest Wi-Fi is slow in the meeting rooms"),
    ("attribute", "The car's next service is due at 60000 km", "The car needs new winter tyres"),
    ("attribute", "My passport expires in March 2029", "My passport is kept in the desk drawer"),
    (
        "attribute",
        "The team retro happens every second Thursday",
        "The team retro is run by a different person each time",
    ),
    ("attribute", "Helen Park sponsors the Atlas project", "Helen Park prefers short written updates"),
    ("attribute", "The cat needs her thyroid pill every morning", "The cat is scared of the vacuum cleaner"),
]
