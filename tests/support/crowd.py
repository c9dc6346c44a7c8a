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


GOOD_WELCOME_ANSWERS = {"q_consent": "yes", "q_age": "26-40", "q_langs": ["de"], "q_years": "12", "q_note": ""}


def arrive_by_links(world, campaign_id: int, n: int) -> list:
    """The organizer makes ``n`` links to the campaign; each is opened (Start) in a fresh client: the clients."""
    org = world.client("org@example.org")
    page = org.post(f"/campaigns/{campaign_id}/crowd/links", data={"count": str(n)}).get_data(as_text=True)
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
