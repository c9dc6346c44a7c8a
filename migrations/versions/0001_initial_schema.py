"""Initial schema: people, tasks and test sets, submissions with their state machine, scores, quotas.

The WMT rule (one primary, two contrastive per team and test set) is the unique
constraint uq_submission_slot; see enface/models.py.

Revision ID: 0001
Revises: 
"""
from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('tasks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tasks')),
    sa.UniqueConstraint('name', name=op.f('uq_tasks_name'))
    )
    op.create_table('teams',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('invite_code', sa.String(length=64), nullable=False),
    sa.Column('affiliation', sa.String(length=200), nullable=False),
    sa.Column('verified', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_teams')),
    sa.UniqueConstraint('invite_code', name=op.f('uq_teams_invite_code')),
    sa.UniqueConstraint('name', name=op.f('uq_teams_name'))
    )
    op.create_table('testsets',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('task_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('src_lang', sa.String(length=20), nullable=False),
    sa.Column('tgt_lang', sa.String(length=20), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('num_documents', sa.Integer(), nullable=False),
    sa.Column('num_segments', sa.Integer(), nullable=False),
    sa.Column('num_refs', sa.Integer(), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('opens_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('deadline', sa.DateTime(timezone=True), nullable=True),
    sa.Column('quota_per_day', sa.Integer(), nullable=True),
    sa.Column('quota_total', sa.Integer(), nullable=True),
    sa.Column('document_level_allowed', sa.Boolean(), nullable=False),
    sa.Column('released', sa.Boolean(), nullable=False),
    sa.Column('released_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('references_public', sa.Boolean(), nullable=False),
    sa.Column('scores_version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('quota_per_day IS NULL OR quota_per_day >= 0', name=op.f('ck_testsets_quota_per_day')),
    sa.CheckConstraint('quota_total IS NULL OR quota_total >= 0', name=op.f('ck_testsets_quota_total')),
    sa.ForeignKeyConstraint(['task_id'], ['tasks.id'], name=op.f('fk_testsets_task_id_tasks'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_testsets')),
    sa.UniqueConstraint('task_id', 'name', name='uq_testsets_task_name')
    )
    with op.batch_alter_table('testsets', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_testsets_task_id'), ['task_id'], unique=False)

    op.create_table('users',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('password_hash', sa.String(length=255), nullable=False),
    sa.Column('role', sa.String(length=20), nullable=False),
    sa.Column('team_id', sa.Integer(), nullable=True),
    sa.Column('team_role', sa.String(length=20), nullable=True),
    sa.Column('session_nonce', sa.String(length=32), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_login_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("role IN ('participant', 'annotator', 'organizer', 'admin')", name=op.f('ck_users_role')),
    sa.CheckConstraint("team_role IS NULL OR team_role IN ('captain', 'member')", name=op.f('ck_users_team_role')),
    sa.CheckConstraint('(team_id IS NULL) = (team_role IS NULL)', name=op.f('ck_users_team_role_with_team')),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_users_team_id_teams'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('email', name=op.f('uq_users_email'))
    )
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_users_team_id'), ['team_id'], unique=False)

    op.create_table('api_tokens',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('hint', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_api_tokens_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_tokens')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_api_tokens_token_hash'))
    )
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_api_tokens_user_id'), ['user_id'], unique=False)

    op.create_table('documents',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('testset_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('num_segments', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['testset_id'], ['testsets.id'], name=op.f('fk_documents_testset_id_testsets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_documents')),
    sa.UniqueConstraint('testset_id', 'name', name='uq_documents_testset_name'),
    sa.UniqueConstraint('testset_id', 'position', name='uq_documents_testset_position')
    )
    op.create_table('quota_usage',
    sa.Column('team_id', sa.Integer(), nullable=False),
    sa.Column('testset_id', sa.Integer(), nullable=False),
    sa.Column('period', sa.String(length=10), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.CheckConstraint('used >= 0', name=op.f('ck_quota_usage_used_nonnegative')),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_quota_usage_team_id_teams'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['testset_id'], ['testsets.id'], name=op.f('fk_quota_usage_testset_id_testsets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('team_id', 'testset_id', 'period', name=op.f('pk_quota_usage'))
    )
    op.create_table('submissions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('testset_id', sa.Integer(), nullable=False),
    sa.Column('team_id', sa.Integer(), nullable=True),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('label', sa.String(length=20), nullable=False),
    sa.Column('slot', sa.Integer(), nullable=True),
    sa.Column('constrained', sa.Boolean(), nullable=False),
    sa.Column('system_name', sa.String(length=100), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('state_changed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('job', sa.String(length=20), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('progress', sa.Float(), nullable=False),
    sa.Column('document_level', sa.Boolean(), nullable=False),
    sa.Column('report', sa.JSON(), nullable=True),
    sa.Column('upload_kind', sa.String(length=10), nullable=False),
    sa.Column('upload_size', sa.Integer(), nullable=False),
    sa.Column('quota_day', sa.String(length=10), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('withdrawn_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("label <> 'baseline' OR slot IS NULL", name=op.f('ck_submissions_baseline_slot')),
    sa.CheckConstraint("label <> 'primary' OR slot IS NULL OR slot = 1", name=op.f('ck_submissions_primary_slot')),
    sa.CheckConstraint("label = 'baseline' OR team_id IS NOT NULL", name=op.f('ck_submissions_team_unless_baseline')),
    sa.CheckConstraint("label IN ('primary', 'contrastive', 'baseline')", name=op.f('ck_submissions_label')),
    sa.CheckConstraint("state IN ('received', 'validating', 'invalid', 'valid', 'scoring', 'scored', 'failed')", name=op.f('ck_submissions_state')),
    sa.CheckConstraint('slot IS NULL OR slot IN (1, 2)', name=op.f('ck_submissions_slot_range')),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_submissions_team_id_teams'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['testset_id'], ['testsets.id'], name=op.f('fk_submissions_testset_id_testsets'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_submissions_user_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_submissions')),
    sa.UniqueConstraint('team_id', 'testset_id', 'label', 'slot', name='uq_submission_slot')
    )
    with op.batch_alter_table('submissions', schema=None) as batch_op:
        batch_op.create_index('ix_submissions_state_heartbeat', ['state', 'heartbeat_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_submissions_team_id'), ['team_id'], unique=False)
        batch_op.create_index('ix_submissions_testset_state', ['testset_id', 'state'], unique=False)

    op.create_table('output_segments',
    sa.Column('submission_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], name=op.f('fk_output_segments_document_id_documents'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['submission_id'], ['submissions.id'], name=op.f('fk_output_segments_submission_id_submissions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('submission_id', 'document_id', 'position', name=op.f('pk_output_segments'))
    )
    op.create_table('scores',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('submission_id', sa.Integer(), nullable=False),
    sa.Column('metric', sa.String(length=20), nullable=False),
    sa.Column('scope', sa.String(length=10), nullable=False),
    sa.Column('name', sa.String(length=30), nullable=False),
    sa.Column('value', sa.Float(), nullable=True),
    sa.Column('values', sa.JSON(), nullable=True),
    sa.Column('higher_is_better', sa.Boolean(), nullable=False),
    sa.Column('signature', sa.Text(), nullable=True),
    sa.Column('versions', sa.JSON(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('details', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("scope IN ('corpus', 'document', 'segment')", name=op.f('ck_scores_scope')),
    sa.ForeignKeyConstraint(['submission_id'], ['submissions.id'], name=op.f('fk_scores_submission_id_submissions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_scores')),
    sa.UniqueConstraint('submission_id', 'metric', 'scope', name='uq_scores_submission_metric')
    )
    op.create_table('segments',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('ref1', sa.Text(), nullable=True),
    sa.Column('ref2', sa.Text(), nullable=True),
    sa.Column('more_refs', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], name=op.f('fk_segments_document_id_documents'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_segments')),
    sa.UniqueConstraint('document_id', 'position', name='uq_segments_document_position')
    )
    op.create_table('submission_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('submission_id', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['submission_id'], ['submissions.id'], name=op.f('fk_submission_events_submission_id_submissions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_submission_events'))
    )
    with op.batch_alter_table('submission_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_submission_events_submission_id'), ['submission_id'], unique=False)

    op.create_table('submission_files',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('submission_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=500), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['submission_id'], ['submissions.id'], name=op.f('fk_submission_files_submission_id_submissions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_submission_files'))
    )
    with op.batch_alter_table('submission_files', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_submission_files_submission_id'), ['submission_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('submission_files', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_submission_files_submission_id'))

    op.drop_table('submission_files')
    with op.batch_alter_table('submission_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_submission_events_submission_id'))

    op.drop_table('submission_events')
    op.drop_table('segments')
    op.drop_table('scores')
    op.drop_table('output_segments')
    with op.batch_alter_table('submissions', schema=None) as batch_op:
        batch_op.drop_index('ix_submissions_testset_state')
        batch_op.drop_index(batch_op.f('ix_submissions_team_id'))
        batch_op.drop_index('ix_submissions_state_heartbeat')

    op.drop_table('submissions')
    op.drop_table('quota_usage')
    op.drop_table('documents')
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_api_tokens_user_id'))

    op.drop_table('api_tokens')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_users_team_id'))

    op.drop_table('users')
    with op.batch_alter_table('testsets', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_testsets_task_id'))

    op.drop_table('testsets')
    op.drop_table('teams')
    op.drop_table('tasks')
