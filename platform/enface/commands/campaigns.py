"""``enface campaign ...``: human-evaluation campaigns of every protocol, and their LLM judges, from the command line.

    enface campaign list
    enface campaign create --testset ID --name NAME [--scheme wmt23-literary] [--redundancy 2]
                           [--strategy redundancy|document] [--words-per-second 20]
                           [--docs 5 --words 2200 | --range DOC:1-40 ...] [--system ID ...] [--attention 0.1]
    enface campaign create --protocol reader --testset ID --name NAME [--version ref1 --version SUBMISSION]
                           [--range DOC ...] [--readers-per-document 2] [--documents-per-reader 2]
                           [--lock-hours 24] [--chunk-words 300] [--passphrase TEXT] [--guidelines FILE]
    enface campaign create --protocol rubric --testset ID --name NAME [--rubric diting|FILE] [--system ID ...]
                           [--redundancy 2] [--range DOC ...] [--hide-reference]
    enface campaign create --protocol bws --testset ID --name NAME [--system ID ...] [--reference ref1 ...]
                           [--range DOC ...] [--tuple-size 4] [--tuples-per-passage 0] [--passage-segments 1]
                           [--splits 100] [--redundancy 1] [--passage-budget N --selection metric_var]
    enface campaign invite CAMPAIGN [--count N] [--label TEXT] [--base-url URL]
    enface campaign add-annotator CAMPAIGN EMAIL
    enface campaign start CAMPAIGN
    enface campaign rebalance CAMPAIGN
    enface campaign status CAMPAIGN [--json]
    enface campaign export CAMPAIGN [--format tsv|json|jsonl|csv] [-o FILE]
    enface campaign release CAMPAIGN
"""

from __future__ import annotations

import json
import sys

import click

from mqm.schemes import DEFAULT_SCHEME
from mqm.words import MODES as WORD_MODES

from ..protocols import BUILT_IN
from ..protocols.mqm.constants import ATTENTION_KINDS, SIGNIFICANCE_UNITS
from ..services import is_ascii_int
from ._common import fail as _fail
from ._common import load_app as _app


@click.group("campaign", help=f"Human-evaluation campaigns of every protocol ({', '.join(BUILT_IN)}) and their "
                               "LLM judges: create, invite, start, follow, export and release.")
def campaign():
    pass


def _run(fn):
    """Call ``fn()`` inside an app context, turning refusals into a message and exit status 1."""
    from ..services import ServiceError

    app = _app()
    with app.app_context(), app.test_request_context(base_url=app.config.get("BASE_URL") or "http://127.0.0.1:8000"):
        try:
            return fn()
        except ServiceError as exc:
            _fail(exc.message)


@campaign.command("list")
def list_():
    """Campaigns, newest first."""
    from ..campaigns import services as svc

    def go():
        for c in svc.list_campaigns():
            click.echo(f"{c.id}\t{c.state}\t{c.protocol}:{c.setting('scheme', '')}\t{c.testset.title}\t{c.name}")
    _run(go)


@campaign.command("create")
@click.option("--testset", "testset_id", type=int, required=True)
@click.option("--name", required=True)
@click.option("--scheme", default=DEFAULT_SCHEME, show_default=True)
@click.option("--strategy", type=click.Choice(["redundancy", "document"]), default="redundancy", show_default=True,
              help="redundancy: each item to N annotators; document: one annotator gets every system's "
                   "translation of a document (N per document)")
@click.option("--redundancy", type=int, default=1, show_default=True, help="annotators per item")
@click.option("--system", "systems", type=int, multiple=True,
              help="submission ids (default: every primary and baseline)")
@click.option("--reference", "references", multiple=True, metavar="ref1|ref2",
              help="mqm, bws: a human reference annotated and ranked with the systems (repeatable: --reference ref1 "
                   "--reference ref2; bws default: every reference)")
@click.option("--docs", "sample_docs", type=int, default=5, show_default=True, help="documents to sample")
@click.option("--words", "sample_words", type=int, default=2200, show_default=True,
              help="source words to sample in all (0: whole documents)")
@click.option("--range", "ranges", multiple=True, help="DOC or DOC:FIRST-LAST (instead of a sample)")
@click.option("--attention", type=float, default=0.1, show_default=True, help="share of items with an attention check")
@click.option("--attention-kind", type=click.Choice(ATTENTION_KINDS), default="mixed")
@click.option("--source-words", type=click.Choice(WORD_MODES), default="auto")
@click.option("--significance-unit", type=click.Choice(SIGNIFICANCE_UNITS), default="segment")
@click.option("--significance-test", type=click.Choice(["wilcoxon", "ar"]), default="wilcoxon", show_default=True,
              help="paired test of the official human ranking (mqm and rubric): Wilcoxon signed-rank (WMT) "
                   "or approximate randomisation")
@click.option("--words-per-second", type=float, default=20, show_default=True,
              help="minimum reading time: a segment counts as read after its source and translation at this speed")
@click.option("--seed", type=int, default=None)
@click.option("--instructions", default="")
@click.option("--protocol", type=click.Choice(["mqm", "reader", "rubric", "bws"]), default="mqm", show_default=True,
              help="mqm: error spans; reader: the LAIT reader study (two versions read in turn, then compared "
                   "chunk by chunk; the options below); rubric: DITING scores of the test set's tagged phenomena; "
                   "bws: best-worst scaling of tuples of translations (systems and --reference)")
@click.option("--tuple-size", type=int, default=4, show_default=True, help="bws: translations per tuple")
@click.option("--tuples-per-passage", type=int, default=0, show_default=True,
              help="bws: 0 = the fewest that show every version equally often")
@click.option("--passage-segments", type=int, default=1, show_default=True, help="bws: segments per passage")
@click.option("--splits", type=int, default=100, show_default=True, help="bws: random splits of the split-half "
                                                                         "reliability")
@click.option("--passage-budget", type=int, default=0, show_default=True, help="bws: passages to evaluate (0: all)")
@click.option("--selection", type=click.Choice(["uniform", "metric_var", "metric_cons", "metric_avg"]),
              default="uniform", show_default=True,
              help="bws: how a budget's passages are chosen: uniformly, or by subset2evaluate from --selection-metric")
@click.option("--selection-metric", default="chrf", show_default=True,
              help="bws: the metric whose segment scores subset2evaluate reads")
@click.option("--rubric", "rubric", default="diting", show_default=True,
              help="rubric: a shipped rubric's name or a rubric JSON file")
@click.option("--hide-reference", is_flag=True, help="rubric: do not show annotators the reference")
@click.option("--version", "versions", multiple=True,
              help="reader: a version compared, twice in order: ref1, ref2 or a submission id "
                   "(default: ref1 and the first primary system)")
@click.option("--readers-per-document", type=int, default=2, show_default=True, help="reader")
@click.option("--documents-per-reader", type=int, default=2, show_default=True, help="reader")
@click.option("--lock-hours", type=float, default=24.0, show_default=True, help="reader: break before Part 2")
@click.option("--chunk-words", type=int, default=300, show_default=True, help="reader: about, per chunk")
@click.option("--passphrase", default="", help="reader: readers type it before their first book")
@click.option("--guidelines", "guidelines_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="reader: a text file shown to readers (default: the built-in guidelines)")
def create(testset_id, name, scheme, redundancy, strategy, systems, sample_docs, sample_words, ranges, attention,
           attention_kind, source_words, significance_unit, significance_test, words_per_second, seed, instructions,
           protocol, versions, readers_per_document, documents_per_reader, lock_hours, chunk_words, passphrase,
           guidelines_file, rubric, hide_reference, references, tuple_size, tuples_per_passage, passage_segments,
           splits, passage_budget, selection, selection_metric):
    """Create a campaign (a draft: invite annotators, then start it)."""
    from ..campaigns import services as svc
    from ..services import testsets

    refs = []
    for ref in references:
        if ref not in ("ref1", "ref2", "1", "2"):
            _fail(f"--reference {ref!r}: ref1 or ref2")
        refs.append(int(ref[-1]))
    if refs and protocol not in ("mqm", "bws"):
        _fail("--reference is for mqm and bws campaigns (a reader study takes its references with --version)")

    if protocol == "bws":
        from ..protocols.bws.cli import create_bws_campaign

        _run(lambda: create_bws_campaign(testset_id, name, systems, refs, redundancy, strategy, ranges, sample_docs,
                                         sample_words, seed, instructions, tuple_size=tuple_size,
                                         tuples_per_passage=tuples_per_passage, passage_segments=passage_segments,
                                         splits=splits, significance_test=significance_test,
                                         passage_budget=passage_budget, selection=selection,
                                         selection_metric=selection_metric))
        return

    if protocol == "rubric":
        from ..protocols.rubric.cli import create_rubric_campaign

        _run(lambda: create_rubric_campaign(testset_id, name, systems, redundancy, strategy, ranges, seed,
                                            instructions, rubric, not hide_reference, significance_test))
        return

    if protocol == "reader":
        if click.get_current_context().get_parameter_source("sample_words").name == "DEFAULT":
            sample_words = 0    # a reader study reads whole book openings (or the --range given)
        guidelines = open(guidelines_file, encoding="utf-8").read() if guidelines_file else ""
        _run(lambda: _create_reader(testset_id, name, versions, ranges, sample_docs, sample_words, seed, {
            "readers_per_document": readers_per_document, "documents_per_reader": documents_per_reader,
            "lock_hours": lock_hours, "chunk_words": chunk_words, "passphrase": passphrase, "guidelines": guidelines}))
        return

    def go():
        ts = testsets.get_testset(testset_id)
        ids = list(systems) or [s.id for s in svc.eligible_submissions(ts) if svc.default_selected(s)]
        c = svc.create_campaign(None, ts, svc.CampaignInput(
            name=name, submission_ids=ids, references=refs, redundancy=redundancy, strategy=strategy, ranges="\n".join(ranges),
            sample_docs=sample_docs, sample_words=sample_words, instructions=instructions, seed=seed,
            settings={"scheme": scheme, "attention_share": attention, "attention_kind": attention_kind,
                      "source_words": source_words, "significance_unit": significance_unit,
                      "significance_test": significance_test, "words_per_second": words_per_second}))
        with_refs = "".join(f", reference {v.reference}" for v in c.versions if v.is_reference)
        click.echo(f"campaign {c.id}: {len(c.systems)} systems{with_refs}, documents {', '.join(c.ranges)}")
        click.echo(c.id)
    _run(go)


def _create_reader(testset_id, name, versions, ranges, sample_docs, sample_words, seed, settings):
    from ..campaigns import services as svc
    from ..services import testsets

    ts = testsets.get_testset(testset_id)
    if not versions:
        primaries = [s for s in svc.eligible_submissions(ts) if s.label == "primary"]
        if not primaries:
            _fail("no primary system to compare with reference 1: give two --version")
        versions = ("ref1", str(primaries[0].id))
    if len(versions) != 2 or versions[0] == versions[1]:
        _fail("a reader study compares two different versions: give --version twice (ref1, ref2 or a submission id)")
    refs, subs = [], []
    for v in versions:
        if v in ("ref1", "ref2"):
            refs.append(int(v[-1]))
        elif is_ascii_int(v):
            subs.append(int(v))
        else:
            _fail(f"--version {v!r}: ref1, ref2 or a submission id")
    c = svc.create_campaign(None, ts, svc.CampaignInput(
        name=name, submission_ids=subs, references=refs, protocol="reader", strategy="pairs",
        redundancy=settings["readers_per_document"], ranges="\n".join(ranges), sample_docs=sample_docs,
        sample_words=sample_words, settings=settings, seed=seed,
        version_order=[v if v.startswith("ref") else f"sub{v}" for v in versions]))
    labels = svc.version_labels(c)
    click.echo(f"reader study {c.id}: version 1 = {labels[c.versions[0].id]}, version 2 = {labels[c.versions[1].id]}, "
               f"documents {', '.join(c.ranges)}")
    click.echo(c.id)


@campaign.command("invite")
@click.argument("campaign_id", type=int)
@click.option("--count", type=int, default=1, show_default=True)
@click.option("--label", default="")
@click.option("--uses", "max_uses", type=int, default=1, show_default=True)
@click.option("--days", type=int, default=30, show_default=True)
@click.option("--base-url", default=None, help="the site's address, for the links (default http://127.0.0.1:8000)")
def invite(campaign_id, count, label, max_uses, days, base_url):
    """Print invite links (shown once: only their hash is stored)."""
    from flask import url_for

    from ..campaigns import services as svc

    def go():
        created = svc.create_invites(svc.get_campaign(campaign_id), count=count, label=label, max_uses=max_uses,
                                     days=days)
        for _inv, secret in created:
            path = url_for("annotate.join", secret=secret)
            click.echo((base_url.rstrip("/") + path) if base_url else url_for("annotate.join", secret=secret,
                                                                             _external=True))
    _run(go)


@campaign.command("add-annotator")
@click.argument("campaign_id", type=int)
@click.argument("email")
def add_annotator(campaign_id, email):
    """Add an existing account as an annotator."""
    from ..campaigns import services as svc
    from ..services import accounts

    def go():
        user = accounts.get_user_by_email(email)
        if user is None:
            _fail(f"no account with the e-mail {email} (create it with enface create-user --role annotator)")
        ann = svc.add_annotator(svc.get_campaign(campaign_id), user)
        click.echo(f"{email} is {ann.rater}")
    _run(go)


@campaign.command("start")
@click.argument("campaign_id", type=int)
def start(campaign_id):
    """Assign the items and open the campaign."""
    from ..campaigns import services as svc

    def go():
        out = svc.start_campaign(svc.get_campaign(campaign_id))
        click.echo(f"started: {out['items']} items, {out['assignments']} assignments, "
                   f"{out.get('attention_checks', 0)} attention checks")
    _run(go)


@campaign.command("rebalance")
@click.argument("campaign_id", type=int)
def rebalance(campaign_id):
    """Move unstarted items from the most to the least loaded annotators (started work never moves)."""
    from ..campaigns import services as svc

    def go():
        out = svc.rebalance(svc.get_campaign(campaign_id))
        click.echo(f"moved {out['moved']} unstarted item(s)")
    _run(go)


@campaign.command("status")
@click.argument("campaign_id", type=int)
@click.option("--json", "as_json", is_flag=True)
def status(campaign_id, as_json):
    """Progress per annotator, and the scores so far."""
    from ..campaigns import services as svc

    def go():
        c = svc.get_campaign(campaign_id)
        if c.protocol == "rubric":
            from ..protocols.rubric.cli import rubric_status

            return rubric_status(c, as_json)
        if c.protocol == "bws":
            from ..protocols.bws.cli import bws_status

            return bws_status(c, as_json)
        if c.protocol != "mqm":
            return _status_of_protocol(c, as_json)
        from ..protocols.mqm import services as mqm_svc

        rows = mqm_svc.load_rows(c)
        prog = mqm_svc.progress(c, rows=rows)
        res = mqm_svc.compute_results(c, rows=rows) if c.state != "draft" else None
        if as_json:
            click.echo(json.dumps({
                "id": c.id, "name": c.name, "state": c.state, "scheme": c.setting("scheme"), "items": prog["total"],
                "finished": prog["finished"],
                "annotators": [{"rater": p["rater"], "email": p["user"].email, "items": p["items"],
                                "finished": p["finished"], "read": p["read"], "segments": p["segments"],
                                "marks": p["marks"], "time_ms": p["time_ms"], "attention_found": p["found"],
                                "attention_missed": p["missed"]} for p in prog["annotators"]],
                "scores": {s: r["score"] for s, r in (res or {}).get("systems", {}).items()}}, indent=1))
            return
        click.echo(f"{c.name} [{c.state}] {c.setting('scheme')}: {prog['finished']}/{prog['total']} items finished")
        for p in prog["annotators"]:
            click.echo(f"  {p['rater']:8} {p['user'].email:30} {p['finished']}/{p['items']} items, "
                       f"{p['read']}/{p['segments']} segments, {p['marks']} marks, {svc.fmt_ms(p['time_ms'])}, "
                       f"attention {p['found']} found / {p['missed']} missed")
        ranking = (res or {}).get("ranking") or {"rows": []}
        for r in ranking["rows"]:
            click.echo(f"    {r['rank_range']:>5}  {r['score']:7.2f}  {r['system']}  ({r['kind']})")
    _run(go)


def _status_of_protocol(c, as_json):
    """Another protocol's progress (the reader study: each reader's books, where they are)."""
    from ..campaigns.protocol import protocol_of
    from ..campaigns.services import fmt_ms

    prog = protocol_of(c).progress(c)
    rows = [{"reader": f"reader{r['reader'].position}", "email": r["reader"].user.email, "book": r["book"],
             "document": r["item"].document.name, "where": r["where"], "first": r["first"],
             "opens_at": r["opens_at"].isoformat() if r["opens_at"] else None, "read_ms": r["read_ms"],
             "chunks": r["chunks"], "chunks_done": r["chunks_done"], "flags": len(r["flags"])}
            for r in prog.get("rows", [])]
    if as_json:
        click.echo(json.dumps({"id": c.id, "name": c.name, "state": c.state, "protocol": c.protocol,
                               "counts": prog.get("counts"), "books": rows}, indent=1))
        return
    click.echo(f"{c.name} [{c.state}] {c.protocol}: {prog.get('counts')}")
    for r in rows:
        click.echo(f"  {r['reader']:8} {r['email']:30} book {r['book']} {r['document']:16} {r['where']:9} "
                   f"v{r['first']} first, read {fmt_ms(r['read_ms']['1'])}/{fmt_ms(r['read_ms']['2'])}, "
                   f"chunks {r['chunks_done']}/{r['chunks']}{', FLAGGED' if r['flags'] else ''}")


@campaign.command("export")
@click.argument("campaign_id", type=int)
@click.option("--format", "fmt", type=click.Choice(["tsv", "json", "jsonl", "csv", "judgments"]), default=None,
              help="MQM: tsv (default) or json; reader study: jsonl (default) or csv; BWS: jsonl (default), csv "
                   "or judgments (the JUDGMENTS.csv of python -m humaneval bws)")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None)
def export(campaign_id, fmt, output):
    """The annotations in the Marot/Anthea TSV format (or the mqm JSON); a reader study's answers."""
    from ..campaigns import services as svc

    def go():
        nonlocal fmt
        c = svc.get_campaign(campaign_id)
        from ..campaigns.protocol import protocol_of

        formats = protocol_of(c).exports()
        fmt = fmt or next(iter(formats))
        if fmt not in formats:
            _fail(f"a {c.protocol} campaign exports {', '.join(formats)} (not {fmt})")

        text = protocol_of(c).export(c, fmt)
        text = text if text.endswith("\n") or fmt == "tsv" else text + "\n"
        if output:
            with open(output, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            click.echo(f"wrote {output}", err=True)
        else:
            sys.stdout.write(text)
    _run(go)


@campaign.command("release")
@click.argument("campaign_id", type=int)
def release(campaign_id):
    """Put the campaign's MQM scores and human ranking on the leaderboard."""
    from ..campaigns import services as svc

    def go():
        snap = svc.release(svc.get_campaign(campaign_id))
        camp = svc.get_campaign(campaign_id)
        if "systems" not in snap:   # (a reader study: its results page, no leaderboard column)
            click.echo(f"released: the results of {snap.get('records', {}).get('excerpt', 0)} excerpt judgments")
        else:
            click.echo(f"released: {len(snap['systems'])} systems on the leaderboard of test set {camp.testset_id}")
        if not svc.results_public(camp):
            click.echo(f"the results stay with the organizers until test set {camp.testset_id} is released "
                       f"(its settings page: /admin/testsets/{camp.testset_id})")
    _run(go)
