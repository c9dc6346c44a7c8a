"""Locust users of the load test (issue 11); ``bench/load.py`` seeds a platform, starts gunicorn and runs this.

Three kinds of clients, in the proportions of a deadline day: the public reading the leaderboard
(page and JSON), participants reading submission pages, annotators saving MQM marks (each save a
new mark, PUT by UUID as autosave.js does). Sessions come from ``ENFACE_LOAD_SEED`` (a JSON file
written by bench/load.py: the released test set, submission ids, annotators' cookies and CSRF tokens).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import uuid

from locust import HttpUser, between, task

SEED = json.loads(open(os.environ["ENFACE_LOAD_SEED"]).read())   # noqa: SIM115
_annotators = itertools.cycle(SEED["annotators"])


class Public(HttpUser):
    weight = 2
    wait_time = between(0.5, 1.5)

    @task(3)
    def leaderboard(self):
        self.client.get(f"/leaderboard/{SEED['testset']}", name="/leaderboard/[id]")

    @task(1)
    def leaderboard_json(self):
        self.client.get(f"/leaderboard/{SEED['testset']}.json", name="/leaderboard/[id].json")


class Participant(HttpUser):
    weight = 1
    wait_time = between(0.5, 1.5)

    @task
    def submission_page(self):
        self.client.get(f"/submissions/{random.choice(SEED['submissions'])}", name="/submissions/[id]")


class Annotator(HttpUser):
    weight = 2
    wait_time = between(0.5, 1.5)

    def on_start(self):
        me = next(_annotators)
        self.client.cookies.set(me["cookie_name"], me["cookie"])
        self.csrf, self.public_id, self.segments = me["csrf"], me["public_id"], me["segments"]

    @task
    def save_mark(self):
        body = {"rev": 1, "side": "target", "seg": random.randrange(self.segments), "start": 0, "end": 3,
                "category": "Accuracy", "subcategory": "Mistranslation", "severity": "Minor"}
        self.client.put(f"/annotate/api/items/{self.public_id}/marks/{uuid.uuid4()}", json=body,
                        headers={"X-CSRFToken": self.csrf}, name="/annotate/api/items/[id]/marks/[uuid]")
