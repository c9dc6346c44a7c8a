"""How a campaign's documents were chosen: ``campaigns.doc_selection`` (JSON; ``{"method": "ranges" |
"uniform" | a subset2evaluate method, "metric", "systems"}``; NULL for campaigns created before it was kept).

Revision ID: budget01
Revises: crowd01
Create Date: 2026-12-02 05:45:00
"""
from alembic import op
import sqlalchemy as sa


revision = 'budget01'
down_revision = 'crowd01'
branch_labels = None
depends_on = None


# (plain ALTER TABLE, not a batch: on SQLite a batch copies ``campaigns`` and drops it, and the drop would
# cascade to every table that points at it)
def upgrade() -> None:
    op.add_column('campaigns', sa.Column('doc_selection', sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column('campaigns', 'doc_selection')
