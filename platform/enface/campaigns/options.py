"""A protocol's own creation options, declared once as data: ``enface campaign create`` turns them into
command-line options and the new-campaign page into form fields (the protocol's :attr:`Protocol.options`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Option:
    """One option of a protocol's campaigns.

    ``name`` is the Python name (the value's key in what the protocol gets); ``flag`` the
    command-line spelling (default ``--`` + the name with dashes). ``type`` is ``str``,
    ``int``, ``float``, ``bool`` (a flag) or ``"file"`` (a path on the command line whose
    text the protocol reads; a text area on the page).
    """

    name: str
    type: Any = str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] | None = None
    flag: str = ""
    multiple: bool = False
    metavar: str | None = None
    label: str = ""         # the form field's label (default: the name, spaced)

    @property
    def is_flag(self) -> bool:
        return self.type is bool

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def form_label(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()

    def shape(self) -> tuple:
        """What two protocols declaring the same option must agree on (one command-line option serves both)."""
        return (self.cli_flag, self.type, self.choices, self.multiple)

    def from_form(self, posted) -> Any:
        """The value posted by the new-campaign page (the default when the field is empty)."""
        if self.multiple:
            return [v for v in posted.getlist(self.name) if v.strip()]
        raw = posted.get(self.name, "")
        if self.type is bool:
            return raw not in ("", "0", "off", "false")
        if raw.strip() == "":
            return self.default
        return raw.strip() if self.type in (int, float) else raw   # (checked by the protocol's clean_settings)


def defaults(options: tuple[Option, ...]) -> dict[str, Any]:
    return {o.name: o.default for o in options}


@dataclass(frozen=True)
class CreateRequest:
    """What ``enface campaign create`` was given: the options every protocol takes, and the chosen
    protocol's own (``options``: its defaults where not given; ``given``: the names given)."""

    testset_id: int
    name: str
    systems: tuple[int, ...] = ()
    ranges: tuple[str, ...] = ()
    strategy: str = ""
    redundancy: int = 1
    seed: int | None = None
    instructions: str = ""
    options: dict[str, Any] | None = None
    given: frozenset[str] = frozenset()
    doc_selection: str = "uniform"
    doc_selection_metric: str = ""

    def option(self, name: str) -> Any:
        return (self.options or {}).get(name)

    def document_choice(self) -> dict[str, str]:
        """How the sampled documents are chosen, as :class:`CampaignInput`'s fields (``--doc-selection``)."""
        return {"doc_selection": self.doc_selection, "doc_selection_metric": self.doc_selection_metric}


@dataclass
class CampaignInput:
    """What an organizer asks for; ``settings`` go to the protocol, which checks them."""

    name: str
    submission_ids: list[int]
    protocol: str = ""               # "" = the default protocol
    settings: dict[str, Any] = field(default_factory=dict)
    references: list[int] = field(default_factory=list)     # 1 and/or 2: references evaluated as versions
    # The versions' order, when it matters (a reader study's version 1 and 2): "ref1", "sub12", ...;
    # empty: references first, then systems by id.
    version_order: list[str] = field(default_factory=list)
    strategy: str = ""               # "" = the protocol's default
    redundancy: int = 1
    ranges: str = ""                 # "doc:1-40" lines; empty: sample
    sample_docs: int = 5
    sample_words: int = 2200
    instructions: str = ""
    seed: int | str | None = None    # from a form: checked by create_campaign
    # How the sampled documents are chosen: "uniform", or a subset2evaluate method from a metric's stored
    # segment scores of the chosen systems (enface.campaigns.selection); "" metric: its default (chrF)
    doc_selection: str = "uniform"
    doc_selection_metric: str = ""



def default_selected(sub) -> bool:
    """Primaries and baselines are evaluated by default (as in WMT 2023)."""
    return sub.label == "baseline" or (sub.label == "primary" and sub.slot is not None)
