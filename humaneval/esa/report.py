"""The ESA results as plain text (``python -m humaneval esa-results`` without ``--json``)."""

from __future__ import annotations

from .results import EsaResults


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def results_text(results: EsaResults) -> str:
    ranking = {r["system"]: r for r in results.ranking["rows"]}
    name_w = max([len("system")] + [len(s.system) for s in results.systems])
    header = (f"{'cl':>3} {'rank':>6}  {'system':<{name_w}}  {'score':>7}  {'95% CI':>15}  {'z':>7}  {'items':>6}"
              f"  {'minor':>6}  {'major':>6}  {'s/span':>7}")
    lines = [header, "-" * len(header)]
    for s in results.systems:
        r = ranking[s.system]
        ci = f"{_num(s.ci_low, '.2f')}–{_num(s.ci_high, '.2f')}"
        lines.append(f"{r['cluster']:>3} {r['rank_range']:>6}  {s.system:<{name_w}}  {s.score:>7.2f}  {ci:>15}  "
                     f"{s.z:>+7.3f}  {s.items:>6}  {s.spans.get('minor', 0):>6}  {s.spans.get('major', 0):>6}  "
                     f"{_num(s.timing.seconds_per_span, '7.1f'):>7}")
    settings = results.settings
    lines += ["", f"ranking: {results.ranking['test_name']} on the {settings['ranking_by']}s of source segments, "
                  f"p < {settings['ranking_alpha']}, clusters: {settings['cluster_method']}"]
    a = results.agreement
    lines.append(f"agreement on {a.segments} shared segments ({a.pairs} rating pairs): Pearson {_num(a.pearson, '.3f')}, "
                 f"Kendall {_num(a.kendall, '.3f')}, span F1 {_num(a.span_f1, '.3f')}, "
                 f"span Jaccard {_num(a.span_jaccard, '.3f')}, span F1 with severity {_num(a.span_f1_severity, '.3f')}")
    t = results.timing
    lines.append(f"time: {_num(t.seconds_per_segment, '.1f')} s per segment (median "
                 f"{_num(t.median_seconds_per_segment, '.1f')}), {_num(t.seconds_per_span, '.1f')} s per error span")
    lines += ["", f"attention checks ({settings['attention_test']}, one-sided, BAD < original, "
                  f"p < {settings['attention_alpha']}):"]
    ann_w = max([len("annotator")] + [len(c.annotator) for c in results.attention])
    lines.append(f"  {'annotator':<{ann_w}}  {'pairs':>5}  {'BAD':>6}  {'orig':>6}  {'lower':>6}  {'p':>8}  verdict")
    for c in results.attention:
        verdict = {True: "pass", False: "FAIL", None: "no pair"}[c.passed]
        lines.append(f"  {c.annotator:<{ann_w}}  {c.pairs:>5}  {_num(c.bad_mean, '6.1f'):>6}  "
                     f"{_num(c.original_mean, '6.1f'):>6}  {_num(c.lower_share, '6.2f'):>6}  "
                     f"{_num(c.p_value, '8.4f'):>8}  {verdict}")
    excluded = ", ".join(results.excluded) if results.excluded else "none"
    lines.append(f"excluded from the results: {excluded}" if settings["exclude_failing"]
                 else "failing annotators are kept in the results (--keep-failing)")
    return "\n".join(lines)
