"""Helpers of the crowd tests: a tutorial file, a small welcome form, a link's client."""

from __future__ import annotations

import json

WELCOME = {"title": "Before you start", "intro": "Two questions.",
           "questions": [{"id": "about", "type": "info", "title": "About", "text": "A study of translations."},
                         {"id": "consent", "type": "consent", "text": "I agree to take part."},
                         {"id": "age", "type": "choice", "text": "Your age range?", "required": True,
                          "options": ["18-25", "26-40", "41+"]},
                         {"id": "langs", "type": "multi", "text": "Languages you read?", "options": ["de", "fr"]},
                         {"id": "years", "type": "number", "text": "Years of reading German?", "min": 0, "max": 90},
                         {"id": "note", "type": "text", "text": "Anything else?", "max_length": 300}]}

# Two training items on an MQM campaign: one loud (an error to find), one silent (no error).
TUTORIAL_TRANSLATION = "Der Hund bellte die ganze Nacht laut."
TUTORIAL = {"required": True, "intro": "Practice first.",
            "items": [{"id": "t1", "mode": "loud", "source": "The cat meowed all night.",
                       "translation": TUTORIAL_TRANSLATION, "expected": {"span": [4, 8], "severity": "Major"},
                       "explanation": "“Hund” (dog) is not “cat”: a Major accuracy error."},
                      {"id": "t2", "mode": "silent", "source": "It rained.", "translation": "Es regnete.",
                       "expected": {"span": None}, "explanation": ""}]}


def welcome_text() -> str:
    return json.dumps(WELCOME)


def tutorial_text() -> str:
    return json.dumps(TUTORIAL)


def lait_answers(**given) -> dict:
    """A posted LAIT welcome form (``platform/enface/crowd/forms/lait.json``): consent, the first option of every
    choice and multi, a date, "text" in text questions; ``given``: question id -> answer (a choice's
    ``{"other": text}`` picks its free-text "Other")."""
    from enface.crowd.welcome import OTHER, load_form

    posted: dict = {}
    for q in load_form("lait").answerable:
        value = given.get(q.id)
        if q.type == "consent":
            posted[f"q_{q.id}"] = "yes"
        elif isinstance(value, dict):
            posted[f"q_{q.id}"], posted[f"q_{q.id}_other"] = OTHER, value["other"]
        elif value is not None:
            posted[f"q_{q.id}"] = value
        elif q.type == "choice":
            posted[f"q_{q.id}"] = q.options[0]
        elif q.type == "multi":
            posted[f"q_{q.id}"] = [q.options[0]]
        elif q.type == "date":
            posted[f"q_{q.id}"] = "2026-12-01"
        elif q.type == "text":
            posted[f"q_{q.id}"] = "text"
    return posted


GOOD_WELCOME_ANSWERS = {"q_consent": "yes", "q_age": "26-40", "q_langs": ["de"], "q_years": "12", "q_note": ""}


def arrive_by_links(world, campaign_id: int, n: int = 0, panel_ids: tuple[str, ...] = ()) -> list:
    """The organizer makes ``n`` links to the campaign (or one per panel id); each is opened (Start) in a fresh
    client: the clients, in the links' order."""
    org = world.client("org@example.org")
    form = {"panel_ids": "\n".join(panel_ids)} if panel_ids else {"count": str(n)}
    page = org.post(f"/campaigns/{campaign_id}/crowd/links", data=form).get_data(as_text=True)
    text = page.split('id="new-links-text">', 1)[1].split("</textarea>", 1)[0]
    clients = []
    for line in text.strip().splitlines()[1:]:
        url = line.split(",", 1)[1].replace("http://localhost", "")
        c = world.app.test_client()
        assert c.post(url).status_code == 302
        clients.append(c)
    return clients


def link_items(world, client, campaign_id: int) -> list[str]:
    """The public ids of a link account's items, in its order (the account is the one logged in ``client``)."""
    from enface.campaigns.models import Assignment, CampaignAnnotator
    from enface.extensions import db
    from sqlalchemy import select

    with client.session_transaction() as sess:
        user_id = int(sess["_user_id"].split(".")[0])     # (the login id is "<user id>.<session nonce>")
    with world.ctx():
        return list(db.session.scalars(select(Assignment.public_id).join(CampaignAnnotator).where(
            CampaignAnnotator.campaign_id == campaign_id, CampaignAnnotator.user_id == user_id)
            .order_by(Assignment.number)))
