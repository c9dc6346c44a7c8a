"""Plain-text rendering of reader-study results (the dicts of :mod:`humaneval.reader`)."""

from __future__ import annotations

from typing import Any

from .export import QUESTIONS, VERSION_KEYS


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _share(count: int, n: int) -> str:
    return f"{count}/{n}" + (f" ({100 * count / n:.0f}%)" if n else "")


def _p(test: dict[str, Any]) -> str:
    return f"p = {test['p_value']:.3f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _coefficient(entry: dict[str, Any]) -> str:
    name = "AC1" if entry["coefficient"] == "ac1" else f"AC2 ({entry['weights']})"
    if entry["value"] is None:
        return f"{name} n/a ({entry['reason']})"
    return f"{name} = {entry['value']:.3f} ({_plural(entry['items'], 'item')}, {_plural(entry['raters'], 'reader')})"


def study_text(name: str, res: dict[str, Any]) -> str:
    """One study's results as readable lines."""
    names = {k: "/".join(res["versions"][k]["labels"]) or "?" for k in VERSION_KEYS}
    v1, v2 = (f"version {k} ({names[k]})" for k in VERSION_KEYS)
    rec = res["records"]
    out = [f"Study {name}: {res['documents']} documents, {res['readers']} readers "
           f"({rec['excerpt']} excerpt, {rec['chunk']} chunk, {rec['post']} post records)", ""]

    ex = res["excerpt_preference"]
    out.append(f"Would continue reading: {v1} {ex['counts']['1']}, {v2} {ex['counts']['2']} "
               f"of {ex['n']}; {_p(ex['test'])}")
    for k in VERSION_KEYS:
        s = ex["strength"][k]
        out.append(f"  version {k}: clearly {s['clearly']}, slightly {s['slightly']}")
    ch = res["chunk_preference"]
    out.append(f"Chunk preference: {v1} {ch['counts']['1']}, {v2} {ch['counts']['2']} of {ch['n']}; "
               f"{_p(ch['test'])}")
    for k in VERSION_KEYS:
        s = ch["strength"][k]
        out.append(f"  version {k}: significantly better {s['significantly_better']}, better {s['better']}, "
                   f"similar {s['similar']}")
    cl = ch["excluding_similar"]
    out.append(f"  without 'similar': version 1 {cl['counts']['1']}, version 2 {cl['counts']['2']} "
               f"of {cl['n']}; {_p(cl['test'])}")
    for title, entry in (("Would continue reading", ex["by_kind"]), ("Chunk preference", ch["by_kind"])):
        if entry["n"]:
            out.append(f"{title}, by kind: human (reference) {entry['reference']}, machine (system) "
                       f"{entry['system']} of {entry['n']}; {_p(entry['test'])}")

    out += ["", "Ratings (1-5): mean, median per version"]
    for q in res["ratings"]:
        row = res["ratings"][q]
        cells = [f"v{k} {_num(row[k]['mean'], 2)} / {_num(row[k]['median'], 1)} (n={row[k]['n']})"
                 for k in VERSION_KEYS]
        out.append(f"  {q:<14} " + "   ".join(cells))

    ag = res["agreement"]
    out += ["", "Agreement between the readers of a document"]
    for key, title in (("excerpt_preference", "would continue reading"), ("mt_guess", "which version is AI"),
                       ("origin_guess", "human/machine guess per version"),
                       ("chunk_preference", "chunk preference"),
                       ("chunk_preference_excluding_similar", "chunk preference, no 'similar'"),
                       ("chunk_preference_both_significantly_better", "chunk preference, both 'significantly'")):
        out.append(f"  {title:<40} {_coefficient(ag[key])}")
    for q in QUESTIONS:
        out.append(f"  {q:<40} {_coefficient(ag['ratings'][q])}")

    so = res["span_overlap"]
    out += ["", f"Highlight spans overlapping the other reader's: any label {_num(so['any_label'])}, "
                f"same label {_num(so['same_label'])} ({so['spans']} spans)"]
    hl = res["highlights"]
    for k in VERSION_KEYS:
        out.append(f"  version {k}: good {_num(hl[k]['good_per_1000'], 1)}, poor {_num(hl[k]['poor_per_1000'], 1)} "
                   f"highlighted words per 1,000 ({hl[k]['words']} words read)")
    hb = res["highlight_balance"]
    out.append(f"Net highlight balance agrees with the chunk preference: {_share(hb['agree'], hb['n'])}; "
               f"{_p(hb['test'])} ({_plural(hb['ties'], 'tie')} left out)")
    md = res["machine_detection"]
    out.append(f"Machine version identified: {_share(md['correct'], md['n'])}; {_p(md['test'])}")
    og = res["origin_guess"]
    out.append(f"Human/machine guesses right: {_share(og['correct'], og['n'])}; {_p(og['test'])}")
    return "\n".join(out)


def results_text(results: dict[str, Any]) -> str:
    """Every study, one after the other."""
    return "\n\n".join(study_text(name, res) for name, res in results["studies"].items())
