"""The campaign core's services, one module per concern; views, the CLI and protocols import them from here.

* :mod:`~enface.campaigns.services.setup`: finding and creating campaigns, their versions and documents
* :mod:`~enface.campaigns.services.people`: annotators, invites, conflicts of interest
* :mod:`~enface.campaigns.services.lifecycle`: start and assignment, open/close, rebalance, release, the leaderboard hook
* :mod:`~enface.campaigns.services.annotating`: the annotator's side: items, locks, progress, stages, autosaved answers
"""

from ...services import ServiceError
from .annotating import (
    annotation_write,
    annotator_assignments,
    annotator_campaigns,
    check_stage_open,
    check_writable,
    client_uuid,
    delete_response,
    finish,
    get_assignment,
    live_responses,
    lock_assignment,
    next_assignment,
    not_writable,
    save_progress,
    save_response,
    stage_opens_at,
    touch,
    versioned_delete,
    versioned_put,
)
from .common import GROUPS, UUID_RE, bad, fmt_ms, int_field, number, str_field, whole_number
from .lifecycle import (
    annotating_blind,
    annotators_without_items,
    attach_to_leaderboard,
    counterbalanced_pairs,
    delete_campaign,
    finished_work,
    rebalance,
    release,
    released_campaign,
    reopen_assignment,
    results_public,
    set_state,
    start_campaign,
    withdraw_release,
)
from .people import (
    accept_invite,
    add_annotator,
    create_invites,
    invite_from_secret,
    invite_with_campaign,
    is_annotator,
    remove_annotator,
    revoke_invite,
)
from .setup import (
    CampaignInput,
    create_campaign,
    dashboard_campaign,
    default_selected,
    editable_setup,
    eligible_submissions,
    get_campaign,
    list_campaigns,
    parsed_ranges,
    system_labels,
    testset_docs,
    update_systems,
    version_labels,
)

__all__ = [name for name in dir() if not name.startswith("_")]
