"""Source word counting: whitespace, jieba (real segmenter) and CJK characters."""

import pytest

from mqm.words import WordCounter, count_words, guess_language, resolve_mode

ZH = "欧盟峰会为难民政策争论，欧盟官员：接收过程步步瓶颈-中新网"


def test_whitespace_counts_tokens():
    assert count_words("The old man walked slowly.", "whitespace") == 5
    assert count_words("  spaced\tout \n words ", "whitespace") == 3
    assert count_words("", "whitespace") == 0


def test_jieba_counts_words_not_punctuation():
    # jieba 0.42.1 segments this headline as
    # 欧盟/峰会/为/难民/政策/争论/，/欧盟/官员/：/接收/过程/步步/瓶颈/-/中新网
    # -> 16 tokens, of which ，：- are punctuation: 13 words.
    assert count_words(ZH, "jieba") == 13
    assert count_words("我们衷心感谢他。", "jieba") == 3  # 我们/衷心感谢/他/。
    assert count_words("，。！？", "jieba") == 0
    # GPT4/ /翻译/了/ /2/ /本书: Latin and digits count, spaces do not
    assert count_words("GPT4 翻译了 2 本书", "jieba") == 5


def test_chars_counts_each_cjk_character():
    assert count_words(ZH, "chars") == 26  # 29 characters, 3 of them punctuation
    assert count_words("我们衷心感谢他。", "chars") == 7
    assert count_words("GPT4 翻译了 2 本书", "chars") == 7  # GPT4, 翻, 译, 了, 2, 本, 书
    assert count_words("ひらがなカタカナ漢字", "chars") == 10


def test_modes_differ_on_chinese():
    counts = {m: count_words(ZH, m) for m in ("whitespace", "jieba", "chars")}
    assert counts == {"whitespace": 1, "jieba": 13, "chars": 26}


def test_guess_language_from_script():
    assert guess_language(ZH) == "zh"
    assert guess_language("私は東京大学で勉強しています。") == "ja"
    assert guess_language("한국어 문장입니다") == "ko"
    assert guess_language("An English sentence.") is None
    assert guess_language(["", "123"]) is None


def test_auto_mode_picks_by_language():
    assert resolve_mode("auto", "zh") == "jieba"
    assert resolve_mode("auto", "zh-Hans") == "jieba"
    assert resolve_mode("auto", "en") == "whitespace"
    assert resolve_mode("auto", None) == "whitespace"
    assert resolve_mode("auto", "ja") in ("mecab", "jieba")
    assert resolve_mode("chars", "en") == "chars"
    with pytest.raises(ValueError, match="unknown word-count mode"):
        resolve_mode("spaces", None)
    # auto on Chinese text guesses zh and uses jieba
    assert count_words(ZH) == 13


def test_counter_records_its_method():
    counter = WordCounter.for_texts([ZH, "政策"], "auto")
    assert counter.lang == "zh" and counter.resolved == "jieba"
    assert counter.method.startswith("jieba (jieba 0.42") and "language zh" in counter.method
    assert counter(ZH) == 13
    en = WordCounter.for_texts(["Hello there"], "auto")
    assert en.resolved == "whitespace" and en.method.startswith("whitespace")


def test_japanese_auto_uses_a_real_segmenter():
    counter = WordCounter("auto", "ja")
    n = counter("私は東京大学で勉強しています。")
    if counter.resolved == "mecab":  # MeCab+ipadic: 私/は/東京大学/で/勉強/し/て/い/ます/。
        assert n == 9
    else:
        assert n >= 5
