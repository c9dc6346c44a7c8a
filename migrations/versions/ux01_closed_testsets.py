"""An empty ``testsets.opens_at`` now means closed (not scheduled yet) instead of open at once.

Imported test sets start closed; an organizer opens them. Test sets that exist before this
revision keep their window: an empty opening becomes their creation time (they were open since).
The downgrade cannot tell those from test sets opened at their creation on purpose, and leaves
the column as it is (open test sets stay open; only never-opened ones would reopen).

Revision ID: ux01
Revises: ranking01
Create Date: 2026-12-01 17:00:00
"""
from alembic import op

revision = 'ux01'
down_revision = 'ranking01'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("UPDATE testsets SET opens_at = created_at WHERE opens_at IS NULL")


def downgrade() -> None:
    # An empty opening meant "open at once" before this revision: closed test sets would open.
    # Give them a far-future opening instead, so that they stay closed after the downgrade.
    op.execute("UPDATE testsets SET opens_at = '9999-12-31 00:00:00' WHERE opens_at IS NULL")
