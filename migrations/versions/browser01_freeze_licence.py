"""Test sets: the leaderboard frozen at the deadline, and the licence terms of the data release.

``frozen_at`` / ``frozen_board``: when an organizer froze the leaderboard and the
automatic standings as of then (the public sees those until the freeze is lifted).
``licence``: the terms the organizer typed, written into the release bundle's README.

Revision ID: browser01
Revises: core01
Create Date: 2026-12-01 16:50:00.000000
"""
from alembic import op
import sqlalchemy as sa

revision = 'browser01'
down_revision = 'core01'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('testsets') as batch:
        batch.add_column(sa.Column('frozen_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('frozen_board', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('licence', sa.Text(), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('testsets') as batch:
        batch.drop_column('licence')
        batch.drop_column('frozen_board')
        batch.drop_column('frozen_at')
