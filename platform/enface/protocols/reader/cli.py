"""``enface campaign create --protocol reader`` and ``enface campaign status`` of a reader study."""

from __future__ import annotations

import json

import click

from ...campaigns.options import CreateRequest, Option
from ...campaigns.services import bad
from ...services import is_ascii_int

OPTIONS = (
    Option("versions", str, (), "a version compared, twice in order: ref1, ref2 or a submission id (default: ref1 "
           "and the first primary system)", flag="--version", multiple=True),
    Option("sample_docs", int, 5, "documents to sample", flag="--docs"),
    Option("sample_words", int, 0, "source words to sample in all (0: whole documents)", flag="--words"),
    Option("readers_per_document", int, 2, "readers of each document"),
    Option("documents_per_reader", int, 2, "documents (books) each reader reads"),
    Option("lock_hours", float, 24.0, "break before Part 2"),
    Option("chunk_words", int, 300, "about, per chunk"),
    Option("passphrase", str, "", "readers type it before their first book"),
    Option("guidelines", "file", None, "a text file shown to readers (default: the built-in guidelines)",
           metavar="FILE"),
)
SETTINGS = ("readers_per_document", "documents_per_reader", "lock_hours", "chunk_words", "passphrase")


def cli_create(protocol, testset, request: CreateRequest):
    from ...campaigns import services as svc

    opts = request.options or {}
    versions = tuple(opts["versions"])
    if not versions:
        primaries = [s for s in svc.eligible_submissions(testset) if s.label == "primary"]
        if not primaries:
            raise bad("invalid_field", "no primary system to compare with reference 1: give two --version")
        versions = ("ref1", str(primaries[0].id))
    if len(versions) != 2 or versions[0] == versions[1]:
        raise bad("invalid_field", "a reader study compares two different versions: give --version twice "
                  "(ref1, ref2 or a submission id)")
    refs, subs = [], []
    for v in versions:
        if v in ("ref1", "ref2"):
            refs.append(int(v[-1]))
        elif is_ascii_int(v):
            subs.append(int(v))
        else:
            raise bad("invalid_field", f"--version {v!r}: ref1, ref2 or a submission id")
    settings = {k: opts[k] for k in SETTINGS}
    if opts["guidelines"]:
        with open(opts["guidelines"], encoding="utf-8") as fh:
            settings["guidelines"] = fh.read()
    else:
        settings["guidelines"] = ""
    c = svc.create_campaign(None, testset, svc.CampaignInput(
        name=request.name, submission_ids=subs, references=refs, protocol=protocol.key, strategy="pairs",
        redundancy=settings["readers_per_document"], ranges="\n".join(request.ranges),
        sample_docs=opts["sample_docs"], sample_words=opts["sample_words"], settings=settings, seed=request.seed,
        version_order=[v if v.startswith("ref") else f"sub{v}" for v in versions], **request.document_choice()))
    labels = svc.version_labels(c)
    return c, (f"reader study {c.id}: version 1 = {labels[c.versions[0].id]}, version 2 = "
               f"{labels[c.versions[1].id]}, documents {', '.join(c.ranges)}")


def cli_status(protocol, c, as_json: bool) -> None:
    """Each reader's books, and where they are."""
    from ...campaigns.services import fmt_ms

    prog = protocol.progress(c)
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
