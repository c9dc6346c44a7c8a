"""Time comet's per-system scoring against CometScorer.score_many (embedding reuse), in one run.

    .venv/bin/python bench/comet_reuse.py                   # builds a small random COMET offline
    .venv/bin/python bench/comet_reuse.py --model PATH      # a real checkpoint (dir or .ckpt)

Three ways of scoring N systems × M segments against one reference:

  predict        model.predict once per system (comet's Python API; encodes src, mt and ref of
                 every segment for every system)
  predict+cache  the same after model.set_embedding_cache(), which is what comet-score does;
                 its LRU cache is keyed on tensor objects passed as keywords, so it never hits
                 (the hit count is printed)
  score_many     CometScorer.score_many: each distinct sentence encoded once, the model's own
                 estimator head per system

Scores are checked against `predict` (max |difference| on the 0-1 scale). The default built model
(XLM-R encoder, 4 layers, width 256; 6 systems x 100 segments; one thread) runs in about 1-2 minutes; the ratio
grows with the encoder's share of the work, so a real xlm-roberta-large model gains at least as much.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def synthetic_task(n: int, k: int, seed: int = 0):
    """Sources, a reference and k systems whose lengths follow the source's, as translations do."""
    import random

    from tests.support.tiny_comet import WORDS

    rng = random.Random(seed)
    lengths = [rng.randint(3, 40) for _ in range(n)]

    def side():
        return [" ".join(rng.choice(WORDS) for _ in range(max(1, round(L * rng.uniform(0.8, 1.25)))))
                for L in lengths]

    sources = [" ".join(rng.choice(WORDS) for _ in range(L)) for L in lengths]
    return sources, side(), {f"sys{i:02d}": side() for i in range(k)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="COMET checkpoint dir or .ckpt (default: build a random one offline)")
    ap.add_argument("--systems", type=int, default=6)
    ap.add_argument("--segments", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--device", default=None, help="default: cuda if available, else cpu")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch CPU threads (default 1: stable figures on a shared CPU; 0 = torch's default)")
    ap.add_argument("--hidden", type=int, default=256, help="built model: encoder width")
    ap.add_argument("--layers", type=int, default=4, help="built model: encoder layers")
    ap.add_argument("--skip-cache-run", action="store_true", help="do not time predict+cache")
    ap.add_argument("--tolerance", type=float, default=1e-5,
                    help="largest |score difference| (0-1 scale) from predict that still counts as the same score: "
                         "batches padded differently change float rounding, nothing else (exit status 1 above it)")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")

    import torch

    if args.threads > 0:
        torch.set_num_threads(args.threads)

    from scoring.metrics.comet import CometScorer
    from tests.support.tiny_comet import build_tiny_comet

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if model is None:
            t = time.perf_counter()
            model = str(
                build_tiny_comet(
                    tmp,
                    name=f"bench-comet-h{args.hidden}-l{args.layers}",
                    hidden_size=args.hidden,
                    num_layers=args.layers,
                    num_heads=max(1, args.hidden // 64),
                    intermediate_size=4 * args.hidden,
                    estimator_hidden=(4 * args.hidden, args.hidden),
                )
            )
            print(f"built random model in {time.perf_counter() - t:.1f}s: {model}")
        scorer = CometScorer(model, batch_size=args.batch_size, device=args.device)
        m = scorer.model
        n, k = args.segments, args.systems
        sources, references, systems = synthetic_task(n, k)
        print(
            f"model {scorer.model_id} on {scorer.device}, {torch.get_num_threads()} threads; "
            f"{k} systems x {n} segments, batch {args.batch_size}"
        )

        gpus = 1 if scorer.device.type == "cuda" else 0

        def predict_all() -> dict[str, list[float]]:
            out = {}
            for name, hyps in systems.items():
                samples = [{"src": s, "mt": h, "ref": r} for s, h, r in zip(sources, hyps, references)]
                out[name] = list(
                    m.predict(samples, batch_size=args.batch_size, gpus=gpus, progress_bar=False, num_workers=0).scores
                )
            return out

        # Warm up both paths (Lightning's first Trainer, allocator, thread pools).
        warm = {"w": systems["sys00"][:8]}
        m.predict([{"src": s, "mt": h, "ref": r} for s, h, r in zip(sources[:8], warm["w"], references[:8])],
                  batch_size=args.batch_size, gpus=gpus, progress_bar=False, num_workers=0)
        scorer.score_many(sources[:8], warm, references[:8])

        t = time.perf_counter()
        plain = predict_all()
        t_plain = time.perf_counter() - t

        t_cache = None
        if not args.skip_cache_run:
            from comet.models.base import CometModel

            CometModel.retrieve_sentence_embedding.cache_clear()
            m.set_embedding_cache()
            t = time.perf_counter()
            predict_all()
            t_cache = time.perf_counter() - t
            info = CometModel.retrieve_sentence_embedding.cache_info()
            m.caching = False
            CometModel.retrieve_sentence_embedding.cache_clear()

        t = time.perf_counter()
        many = scorer.score_many(sources, systems, references)
        t_many = time.perf_counter() - t

        # Tokens through the encoder, padding included: predict batches segments in the order of
        # their source length (in characters) and pads src, mt and ref to each batch's longest;
        # score_many batches distinct sentences in order of token length.
        tok = m.encoder.tokenizer
        cap = scorer.max_tokens

        def ntok(texts):
            return [min(len(x), cap) for x in tok(texts, truncation=False, verbose=False)["input_ids"]]

        bs = args.batch_size
        order = sorted(range(n), key=lambda i: len(sources[i]))
        pad_predict = 0
        for side in [sources, references, *systems.values()]:
            lens = ntok(side)
            for b in range(0, n, bs):
                rows = [lens[i] for i in order[b:b + bs]]
                pad_predict += len(rows) * max(rows) * (k if side is sources or side is references else 1)
        uniq = sorted(ntok(sorted(set(sources) | set(references) | {h for v in systems.values() for h in v})))
        pad_many = sum(len(uniq[b:b + bs]) * max(uniq[b:b + bs]) for b in range(0, len(uniq), bs))

        diff = max(abs(a / 100 - b) for name in systems for a, b in zip(many[name].segments, plain[name]))
        distinct = len(set(sources) | set(references) | {h for hyps in systems.values() for h in hyps})
        print(f"sentences encoded: predict {3 * n * k}, score_many {distinct}")
        print(f"encoder tokens incl. padding: predict {pad_predict}, score_many {pad_many} "
              f"({pad_predict / pad_many:.2f}x)")
        print(f"predict (per system)        {t_plain:8.2f}s")
        if t_cache is not None:
            print(f"predict + embedding cache   {t_cache:8.2f}s   (cache hits {info.hits}, misses {info.misses})")
        print(f"CometScorer.score_many      {t_many:8.2f}s")
        print(f"speed-up vs predict         {t_plain / t_many:8.2f}x")
        if t_cache is not None:
            print(f"speed-up vs predict+cache   {t_cache / t_many:8.2f}x")
        print(f"max |score difference|      {diff:.2e} (0-1 scale; tolerance {args.tolerance:.0e})")
        corpus = max(abs(many[name].value / 100 - sum(plain[name]) / n) for name in systems)
        print(f"max |system score diff.|    {corpus:.2e} (0-1 scale)")
    if diff > args.tolerance or corpus > args.tolerance:
        print("bench: score_many's scores differ from predict's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
