"""The held-out part of the update kinds (update_kinds.py): policies reversed, values changed
with a verb of change, components replaced, and their near-misses, in the same forms.

Written after the detector's last change was chosen on update_kinds.py and
update_kinds_first_held_out.py, committed before it was measured, and never used to change it:
the bench reports its recall and precision as the figures that count for these kinds. Its
memories join the same vault.
"""

from __future__ import annotations

HELD_OUT_KIND_UPDATES: list[tuple[str, str, str, str]] = [
    ("policy", "reworded", "We send a weekly status email to the board", "We stopped sending the weekly status email"),
    ("policy", "reworded", "Guests may bring dogs into the café", "Dogs are no longer allowed in the café"),
    ("policy", "reworded", "I walk to the market every Sunday", "I quit walking to the Sunday market"),
    ("policy", "reworded", "The night shift gets a free dinner", "The free dinner for the night shift was scrapped"),
    ("policy", "reworded", "Contractors can use the company VPN", "Contractors lost access to the company VPN"),
    ("policy", "reworded", "The choir rehearses every Wednesday evening", "The Wednesday choir rehearsals ended"),
    (
        "policy",
        "reworded",
        "Expense reports need a manager signature",
        "Expense reports don't need a manager signature anymore",
    ),
    ("policy", "reworded", "We print boarding passes before every trip", "We stopped printing boarding passes"),
    ("change-verb", "reworded", "The museum pass costs 60 euros a year", "The museum pass went up to 75 euros a year"),
    (
        "change-verb",
        "reworded",
        "The bus to the airport runs every 20 minutes",
        "The airport bus was cut to every 40 minutes",
    ),
    (
        "change-verb",
        "reworded",
        "The book club meets for 90 minutes",
        "Book club meetings were lengthened to two hours",
    ),
    ("change-verb", "reworded", "The mortgage rate is 3.1 percent", "The mortgage rate was raised to 3.6 percent"),
    (
        "change-verb",
        "reworded",
        "The photo archive holds 40 thousand images",
        "The photo archive grew to 55 thousand images",
    ),
    (
        "change-verb",
        "reworded",
        "The internship lasts three months",
        "The internship was extended to six months",
    ),
    (
        "change-verb",
        "reworded",
        "The library opens at 9 on Saturdays",
        "Saturday opening at the library was pushed to 11",
    ),
    (
        "change-verb",
        "reworded",
        "The pricing cache holds entries for 5 minutes",
        "The pricing cache lifetime was doubled to 10 minutes",
    ),
    ("component", "reworded", "The invoicing tool is written in PHP", "The invoicing tool was rewritten in Kotlin"),
    (
        "component",
        "reworded",
        "We send event invitations with Eventbrite",
        "We replaced Eventbrite with Luma for event invitations",
    ),
    ("component", "reworded", "The kitchen has a gas stove", "The gas stove was swapped for an induction hob"),
    ("component", "reworded", "The company's video calls run on Zoom", "We moved video calls from Zoom to Google Meet"),
    (
        "component",
        "reworded",
        "The analytics site uses Google Analytics",
        "Google Analytics was retired in favour of Plausible",
    ),
    ("component", "reworded", "The mobile game engine is Unity", "The mobile game was ported to Godot"),
    ("component", "reworded", "The CMS for the shop is Magento", "The shop's CMS was migrated from Magento to Shopify"),
    ("component", "reworded", "I edit photos in Lightroom", "I switched from Lightroom to Darktable for photo editing"),
]

HELD_OUT_KIND_NEGATIVES: list[tuple[str, str]] = [
    ("We send a weekly status email to the board", "We stopped inviting the board to the sprint reviews"),
    ("Guests may bring dogs into the café", "The café's opening hours were extended to midnight"),
    ("I walk to the market every Sunday", "The market sells fresh fish on Sundays"),
    ("The night shift gets a free dinner", "The night shift starts at 22:00"),
    ("Contractors can use the company VPN", "The VPN client was upgraded on all laptops"),
    ("The choir rehearses every Wednesday evening", "The choir's conductor is Ana Moreira"),
    ("Expense reports need a manager signature", "Expense reports are filed in Expensify"),
    ("We print boarding passes before every trip", "We stopped checking in luggage on short trips"),
    ("The museum pass costs 60 euros a year", "The museum pass includes the temporary exhibitions"),
    ("The bus to the airport runs every 20 minutes", "The airport bus stop was moved across the street"),
    ("The book club meets for 90 minutes", "The book club switched to reading science fiction"),
    ("The mortgage rate is 3.1 percent", "The mortgage is with Caixa Geral"),
    ("The photo archive holds 40 thousand images", "The photo archive is backed up to a NAS"),
    ("The internship lasts three months", "The interns were moved to the second floor"),
    ("The library opens at 9 on Saturdays", "The library replaced its self-checkout machines"),
    ("The pricing cache holds entries for 5 minutes", "The pricing cache is keyed by user and locale"),
    ("The invoicing tool is written in PHP", "The invoicing tool's PDF templates were rewritten"),
    ("We send event invitations with Eventbrite", "Event invitations go out two weeks ahead"),
    ("The kitchen has a gas stove", "The kitchen tap was replaced last winter"),
    ("The company's video calls run on Zoom", "Zoom meetings are recorded for people on leave"),
    ("The analytics site uses Google Analytics", "The analytics dashboard was extended with a funnel report"),
    ("The mobile game engine is Unity", "The mobile game's soundtrack was rewritten by a new composer"),
    ("The CMS for the shop is Magento", "The shop's product photos were migrated to a CDN"),
    ("I edit photos in Lightroom", "I switched my camera to shoot raw files"),
]
