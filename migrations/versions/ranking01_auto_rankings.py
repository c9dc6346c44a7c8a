"""The automatic metrics' significance clusters of each test set (auto_rankings).

Revision ID: ranking01
Revises: browser01
Create Date: 2026-12-01 16:45:00
"""
from alembic import op
import sqlalchemy as sa

revision = 'ranking01'
down_revision = 'browser01'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('auto_rankings',
    sa.Column('testset_id', sa.Integer(), nullable=False),
    sa.Column('scores_version', sa.Integer(), nullable=False),
    sa.Column('results', sa.JSON(), nullable=False),
    sa.Column('computed_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['testset_id'], ['testsets.id'], name=op.f('fk_auto_rankings_testset_id_testsets'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('testset_id', name=op.f('pk_auto_rankings'))
    )


def downgrade() -> None:
    op.drop_table('auto_rankings')
