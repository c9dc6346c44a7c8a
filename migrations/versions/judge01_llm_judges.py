"""LLM judges: ``judges`` (a judge's endpoint, mode and limits; its API key as an environment variable
name or a Fernet token) and ``judge_items`` (each item a judge scored or is scoring: the claim that makes
runs resumable, the scores, the full transcript, tokens and cost). Its scores themselves are core
campaign_responses of the judge's machine annotator.

Revision ID: judge01
Revises: ux01
Create Date: 2026-12-01 16:44:08.962153
"""
from alembic import op
import sqlalchemy as sa


revision = 'judge01'
down_revision = 'ux01'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('judges',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=True),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('base_url', sa.String(length=500), nullable=False),
    sa.Column('model', sa.String(length=200), nullable=False),
    sa.Column('mode', sa.String(length=10), nullable=False),
    sa.Column('api_key_env', sa.String(length=100), nullable=True),
    sa.Column('api_key_encrypted', sa.LargeBinary(), nullable=True),
    sa.Column('temperature', sa.Float(), nullable=False),
    sa.Column('max_rounds', sa.Integer(), nullable=False),
    sa.Column('concurrency', sa.Integer(), nullable=False),
    sa.Column('requests_per_minute', sa.Float(), nullable=True),
    sa.Column('timeout', sa.Float(), nullable=False),
    sa.Column('price_prompt_per_1k', sa.Float(), nullable=False),
    sa.Column('price_completion_per_1k', sa.Float(), nullable=False),
    sa.Column('prompts_dir', sa.String(length=500), nullable=True),
    sa.Column('demo', sa.Boolean(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('run_token', sa.String(length=32), nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("mode IN ('single', 'debate')", name=op.f('ck_judges_mode')),
    sa.CheckConstraint("state IN ('idle', 'queued', 'running', 'done', 'failed')", name=op.f('ck_judges_state')),
    sa.CheckConstraint('max_rounds >= 1 AND concurrency >= 1', name=op.f('ck_judges_limits')),
    sa.ForeignKeyConstraint(['annotator_id'], ['campaign_annotators.id'], name=op.f('fk_judges_annotator_id_campaign_annotators'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_judges_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_judges_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_judges'))
    )
    with op.batch_alter_table('judges', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_judges_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('judge_items',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('judge_id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=100), nullable=False),
    sa.Column('state', sa.String(length=10), nullable=False),
    sa.Column('run_token', sa.String(length=32), nullable=False),
    sa.Column('scores', sa.JSON(), nullable=True),
    sa.Column('rounds', sa.Integer(), nullable=False),
    sa.Column('consensus', sa.Boolean(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('transcript', sa.JSON(), nullable=True),
    sa.Column('calls', sa.Integer(), nullable=False),
    sa.Column('retried_calls', sa.Integer(), nullable=False),
    sa.Column('prompt_tokens', sa.Integer(), nullable=False),
    sa.Column('completion_tokens', sa.Integer(), nullable=False),
    sa.Column('cost', sa.Float(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("state IN ('running', 'ok', 'failed')", name=op.f('ck_judge_items_state')),
    sa.ForeignKeyConstraint(['item_id'], ['campaign_items.id'], name=op.f('fk_judge_items_item_id_campaign_items'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['judge_id'], ['judges.id'], name=op.f('fk_judge_items_judge_id_judges'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_judge_items')),
    sa.UniqueConstraint('judge_id', 'item_id', 'key', name='uq_judge_items_judge_item_key')
    )
    with op.batch_alter_table('judge_items', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_judge_items_item_id'), ['item_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_judge_items_judge_id'), ['judge_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('judge_items', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_judge_items_judge_id'))
        batch_op.drop_index(batch_op.f('ix_judge_items_item_id'))

    op.drop_table('judge_items')
    with op.batch_alter_table('judges', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_judges_campaign_id'))

    op.drop_table('judges')
