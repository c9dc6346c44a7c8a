"""Marot/Anthea TSV import/export and the JSON form, on small hand-written files."""

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

import mqm
from mqm.model import AttentionCheck, Error, MQMInputError, NoError
from mqm.tsv import format_tsv, parse_tsv, read_tsv

FIXTURES = Path(__file__).parent / "fixtures"
HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"


def tsv(*rows: str) -> str:
    return HEADER + "".join(r + "\n" for r in rows)


def test_target_span_offsets_and_category_split():
    data = parse_tsv(tsv("S\td\t1\t7\tr1\tHello world.\tHallo <v>Welt</v>.\tAccuracy/Mistranslation\tMajor\tnote!"))
    (err,) = data.errors
    assert (err.side, err.start, err.end, err.text) == ("target", 6, 10, "Welt")
    assert (err.category, err.subcategory, err.full_category) == ("Accuracy", "Mistranslation",
                                                                   "Accuracy/Mistranslation")
    assert (err.system, err.doc, err.doc_seg_id, err.seg_id, err.rater) == ("S", "d", "1", "7", "r1")
    assert err.note == "note!" and err.line == 2
    seg = data.segments[err.key]
    assert (seg.source, seg.target) == ("Hello world.", "Hallo Welt.")
    assert seg.target[err.start:err.end] == "Welt"


def test_source_side_omission_and_unicode_offsets():
    data = parse_tsv(tsv("S\td\t1\t1\tr1\t欧盟峰会<v>步步</v>瓶颈\tEU summit\tAccuracy/Omission\tMinor\t"))
    (err,) = data.errors
    assert (err.side, err.start, err.end, err.text) == ("source", 4, 6, "步步")
    assert data.segments[err.key].source == "欧盟峰会步步瓶颈"


def test_no_error_attention_checks_and_non_translation():
    data = parse_tsv(tsv(
        "S\td\t1\t1\tr1\tA.\tB.\tNo-error\tNo-error\t",
        "S\td\t1\t1\tr2\tA.\tB.\tFound\tHOTW-test\t",
        "S\td\t1\t1\tr3\tA.\tB.\tMissed\tHOTW-test\t",
        "S\td\t2\t2\tr1\tC.\t<v>Gibberish.</v>\tNon-translation!\tMajor\t",
    ))
    assert [type(r) for r in data.rows()] == [NoError, AttentionCheck, AttentionCheck, Error]
    assert [c.passed for c in data.attention_checks] == [True, False]
    assert data.attention_summary() == {"r2": {"found": 1, "missed": 0}, "r3": {"found": 0, "missed": 1}}
    nt = data.errors[0]
    assert nt.is_non_translation and (nt.start, nt.end) == (0, len("Gibberish."))
    # attention checks never make a rater count as having judged a segment
    assert data.rated() == {("S", "d", "1", "1"): {"r1"}, ("S", "d", "2", "2"): {"r1"}}


def test_non_translation_helper_marks_whole_segment():
    seg = mqm.Segment("S", "d", "1", "1", "src", "whole target")
    err = mqm.non_translation(seg, "r9")
    assert (err.start, err.end, err.text, err.side) == (0, 12, "whole target", "target")
    assert load_scheme_weight(err) == 25


def load_scheme_weight(err: Error) -> float:
    return mqm.load_scheme("google-mqm").weight(err.full_category, err.severity)


def test_anthea_metadata_column_is_parsed_and_note_taken():
    meta = '{"timestamp":1,"note":"check the name","segment":{"metrics":{"MQM":5}}}'
    text = ("system\tdoc\tdocSegId\tglobalSegId\trater\tsource\ttarget\tcategory\tseverity\tmetadata\t# doc\n"
            f"S\td\t1\t1\tr1\tA\t<v>B</v>\tOther\tMinor\t{meta}\n")
    data = parse_tsv(text)
    (err,) = data.errors
    assert err.metadata["segment"]["metrics"]["MQM"] == 5 and err.note == "check the name"
    assert data.header[-1] == "# doc"
    assert format_tsv(data) == text  # header (with its extra cell) and metadata come back unchanged


def test_unclosed_tag_warns_and_round_trips():
    text = tsv("S\td\t1\t1\tr1\tA\tEnde <v>?\tFluency/Punctuation\tMinor\t")
    data = parse_tsv(text, path="f.tsv")
    (err,) = data.errors
    assert (err.start, err.end, err.text, err.unclosed) == (5, 6, "?", True)
    assert data.warnings and data.warnings[0].startswith("f.tsv:2: unbalanced <v> tags")
    assert format_tsv(data) == text
    with pytest.raises(MQMInputError, match=r"f.tsv:2: unbalanced <v> tags in target: <v> without </v>"):
        parse_tsv(text, path="f.tsv", strict=True)


@pytest.mark.parametrize("row, message", [
    ("S\td\t1\t1\tr1\tA\tB\tOther", "malformed row: expected 9 or 10"),
    ("S\td\t1\t1\tr1\tA\tB\tOther\tMinor\tx\ty", "found 11"),
    ("S\td\t1\t\tr1\tA\tB\tOther\tMinor\t", "empty seg_id"),
    ("S\td\t1\t1\tr1\tA\tB\tOther\tSerious\t", "unknown severity 'Serious'"),
    ("S\td\t1\t1\tr1\tA\tx</v>B<v>\tOther\tMinor\t", "</v> comes before <v>"),
    ("S\td\t1\t1\tr1\tA\t<v>x</v> <v>y</v>\tOther\tMinor\t", "2 <v> and 2 </v>"),
    ("S\td\t1\t1\tr1\tA\tx</v>\tOther\tMinor\t", "0 <v> and 1 </v>"),
    ("S\td\t1\t1\tr1\t<v>A</v>\t<v>B</v>\tOther\tMinor\t", "both source and target"),
    ("S\td\t1\t1\tr1\tA\t<v>B</v>\tNo-error\tNo-error\t", "a No-error row cannot mark"),
])
def test_bad_rows_name_the_line(row, message):
    text = tsv("S\td\t1\t1\tr0\tA\tB\tNo-error\tNo-error\t", row)
    with pytest.raises(MQMInputError) as info:
        parse_tsv(text, path="bad.tsv")
    assert str(info.value).startswith("bad.tsv:3: ") and message in str(info.value)


def test_scheme_decides_which_severities_are_known():
    text = tsv("S\td\t1\t1\tr1\tA\t<v>B</v>\tOther\tCritical\t")
    assert parse_tsv(text, scheme=mqm.load_scheme("wmt23-literary")).errors[0].severity == "Critical"
    with pytest.raises(MQMInputError, match="unknown severity 'Critical' for scheme google-mqm"):
        parse_tsv(text, scheme=mqm.load_scheme("google-mqm"))


def test_gzip_and_single_tsv_tar_archives(tmp_path):
    text = (FIXTURES / "google_small.tsv").read_text(encoding="utf-8")
    gz = tmp_path / "a.tsv.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    tgz = tmp_path / "a.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        info = tarfile.TarInfo("inner/a.tsv")
        info.size = len(text.encode())
        tar.addfile(info, io.BytesIO(text.encode()))
    plain = read_tsv(FIXTURES / "google_small.tsv")
    for path in (gz, tgz):
        assert format_tsv(read_tsv(path)) == format_tsv(plain) == text
    two = tmp_path / "two.tar.gz"
    with tarfile.open(two, "w:gz") as tar:
        for name in ("x.tsv", "y.tsv"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"x\n"))
    with pytest.raises(MQMInputError, match="exactly one .tsv"):
        read_tsv(two)
    with pytest.raises(MQMInputError, match="no such file"):
        read_tsv(tmp_path / "missing.tsv")


def test_non_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin1.tsv"
    path.write_bytes(HEADER.encode() + "S\td\t1\t1\tr1\tÄ\tB\tNo-error\tNo-error\t\n".encode("latin-1"))
    with pytest.raises(MQMInputError, match=r"latin1.tsv:2: not UTF-8"):
        read_tsv(path)


@pytest.mark.parametrize("name", ["google_small.tsv", "literary_small.tsv"])
def test_json_round_trip_preserves_every_row(name, tmp_path):
    original = (FIXTURES / name).read_text(encoding="utf-8")
    data = read_tsv(FIXTURES / name)
    out = tmp_path / "a.json"
    mqm.save(data, out)
    obj = json.loads(out.read_text(encoding="utf-8"))
    assert obj["format"] == "enface-mqm" and obj["version"] == 1
    assert all({"system", "doc", "doc_seg_id", "global_seg_id", "source", "target", "errors"} <= set(s)
               for s in obj["segments"])
    back = mqm.load(out)
    assert format_tsv(back) == original
    mqm.save(back, tmp_path / "b.tsv")
    assert (tmp_path / "b.tsv").read_text(encoding="utf-8") == original


def test_json_segment_shape():
    data = read_tsv(FIXTURES / "google_small.tsv")
    obj = mqm.to_json_obj(data)
    first = obj["segments"][0]
    assert (first["system"], first["doc"], first["doc_seg_id"], first["global_seg_id"]) == ("X", "d1", "1", "1")
    assert first["errors"][0] == {"rater": "r1", "line": 2, "side": "target", "start": 46, "end": 47,
                                  "text": ".", "category": "Fluency", "subcategory": "Punctuation",
                                  "severity": "Minor"}
    assert first["no_error"] == [{"rater": "r2", "line": 4}]
    assert first["attention_checks"] == [{"rater": "r2", "line": 5, "result": "Missed"}]
    omission = obj["segments"][3]["errors"][1]
    assert omission["side"] == "source" and omission["text"] == "by Friday"
    # a bare list of segments is accepted too, and exported in segment order
    bare = mqm.from_json_obj(obj["segments"])
    assert len(bare.errors) == len(data.errors) and bare.header is None
    assert format_tsv(bare).splitlines()[0].split("\t")[:9] == ["system", "doc", "doc_id", "seg_id", "rater",
                                                               "source", "target", "category", "severity"]


def test_platform_json_without_lines_exports_in_segment_order():
    segs = [{"system": "S", "doc": "d", "doc_seg_id": 1, "global_seg_id": 1, "source": "a b", "target": "x y",
             "errors": [{"rater": "r1", "side": "target", "start": 2, "end": 3, "category": "Style",
                         "subcategory": "Awkwardness", "severity": "Minor"}],
             "no_error": [{"rater": "r2"}]}]
    text = format_tsv(mqm.from_json_obj(segs))
    rows = [line.split("\t") for line in text.splitlines()[1:]]
    assert rows == [["S", "d", "1", "1", "r1", "a b", "x <v>y</v>", "Style/Awkwardness", "Minor"],
                    ["S", "d", "1", "1", "r2", "a b", "x y", "No-error", "No-error"]]


@pytest.mark.parametrize("mutate, message", [
    (lambda s: s[0].pop("target"), "segments[0]: missing 'target'"),
    (lambda s: s[0]["errors"][0].update(start=5, end=9), "does not fit the target"),
    (lambda s: s[0]["errors"][0].update(side="middle"), "side must be"),
    (lambda s: s[0]["errors"][0].pop("severity"), "segments[0].errors[0]: missing 'severity'"),
    (lambda s: s[0]["errors"][0].update(text="y"), "text 'y' is not what the span marks ('x')"),
    (lambda s: s.append(dict(s[0])), "segments[1]: duplicate segment"),
])
def test_bad_json_names_the_place(mutate, message, tmp_path):
    segs = [{"system": "S", "doc": "d", "doc_seg_id": "1", "global_seg_id": "1", "source": "a", "target": "xy",
             "errors": [{"rater": "r1", "start": 0, "end": 1, "category": "Other", "severity": "Minor"}]}]
    mutate(segs)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(segs), encoding="utf-8")
    with pytest.raises(MQMInputError) as info:
        mqm.load(path)
    assert str(info.value).startswith(f"{path}:") and message in str(info.value)


def test_export_refuses_tabs_inside_fields(tmp_path):
    segs = [{"system": "S", "doc": "d", "doc_seg_id": "1", "global_seg_id": "1", "source": "a\tb", "target": "x",
             "no_error": [{"rater": "r1"}]}]
    data = mqm.from_json_obj(segs, "in.json")
    with pytest.raises(MQMInputError, match=r"in.json:segment S/d/1: cannot write a tab"):
        mqm.save(data, tmp_path / "out.tsv")
    assert not (tmp_path / "out.tsv").exists()


def test_metadata_only_rows_are_skipped_with_a_warning():
    data = parse_tsv(tsv("S\td\t1\t1\t\tA\tB\t\t\t{}", "S\td\t1\t1\tr1\tA\tB\tno-error\tno-error\t"), path="m.tsv")
    assert len(data.no_errors) == 1 and not data.errors
    assert data.warnings == ["m.tsv:2: row without rater, category and severity (metadata only) skipped"]


def test_names_match_ignoring_case_and_underscores():
    scheme = mqm.load_scheme("google-mqm")
    assert scheme.weight("fluency/punctuation", "minor") == 0.1
    assert scheme.weight("NON-TRANSLATION!", "MAJOR") == 25
    rule = mqm.schemes.WeightRule(category="Locale convention/Date format", weight=2.0, severity="Minor")
    assert rule.applies("locale_convention/date_format", "minor") and not rule.applies("Locale convention", "Minor")
    data = parse_tsv(tsv("S\td\t1\t1\tr1\tA\t<v>B</v>\tStyle/Awkward\tmajor\t"), scheme=scheme)
    assert data.errors[0].severity == "major"  # kept as written, for a faithful export
