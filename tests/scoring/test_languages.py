"""Language codes are normalised once (scoring/languages.py): BLEU's tokenizer for Chinese, Japanese
and Korean targets must not depend on how the test set spells the code.

The parity tests compare with the sacrebleu command line given ``-l en-zh`` / ``-l en-ja``: the
bare command (no ``-l``) tokenises with 13a, so equality with it holds only for 13a targets.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mqm.words import resolve_mode
from scoring import Scorer, load_system_output, load_testset
from scoring.languages import bleu_language, primary_language
from scoring.metrics.sacrebleu_metrics import make_metric, signature
from scoring.validate import lang_scripts
from tests.support import realdata

DIGITS = 16


@pytest.mark.parametrize("code, primary", [
    ("zh", "zh"), ("zh-Hans", "zh"), ("zh-CN", "zh"), ("zh_TW", "zh"), ("ZH-hant", "zh"), ("zho", "zh"),
    ("cmn", "zh"), ("ja", "ja"), ("ja-JP", "ja"), ("jpn", "ja"), ("ko", "ko"), ("ko-KR", "ko"),
    ("en", "en"), ("en-US", "en"), (" de_AT ", "de"), ("", ""), (None, ""),
])
def test_primary_language(code, primary):
    assert primary_language(code) == primary
    assert bleu_language(code) == primary


@pytest.mark.parametrize("code, tokenizer", [
    ("zh", "zh"), ("zh-Hans", "zh"), ("zh-CN", "zh"), ("zh_TW", "zh"),
    ("ja", "ja-mecab"), ("ja-JP", "ja-mecab"), ("ko", "ko-mecab"), ("ko-KR", "ko-mecab"),
    ("en", "13a"), ("en-GB", "13a"), ("de", "13a"), ("", "13a"),
])
def test_bleu_tokenizer_follows_the_normalised_code(code, tokenizer):
    make_metric.cache_clear()
    assert make_metric("bleu", code).tokenizer.signature().startswith(tokenizer)
    assert f"|tok:{tokenizer}" in signature("bleu", code, 1)


def test_every_language_dependent_part_agrees_on_zh_hans():
    assert lang_scripts("zh-Hans") == lang_scripts("zh") == frozenset({"Han"})
    assert lang_scripts("jpn") == lang_scripts("ja")
    assert resolve_mode("auto", "zh-Hans") == resolve_mode("auto", "zh") == "jieba"
    assert resolve_mode("auto", "zh_CN") == "jieba"


# --------------------------------------------------------------------------- parity with the CLI's -l


def _perturb(text: str, rng: random.Random) -> str:
    """A plausible wrong translation: characters dropped, doubled or swapped."""
    chars = list(text)
    for _ in range(max(1, len(chars) // 8)):
        if len(chars) < 3:
            break
        i = rng.randrange(len(chars) - 1)
        op = rng.randrange(3)
        if op == 0:
            del chars[i]
        elif op == 1:
            chars.insert(i, chars[i])
        else:
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
    return "".join(chars)


def _write(root: Path, docs: dict[str, tuple[list[str], list[str], list[str]]], tgt_lang: str) -> tuple[Path, Path]:
    """A one-reference test set (source, reference, hypothesis per document) and the system's folder."""
    ts, system = root / "testset", root / "system"
    for folder in (ts / "source", ts / "ref1", system):
        folder.mkdir(parents=True)
    for name, (src, ref, hyp) in docs.items():
        (ts / "source" / f"{name}.txt").write_text("".join(s + "\n" for s in src), encoding="utf-8")
        (ts / "ref1" / f"{name}.txt").write_text("".join(s + "\n" for s in ref), encoding="utf-8")
        (system / f"{name}.txt").write_text("".join(s + "\n" for s in hyp), encoding="utf-8")
    (ts / "testset.json").write_text(json.dumps({"name": "lang", "src_lang": "en", "tgt_lang": tgt_lang,
                                                 "documents": list(docs)}), encoding="utf-8")
    return ts, system


def _cli(root: Path, testset, output, pair: str | None) -> list[str]:
    ref = root / "ref.txt"
    ref.write_text("".join(s + "\n" for s in testset.references()[0]), encoding="utf-8")
    hyp = root / "hyp.txt"
    hyp.write_text("".join(s + "\n" for d in testset.doc_names for s in output[d]), encoding="utf-8")
    cmd = [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(hyp), "-m", "bleu", "chrf", "ter",
           "-w", str(DIGITS), "-b"] + (["-l", pair] if pair else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [x.strip().strip(",") for x in out.strip().strip("[]").split()]


def _ours(testset, output) -> list[str]:
    scores = Scorer(testset, ["bleu", "chrf", "ter"], workers=1).score(output).scores
    return [f"{scores[m].value:.{DIGITS}f}" for m in ("bleu", "chrf", "ter")], scores["bleu"].signature


@pytest.mark.parametrize("code", ["zh", "zh-Hans", "zh-CN"])
def test_chinese_target_equals_the_cli_with_l_en_zh(tmp_path, code):
    """Real Chinese text (the WMT23 zh-en sources) as the reference, a perturbed copy as the output."""
    keys, source, targets = realdata.system_segments(realdata.ZHEN_TSV)
    english = targets["ONLINE-A"]
    rng = random.Random(7)
    docs: dict[str, tuple[list, list, list]] = {}
    for key in keys[:150]:
        if key not in english:
            continue
        name = "".join(c if c.isalnum() else "_" for c in key[0])
        src, ref, hyp = docs.setdefault(name, ([], [], []))
        src.append(english[key])
        ref.append(source[key])
        hyp.append(_perturb(source[key], rng))
    _check_parity(tmp_path, docs, code, "en-zh", "zh")


def _check_parity(tmp_path, docs, code: str, pair: str, tokenizer: str) -> None:
    """Our BLEU, chrF and TER equal ``sacrebleu -l pair``'s to 16 decimals, and BLEU differs from the bare
    command's (13a): were they equal, the language would have been ignored."""
    ts_dir, system = _write(tmp_path, docs, code)
    testset = load_testset(ts_dir)
    output = load_system_output(testset, system)
    ours, sig = _ours(testset, output)
    assert ours == _cli(tmp_path, testset, output, pair)
    assert f"|tok:{tokenizer}" in sig
    assert ours[0] != _cli(tmp_path, testset, output, None)[0]


JAPANESE = [
    "吾輩は猫である。名前はまだ無い。",
    "どこで生れたかとんと見当がつかぬ。",
    "何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。",
    "吾輩はここで始めて人間というものを見た。",
    "しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。",
    "この書生というのは時々我々を捕えて煮て食うという話である。",
    "しかしその当時は何という考もなかったから別段恐しいとも思わなかった。",
    "ただ彼の掌に載せられてスーと持ち上げられた時何だかフワフワした感じがあったばかりである。",
    "掌の上で少し落ちついて書生の顔を見たのがいわゆる人間というものの見始であろう。",
    "この時妙なものだと思った感じが今でも残っている。",
]


@pytest.mark.parametrize("code", ["ja", "ja-JP"])
def test_japanese_target_equals_the_cli_with_l_en_ja(tmp_path, code):
    rng = random.Random(3)
    docs = {"neko": (["I am a cat."] * len(JAPANESE), JAPANESE, [_perturb(s, rng) for s in JAPANESE])}
    _check_parity(tmp_path, docs, code, "en-ja", "ja-mecab")
