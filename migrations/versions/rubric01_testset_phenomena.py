"""Phenomenon tags of test sets (phenomena.jsonl): a segment, a rubric dimension, a requirement, a context.

Revision ID: rubric01
Revises: core01
Create Date: 2026-12-01 17:00:00
"""
from alembic import op
import sqlalchemy as sa

revision = 'rubric01'
down_revision = 'core01'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('testset_phenomena',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('testset_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('dimension', sa.String(length=40), nullable=False),
    sa.Column('requirement', sa.Text(), nullable=False),
    sa.Column('context', sa.Text(), nullable=False),
    sa.Column('line', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], name=op.f('fk_testset_phenomena_document_id_documents'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['testset_id'], ['testsets.id'], name=op.f('fk_testset_phenomena_testset_id_testsets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_testset_phenomena')),
    sa.UniqueConstraint('document_id', 'position', 'dimension', name='uq_testset_phenomena_segment')
    )
    with op.batch_alter_table('testset_phenomena', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_testset_phenomena_testset_id'), ['testset_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('testset_phenomena', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_testset_phenomena_testset_id'))
    op.drop_table('testset_phenomena')
