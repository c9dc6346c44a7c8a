"""``enface campaign create``: the options every protocol takes, and each installed protocol's own.

The command's parameters are built when it is first parsed or its help is shown: the
protocols are found then (entry points) and each one's :attr:`~enface.campaigns.protocol.Protocol.options`
become command-line options. Two protocols may declare the same option (same flag, type
and choices); its help says whose it is, and each protocol applies its own default.
"""

from __future__ import annotations

import click

from ._common import fail
from ._common import load_app as _app

#: the options every protocol takes (CreateRequest's fields)
COMMON = ("testset_id", "name", "protocol", "strategy", "redundancy", "systems", "ranges", "seed", "instructions",
          "doc_selection", "doc_selection_metric")
#: how sampled documents are chosen (enface.campaigns.selection; its SELECTIONS, kept here so that --help needs no app)
DOC_SELECTIONS = ("uniform", "metric_var", "metric_cons", "metric_avg")
_TYPES = {str: click.STRING, int: click.INT, float: click.FLOAT}


def _installed():
    from ..campaigns.discovery import load_protocols

    return load_protocols()


def _click_type(option):
    if option.choices:
        return click.Choice(list(option.choices))
    if option.type == "file":
        return click.Path(exists=True, dir_okay=False)
    return _TYPES[option.type]


def protocol_params() -> list[click.Parameter]:
    """The click options of every installed protocol's :class:`~enface.campaigns.options.Option`."""
    protocols = _installed()
    by_name: dict[str, list] = {}
    for protocol in protocols.values():
        for option in protocol.options:
            if option.name in COMMON:
                raise ValueError(f"the {protocol.key} protocol declares the option {option.name!r}, which every "
                                 f"protocol takes already")
            by_name.setdefault(option.name, []).append((protocol, option))
    params = []
    for name, owners in by_name.items():
        first = owners[0][1]
        clash = [p.key for p, o in owners if o.shape() != first.shape()]
        if clash:
            raise ValueError(f"option {name!r}: the protocols {', '.join(p.key for p, _o in owners)} declare it "
                             f"differently (flag, type, choices or multiple)")
        one_default = len({repr(o.default) for _p, o in owners}) == 1
        whose = ", ".join(p.key for p, _o in owners)
        help_ = first.help or ""
        if not one_default:
            help_ += " (defaults: " + "; ".join(f"{p.key} {o.default}" for p, o in owners) + ")"
        kwargs = {"help": f"{whose}: {help_}".strip().rstrip(":"), "metavar": first.metavar}
        if first.type is bool:
            params.append(click.Option([first.cli_flag, name], is_flag=True, default=False, **kwargs))
            continue
        params.append(click.Option([first.cli_flag, name], type=_click_type(first), multiple=first.multiple,
                                   default=first.default if one_default and not first.multiple else None,
                                   show_default=one_default and first.default not in (None, ""), **kwargs))
    return params


def _protocols_help() -> str:
    protocols = _installed()
    lines = ["Create a campaign (a draft: invite annotators, then start it).", "",
             "Installed protocols (--protocol), each with its own options below:", ""]
    for key, p in protocols.items():
        own = ", ".join(o.cli_flag for o in p.options) or "none"
        lines.append(f"\b\n  {key}: {p.title}. Options: {own}")
    return "\n".join(lines)


class CreateCommand(click.Command):
    """A command whose protocol options and help are found when first needed (not at import), and again
    when the installed protocols change (a plug-in installed into a running process, as the tests do)."""

    _built_for: tuple | None = None
    _base: list | None = None

    def _build(self) -> None:
        from ..campaigns.discovery import default_protocol

        protocols = _installed()
        if self._built_for == tuple(protocols):
            return
        if self._base is None:
            self._base = list(self.params)
        params = list(self._base)
        params.insert(2, click.Option(
            ["--protocol"], type=click.Choice(list(protocols)), default=default_protocol().key,
            show_default=True, help="the kind of human evaluation (listed above)"))
        strategies = list(dict.fromkeys(s for p in protocols.values() for s in p.strategies))
        params.insert(3, click.Option(
            ["--strategy"], type=click.Choice(strategies), default=None,
            help="how items go to annotators (default: the protocol's first); redundancy: each item to N "
                 "annotators; document: one annotator gets every system's translation of a document (N per "
                 "document)"))
        self.params = params + protocol_params()
        self.help = _protocols_help()
        self._built_for = tuple(protocols)

    def get_params(self, ctx):
        self._build()
        return super().get_params(ctx)

    def get_help(self, ctx):
        self._build()
        return super().get_help(ctx)


def default_create(protocol, testset, request):
    """A protocol without a ``cli_create`` of its own: its options become its settings."""
    from ..campaigns.services import CampaignInput, create_campaign, default_selected, eligible_submissions

    ids = list(request.systems) or [s.id for s in eligible_submissions(testset) if default_selected(s)]
    campaign = create_campaign(None, testset, CampaignInput(
        name=request.name, submission_ids=ids, protocol=protocol.key, strategy=request.strategy,
        redundancy=request.redundancy, ranges="\n".join(request.ranges), seed=request.seed,
        instructions=request.instructions, settings=dict(request.options or {}), **request.document_choice()))
    return campaign, (f"campaign {campaign.id}: {protocol.title}, {len(campaign.versions)} versions, "
                      f"documents {', '.join(campaign.ranges)}")


def _explicit(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


@click.command("create", cls=CreateCommand)
@click.option("--testset", "testset_id", type=int, required=True)
@click.option("--name", required=True)
@click.option("--redundancy", type=int, default=1, show_default=True, help="annotators per item")
@click.option("--system", "systems", type=int, multiple=True, help="submission ids (default: every primary and baseline)")
@click.option("--range", "ranges", multiple=True, help="DOC or DOC:FIRST-LAST (instead of a sample)")
@click.option("--seed", type=int, default=None)
@click.option("--instructions", default="")
@click.option("--doc-selection", "doc_selection", type=click.Choice(DOC_SELECTIONS), default="uniform",
              show_default=True, help="how sampled documents are chosen: uniformly (by the seed), or by "
              "subset2evaluate from the chosen systems' segment scores of --doc-selection-metric")
@click.option("--doc-selection-metric", "doc_selection_metric", default="chrf", show_default=True, metavar="METRIC",
              help="the metric whose stored segment scores --doc-selection reads")
@click.pass_context
def create(ctx, testset_id, name, redundancy, systems, ranges, seed, instructions, doc_selection,
           doc_selection_metric, protocol, strategy, **values):
    """Create a campaign (a draft: invite annotators, then start it)."""
    from ..campaigns.options import CreateRequest
    from ..campaigns.protocol import protocol_of
    from ..services import ServiceError, testsets

    chosen = protocol_of(protocol)
    own = {o.name: o for o in chosen.options}
    for key in values:
        if key not in own and _explicit(ctx, key):
            owners = [p.key for p in _installed().values() if any(o.name == key for o in p.options)]
            flag = next(o.cli_flag for p in _installed().values() for o in p.options if o.name == key)
            fail(f"{flag} is an option of {', '.join(owners)} campaigns, not of {protocol} ones")
    given = frozenset(k for k in own if _explicit(ctx, k))
    # not given: the protocol's own default (a click default may be another protocol's)
    options = {k: values[k] if k in given else (tuple(o.default or ()) if o.multiple else o.default)
               for k, o in own.items()}
    request = CreateRequest(testset_id=testset_id, name=name, systems=tuple(systems), ranges=tuple(ranges),
                            strategy=strategy or "", redundancy=redundancy, seed=seed, instructions=instructions,
                            doc_selection=doc_selection, doc_selection_metric=doc_selection_metric, options=options,
                            given=given | {k for k in COMMON if _explicit(ctx, k)})
    app = _app()
    with app.app_context(), app.test_request_context(base_url=app.config.get("BASE_URL") or "http://127.0.0.1:8000"):
        try:
            testset = testsets.get_testset(testset_id)
            campaign, summary = (chosen.cli_create(testset, request) if chosen.cli_create is not None
                                 else default_create(chosen, testset, request))
        except ServiceError as exc:
            fail(exc.message)
        click.echo(summary)
        click.echo(campaign.id)
