"""The on-disk test-set format: every malformed test set gets a clear TestSetError."""

from __future__ import annotations

import json

import pytest

from scoring import TestSetError, load_flat, load_system_output, load_testset


def make(root, docs=None, meta=None, refs=("ref1", "ref2")):
    docs = docs or {"a.1": ["一", "二"], "b": ["三"]}
    (root / "source").mkdir(parents=True)
    for r in refs:
        (root / r).mkdir()
    for name, lines in docs.items():
        (root / "source" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        for r in refs:
            (root / r / f"{name}.txt").write_text("\n".join(f"{r} {x}" for x in lines) + "\n", encoding="utf-8")
    (root / "testset.json").write_text(json.dumps(meta or {"name": "t", "src_lang": "zh", "tgt_lang": "en"}))
    return root


def test_loads_documents_with_dots_in_natural_order(tmp_path):
    ts = load_testset(make(tmp_path, {"ch10": ["x"], "ch2": ["y"], "talk.2": ["z"]}))
    assert ts.doc_names == ["ch2", "ch10", "talk.2"]
    assert ts.num_refs == 2 and ts.num_segments == 3
    assert ts.references()[1] == ["ref2 y", "ref2 x", "ref2 z"]


def test_documents_order_from_testset_json(tmp_path):
    ts = load_testset(make(tmp_path, meta={"name": "t", "src_lang": "zh", "tgt_lang": "en", "documents": ["b", "a.1"]}))
    assert ts.doc_names == ["b", "a.1"]


@pytest.mark.parametrize("breakage, message", [
    ("no-meta", "testset.json: missing"),
    ("bad-json", "not valid JSON"),
    ("meta-list", "must hold a JSON object"),
    ("meta-missing-lang", "missing tgt_lang"),
    ("ref-short", "1 lines, but the source has 2"),
    ("ref-missing-doc", "missing (every reference folder"),
    ("listed-missing", "listed in testset.json but missing"),
    ("no-source", "source: missing"),
])
def test_malformed_testsets(tmp_path, breakage, message):
    root = make(tmp_path)
    if breakage == "no-meta":
        (root / "testset.json").unlink()
    elif breakage == "bad-json":
        (root / "testset.json").write_text("{")
    elif breakage == "meta-list":
        (root / "testset.json").write_text("[]")
    elif breakage == "meta-missing-lang":
        (root / "testset.json").write_text('{"name": "t", "src_lang": "zh"}')
    elif breakage == "ref-short":
        (root / "ref2" / "a.1.txt").write_text("only one\n")
    elif breakage == "ref-missing-doc":
        (root / "ref1" / "b.txt").unlink()
    elif breakage == "listed-missing":
        (root / "testset.json").write_text('{"name": "t", "src_lang": "zh", "tgt_lang": "en", "documents": ["zz"]}')
    elif breakage == "no-source":
        import shutil
        shutil.rmtree(root / "source")
    with pytest.raises(TestSetError, match=message.replace("(", r"\(")):
        load_testset(root)


def test_not_a_directory(tmp_path):
    with pytest.raises(TestSetError, match="not a directory"):
        load_testset(tmp_path / "nope")


def test_empty_reference_lines_are_kept_as_null_alignments(tmp_path):
    root = make(tmp_path)
    (root / "ref2" / "a.1.txt").write_text("\nref2 二\n")
    assert load_testset(root).document("a.1").refs[1] == ("", "ref2 二")


def test_flat_layout_and_non_contiguous_docids(tmp_path):
    for name, text in {"src.txt": "a\nb\nc\n", "ref1.txt": "A\nB\nC\n", "docids.txt": "d1\nd1\nd2\n"}.items():
        (tmp_path / name).write_text(text)
    ts = load_flat(tmp_path / "src.txt", [tmp_path / "ref1.txt"], tmp_path / "docids.txt")
    assert ts.doc_names == ["d1", "d2"] and ts.num_refs == 1
    (tmp_path / "docids.txt").write_text("d1\nd2\nd1\n")
    with pytest.raises(TestSetError, match="contiguous"):
        load_flat(tmp_path / "src.txt", [tmp_path / "ref1.txt"], tmp_path / "docids.txt")
    (tmp_path / "docids.txt").write_text("d1\n")
    with pytest.raises(TestSetError, match="1 lines"):
        load_flat(tmp_path / "src.txt", [tmp_path / "ref1.txt"], tmp_path / "docids.txt")


def test_single_file_output_is_cut_by_documents(tmp_path):
    ts = load_testset(make(tmp_path / "ts"))
    hyp = tmp_path / "hyp.txt"
    hyp.write_bytes("\ufeffone\r\ntwo\r\nthree\r\n".encode())
    assert load_system_output(ts, hyp) == {"a.1": ["one", "two"], "b": ["three"]}
    hyp.write_text("one\n")
    with pytest.raises(TestSetError, match="1 lines, but the test set has 3"):
        load_system_output(ts, hyp)
    with pytest.raises(TestSetError, match="must be a directory"):
        load_system_output(ts, hyp, document_level=True)


def test_invalid_utf8_in_testset_names_file_byte_and_line(tmp_path):
    root = make(tmp_path)
    (root / "ref1" / "b.txt").write_bytes(b"ok\n\xff\xfe bad\n")
    with pytest.raises(TestSetError, match=r"ref1/b.txt: invalid UTF-8 at byte 3 \(line 2\)"):
        load_testset(root)


def test_output_from_uploaded_files(tmp_path):
    from scoring.testset import output_from_files

    ts = load_testset(make(tmp_path / "ts"))
    per_doc = {"sub/a.1.txt": "one\r\ntwo\n".encode(), "sub/b.txt": b"three\n", "__MACOSX/._a.1.txt": b"\0",
               ".DS_Store": b"\0"}
    assert output_from_files(ts, per_doc) == {"a.1": ["one", "two"], "b": ["three"]}
    assert output_from_files(ts, [("all.txt", "\ufeffx\ny\nz\n".encode())]) == {"a.1": ["x", "y"], "b": ["z"]}
    with pytest.raises(TestSetError, match="missing documents b"):
        output_from_files(ts, {"a.1.txt": b"x\ny\n", "other.txt": b"z\n"})
    with pytest.raises(TestSetError, match="one <doc>.txt file per document"):
        output_from_files(ts, {"all.txt": b"x\n"}, document_level=True)


@pytest.mark.parametrize(("meta", "message"), [
    ({"documents": 3}, '"documents" must be a list of document names'),
    ({"documents": "a"}, '"documents" must be a list of document names'),
    ({"documents": ["a", 7]}, '"documents" must be a list of document names'),
    ({"documents": ["a", "a"]}, '"documents" lists a more than once'),
    ({"name": 5}, "name must be a string"),
    ({"src_lang": ["en"]}, "src_lang must be a string"),
])
def test_testset_json_of_the_wrong_shape_is_refused_with_the_field(tmp_path, meta, message):
    """Found by fuzzing the import: ``"documents": 3`` was a TypeError (a 500 on the import page)."""
    root = make(tmp_path / "ts", docs={"a": ["x"]},
                meta={"name": "T", "src_lang": "en", "tgt_lang": "de", "documents": ["a"], **meta})
    with pytest.raises(TestSetError, match=message):
        load_testset(root)
