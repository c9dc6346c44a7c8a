"""Build tiny, randomly initialised COMET checkpoints entirely offline: wmt22-comet-das
architecture (``build_tiny_comet``), and CometKiwi / xCOMET (``build_tiny_unified``).

The result has the on-disk layout of a downloaded ``Unbabel/wmt22-comet-da``::

    <out>/<name>/hparams.yaml
    <out>/<name>/checkpoints/model.ckpt
    <out>/<name>/encoder/            # the "pretrained_model": tokenizer.json + config.json

The real checkpoint names ``pretrained_model: xlm-roberta-large`` (a hub id, resolved from the
local Hugging Face cache); here ``pretrained_model`` is the absolute path of ``encoder/``, so
loading needs no hub. The encoder is an ``XLMRobertaModel`` with a tokenizer trained on a few
hundred sentences of synthetic text (a Unigram model, built with the ``tokenizers`` library,
with XLM-R's special-token layout ``<s>=0 <pad>=1 </s>=2 <unk>=3 ... <mask>``).

Used by tests/scoring/test_comet.py, tests/platform/jobs/test_job_pipeline.py and bench/comet_reuse.py. Scores are meaningless; the model only
has to exercise exactly the code path a real COMET checkpoint takes.
"""

from __future__ import annotations

import contextlib
import os
import random
from pathlib import Path

WORDS = (
    "the old house stood at the end of a long road where nobody walked after dark and "
    "her mother said that the river had taken more than it gave . he looked at the letter "
    "again , folded it twice and put it in the drawer with the others ; outside the rain "
    "kept falling on the roofs of the village . la maison était vieille et le jardin "
    "sentait la pluie , mais personne ne voulait partir avant le printemps . der alte mann "
    "ging jeden morgen zum hafen und sah den schiffen nach , ohne ein wort zu sagen . "
    "她 看着 窗外 的 雨 , 想起 了 很多 年 以前 的 事情 。 \" why ? \" she asked , laughing ."
).split()


def synthetic_sentences(n: int, seed: int = 0, min_len: int = 3, max_len: int = 30) -> list[str]:
    """Deterministic pseudo-text made of WORDS."""
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(min_len, max_len))) for _ in range(n)]


def _build_tokenizer(encoder_dir: Path, vocab_size: int) -> int:
    from tokenizers import (
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import XLMRobertaTokenizerFast

    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
        unk_token="<unk>",
        show_progress=False,
    )
    corpus = [" ".join(WORDS)] * 4 + synthetic_sentences(400, seed=123)
    tok.train_from_iterator(corpus, trainer=trainer)
    tok.add_special_tokens(["<mask>"])
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    assert (bos, tok.token_to_id("<pad>"), eos, tok.token_to_id("<unk>")) == (0, 1, 2, 3)
    tok.post_processor = processors.RobertaProcessing(sep=("</s>", eos), cls=("<s>", bos))
    tokenizer_file = encoder_dir / "tokenizer.json"
    tok.save(str(tokenizer_file))

    fast = XLMRobertaTokenizerFast(tokenizer_file=str(tokenizer_file), model_max_length=512)
    fast.save_pretrained(str(encoder_dir))
    return tok.get_vocab_size()


def _build_encoder(encoder_dir: Path, *, vocab_size: int, hidden_size: int, num_layers: int, num_heads: int,
                   intermediate_size: int) -> None:
    """A tokenizer and an XLM-R config in ``encoder_dir`` (the checkpoint's ``pretrained_model``)."""
    from transformers import XLMRobertaConfig

    encoder_dir.mkdir(parents=True, exist_ok=True)
    real_vocab = _build_tokenizer(encoder_dir, vocab_size)
    XLMRobertaConfig(
        vocab_size=real_vocab,
        hidden_size=hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        intermediate_size=intermediate_size,
        max_position_embeddings=514,  # as XLM-R: 512 tokens + the padding offset of 2
        type_vocab_size=1,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        layer_norm_eps=1e-5,
    ).save_pretrained(str(encoder_dir))


def _save_checkpoint(model, root: Path, class_identifier: str) -> None:
    """The files COMET's ``load_from_checkpoint`` reads: checkpoints/model.ckpt and hparams.yaml."""
    import pytorch_lightning
    import torch
    import yaml

    (root / "checkpoints").mkdir(parents=True, exist_ok=True)
    hparams = {k: (list(v) if isinstance(v, tuple) else v) for k, v in dict(model.hparams).items()}
    hparams["class_identifier"] = class_identifier
    checkpoint = {
        "state_dict": model.state_dict(),
        "hyper_parameters": hparams,
        "pytorch-lightning_version": pytorch_lightning.__version__,
        "epoch": 0,
        "global_step": 0,
    }
    torch.save(checkpoint, root / "checkpoints" / "model.ckpt")
    (root / "hparams.yaml").write_text(yaml.safe_dump(hparams, sort_keys=True), encoding="utf-8")


def build_tiny_comet(
    out_dir: str | os.PathLike,
    *,
    name: str = "tiny-comet-da",
    hidden_size: int = 32,
    num_layers: int = 2,
    num_heads: int = 2,
    intermediate_size: int = 64,
    estimator_hidden: tuple[int, ...] = (64, 32),
    vocab_size: int = 300,
    layer_norm: bool = True,
    seed: int = 0,
) -> Path:
    """Write a tiny COMET checkpoint directory under ``out_dir`` and return it (``<out_dir>/<name>``)."""
    from comet.models import RegressionMetric

    return _build_tiny(
        RegressionMetric, "regression_metric", Path(out_dir) / name, seed=seed,
        encoder={"vocab_size": vocab_size, "hidden_size": hidden_size, "num_layers": num_layers,
                 "num_heads": num_heads, "intermediate_size": intermediate_size},
        hidden_sizes=list(estimator_hidden), final_activation="Sigmoid", layer="mix",
        layer_transformation="softmax", layer_norm=layer_norm, pool="avg",
    )


def _build_tiny(model_class, class_identifier: str, root: Path, *, seed: int, encoder: dict, **hparams) -> Path:
    """A randomly initialised ``model_class`` over a tiny offline encoder, saved as COMET saves one."""
    import torch

    encoder_dir = root / "encoder"
    _build_encoder(encoder_dir, **encoder)
    torch.manual_seed(seed)
    model = model_class(pretrained_model=str(encoder_dir.resolve()), load_pretrained_weights=False,
                        local_files_only=True, activations="Tanh", dropout=0.1, **hparams)
    # Random init puts every segment near one value; spread the estimator a little so that
    # segment scores differ visibly (still deterministic).
    with torch.no_grad():
        for p in model.estimator.parameters():
            p.mul_(4.0)
    _save_checkpoint(model, root, class_identifier)
    return root


#: The hyper-parameters that tell the released unified models apart (their hparams.yaml, shrunk):
#: Unbabel/wmt22-cometkiwi-da reads [mt, src] (no reference) and predicts a sentence score only;
#: Unbabel/XCOMET-XL reads [mt, src, ref] and is also trained to tag error spans in the hypothesis.
KIWI_HPARAMS = {"input_segments": ["mt", "src"], "word_level_training": False, "final_activation": None,
                "error_labels": ["minor", "major"], "cross_entropy_weights": None, "loss_lambda": 0.65}
XCOMET_HPARAMS = {"input_segments": ["mt", "src", "ref"], "word_level_training": True,
                  "final_activation": "sigmoid", "error_labels": ["minor", "major", "critical"],
                  "cross_entropy_weights": [0.08, 0.486, 0.505, 0.533], "loss_lambda": 0.055}


def build_tiny_unified(
    out_dir: str | os.PathLike,
    *,
    kind: str = "kiwi",
    name: str | None = None,
    hidden_size: int = 32,
    num_layers: int = 2,
    num_heads: int = 2,
    intermediate_size: int = 64,
    estimator_hidden: tuple[int, ...] = (64, 32),
    vocab_size: int = 300,
    seed: int = 0,
) -> Path:
    """A tiny ``UnifiedMetric`` checkpoint: ``kind="kiwi"`` (CometKiwi: source + hypothesis, no reference)
    or ``kind="xcomet"`` (xCOMET: source, hypothesis and reference, with word-level error-span tags)."""
    from comet.models import UnifiedMetric

    return _build_tiny(
        UnifiedMetric, "unified_metric", Path(out_dir) / (name or f"tiny-{kind}"), seed=seed,
        encoder={"vocab_size": vocab_size, "hidden_size": hidden_size, "num_layers": num_layers,
                 "num_heads": num_heads, "intermediate_size": intermediate_size},
        hidden_sizes=list(estimator_hidden), sent_layer="mix", layer_transformation="sparsemax",
        layer_norm=True, word_layer=num_layers, **{"kiwi": KIWI_HPARAMS, "xcomet": XCOMET_HPARAMS}[kind],
    )


@contextlib.contextmanager
def offline_one_thread():
    """No hub, and one torch thread: the models are tiny, and on a shared CPU more threads only spin.

    For a module-scoped autouse fixture of the tests that load these checkpoints."""
    import pytest
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("HF_HUB_OFFLINE", "1")
            mp.setenv("TRANSFORMERS_OFFLINE", "1")
            mp.delenv("ENFACE_COMET_MODEL", raising=False)
            yield mp
    finally:
        torch.set_num_threads(threads)


if __name__ == "__main__":  # pragma: no cover
    import sys

    print(build_tiny_comet(sys.argv[1] if len(sys.argv) > 1 else "/tmp/tiny-comet"))
