"""Scoring speed against the sacrebleu command line, side by side in one run.

Generates a WMT23-literary-size test set (12 documents, ~16.7k segments, two
references) and two systems, then times:

1. ``sacrebleu ref1 ref2 -i sysA -m bleu chrf ter`` vs ``python -m scoring score TESTSET sysA -m bleu chrf ter``
2. a second system: the CLI again on sysB vs our scorer on sysB once the references are cached
   (what a platform worker does for every submission after the first)
3. COMET multi-system reuse (tiny local model on CPU) vs comet's per-system path, if --comet

Usage: python bench/scoring.py [--segments 16700] [--out bench/out]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))           # the scoring package, before this file's folder
sys.path.append(str(ROOT / "bench"))    # _common, also when bench/upload.py loads this file

from _common import CLI_METRICS, cli_numbers, identical, timed  # noqa: E402

WORDS = ("the a of and to in he she it was his her that with for on as at by from they had but not "
         "said what when one all were there been would could into out up over then than them her him "
         "lantern jade river mountain inn night moon wind cold tea sword master servant letter gate "
         "city old young silent quietly slowly heart hand eyes door road rain snow silver bright dark "
         "walked looked turned smiled asked answered waited remembered whispered laughed opened closed "
         "Lin Qingyuan Su Wan'er Chen Mo Zhou Xiaomei A-Fu years ago morning evening spring autumn").split()


def sentence(rng: random.Random) -> list[str]:
    n = max(3, int(rng.lognormvariate(3.0, 0.5)))  # literary sentences: median ~20 words, long tail
    words = [rng.choice(WORDS) if rng.random() < 0.8 else WORDS[int(rng.paretovariate(1.2)) % len(WORDS)]
             for _ in range(n)]
    words[0] = words[0].capitalize()
    return words


def perturb(words: list[str], rng: random.Random, noise: float) -> str:
    out = []
    for w in words:
        r = rng.random()
        if r < noise / 3:
            continue                      # omission
        if r < 2 * noise / 3:
            out.append(rng.choice(WORDS))  # substitution
        else:
            out.append(w)
        if rng.random() < noise / 4:
            out.append(rng.choice(WORDS))  # addition
    if len(out) > 4 and rng.random() < noise:
        i = rng.randrange(len(out) - 3)
        out[i:i + 3] = out[i:i + 3][::-1]  # local reordering, which TER's shifts look for
    return " ".join(out) + "."


def generate(root: Path, segments: int, docs: int = 12, seed: int = 1) -> Path:
    rng = random.Random(seed)
    ts = root / "testset"
    for sub in ("source", "ref1", "ref2"):
        (ts / sub).mkdir(parents=True, exist_ok=True)
    systems = {"sysA": 0.25, "sysB": 0.35}
    for s in systems:
        (root / s).mkdir(exist_ok=True)
    per_doc = [segments // docs + (1 if i < segments % docs else 0) for i in range(docs)]
    flat = {k: [] for k in ("ref1", "ref2", *systems)}
    names = []
    for d, n in enumerate(per_doc):
        name = f"book{d + 1:02d}.ch1"
        names.append(name)
        lines = {k: [] for k in flat}
        src = []
        for _ in range(n):
            base = sentence(rng)
            src.append("源" * max(1, len(base)))
            lines["ref1"].append(" ".join(base) + ".")
            lines["ref2"].append("" if rng.random() < 0.03 else perturb(base, rng, 0.3))
            for s, noise in systems.items():
                lines[s].append(perturb(base, rng, noise))
        (ts / "source" / f"{name}.txt").write_text("\n".join(src) + "\n", encoding="utf-8")
        for k, ls in lines.items():
            target = ts / k if k.startswith("ref") else root / k
            (target / f"{name}.txt").write_text("\n".join(ls) + "\n", encoding="utf-8")
            flat[k].extend(ls)
    (ts / "testset.json").write_text(json.dumps({"name": "bench", "src_lang": "zh", "tgt_lang": "en",
                                                 "documents": names}), encoding="utf-8")
    for k, ls in flat.items():
        (root / f"{k}.flat.txt").write_text("\n".join(ls) + "\n", encoding="utf-8")
    return ts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=16700)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "scoring")
    parser.add_argument("--no-comet", action="store_true", help="skip the COMET reuse measurement")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    ts = generate(args.out, args.segments)
    py = sys.executable
    sacrebleu_cli = [py, "-m", "sacrebleu", str(args.out / "ref1.flat.txt"), str(args.out / "ref2.flat.txt"),
                     "-m", "bleu", "chrf", "ter", "-w", "16", "-b", "-i"]
    print(f"test set: {args.segments} segments, 12 documents, 2 references; metrics BLEU chrF TER")

    cli_a, out_cli = timed(sacrebleu_cli + [str(args.out / "sysA.flat.txt")])
    ours_a, out_ours = timed([py, "-m", "scoring", "score", str(ts), str(args.out / "sysA"),
                              "-m", "bleu", "chrf", "ter", "--json"])
    ours = json.loads(out_ours)["systems"][0]["scores"]
    same = identical({m: ours[m]["score"] for m in CLI_METRICS}, cli_numbers(out_cli))
    print(f"one system:    sacrebleu CLI {cli_a:7.1f} s   enface {ours_a:7.1f} s   ratio {ours_a / cli_a:.2f}x"
          f"   identical scores: {same}")

    # A later system: the platform worker keeps the reference side cached between submissions.
    from scoring import Scorer, load_system_output, load_testset

    testset = load_testset(ts)
    scorer = Scorer(testset, ["bleu", "chrf", "ter"])
    scorer.score(load_system_output(testset, args.out / "sysA"), name="sysA")
    cli_b, out_cli_b = timed(sacrebleu_cli + [str(args.out / "sysB.flat.txt")])
    t0 = time.perf_counter()
    result_b = scorer.score(load_system_output(testset, args.out / "sysB"), name="sysB")
    ours_b = time.perf_counter() - t0
    same_b = identical({m: result_b.scores[m].value for m in CLI_METRICS}, cli_numbers(out_cli_b))
    print(f"later system:  sacrebleu CLI {cli_b:7.1f} s   enface {ours_b:7.1f} s   ratio {ours_b / cli_b:.2f}x"
          f"   identical scores: {same_b}   (references cached)")
    t0 = time.perf_counter()
    scorer.score(load_system_output(testset, args.out / "sysB"), name="sysB-again")
    again = time.perf_counter() - t0
    print(f"re-scoring:    enface {again:7.1f} s   ratio {again / cli_b:.3f}x   (segment statistics remembered)")
    scorer.close()

    if not args.no_comet:
        # COMET: comet's per-system path vs encoding sources/references once, same model, on CPU.
        print("COMET multi-system reuse (bench/comet_reuse.py, 3 systems x 100 segments, CPU):")
        _, out = timed([py, str(ROOT / "bench" / "comet_reuse.py"), "--systems", "3", "--segments", "100",
                        "--device", "cpu"])
        print("  " + out.strip().replace("\n", "\n  "))   # timed() stops here if comet_reuse.py failed

    if not (same and same_b):
        print("bench: the scores differ from the sacrebleu CLI's (see 'identical scores' above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
