"""ESA^AI: ``esa_suggesters`` (a campaign's suggestion source: an LLM endpoint with the judges' settings, its
key an environment variable's name or a Fernet token, or an uploaded JSON Lines file; the budget filter's
threshold; the run state) and ``esa_suggestions`` (the spans suggested for one segment of one campaign
version, the suggester's score, and for an LLM the transcript, tokens and cost; also the run's claim).

Revision ID: esaai01
Revises: judge01
Create Date: 2026-12-02 00:40:18.868629
"""
from alembic import op
import sqlalchemy as sa


revision = 'esaai01'
down_revision = 'judge01'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('esa_suggesters',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('source', sa.String(length=10), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('base_url', sa.String(length=500), nullable=False),
    sa.Column('model', sa.String(length=200), nullable=False),
    sa.Column('api_key_env', sa.String(length=100), nullable=True),
    sa.Column('api_key_encrypted', sa.LargeBinary(), nullable=True),
    sa.Column('temperature', sa.Float(), nullable=False),
    sa.Column('concurrency', sa.Integer(), nullable=False),
    sa.Column('requests_per_minute', sa.Float(), nullable=True),
    sa.Column('timeout', sa.Float(), nullable=False),
    sa.Column('price_prompt_per_1k', sa.Float(), nullable=False),
    sa.Column('price_completion_per_1k', sa.Float(), nullable=False),
    sa.Column('prompts_dir', sa.String(length=500), nullable=True),
    sa.Column('demo', sa.Boolean(), nullable=False),
    sa.Column('filename', sa.String(length=255), nullable=True),
    sa.Column('skip_threshold', sa.Float(), nullable=True),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('run_token', sa.String(length=32), nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("source IN ('llm', 'file')", name=op.f('ck_esa_suggesters_source')),
    sa.CheckConstraint("state IN ('idle', 'queued', 'running', 'done', 'failed')", name=op.f('ck_esa_suggesters_state')),
    sa.CheckConstraint('concurrency >= 1', name=op.f('ck_esa_suggesters_limits')),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_esa_suggesters_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_esa_suggesters')),
    sa.UniqueConstraint('campaign_id', name=op.f('uq_esa_suggesters_campaign_id'))
    )
    op.create_table('esa_suggestions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('suggester_id', sa.Integer(), nullable=False),
    sa.Column('version_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=10), nullable=False),
    sa.Column('run_token', sa.String(length=32), nullable=True),
    sa.Column('spans', sa.JSON(), nullable=True),
    sa.Column('score', sa.Float(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('transcript', sa.JSON(), nullable=True),
    sa.Column('calls', sa.Integer(), nullable=False),
    sa.Column('retried_calls', sa.Integer(), nullable=False),
    sa.Column('prompt_tokens', sa.Integer(), nullable=False),
    sa.Column('completion_tokens', sa.Integer(), nullable=False),
    sa.Column('cost', sa.Float(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("state IN ('running', 'ok', 'failed')", name=op.f('ck_esa_suggestions_state')),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], name=op.f('fk_esa_suggestions_document_id_documents'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['suggester_id'], ['esa_suggesters.id'], name=op.f('fk_esa_suggestions_suggester_id_esa_suggesters'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['version_id'], ['campaign_versions.id'], name=op.f('fk_esa_suggestions_version_id_campaign_versions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_esa_suggestions')),
    sa.UniqueConstraint('suggester_id', 'version_id', 'document_id', 'position', name='uq_esa_suggestions_segment')
    )
    with op.batch_alter_table('esa_suggestions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_esa_suggestions_suggester_id'), ['suggester_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('esa_suggestions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_esa_suggestions_suggester_id'))

    op.drop_table('esa_suggestions')
    op.drop_table('esa_suggesters')
