"""Test sets: the leaderboard frozen at the deadline, and the licence terms of the data release.

``frozen_at`` / ``frozen_board``: when an organizer froze the leaderboard and the
automatic standings as of then (the public sees those until the freeze is lifted).
``licence``: the terms the organizer typed, written into the release bundle's README.

Revision ID: browser01
Revises: rubric01
Create Date: 2026-12-01 16:50:00.000000
"""
from alembic import op
import sqlalchemy as sa

revision = 'browser01'
down_revision = 'rubric01'
branch_labels = None
depends_on = None


# Plain ALTER TABLE ADD/DROP COLUMN, never a batch (copy-and-move) migration: on SQLite that drops and
# re-creates ``testsets``, and the drop cascades to every table that references it (campaigns, documents...).
# SQLite has had DROP COLUMN since 3.35.


def upgrade() -> None:
    op.add_column('testsets', sa.Column('frozen_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('testsets', sa.Column('frozen_board', sa.JSON(), nullable=True))
    op.add_column('testsets', sa.Column('licence', sa.Text(), nullable=False, server_default=''))


def downgrade() -> None:
    op.drop_column('testsets', 'licence')
    op.drop_column('testsets', 'frozen_board')
    op.drop_column('testsets', 'frozen_at')
