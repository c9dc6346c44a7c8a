"""BLEU + chrF + TER with segment scores on real WMT23 data, against the sacrebleu command line, side by side.

The test set is real: WMT23 en→de (../shared/data/wmt23-mtme, mt-metrics-eval's layout). Its 557
paragraphs are split into sentences wherever the source, the system output and both references split into
the same number of them, over all 12 MT systems, and the lines repeat until there are ``--segments`` of them (a
WMT23-literary-size system: about 17k segments, two references). Then, in one run:

1. ``sacrebleu REF1 REF2 -i SYS -m bleu chrf ter -b -w 16`` (corpus scores only), timed;
2. ``python -m scoring score TESTSET SYS -m bleu chrf ter --json --segments`` (corpus and segment
   scores), timed;
3. the corpus scores compared to 16 decimals, and every segment score of BLEU and chrF (every
   ``--ter-every``-th of TER: sacrebleu's own TER is slow) compared with sacrebleu's
   ``sentence_score`` with the sentence-level settings (BLEU with effective order, as
   ``sacrebleu --sentence-level``), exactly.

Prints the wall-time ratio (the issue asks for at most 0.05x) and exits 1 when any score differs or
nothing was compared.

Usage: python bench/segment_scores.py [--segments 17000] [--out bench/out/segment_scores] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

from _common import CLI_METRICS, cli_numbers, identical, timed  # noqa: E402

SENTENCE_END = re.compile(r'(?<=[.!?])\s+(?=[A-ZÄÖÜ„"])')
REFERENCES = ("refA", "synthetic_ref")
#: characters str.splitlines() breaks at but a file's lines do not: lines holding one are left out
LINE_BREAKS = set("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def aligned_sentences(root: Path) -> tuple[list[str], list[str], list[list[str]]]:
    """(source, hypothesis and [reference] * 2 lines) of every MT system, sentence-split where all four agree."""
    refs = [(root / "references" / f"en-de.{r}.txt").read_text(encoding="utf-8").removeprefix("\ufeff").splitlines()
            for r in REFERENCES]
    source = (root / "sources" / "en-de.txt").read_text(encoding="utf-8").removeprefix("\ufeff").splitlines()
    srcs: list[str] = []
    hyps: list[str] = []
    out_refs: list[list[str]] = [[], []]
    for path in sorted((root / "system-outputs" / "en-de").glob("*.txt")):
        if path.stem in REFERENCES:
            continue
        # (a byte-order mark opens some files: enface drops it, the sacrebleu CLI would score it as text)
        lines = path.read_text(encoding="utf-8").removeprefix("\ufeff").splitlines()
        for src, h, a, b in zip(source, lines, *refs, strict=True):
            parts = [SENTENCE_END.split(x) for x in (src, h, a, b)]
            if len({len(p) for p in parts}) == 1 and not any(LINE_BREAKS & set(x) for x in (src, h, a, b)):
                srcs += parts[0]
                hyps += parts[1]
                out_refs[0] += parts[2]
                out_refs[1] += parts[3]
    return srcs, hyps, out_refs


def write_testset(out: Path, srcs: list[str], hyps: list[str], refs: list[list[str]], segments: int,
                  docs: int = 12) -> Path:
    n = len(hyps)
    take = [i % n for i in range(segments)]
    per_doc = [segments // docs + (1 if d < segments % docs else 0) for d in range(docs)]
    ts = out / "testset"
    for sub in ("source", "ref1", "ref2"):
        (ts / sub).mkdir(parents=True, exist_ok=True)
    (out / "system").mkdir(exist_ok=True)
    names, start = [], 0
    for d, size in enumerate(per_doc):
        name = f"wmt23-ende.{d + 1:02d}"
        names.append(name)
        idx = take[start:start + size]
        start += size
        (ts / "source" / f"{name}.txt").write_text("".join(srcs[i] + "\n" for i in idx), encoding="utf-8")
        for k, stream in (("ref1", refs[0]), ("ref2", refs[1])):
            (ts / k / f"{name}.txt").write_text("".join(stream[i] + "\n" for i in idx), encoding="utf-8")
        (out / "system" / f"{name}.txt").write_text("".join(hyps[i] + "\n" for i in idx), encoding="utf-8")
    (ts / "testset.json").write_text(json.dumps({"name": "wmt23-ende-sentences", "src_lang": "en",
                                                 "tgt_lang": "de", "documents": names}), encoding="utf-8")
    for k, stream in (("hyp", hyps), ("ref1", refs[0]), ("ref2", refs[1])):
        (out / f"{k}.flat.txt").write_text("".join(stream[i] + "\n" for i in take), encoding="utf-8")
    return ts


def segment_differences(scores: dict, hyps: list[str], refs: list[list[str]], ter_every: int) -> tuple[int, int]:
    """(segments compared, segments that differ) against sacrebleu's own sentence_score."""
    from sacrebleu.metrics import BLEU, CHRF, TER

    metrics = {"bleu": (BLEU(trg_lang="de", effective_order=True), 1), "chrf": (CHRF(), 1),
               "ter": (TER(), ter_every)}
    compared = differ = 0
    for key, (metric, every) in metrics.items():
        got = scores[key]["segments"]
        if len(got) != len(hyps):
            return compared, differ + 1
        for i in range(0, len(hyps), every):
            compared += 1
            want = metric.sentence_score(hyps[i].rstrip(), [r[i].rstrip() for r in refs]).score
            if got[i] != want:
                differ += 1
                if differ <= 5:
                    print(f"  {key} segment {i}: ours {got[i]!r}, sacrebleu {want!r}", file=sys.stderr)
    return compared, differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=17000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "segment_scores")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("ENFACE_SHARED_DATA")
                                                         or ROOT.parent / "shared" / "data"))
    parser.add_argument("--ter-every", type=int, default=25, help="compare every n-th TER segment (default 25)")
    args = parser.parse_args()
    root = args.data / "wmt23-mtme" / "wmt23"
    if not root.is_dir():
        print(f"bench: {root} is absent (real WMT23 data in mt-metrics-eval's layout)", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    srcs, hyps, refs = aligned_sentences(root)
    ts = write_testset(args.out, srcs, hyps, refs, args.segments)
    flat = {k: (args.out / f"{k}.flat.txt").read_text(encoding="utf-8").splitlines() for k in ("hyp", "ref1", "ref2")}
    words = sum(len(x.split()) for x in flat["hyp"]) / len(flat["hyp"])
    print(f"test set: WMT23 en-de sentences, {args.segments} segments ({len(hyps)} distinct, {words:.1f} words "
          "each on average), 2 references; BLEU chrF TER")
    py = sys.executable
    cli_time, cli_out = timed([py, "-m", "sacrebleu", str(args.out / "ref1.flat.txt"), str(args.out / "ref2.flat.txt"),
                               "-m", "bleu", "chrf", "ter", "-w", "16", "-b", "-i", str(args.out / "hyp.flat.txt")])
    ours_time, ours_out = timed([py, "-m", "scoring", "score", str(ts), str(args.out / "system"),
                                 "-m", "bleu", "chrf", "ter", "--json", "--segments"])
    scores = json.loads(ours_out)["systems"][0]["scores"]
    same = identical({m: scores[m]["score"] for m in CLI_METRICS}, cli_numbers(cli_out))
    print(f"sacrebleu CLI (corpus only) {cli_time:7.2f} s   enface (corpus + segments) {ours_time:6.2f} s   "
          f"ratio {ours_time / cli_time:.3f}x   identical corpus scores: {same}")
    compared, differ = segment_differences(scores, flat["hyp"], [flat["ref1"], flat["ref2"]], args.ter_every)
    print(f"segment scores: {compared} compared with sacrebleu's sentence_score, {differ} differ   "
          f"(signature: {scores['bleu']['segment_signature']})")
    if not same or differ or not compared:
        print("bench: scores differ from sacrebleu's (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
