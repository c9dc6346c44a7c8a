"""What an LLM judge scores in a rubric item: each tagged phenomenon, with the campaign's rubric.

One task per phenomenon of the item's segment, stored like an annotator's answer (kind "score", key
the phenomenon's id) and checked by the same rules. The judge sees what the annotator sees: the
source, the context, the system's translation, the reference when the campaign shows it, the
requirement, and the matched dimension of the campaign's rubric.
"""

from __future__ import annotations

from ...campaigns.contract import JudgeTask
from ...campaigns.models import Item
from .responses import KIND
from .settings import campaign_rubric
from .texts import context_text, item_phenomena, output_text, segment


def judge_tasks(item: Item) -> list[JudgeTask]:
    campaign = item.campaign
    rubric = campaign_rubric(campaign)
    seg = segment(item.document_id, item.seg_start)
    version = item.version
    translation = (output_text(version.submission_id, item.document_id, item.seg_start)
                   if version.submission_id is not None else None)
    if translation is None and version.reference is not None and seg is not None:
        translation = seg.ref1 if version.reference == 1 else seg.ref2
    phenomena = item_phenomena(item, rubric.keys)
    context = context_text(item, phenomena)
    reference = (seg.ref1 or None) if seg is not None and campaign.setting("show_reference", True) else None
    tasks = []
    for p in phenomena:
        task_item = {"id": f"{item.id}:{p.id}", "dimension": p.dimension, "source": seg.source if seg else "",
                     "translation": translation or "", "requirement": p.requirement}
        if p.context or context:
            task_item["context"] = p.context or context
        if reference:
            task_item["reference"] = reference
        tasks.append(JudgeTask(kind=KIND, key=str(p.id), item=task_item,
                               scale=rubric.dimension(p.dimension).to_dict()))
    return tasks
