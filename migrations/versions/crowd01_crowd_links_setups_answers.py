"""Crowd-ready campaigns: ``crowd_links`` (account-free annotator links: the SHA-256 of each secret, an
optional passphrase hash, the link's machine account), ``crowd_setups`` (a campaign's welcome form, tutorial
and completion codes) and ``crowd_answers`` (an annotator's answers outside the items: the welcome form,
each tutorial item, the completion code given).

Revision ID: crowd01
Revises: esaai01
Create Date: 2026-12-02 00:40:17.600238
"""
from alembic import op
import sqlalchemy as sa


revision = 'crowd01'
down_revision = 'esaai01'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('crowd_links',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('hint', sa.String(length=16), nullable=False),
    sa.Column('label', sa.String(length=200), nullable=False),
    sa.Column('passphrase_hash', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('first_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_crowd_links_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_crowd_links_user_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_crowd_links')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_crowd_links_token_hash')),
    sa.UniqueConstraint('user_id', name=op.f('uq_crowd_links_user_id'))
    )
    with op.batch_alter_table('crowd_links', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_crowd_links_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('crowd_setups',
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('welcome', sa.JSON(), nullable=True),
    sa.Column('tutorial', sa.JSON(), nullable=True),
    sa.Column('codes', sa.JSON(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_crowd_setups_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('campaign_id', name=op.f('pk_crowd_setups'))
    )
    op.create_table('crowd_answers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('key', sa.String(length=100), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['annotator_id'], ['campaign_annotators.id'], name=op.f('fk_crowd_answers_annotator_id_campaign_annotators'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_crowd_answers_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_crowd_answers')),
    sa.UniqueConstraint('annotator_id', 'kind', 'key', name='uq_crowd_answers_annotator_kind_key')
    )
    with op.batch_alter_table('crowd_answers', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_crowd_answers_campaign_id'), ['campaign_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('crowd_answers', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_crowd_answers_campaign_id'))

    op.drop_table('crowd_answers')
    op.drop_table('crowd_setups')
    with op.batch_alter_table('crowd_links', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_crowd_links_campaign_id'))

    op.drop_table('crowd_links')
