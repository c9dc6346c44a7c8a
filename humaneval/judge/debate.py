"""Scoring one item: single mode (one agent) or AgentEval's debate (two debaters and a judge).

Debate, as DITING describes it: in each round both debaters score the item
independently, seeing the task, the matched rubric, scored examples and the
debate memory (every earlier round's arguments and verdicts); the judge then
sees both answers and says whether they agree. A "yes" ends the debate; a
"no" starts another round, until ``max_rounds``, when the judge is told it is
the last round and must decide. The final scores are always the judge's.

Every answer is parsed leniently (:mod:`~humaneval.judge.parse`); a malformed one is sent
back once with the problem named, and a second malformed answer fails the
item with the raw text kept. Every call, corrective ones included, goes into
the item's transcript.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .ask import AskFailed, ask
from .client import CallRecord, ChatClient
from .parse import parse_scores, parse_verdict
from .prompts import Prompts, render_examples, render_memory, render_rubric

MODES = ("single", "debate")
DEFAULT_MAX_ROUNDS = 4
DEBATERS = (("debater_a", "Debater A"), ("debater_b", "Debater B"))


@dataclass
class ItemResult:
    """The outcome for one item: the final scores (the judge's in debate mode) and the whole transcript."""

    id: str
    ok: bool = False
    sp: int | None = None
    g_1: int | None = None
    g_2: int | None = None
    rounds: int = 0
    consensus: bool = False
    error: str | None = None
    raw: str | None = None          # the unusable answer when parsing failed for good
    judge_reasons: str = ""
    debate: list[dict[str, Any]] = field(default_factory=list)   # per round: each agent's parsed answer
    calls: list[CallRecord] = field(default_factory=list)

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)

    @property
    def cost(self) -> float:
        return sum(c.cost for c in self.calls)

    def scores(self) -> dict[str, int] | None:
        return {"sp": self.sp, "g_1": self.g_1, "g_2": self.g_2} if self.ok else None

    def summary(self) -> dict[str, Any]:
        """The CLI's per-item object."""
        out: dict[str, Any] = {"id": self.id, "sp": self.sp, "g_1": self.g_1, "g_2": self.g_2,
                               "rounds": self.rounds, "consensus": self.consensus}
        if not self.ok:
            out["error"] = self.error
        return out

    def transcript(self) -> dict[str, Any]:
        """Everything that was sent and received, for storage next to the item."""
        return {"id": self.id, "ok": self.ok, "scores": self.scores(), "rounds": self.rounds,
                "consensus": self.consensus, "error": self.error, "raw": self.raw,
                "judge_reasons": self.judge_reasons, "debate": self.debate,
                "calls": [c.to_dict() for c in self.calls],
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost": self.cost}


class ItemFailed(Exception):
    """Ends one item's scoring; the result already says why."""


@dataclass
class Judge:
    """A configured judge: the endpoint client, the prompts, the mode and the round limit."""

    client: ChatClient
    prompts: Prompts
    mode: str = "debate"
    max_rounds: int = DEFAULT_MAX_ROUNDS
    #: scored examples by dimension key; None: the prompts folder's examples.jsonl, if any
    examples: Mapping[str, list[Mapping[str, Any]]] | None = None
    source_language: str = "Chinese"
    target_language: str = "English"

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if int(self.max_rounds) < 1:
            raise ValueError(f"max rounds must be at least 1, not {self.max_rounds}")

    def _item_values(self, item: Mapping[str, Any], dimension: Mapping[str, Any]) -> dict[str, Any]:
        return {"dimension_name": dimension.get("name", dimension.get("key", "")),
                "dimension_description": dimension.get("description", ""),
                "requirement": item.get("requirement", ""), "source": item.get("source", ""),
                "context": item.get("context") or "(none)", "translation": item.get("translation", ""),
                "reference": item.get("reference") or "(none)",
                "source_language": self.source_language, "target_language": self.target_language,
                "rubric": render_rubric(dimension),
                "examples": render_examples((self.examples if self.examples is not None
                                             else self.prompts.examples).get(item.get("dimension", ""), []))}

    def _ask(self, result: ItemResult, role: str, round_no: int, prompt: str,
             parse: Callable[[str | None], dict[str, Any]]) -> dict[str, Any]:
        """One question with at most one corrective retry; a failure ends the item (ItemFailed)."""
        try:
            return ask(self.client, prompt, parse, calls=result.calls, role=role, round_no=round_no,
                       correction=lambda problem: self.prompts.render("correction", problem=problem))
        except AskFailed as exc:
            result.error, result.raw = exc.message, exc.raw
            raise ItemFailed from None

    def score(self, item: Mapping[str, Any], dimension: Mapping[str, Any]) -> ItemResult:
        """Score one item (``id``, ``source``, ``translation``, ``requirement``, optional ``reference``,
        ``context``) on one rubric dimension. Never raises for endpoint or answer problems: a failed
        item comes back with ``ok`` false, ``error`` and the transcript so far."""
        result = ItemResult(id=str(item["id"]))
        values = self._item_values(item, dimension)
        try:
            if self.mode == "single":
                result.rounds = 1
                answer = self._ask(result, "single", 1, self.prompts.render("single", **values), parse_scores)
                result.debate.append({"round": 1, "single": answer})
                final = answer
                result.judge_reasons = answer.get("thoughts", "")
            else:
                final = self._debate(result, values)
        except ItemFailed:
            return result
        result.ok = True
        result.sp, result.g_1, result.g_2 = final["sp"], final["g_1"], final["g_2"]
        return result

    def _debate(self, result: ItemResult, values: dict[str, Any]) -> dict[str, Any]:
        max_rounds = int(self.max_rounds)
        for round_no in range(1, max_rounds + 1):
            result.rounds = round_no
            memory = render_memory(result.debate)
            entry: dict[str, Any] = {"round": round_no}
            for role, agent in DEBATERS:
                prompt = self.prompts.render("debater", **values, agent=agent, memory=memory,
                                             round=round_no, max_rounds=max_rounds)
                entry[agent] = self._ask(result, role, round_no, prompt, parse_scores)
            result.debate.append(entry)
            last = round_no == max_rounds
            last_note = self.prompts.render("last_round", round=round_no, max_rounds=max_rounds) if last else ""
            prompt = self.prompts.render("judge", **values, memory=render_memory(result.debate), round=round_no,
                                         max_rounds=max_rounds, last_round=last_note)
            verdict = self._ask(result, "judge", round_no, prompt, parse_verdict)
            entry["judge"] = verdict
            result.judge_reasons = verdict["judge_reasons"]
            if verdict["judge"] == "yes" or last:
                result.consensus = verdict["judge"] == "yes"
                return verdict
        raise AssertionError("unreachable")
