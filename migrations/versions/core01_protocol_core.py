"""Human evaluation as protocols: the campaign core, and MQM moved onto it.

The MQM-only tables become the core's (campaigns, campaign_versions, campaign_annotators,
campaign_invites, campaign_items + campaign_item_versions, campaign_assignments) and the
core gains campaign_responses; MQM's columns move into ``campaigns.settings`` and its
attention checks into mqm_attention_checks; mqm_marks stays, pointing at the core's
assignments. Every row is carried over with its id, so links, exports and released
results are unchanged; the downgrade carries MQM campaigns back the same way.

Revision ID: core01
Revises: mqm01
Create Date: 2026-12-01 14:12:51.192318
"""
from alembic import op
import sqlalchemy as sa

revision = 'core01'
down_revision = 'mqm01'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('campaigns',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('testset_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('protocol', sa.String(length=30), nullable=False),
    sa.Column('settings', sa.JSON(), nullable=False),
    sa.Column('strategy', sa.String(length=20), nullable=False),
    sa.Column('redundancy', sa.Integer(), nullable=False),
    sa.Column('instructions', sa.Text(), nullable=False),
    sa.Column('ranges', sa.JSON(), nullable=False),
    sa.Column('seed', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('released_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('results', sa.JSON(), nullable=True),
    sa.CheckConstraint("state IN ('draft', 'open', 'closed', 'released')", name=op.f('ck_campaigns_state')),
    sa.CheckConstraint("strategy IN ('redundancy', 'document', 'pairs')", name=op.f('ck_campaigns_strategy')),
    sa.CheckConstraint('redundancy >= 1', name=op.f('ck_campaigns_redundancy')),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_campaigns_created_by_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['testset_id'], ['testsets.id'], name=op.f('fk_campaigns_testset_id_testsets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaigns'))
    )
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaigns_testset_id'), ['testset_id'], unique=False)

    op.create_table('campaign_invites',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('hint', sa.String(length=16), nullable=False),
    sa.Column('label', sa.String(length=200), nullable=False),
    sa.Column('max_uses', sa.Integer(), nullable=False),
    sa.Column('uses', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint('uses >= 0 AND uses <= max_uses', name=op.f('ck_campaign_invites_uses')),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_campaign_invites_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaign_invites')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_campaign_invites_token_hash'))
    )
    with op.batch_alter_table('campaign_invites', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaign_invites_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('campaign_items',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('seg_start', sa.Integer(), nullable=False),
    sa.Column('seg_end', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('source_words', sa.Integer(), nullable=False),
    sa.CheckConstraint('seg_start >= 0 AND seg_end > seg_start', name=op.f('ck_campaign_items_range')),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_campaign_items_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], name=op.f('fk_campaign_items_document_id_documents'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaign_items')),
    sa.UniqueConstraint('campaign_id', 'position', name='uq_campaign_items_position')
    )
    with op.batch_alter_table('campaign_items', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaign_items_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('campaign_versions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('submission_id', sa.Integer(), nullable=True),
    sa.Column('reference', sa.Integer(), nullable=True),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.CheckConstraint('(submission_id IS NULL) <> (reference IS NULL)', name=op.f('ck_campaign_versions_one_source')),
    sa.CheckConstraint('reference IS NULL OR reference IN (1, 2)', name=op.f('ck_campaign_versions_reference')),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_campaign_versions_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['submission_id'], ['submissions.id'], name=op.f('fk_campaign_versions_submission_id_submissions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaign_versions')),
    sa.UniqueConstraint('campaign_id', 'reference', name='uq_campaign_versions_reference'),
    sa.UniqueConstraint('campaign_id', 'submission_id', name='uq_campaign_versions_submission')
    )
    with op.batch_alter_table('campaign_versions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaign_versions_submission_id'), ['submission_id'], unique=False)

    op.create_table('campaign_annotators',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('invite_id', sa.Integer(), nullable=True),
    sa.Column('joined_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_campaign_annotators_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['invite_id'], ['campaign_invites.id'], name=op.f('fk_campaign_annotators_invite_id_campaign_invites'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_campaign_annotators_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaign_annotators')),
    sa.UniqueConstraint('campaign_id', 'position', name='uq_campaign_annotators_position'),
    sa.UniqueConstraint('campaign_id', 'user_id', name='uq_campaign_annotators_user')
    )
    with op.batch_alter_table('campaign_annotators', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaign_annotators_user_id'), ['user_id'], unique=False)

    op.create_table('campaign_item_versions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('slot', sa.Integer(), nullable=False),
    sa.Column('version_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['item_id'], ['campaign_items.id'], name=op.f('fk_campaign_item_versions_item_id_campaign_items'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['version_id'], ['campaign_versions.id'], name=op.f('fk_campaign_item_versions_version_id_campaign_versions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaign_item_versions')),
    sa.UniqueConstraint('item_id', 'slot', name='uq_campaign_item_versions_slot')
    )
    with op.batch_alter_table('campaign_item_versions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaign_item_versions_version_id'), ['version_id'], unique=False)

    op.create_table('campaign_assignments',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('public_id', sa.String(length=24), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('stage', sa.Integer(), nullable=False),
    sa.Column('opens_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('plan', sa.JSON(), nullable=False),
    sa.Column('cursor', sa.Integer(), nullable=False),
    sa.Column('furthest', sa.Integer(), nullable=False),
    sa.Column('times', sa.JSON(), nullable=False),
    sa.Column('time_ms', sa.Integer(), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_active_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("state IN ('pending', 'started', 'finished')", name=op.f('ck_campaign_assignments_state')),
    sa.CheckConstraint('stage >= 0', name=op.f('ck_campaign_assignments_stage')),
    sa.ForeignKeyConstraint(['annotator_id'], ['campaign_annotators.id'], name=op.f('fk_campaign_assignments_annotator_id_campaign_annotators'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_campaign_assignments_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['item_id'], ['campaign_items.id'], name=op.f('fk_campaign_assignments_item_id_campaign_items'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaign_assignments')),
    sa.UniqueConstraint('annotator_id', 'number', name='uq_campaign_assignments_annotator_number'),
    sa.UniqueConstraint('item_id', 'annotator_id', name='uq_campaign_assignments_item_annotator'),
    sa.UniqueConstraint('public_id', name=op.f('uq_campaign_assignments_public_id'))
    )
    with op.batch_alter_table('campaign_assignments', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaign_assignments_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_campaign_assignments_item_id'), ['item_id'], unique=False)

    op.create_table('campaign_responses',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('rev', sa.Integer(), nullable=False),
    sa.Column('stage', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=30), nullable=False),
    sa.Column('key', sa.String(length=100), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('deleted', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assignment_id'], ['campaign_assignments.id'], name=op.f('fk_campaign_responses_assignment_id_campaign_assignments'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaign_responses')),
    sa.UniqueConstraint('assignment_id', 'uuid', name='uq_campaign_responses_assignment_uuid')
    )
    with op.batch_alter_table('campaign_responses', schema=None) as batch_op:
        batch_op.create_index('ix_campaign_responses_assignment_kind', ['assignment_id', 'kind'], unique=False)

    op.create_table('mqm_attention_checks',
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('seg', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('start_pos', sa.Integer(), nullable=False),
    sa.Column('end_pos', sa.Integer(), nullable=False),
    sa.Column('result', sa.String(length=10), nullable=True),
    sa.CheckConstraint("result IS NULL OR result IN ('found', 'missed')", name=op.f('ck_mqm_attention_checks_result')),
    sa.CheckConstraint('start_pos >= 0 AND end_pos > start_pos', name=op.f('ck_mqm_attention_checks_span')),
    sa.ForeignKeyConstraint(['assignment_id'], ['campaign_assignments.id'], name=op.f('fk_mqm_attention_checks_assignment_id_campaign_assignments'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('assignment_id', name=op.f('pk_mqm_attention_checks'))
    )
    _copy_up()
    with op.batch_alter_table('mqm_marks', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_mqm_marks_assignment_id_mqm_assignments'), type_='foreignkey')
        batch_op.create_foreign_key(batch_op.f('fk_mqm_marks_assignment_id_campaign_assignments'), 'campaign_assignments', ['assignment_id'], ['id'], ondelete='CASCADE')

    with op.batch_alter_table('mqm_assignments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mqm_assignments_campaign_id'))
        batch_op.drop_index(batch_op.f('ix_mqm_assignments_item_id'))

    op.drop_table('mqm_assignments')
    with op.batch_alter_table('mqm_items', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mqm_items_campaign_id'))

    op.drop_table('mqm_items')
    with op.batch_alter_table('mqm_campaign_annotators', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mqm_campaign_annotators_user_id'))

    op.drop_table('mqm_campaign_annotators')
    with op.batch_alter_table('mqm_campaign_invites', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mqm_campaign_invites_campaign_id'))

    op.drop_table('mqm_campaign_invites')
    with op.batch_alter_table('mqm_campaign_systems', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mqm_campaign_systems_submission_id'))

    op.drop_table('mqm_campaign_systems')
    with op.batch_alter_table('mqm_campaigns', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mqm_campaigns_testset_id'))

    op.drop_table('mqm_campaigns')


def downgrade() -> None:
    _refuse_other_protocols()
    op.create_table('mqm_campaigns',
    sa.Column('id', sa.INTEGER(), nullable=False),
    sa.Column('testset_id', sa.INTEGER(), nullable=False),
    sa.Column('name', sa.VARCHAR(length=200), nullable=False),
    sa.Column('scheme', sa.VARCHAR(length=50), nullable=False),
    sa.Column('redundancy', sa.INTEGER(), nullable=False),
    sa.Column('attention_share', sa.FLOAT(), nullable=False),
    sa.Column('attention_kind', sa.VARCHAR(length=10), nullable=False),
    sa.Column('source_words', sa.VARCHAR(length=20), nullable=False),
    sa.Column('significance_unit', sa.VARCHAR(length=10), nullable=False),
    sa.Column('instructions', sa.TEXT(), nullable=False),
    sa.Column('ranges', sa.JSON(), nullable=False),
    sa.Column('seed', sa.INTEGER(), nullable=False),
    sa.Column('state', sa.VARCHAR(length=20), nullable=False),
    sa.Column('created_by_id', sa.INTEGER(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('released_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('results', sa.JSON(), nullable=True),
    sa.CheckConstraint("attention_kind IN ('mixed', 'words', 'letters')", name=op.f('ck_mqm_campaigns_attention_kind')),
    sa.CheckConstraint("significance_unit IN ('segment', 'doc')", name=op.f('ck_mqm_campaigns_significance_unit')),
    sa.CheckConstraint("state IN ('draft', 'open', 'closed', 'released')", name=op.f('ck_mqm_campaigns_state')),
    sa.CheckConstraint('attention_share >= 0 AND attention_share <= 1', name=op.f('ck_mqm_campaigns_attention_share')),
    sa.CheckConstraint('redundancy >= 1', name=op.f('ck_mqm_campaigns_redundancy')),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_mqm_campaigns_created_by_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['testset_id'], ['testsets.id'], name=op.f('fk_mqm_campaigns_testset_id_testsets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mqm_campaigns'))
    )
    with op.batch_alter_table('mqm_campaigns', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mqm_campaigns_testset_id'), ['testset_id'], unique=False)

    op.create_table('mqm_campaign_systems',
    sa.Column('id', sa.INTEGER(), nullable=False),
    sa.Column('campaign_id', sa.INTEGER(), nullable=False),
    sa.Column('submission_id', sa.INTEGER(), nullable=False),
    sa.Column('position', sa.INTEGER(), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['mqm_campaigns.id'], name=op.f('fk_mqm_campaign_systems_campaign_id_mqm_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['submission_id'], ['submissions.id'], name=op.f('fk_mqm_campaign_systems_submission_id_submissions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mqm_campaign_systems')),
    sa.UniqueConstraint('campaign_id', 'submission_id', name=op.f('uq_mqm_campaign_systems_submission'))
    )
    with op.batch_alter_table('mqm_campaign_systems', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mqm_campaign_systems_submission_id'), ['submission_id'], unique=False)

    op.create_table('mqm_campaign_invites',
    sa.Column('id', sa.INTEGER(), nullable=False),
    sa.Column('campaign_id', sa.INTEGER(), nullable=False),
    sa.Column('token_hash', sa.VARCHAR(length=64), nullable=False),
    sa.Column('hint', sa.VARCHAR(length=16), nullable=False),
    sa.Column('label', sa.VARCHAR(length=200), nullable=False),
    sa.Column('max_uses', sa.INTEGER(), nullable=False),
    sa.Column('uses', sa.INTEGER(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint('uses >= 0 AND uses <= max_uses', name=op.f('ck_mqm_campaign_invites_uses')),
    sa.ForeignKeyConstraint(['campaign_id'], ['mqm_campaigns.id'], name=op.f('fk_mqm_campaign_invites_campaign_id_mqm_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mqm_campaign_invites')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_mqm_campaign_invites_token_hash'))
    )
    with op.batch_alter_table('mqm_campaign_invites', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mqm_campaign_invites_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('mqm_campaign_annotators',
    sa.Column('id', sa.INTEGER(), nullable=False),
    sa.Column('campaign_id', sa.INTEGER(), nullable=False),
    sa.Column('user_id', sa.INTEGER(), nullable=False),
    sa.Column('position', sa.INTEGER(), nullable=False),
    sa.Column('invite_id', sa.INTEGER(), nullable=True),
    sa.Column('joined_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['mqm_campaigns.id'], name=op.f('fk_mqm_campaign_annotators_campaign_id_mqm_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['invite_id'], ['mqm_campaign_invites.id'], name=op.f('fk_mqm_campaign_annotators_invite_id_mqm_campaign_invites'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_mqm_campaign_annotators_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mqm_campaign_annotators')),
    sa.UniqueConstraint('campaign_id', 'position', name=op.f('uq_mqm_campaign_annotators_position')),
    sa.UniqueConstraint('campaign_id', 'user_id', name=op.f('uq_mqm_campaign_annotators_user'))
    )
    with op.batch_alter_table('mqm_campaign_annotators', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mqm_campaign_annotators_user_id'), ['user_id'], unique=False)

    op.create_table('mqm_items',
    sa.Column('id', sa.INTEGER(), nullable=False),
    sa.Column('campaign_id', sa.INTEGER(), nullable=False),
    sa.Column('submission_id', sa.INTEGER(), nullable=False),
    sa.Column('document_id', sa.INTEGER(), nullable=False),
    sa.Column('seg_start', sa.INTEGER(), nullable=False),
    sa.Column('seg_end', sa.INTEGER(), nullable=False),
    sa.Column('position', sa.INTEGER(), nullable=False),
    sa.Column('source_words', sa.INTEGER(), nullable=False),
    sa.CheckConstraint('seg_start >= 0 AND seg_end > seg_start', name=op.f('ck_mqm_items_range')),
    sa.ForeignKeyConstraint(['campaign_id'], ['mqm_campaigns.id'], name=op.f('fk_mqm_items_campaign_id_mqm_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], name=op.f('fk_mqm_items_document_id_documents'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['submission_id'], ['submissions.id'], name=op.f('fk_mqm_items_submission_id_submissions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mqm_items')),
    sa.UniqueConstraint('campaign_id', 'submission_id', 'document_id', 'seg_start', name=op.f('uq_mqm_items_campaign_submission_document'))
    )
    with op.batch_alter_table('mqm_items', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mqm_items_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('mqm_assignments',
    sa.Column('id', sa.INTEGER(), nullable=False),
    sa.Column('public_id', sa.VARCHAR(length=24), nullable=False),
    sa.Column('campaign_id', sa.INTEGER(), nullable=False),
    sa.Column('item_id', sa.INTEGER(), nullable=False),
    sa.Column('annotator_id', sa.INTEGER(), nullable=False),
    sa.Column('number', sa.INTEGER(), nullable=False),
    sa.Column('state', sa.VARCHAR(length=20), nullable=False),
    sa.Column('cursor', sa.INTEGER(), nullable=False),
    sa.Column('furthest', sa.INTEGER(), nullable=False),
    sa.Column('times', sa.JSON(), nullable=False),
    sa.Column('time_ms', sa.INTEGER(), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_active_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('attention_seg', sa.INTEGER(), nullable=True),
    sa.Column('attention_kind', sa.VARCHAR(length=10), nullable=True),
    sa.Column('attention_text', sa.TEXT(), nullable=True),
    sa.Column('attention_start', sa.INTEGER(), nullable=True),
    sa.Column('attention_end', sa.INTEGER(), nullable=True),
    sa.Column('attention_result', sa.VARCHAR(length=10), nullable=True),
    sa.CheckConstraint("attention_result IS NULL OR attention_result IN ('found', 'missed')", name=op.f('ck_mqm_assignments_attention_result')),
    sa.CheckConstraint("state IN ('pending', 'started', 'finished')", name=op.f('ck_mqm_assignments_state')),
    sa.ForeignKeyConstraint(['annotator_id'], ['mqm_campaign_annotators.id'], name=op.f('fk_mqm_assignments_annotator_id_mqm_campaign_annotators'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['campaign_id'], ['mqm_campaigns.id'], name=op.f('fk_mqm_assignments_campaign_id_mqm_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['item_id'], ['mqm_items.id'], name=op.f('fk_mqm_assignments_item_id_mqm_items'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mqm_assignments')),
    sa.UniqueConstraint('annotator_id', 'number', name=op.f('uq_mqm_assignments_annotator_number')),
    sa.UniqueConstraint('item_id', 'annotator_id', name=op.f('uq_mqm_assignments_item_annotator')),
    sa.UniqueConstraint('public_id', name=op.f('uq_mqm_assignments_public_id'))
    )
    with op.batch_alter_table('mqm_assignments', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mqm_assignments_item_id'), ['item_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_mqm_assignments_campaign_id'), ['campaign_id'], unique=False)

    _copy_down()
    with op.batch_alter_table('mqm_marks', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_mqm_marks_assignment_id_campaign_assignments'), type_='foreignkey')
        batch_op.create_foreign_key(batch_op.f('fk_mqm_marks_assignment_id_mqm_assignments'), 'mqm_assignments', ['assignment_id'], ['id'], ondelete='CASCADE')

    op.drop_table('mqm_attention_checks')
    with op.batch_alter_table('campaign_responses', schema=None) as batch_op:
        batch_op.drop_index('ix_campaign_responses_assignment_kind')

    op.drop_table('campaign_responses')
    with op.batch_alter_table('campaign_assignments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaign_assignments_item_id'))
        batch_op.drop_index(batch_op.f('ix_campaign_assignments_campaign_id'))

    op.drop_table('campaign_assignments')
    with op.batch_alter_table('campaign_item_versions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaign_item_versions_version_id'))

    op.drop_table('campaign_item_versions')
    with op.batch_alter_table('campaign_annotators', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaign_annotators_user_id'))

    op.drop_table('campaign_annotators')
    with op.batch_alter_table('campaign_versions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaign_versions_submission_id'))

    op.drop_table('campaign_versions')
    with op.batch_alter_table('campaign_items', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaign_items_campaign_id'))

    op.drop_table('campaign_items')
    with op.batch_alter_table('campaign_invites', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaign_invites_campaign_id'))

    op.drop_table('campaign_invites')
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaigns_testset_id'))

    op.drop_table('campaigns')


# --------------------------------------------------------------------------- carrying the rows over

# (old column, key in campaigns.settings, default in the old table)
MQM_SETTINGS = (("scheme", "wmt23-literary"), ("attention_share", 0.1), ("attention_kind", "mixed"),
                ("source_words", "auto"), ("significance_unit", "segment"))
NEW_TABLES = ("campaigns", "campaign_versions", "campaign_invites", "campaign_annotators", "campaign_items",
              "campaign_item_versions", "campaign_assignments")
OLD_TABLES = ("mqm_campaigns", "mqm_campaign_systems", "mqm_campaign_invites", "mqm_campaign_annotators",
              "mqm_items", "mqm_assignments")


def _empty_json() -> str:
    # PostgreSQL resolves a bare '{}' in a SELECT list as text, which a JSON column refuses.
    return "CAST('{}' AS JSON)" if op.get_bind().dialect.name == "postgresql" else "'{}'"


def _reset_sequences(tables) -> None:
    """Rows were inserted with their ids: PostgreSQL's sequences must move past them."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in tables:
        op.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 1), "
                   f"MAX(id) IS NOT NULL) FROM {table}")


def _copy_up() -> None:
    bind = op.get_bind()
    op.execute(f"""INSERT INTO campaigns (id, testset_id, name, protocol, settings, strategy, redundancy,
        instructions, ranges, seed, state, created_by_id, created_at, started_at, closed_at, released_at, results)
        SELECT id, testset_id, name, 'mqm', {_empty_json()}, 'redundancy', redundancy, instructions, ranges, seed,
        state, created_by_id, created_at, started_at, closed_at, released_at, results FROM mqm_campaigns""")
    campaigns = sa.table("campaigns", sa.column("id", sa.Integer), sa.column("settings", sa.JSON))
    names = [name for name, _default in MQM_SETTINGS]
    for row in bind.execute(sa.text(f"SELECT id, {', '.join(names)} FROM mqm_campaigns")).mappings():
        bind.execute(campaigns.update().where(campaigns.c.id == row["id"])
                     .values(settings={name: row[name] for name in names}))
    op.execute("""INSERT INTO campaign_versions (id, campaign_id, submission_id, reference, position)
        SELECT id, campaign_id, submission_id, NULL, position FROM mqm_campaign_systems""")
    op.execute("""INSERT INTO campaign_invites (id, campaign_id, token_hash, hint, label, max_uses, uses, created_at,
        expires_at, revoked_at) SELECT id, campaign_id, token_hash, hint, label, max_uses, uses, created_at,
        expires_at, revoked_at FROM mqm_campaign_invites""")
    op.execute("""INSERT INTO campaign_annotators (id, campaign_id, user_id, position, invite_id, joined_at)
        SELECT id, campaign_id, user_id, position, invite_id, joined_at FROM mqm_campaign_annotators""")
    op.execute("""INSERT INTO campaign_items (id, campaign_id, document_id, seg_start, seg_end, position, source_words)
        SELECT id, campaign_id, document_id, seg_start, seg_end, position, source_words FROM mqm_items""")
    op.execute("""INSERT INTO campaign_item_versions (id, item_id, slot, version_id)
        SELECT i.id, i.id, 1, s.id FROM mqm_items i JOIN mqm_campaign_systems s
        ON s.campaign_id = i.campaign_id AND s.submission_id = i.submission_id""")
    op.execute(f"""INSERT INTO campaign_assignments (id, public_id, campaign_id, item_id, annotator_id, number, state,
        stage, opens_at, plan, cursor, furthest, times, time_ms, started_at, last_active_at, finished_at)
        SELECT id, public_id, campaign_id, item_id, annotator_id, number, state, 0, NULL, {_empty_json()}, cursor,
        furthest, times, time_ms, started_at, last_active_at, finished_at FROM mqm_assignments""")
    op.execute("""INSERT INTO mqm_attention_checks (assignment_id, seg, kind, text, start_pos, end_pos, result)
        SELECT id, attention_seg, attention_kind, attention_text, attention_start, attention_end, attention_result
        FROM mqm_assignments WHERE attention_seg IS NOT NULL AND attention_text IS NOT NULL""")
    _reset_sequences(NEW_TABLES)


def _refuse_other_protocols() -> None:
    n = op.get_bind().execute(sa.text("SELECT COUNT(*) FROM campaigns WHERE protocol <> 'mqm'")).scalar()
    if n:
        raise RuntimeError(f"{n} campaign(s) use a protocol other than MQM, which the older schema cannot hold: "
                           "export and delete them before downgrading")


def _copy_down() -> None:
    bind = op.get_bind()
    defaults = ", ".join(f"'{d}'" if isinstance(d, str) else str(d) for _n, d in MQM_SETTINGS)
    op.execute(f"""INSERT INTO mqm_campaigns (id, testset_id, name, scheme, attention_share, attention_kind,
        source_words, significance_unit, redundancy, instructions, ranges, seed, state, created_by_id, created_at,
        started_at, closed_at, released_at, results)
        SELECT id, testset_id, name, {defaults}, redundancy, instructions, ranges, seed, state, created_by_id,
        created_at, started_at, closed_at, released_at, results FROM campaigns""")
    old = sa.table("mqm_campaigns", sa.column("id", sa.Integer), *(sa.column(n) for n, _d in MQM_SETTINGS))
    settings = sa.table("campaigns", sa.column("id", sa.Integer), sa.column("settings", sa.JSON))
    for cid, values in bind.execute(sa.select(settings.c.id, settings.c.settings)):
        values = values or {}
        bind.execute(old.update().where(old.c.id == cid)
                     .values({n: values.get(n, d) for n, d in MQM_SETTINGS}))
    op.execute("""INSERT INTO mqm_campaign_systems (id, campaign_id, submission_id, position)
        SELECT id, campaign_id, submission_id, position FROM campaign_versions WHERE submission_id IS NOT NULL""")
    op.execute("""INSERT INTO mqm_campaign_invites (id, campaign_id, token_hash, hint, label, max_uses, uses,
        created_at, expires_at, revoked_at) SELECT id, campaign_id, token_hash, hint, label, max_uses, uses,
        created_at, expires_at, revoked_at FROM campaign_invites""")
    op.execute("""INSERT INTO mqm_campaign_annotators (id, campaign_id, user_id, position, invite_id, joined_at)
        SELECT id, campaign_id, user_id, position, invite_id, joined_at FROM campaign_annotators""")
    op.execute("""INSERT INTO mqm_items (id, campaign_id, submission_id, document_id, seg_start, seg_end, position,
        source_words) SELECT i.id, i.campaign_id, v.submission_id, i.document_id, i.seg_start, i.seg_end, i.position,
        i.source_words FROM campaign_items i JOIN campaign_item_versions iv ON iv.item_id = i.id AND iv.slot = 1
        JOIN campaign_versions v ON v.id = iv.version_id""")
    op.execute("""INSERT INTO mqm_assignments (id, public_id, campaign_id, item_id, annotator_id, number, state,
        cursor, furthest, times, time_ms, started_at, last_active_at, finished_at, attention_seg, attention_kind,
        attention_text, attention_start, attention_end, attention_result)
        SELECT a.id, a.public_id, a.campaign_id, a.item_id, a.annotator_id, a.number, a.state, a.cursor, a.furthest,
        a.times, a.time_ms, a.started_at, a.last_active_at, a.finished_at, c.seg, c.kind, c.text, c.start_pos,
        c.end_pos, c.result FROM campaign_assignments a LEFT JOIN mqm_attention_checks c ON c.assignment_id = a.id""")
    _reset_sequences(OLD_TABLES)
