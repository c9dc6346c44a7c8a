"""COMET (unbabel-comet), scored ×100 as in the WMT 2023 literary task, from a local checkpoint only.

The model is never downloaded: ``resolve_model_path`` accepts a checkpoint directory (the layout of
a downloaded ``Unbabel/wmt22-comet-da``: ``hparams.yaml`` + ``checkpoints/model.ckpt``), a
``.ckpt`` file, or a hub id that is already in the local Hugging Face cache. Anything else raises
``CometUnavailable``, whose message says why and how to fix it; callers show COMET as "n/a".

Multi-system reuse
------------------
``comet-score`` and ``model.predict`` encode source, hypothesis and reference of every segment
for every system. For a reference-based regression model (wmt22-comet-da) the three sentence
embeddings are computed independently of each other and only meet in the estimator head
(``RegressionMetric.forward`` = 3 × ``get_sentence_embedding`` + ``estimate``). So
``CometScorer.score_many`` encodes every *distinct* sentence (sources, references and the
hypotheses of all systems together) once, with the model's own tokenizer call
(``encoder.prepare_sample``) and its own ``get_sentence_embedding``, and then runs the model's
own ``estimate`` head per system on the gathered embeddings. Sources and references are thus
encoded once instead of once per system, and a hypothesis shared by several systems (or equal to
a source or reference) once as well.

The scores equal ``model.predict`` per system up to float rounding (observed ≤ ~1e-6 on the raw
0–1 scale, i.e. ≤ 1e-4 after ×100): attention masks make each sentence's embedding independent
of its batch mates, but padding to a different length changes the shapes of the matrix products
and so the summation order in the last bits. ``model.predict`` itself differs by the same amount
when only its ``batch_size`` changes.

Notes
-----
* Only ``RegressionMetric`` with its own ``forward`` (wmt22-comet-da, wmt20/21 DA models) can
  reuse embeddings. Other COMET models (CometKiwi, XCOMET, ranking models) encode the inputs
  jointly; for them ``score_many`` falls back to ``model.predict`` per system.
* Empty lines: COMET accepts empty strings (they tokenize to ``<s></s>``) and scores them like
  ``comet-score`` does; nothing crashes. Empty hypotheses are counted in
  ``details["empty_hypotheses"]`` and warned about, since a dropped line usually scores poorly.
* Truncation: COMET truncates every sentence to ``encoder.max_positions - 2`` tokens (510
  subword tokens including ``<s>``/``</s>`` for XLM-R) without telling anyone. Segments with a
  source, hypothesis or reference longer than that are counted in
  ``details["truncated_segments"]`` and reported in ``Score.warnings``.
* Precision is float32, as ``model.predict`` from Python. (``comet-score`` 2.2.7 calls
  ``model.half()`` before predicting, so its printed scores can differ in the 4th digit.)
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import traceback
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from .base import MetricUnavailable, ReferenceRequired, Score, library_versions

ENV_VAR = "ENFACE_COMET_MODEL"
DEFAULT_MODEL = "Unbabel/wmt22-comet-da"
METRIC = "comet"
NAME = "COMET"

HOW_TO_FIX = (
    f"Set {ENV_VAR} (or --comet-model) to a local COMET checkpoint: the directory of a downloaded "
    f"{DEFAULT_MODEL} (containing hparams.yaml and checkpoints/model.ckpt) or its .ckpt file. "
    "This machine cannot download models from a hub."
)

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?")
_ESTIMATE_CHUNK = 1024  # rows per call of the estimator head


class CometUnavailable(MetricUnavailable):
    """COMET cannot run here: no model configured, model missing or unreadable, or comet not importable."""


# --------------------------------------------------------------------------- model location


def resolve_model_path(model: str | os.PathLike | None) -> Path | None:
    """Return the ``.ckpt`` file of the COMET model to use, or None when none is configured.

    ``model`` (else the environment variable ``ENFACE_COMET_MODEL``) may be:

    * a checkpoint directory with ``checkpoints/model.ckpt`` (or exactly one ``checkpoints/*.ckpt``)
      and ``hparams.yaml``, i.e. a downloaded ``Unbabel/wmt22-comet-da``;
    * a ``.ckpt`` file, with ``hparams.yaml`` in the directory above its own (COMET's loader needs it);
    * a hub id such as ``Unbabel/wmt22-comet-da``, only if the local Hugging Face cache holds it
      (looked up with ``local_files_only``; never downloaded), or a legacy COMET name already
      unpacked in ``~/.cache/torch/unbabel_comet``.

    Raises CometUnavailable when the value is set but does not lead to a usable checkpoint file.
    """
    spec = _model_spec(model)
    if spec is None:
        return None
    path = Path(spec).expanduser()
    if path.exists():
        return _checkpoint_in(path)
    if _HUB_ID.fullmatch(spec) and not spec.endswith(".ckpt"):
        return _from_local_cache(spec)
    raise CometUnavailable(f"COMET model {spec!r} does not exist. {HOW_TO_FIX}")


def _model_spec(model) -> str | None:
    if model is None or str(model).strip() == "":
        model = os.environ.get(ENV_VAR, "")
    model = str(model).strip()
    return model or None


def _checkpoint_in(path: Path) -> Path:
    if path.is_file():
        if path.suffix != ".ckpt":
            raise CometUnavailable(f"COMET model {str(path)!r} is a file but not a .ckpt checkpoint. {HOW_TO_FIX}")
        ckpt = path
    else:
        folder = path / "checkpoints" if (path / "checkpoints").is_dir() else path
        ckpts = sorted(folder.glob("*.ckpt"))
        named = folder / "model.ckpt"
        if named.is_file():
            ckpt = named
        elif len(ckpts) == 1:
            ckpt = ckpts[0]
        elif not ckpts:
            raise CometUnavailable(
                f"COMET model directory {str(path)!r} has no checkpoints/model.ckpt. {HOW_TO_FIX}"
            )
        else:
            names = ", ".join(p.name for p in ckpts)
            raise CometUnavailable(
                f"COMET model directory {str(path)!r} has several checkpoints ({names}); "
                f"give the .ckpt file itself."
            )
    # absolute(), not resolve(): in a Hugging Face cache the files are symlinks into blobs/, and
    # COMET looks for hparams.yaml relative to the path it is given.
    ckpt = ckpt.absolute()
    hparams = ckpt.parents[1] / "hparams.yaml"
    if not hparams.is_file():
        raise CometUnavailable(
            f"COMET checkpoint {str(ckpt)!r} has no hparams.yaml beside its folder (expected {str(hparams)!r}); "
            f"keep the layout of the downloaded model: <dir>/hparams.yaml and <dir>/checkpoints/model.ckpt."
        )
    return ckpt


def _from_local_cache(model_id: str) -> Path:
    """A hub id, looked up in the local caches only (never downloads)."""
    tried = []
    if "/" in model_id:
        try:
            from huggingface_hub import constants, snapshot_download

            tried.append(f"the Hugging Face cache {constants.HF_HUB_CACHE}")
            folder = Path(snapshot_download(repo_id=model_id, local_files_only=True))
        except Exception:  # noqa: BLE001 - not cached (LocalEntryNotFoundError), bad id, hub lib missing
            folder = None
        if folder is not None and (folder / "checkpoints").is_dir():
            return _checkpoint_in(folder)
    else:
        # Legacy (pre-hub) COMET names are unpacked here by comet.download_model.
        legacy = Path.home() / ".cache" / "torch" / "unbabel_comet" / model_id
        tried.append(f"the COMET cache {legacy.parent}")
        if (legacy / "checkpoints").is_dir():
            return _checkpoint_in(legacy)
    raise CometUnavailable(
        f"COMET model {model_id!r} is neither an existing path nor present in {' or '.join(tried)}. {HOW_TO_FIX}"
    )


def _model_id(spec: str, ckpt: Path) -> str:
    if not Path(spec).expanduser().exists():
        return spec  # a hub id resolved from the cache
    root = ckpt.parents[1]
    # A Hugging Face cache snapshot: .../models--Unbabel--wmt22-comet-da/snapshots/<hash>/
    if root.parent.name == "snapshots" and root.parents[1].name.startswith("models--"):
        return root.parents[1].name[len("models--"):].replace("--", "/")
    return root.name if ckpt.name == "model.ckpt" else f"{root.name}/{ckpt.name}"


# --------------------------------------------------------------------------- loading


@contextlib.contextmanager
def _quiet():
    """Silence the import-time and load-time chatter of torchmetrics/lightning/comet."""
    loggers = [logging.getLogger(n) for n in ("comet", "pytorch_lightning", "lightning", "lightning.pytorch")]
    levels = [lg.level for lg in loggers]
    try:
        for lg in loggers:
            lg.setLevel(logging.WARNING)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*pkg_resources.*")
            warnings.filterwarnings("ignore", category=FutureWarning)
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def _encoder_name(ckpt: Path) -> str | None:
    try:
        import yaml

        data = yaml.safe_load((ckpt.parents[1] / "hparams.yaml").read_text(encoding="utf-8")) or {}
        return data.get("pretrained_model")
    except Exception:  # noqa: BLE001 - only used to word an error message
        return None


_TOKENIZER_FILES = ("tokenizer.json", "sentencepiece.bpe.model")


def _encoder_missing(encoder: str) -> bool:
    """True when the encoder's config or tokenizer cannot be found offline (local dir or local HF cache)."""
    path = Path(encoder).expanduser()
    if path.exists():
        if not path.is_dir():
            return False
        return not (path / "config.json").is_file() or not any((path / f).is_file() for f in _TOKENIZER_FILES)
    try:
        from huggingface_hub import try_to_load_from_cache

        def cached(name: str) -> bool:
            return isinstance(try_to_load_from_cache(encoder, name), str)

        return not cached("config.json") or not any(cached(f) for f in _TOKENIZER_FILES)
    except Exception:  # noqa: BLE001 - an invalid id is missing too
        return True


def _raised_in(exc: BaseException, *packages: str) -> bool:
    """Whether a frame of the exception's traceback is in one of these packages."""
    return any(f"{os.sep}{p}{os.sep}" in frame.f_code.co_filename
               for frame, _line in traceback.walk_tb(exc.__traceback__) for p in packages)


def _encoder_hint(encoder: str) -> str:
    return (
        f"The checkpoint needs the tokenizer and config of its encoder {encoder!r} (hparams.yaml: "
        f"pretrained_model), offline: a local directory, or the local Hugging Face cache (HF_HOME). "
        f"Fetch them where there is network, e.g. `huggingface-cli download {encoder} config.json "
        f"tokenizer.json sentencepiece.bpe.model tokenizer_config.json`, and copy the cache here."
    )


def _load_model(ckpt: Path):
    encoder = _encoder_name(ckpt)
    if encoder and _encoder_missing(encoder):
        raise CometUnavailable(f"cannot load COMET checkpoint {str(ckpt)!r}: encoder files not found. "
                               + _encoder_hint(encoder))
    try:
        with _quiet():
            from comet import load_from_checkpoint
    except Exception as exc:  # ImportError, or a broken torch/lightning install
        raise CometUnavailable(
            f"unbabel-comet cannot be imported ({type(exc).__name__}: {exc}); install unbabel-comet==2.2.7."
        ) from exc
    try:
        with _quiet():
            # local_files_only: the encoder's tokenizer/config (hparams.yaml: pretrained_model) must
            # come from a local directory or the local Hugging Face cache, never from the network.
            return load_from_checkpoint(str(ckpt), local_files_only=True)
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        reason = f"{type(exc).__name__}: {first}"
        if encoder and _raised_in(exc, "transformers", "tokenizers"):
            hint = _encoder_hint(encoder)
        else:
            hint = "The file is corrupt, truncated, or not a COMET checkpoint. " + HOW_TO_FIX
        raise CometUnavailable(f"cannot load COMET checkpoint {str(ckpt)!r} ({reason}). {hint}") from exc


# --------------------------------------------------------------------------- scoring


class CometScorer:
    """A loaded COMET model. Raises CometUnavailable from the constructor when COMET cannot run."""

    def __init__(
        self,
        model: str | os.PathLike | None = None,
        *,
        batch_size: int = 16,
        device: str | None = None,
        progress: bool = False,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.batch_size = batch_size
        self.progress = progress
        spec = _model_spec(model)
        ckpt = resolve_model_path(spec)
        if ckpt is None:
            raise CometUnavailable(f"no COMET model configured. {HOW_TO_FIX}")
        self.checkpoint: Path = ckpt
        self.model_id: str = _model_id(spec, ckpt)

        # Imported here, not at module level: importing torch/lightning/transformers costs seconds
        # and GBs of memory, and scoring BLEU/chrF/TER must not pay for it.
        try:
            import torch
        except Exception as exc:
            raise CometUnavailable(f"torch cannot be imported ({type(exc).__name__}: {exc}).") from exc
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        try:
            self.device = torch.device(device)
            if self.device.type == "cuda" and not torch.cuda.is_available():
                raise RuntimeError("CUDA is not available")
        except RuntimeError as exc:
            raise CometUnavailable(f"COMET device {device!r} is not usable here ({exc}).") from exc

        self.model = _load_model(ckpt)
        self.model.to(self.device)
        self.model.eval()
        self.reuses_embeddings = self._can_reuse(self.model)

    # -- public API -------------------------------------------------------------------------

    @property
    def takes_references(self) -> bool:
        """Whether the model reads a reference at all (CometKiwi, ``input_segments: [mt, src]``, does not)."""
        segments = getattr(self.model.hparams, "input_segments", None)
        if segments is not None:   # UnifiedMetric (CometKiwi, xCOMET): what it was trained on
            return "ref" in segments
        return bool(self.model.requires_references())   # False for the referenceless regression models

    @property
    def needs_references(self) -> bool:
        """Whether it cannot score without one (wmt22-comet-da); xCOMET reads one but can do without."""
        return bool(self.model.requires_references())

    @property
    def signature(self) -> str:
        """The signature of its scores with a reference (``ref:1``), or ``ref:none`` for a QE model."""
        return self._signature(self.takes_references)

    def _signature(self, with_reference: bool) -> str:
        version = library_versions("unbabel-comet")["unbabel-comet"]
        ref = 1 if with_reference else "none"
        return f"model:{self.model_id}|ref:{ref}|batch:{self.batch_size}|comet:{version}"

    def score(self, sources: Sequence[str], hypotheses: Sequence[str],
              references: Sequence[str] | None = None) -> Score:
        """Score one system against one reference (None: reference-free, for models that allow it)."""
        return self.score_many(sources, {"system": hypotheses}, references)["system"]

    def score_many(
        self,
        sources: Sequence[str],
        systems: Mapping[str, Sequence[str]],
        references: Sequence[str] | None = None,
    ) -> dict[str, Score]:
        """Score several systems on the same sources and references, encoding each distinct sentence once.

        ``references`` None: source + hypothesis only, for a model that takes no reference (CometKiwi)
        or can do without one (xCOMET); a reference-based model raises :class:`ReferenceRequired`.
        A model that takes no reference ignores the references given.
        """
        if references is None or not self.takes_references:
            if references is None and self.needs_references:
                raise ReferenceRequired(
                    f"COMET model {self.model_id!r} is reference-based (it needs a reference), and the "
                    f"test set has none; use a reference-free checkpoint (e.g. CometKiwi) or give a reference.")
            return self._score_many(sources, systems, None)
        return self._score_many(sources, systems, references)

    def _score_many(self, sources, systems, references: Sequence[str] | None) -> dict[str, Score]:
        with_reference = references is not None
        sources, references = list(sources), list(references if with_reference else sources)
        systems = {name: list(hyps) for name, hyps in systems.items()}
        n = len(sources)
        if len(references) != n:
            raise ValueError(f"COMET: {n} sources but {len(references)} references")
        for name, hyps in systems.items():
            if len(hyps) != n:
                raise ValueError(f"COMET: system {name!r} has {len(hyps)} hypotheses for {n} sources")
            _check_strings(name, hyps)
        _check_strings("sources", sources)
        _check_strings("references", references)
        if not systems:
            return {}
        if n == 0:
            return {name: Score.not_available(METRIC, NAME, "no segments to score") for name in systems}

        # Every distinct sentence gets one row in the embedding table.
        rows: dict[str, int] = {}
        src_rows = [rows.setdefault(t, len(rows)) for t in sources]
        ref_rows = [rows.setdefault(t, len(rows)) for t in references] if with_reference else src_rows
        sys_rows = {name: [rows.setdefault(t, len(rows)) for t in hyps] for name, hyps in systems.items()}
        texts = list(rows)
        lengths = self._token_lengths(texts)
        limit = self.max_tokens
        too_long = [length > limit for length in lengths]

        if self.reuses_embeddings:
            table = self._embed(texts, lengths)
            raw = {name: self._estimate(table, src_rows, hyp_rows, ref_rows) for name, hyp_rows in sys_rows.items()}
        else:
            predicted = {name: self._predict(sources, hyps, references if with_reference else None)
                         for name, hyps in systems.items()}
            raw = {name: scores for name, (scores, _spans) in predicted.items()}

        out = {}
        for name, hyp_rows in sys_rows.items():
            seg = raw[name]
            truncated = [too_long[s] or too_long[h] or too_long[r] for s, h, r in zip(src_rows, hyp_rows, ref_rows)]
            details = {
                "segments": n,
                "truncated_segments": sum(truncated),
                "truncated_sources": sum(too_long[r] for r in src_rows),
                "truncated_hypotheses": sum(too_long[r] for r in hyp_rows),
                "truncated_references": sum(too_long[r] for r in ref_rows) if with_reference else 0,
                "reference_free": not with_reference,
                "max_tokens": limit,
                "empty_hypotheses": sum(1 for h in systems[name] if not h.strip()),
                "precision": "float32",
                "device": str(self.device),
                "reused_embeddings": self.reuses_embeddings,
            }
            if not self.reuses_embeddings and predicted[name][1] is not None:
                details["error_spans"] = _count_spans(predicted[name][1])
            warns = []
            if details["truncated_segments"]:
                warns.append(
                    f"COMET: {details['truncated_segments']} of {n} segments have a source, hypothesis or "
                    f"reference longer than {limit} tokens; COMET truncates these silently, so their scores "
                    f"ignore the rest of the text."
                )
            if details["empty_hypotheses"]:
                warns.append(
                    f"COMET: {details['empty_hypotheses']} of {n} hypotheses are empty; they are scored as "
                    f"empty strings, as comet-score does."
                )
            out[name] = Score(
                metric=METRIC,
                name=NAME,
                value=sum(seg) / n * 100,
                signature=self._signature(with_reference),
                versions=library_versions("unbabel-comet", "torch"),
                segments=[s * 100 for s in seg],
                details=details,
                warnings=warns,
            )
        return out

    @property
    def max_tokens(self) -> int:
        """Tokens (with <s> and </s>) COMET keeps of a sentence; the rest is cut off in prepare_sample."""
        return self.model.encoder.max_positions - 2

    # -- internals --------------------------------------------------------------------------

    @staticmethod
    def _can_reuse(model) -> bool:
        from comet.models import RegressionMetric

        return (
            isinstance(model, RegressionMetric)
            and type(model).forward is RegressionMetric.forward
            and not getattr(model, "use_context", False)
        )

    def _token_lengths(self, texts: list[str]) -> list[int]:
        tokenizer = self.model.encoder.tokenizer
        lengths: list[int] = []
        for start in range(0, len(texts), 4096):
            ids = tokenizer(
                texts[start:start + 4096], add_special_tokens=True, truncation=False, verbose=False
            )["input_ids"]
            lengths.extend(len(x) for x in ids)
        return lengths

    def _progress(self, iterable, total: int, desc: str):
        if not self.progress:
            return iterable
        from tqdm import tqdm

        return tqdm(iterable, total=total, desc=desc, unit="batch")

    def _embed(self, texts: list[str], lengths: list[int]):
        """Sentence embeddings of ``texts`` (one row each), computed by the model's own encoder path."""
        import torch

        model = self.model
        order = sorted(range(len(texts)), key=lengths.__getitem__)  # similar lengths share a batch
        starts = range(0, len(order), self.batch_size)
        table = None
        with torch.inference_mode():
            for start in self._progress(starts, len(starts), "COMET encode"):
                ids = order[start:start + self.batch_size]
                # Same tokenization, truncation and padding as RegressionMetric.prepare_sample.
                batch = model.encoder.prepare_sample([texts[i] for i in ids])
                emb = model.get_sentence_embedding(
                    batch["input_ids"].to(self.device), batch["attention_mask"].to(self.device)
                )
                if table is None:
                    table = emb.new_empty((len(texts), emb.shape[-1]))
                table[torch.tensor(ids, device=self.device)] = emb
        return table

    def _estimate(self, table, src_rows: list[int], hyp_rows: list[int], ref_rows: list[int]) -> list[float]:
        import torch

        scores: list[float] = []
        with torch.inference_mode():
            for start in range(0, len(hyp_rows), _ESTIMATE_CHUNK):
                sl = slice(start, start + _ESTIMATE_CHUNK)
                src = table[torch.tensor(src_rows[sl], device=self.device)]
                mt = table[torch.tensor(hyp_rows[sl], device=self.device)]
                ref = table[torch.tensor(ref_rows[sl], device=self.device)]
                scores.extend(self.model.estimate(src, mt, ref).score.float().cpu().tolist())
        return scores

    def _predict(self, sources: list[str], hypotheses: list[str], references: list[str] | None):
        """comet's own per-system path, for models whose inputs are not encoded separately.

        Returns the segment scores and xCOMET's error spans (one list per segment; None for other models).
        """
        if references is None:   # samples without "ref": UnifiedMetric then reads [mt, src] only
            data = [{"src": s, "mt": h} for s, h in zip(sources, hypotheses)]
        else:
            data = [{"src": s, "mt": h, "ref": r} for s, h, r in zip(sources, hypotheses, references)]
        gpus = 1 if self.device.type == "cuda" else 0
        with _quiet():
            out = self.model.predict(
                data,
                batch_size=self.batch_size,
                gpus=gpus,
                devices=[self.device.index or 0] if gpus else None,
                progress_bar=self.progress,
                num_workers=0,
            )
        metadata = out.get("metadata") or {}
        spans = metadata.get("error_spans") if hasattr(metadata, "get") else None
        return list(out.scores), (list(spans) if spans is not None else None)


def _count_spans(spans: list[list[dict]]) -> dict[str, int]:
    """xCOMET's predicted error spans, counted by severity over all segments (the spans themselves are dropped)."""
    counts: dict[str, int] = {}
    for segment in spans:
        for span in segment or []:
            severity = str(span.get("severity", "unknown"))
            counts[severity] = counts.get(severity, 0) + 1
    return dict(sorted(counts.items()))


def _check_strings(what: str, items: list) -> None:
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"COMET: {what}[{i}] is {type(item).__name__}, not str")


_LAST_SCORER: dict[tuple, CometScorer] = {}


def comet_score(
    sources: Sequence[str],
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    model: str | os.PathLike | None = None,
    batch_size: int = 16,
    device: str | None = None,
    progress: bool = False,
) -> Score:
    """Score one system; returns an n/a Score (with the reason) instead of raising when COMET cannot run.

    The last loaded model is kept, so repeated calls with the same model do not reload it.
    """
    try:
        key = (str(resolve_model_path(model)), batch_size, device)
        scorer = _LAST_SCORER.get(key)
        if scorer is None:
            scorer = CometScorer(model, batch_size=batch_size, device=device, progress=progress)
            _LAST_SCORER.clear()
            _LAST_SCORER[key] = scorer
    except CometUnavailable as exc:
        return Score.not_available(METRIC, NAME, str(exc))
    scorer.progress = progress
    return scorer.score(sources, hypotheses, references)


class _CometEngine:
    """The registry's engine for "comet" (see :mod:`~scoring.metrics.registry`): COMET against the first reference."""

    def __init__(self, model=None, batch_size: int = 16, device: str | None = None, **_other):
        self.scorer = CometScorer(model, batch_size=batch_size, device=device)

    def score_many(self, sources, systems, references) -> dict[str, Score]:
        """No reference (an empty list): reference-free, or :class:`ReferenceRequired` for a reference-based model."""
        return self.scorer.score_many(sources, systems, references[0] if references else None)


def engine(**options) -> _CometEngine:
    """The registry's factory for "comet"; raises CometUnavailable when COMET cannot run here."""
    return _CometEngine(**options)
