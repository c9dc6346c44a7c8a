"""The new-campaign page of the BWS protocol: its form creates the draft (references, settings, a budget);
a bad value is refused with the reason and nothing is created."""

from __future__ import annotations


def test_the_form_creates_a_bws_draft(world):
    from enface.campaigns import services as svc

    org = world.client("org@example.org")
    page = org.get(f"/campaigns/new?testset={world.testset_id}&protocol=bws")
    assert page.status_code == 200 and 'id="bws-new"' in page.get_data(as_text=True)
    csrf = page.get_data(as_text=True).split('name="csrf_token" value="')[1].split('"')[0]
    form = {"csrf_token": csrf, "testset": str(world.testset_id), "protocol": "bws", "name": "Form BWS",
            "references": ["1", "2"], "systems": [str(world.subs["lantern-nmt"]), str(world.subs["inkstone-llm"])],
            "docs_mode": "ranges", "ranges": "mountain-inn:1-6", "passage_segments": "3", "tuple_size": "3",
            "tuples_per_passage": "0", "redundancy": "2", "strategy": "redundancy", "splits": "40",
            "significance_test": "wilcoxon", "seed": "9", "passage_budget": "0", "selection": "uniform",
            "selection_metric": "chrf", "guidelines": "Prefer fluent English.", "instructions": "",
            "sample_docs": "4", "sample_words": "1000"}
    r = org.post("/campaigns/new", data=form)
    assert r.status_code in (302, 303), r.get_data(as_text=True)[:2000]
    with world.ctx():
        c = next(c for c in svc.list_campaigns() if c.name == "Form BWS")
        assert c.protocol == "bws" and sorted(v.label for v in c.versions) == [
            "inkstone-llm", "lantern-nmt", "reference 1", "reference 2"]
        assert c.settings["tuple_size"] == 3 and c.settings["passage_segments"] == 3 and c.settings["splits"] == 40
        assert c.settings["guidelines"] == "Prefer fluent English." and c.redundancy == 2 and c.seed == 9
    dashboard = org.get(r.headers["Location"]).get_data(as_text=True)
    assert "2 passages × 4 tuples of 3 translations" in dashboard          # lcm(4, 3) / 3 = 4
    bad = org.post("/campaigns/new", data={**form, "name": "Bad BWS", "tuple_size": "11"})
    assert bad.status_code == 400 and "translations per tuple must be between 2 and 10" in bad.get_data(as_text=True)
    with world.ctx():
        assert not [c for c in svc.list_campaigns() if c.name == "Bad BWS"]
