"""The prompt templates: plain text files with ``$placeholders`` (:class:`string.Template`).

The defaults live in ``humaneval/judge/prompts/``; an organizer points
``--prompts DIR`` (or a judge's prompts setting) at a folder holding any of the
same file names, and those files replace the defaults one by one. Their
structure follows DITING's Tables 12-13 (task, constraints, notes, matched
rubric, scored examples, debate memory, and for the judge its instructions);
the wording is this project's own. An ``examples.jsonl`` in the folder adds scored
examples (:mod:`~humaneval.judge.examples`) to the prompts of their dimension.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Mapping

from ..errors import HumanEvalInputError
from .examples import EXAMPLES_FILE, read_examples

DEFAULT_DIR = Path(__file__).with_name("prompts")
#: file stem -> the placeholders it may use
TEMPLATES: dict[str, frozenset[str]] = {}
_ITEM = {"dimension_name", "dimension_description", "requirement", "source", "context", "translation",
         "reference", "source_language", "target_language", "rubric", "examples"}
TEMPLATES["debater"] = frozenset(_ITEM | {"agent", "memory", "round", "max_rounds"})
TEMPLATES["judge"] = frozenset(_ITEM | {"memory", "round", "max_rounds", "last_round"})
TEMPLATES["single"] = frozenset(_ITEM)
TEMPLATES["last_round"] = frozenset({"round", "max_rounds"})
TEMPLATES["correction"] = frozenset({"problem"})


class PromptError(ValueError):
    """A template file is unreadable or uses a placeholder that does not exist (names the file)."""


@dataclass(frozen=True)
class Prompts:
    templates: Mapping[str, Template]
    folder: str
    #: scored examples by dimension, from ``examples.jsonl`` in the folder (see :mod:`~humaneval.judge.examples`)
    examples: Mapping[str, list] = field(default_factory=dict)

    def render(self, name: str, **values: Any) -> str:
        return self.templates[name].substitute({k: "" if v is None else str(v) for k, v in values.items()})


def load_template(path: Path, allowed: frozenset[str]) -> Template:
    """One template file, checked: readable UTF-8, every ``$`` a placeholder, every placeholder allowed."""
    try:
        template = Template(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptError(f"{path}: cannot read the template: {exc}") from None
    if not template.is_valid():
        raise PromptError(f"{path}: a '$' that is not a placeholder (write $$ for a dollar sign)")
    unknown = sorted(set(template.get_identifiers()) - allowed)
    if unknown:
        raise PromptError(f"{path}: unknown placeholder(s) {', '.join('$' + u for u in unknown)}; "
                          f"this template may use {', '.join('$' + a for a in sorted(allowed))}")
    return template


def load_prompts(folder: str | Path | None = None) -> Prompts:
    """The default templates, each replaced by ``folder/<name>.txt`` where that file exists."""
    templates: dict[str, Template] = {}
    if folder is not None and not Path(folder).is_dir():
        raise PromptError(f"{folder}: not a folder of prompt templates")
    for name, allowed in TEMPLATES.items():
        path = DEFAULT_DIR / f"{name}.txt"
        if folder is not None and (Path(folder) / f"{name}.txt").is_file():
            path = Path(folder) / f"{name}.txt"
        templates[name] = load_template(path, allowed)
    examples: dict[str, list] = {}
    if folder is not None and (Path(folder) / EXAMPLES_FILE).is_file():
        try:
            examples = read_examples(Path(folder) / EXAMPLES_FILE)
        except HumanEvalInputError as exc:
            raise PromptError(str(exc)) from None
    return Prompts(templates, str(folder or DEFAULT_DIR), examples)


def render_rubric(dimension: Mapping[str, Any]) -> str:
    """The matched rubric of one dimension as text: each criterion with its key and level descriptions."""
    lines = []
    for criterion in dimension["criteria"]:
        kind = "Specific" if criterion.get("kind") == "specific" else "General"
        lines.append(f'- {criterion["key"]} ({kind}: {criterion["name"]}): {criterion.get("description", "")}'.rstrip())
        for level in ("2", "1", "0"):
            text = criterion.get("levels", {}).get(level)
            if text:
                lines.append(f"    {level} = {text}")
    return "\n".join(lines)


def render_examples(examples: list[Mapping[str, Any]] | None) -> str:
    """Scored examples (the paper's gold annotations), or nothing when there are none."""
    if not examples:
        return ""
    lines = ["## Scored examples"]
    for n, ex in enumerate(examples, 1):
        lines.append(f"Example {n}: source: {ex.get('source', '')}\n  translation: {ex.get('translation', '')}\n"
                     f"  scores: {json.dumps({k: ex.get(k) for k in ('sp', 'g_1', 'g_2')})}"
                     + (f"\n  why: {ex['comment']}" if ex.get("comment") else ""))
    return "\n".join(lines) + "\n"


def render_memory(rounds: list[Mapping[str, Any]]) -> str:
    """The debate memory: every earlier round's arguments and the judge's verdict on them."""
    if not rounds:
        return "(none yet: this is the first round)"
    out = []
    for entry in rounds:
        out.append(f"Round {entry['round']}:")
        for agent in ("Debater A", "Debater B"):
            answer = entry.get(agent)
            if answer:
                out.append(f"  {agent}: sp={answer['sp']}, g_1={answer['g_1']}, g_2={answer['g_2']}. "
                           f"{answer.get('thoughts', '')}".rstrip())
        verdict = entry.get("judge")
        if verdict:
            out.append(f"  Judge: consensus {verdict['judge']}. {verdict.get('judge_reasons', '')}".rstrip())
    return "\n".join(out)
