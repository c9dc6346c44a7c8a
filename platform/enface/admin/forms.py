from flask_wtf.file import FileField
from wtforms import BooleanField, DateTimeLocalField, IntegerField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from ..forms import Form, choices
from ..models import ROLES


class ImportForm(Form):
    task = StringField("Task (created if new), e.g. Literary 2026", validators=[DataRequired(), Length(max=100)])
    name = StringField("Test set name (empty: the name in testset.json)", validators=[Optional(), Length(max=200)])
    archive = FileField("Test set as a zip: testset.json, source/, ref1/, ref2/")


class SettingsForm(Form):
    opens_at = DateTimeLocalField("Opens at (UTC; empty: closed, not scheduled yet)", format="%Y-%m-%dT%H:%M",
                                  validators=[Optional()])
    deadline = DateTimeLocalField("Deadline (UTC; empty: no deadline)", format="%Y-%m-%dT%H:%M",
                                  validators=[Optional()])
    quota_per_day = IntegerField("Submissions per team per day (empty: no limit)",
                                 validators=[Optional(), NumberRange(min=0, max=100000)])
    quota_total = IntegerField("Submissions per team in all (empty: no limit)",
                               validators=[Optional(), NumberRange(min=0, max=100000)])
    document_level_allowed = BooleanField("Accept document-level submissions (not line-aligned; d-BLEU only)")
    released = BooleanField("Released: the leaderboard and system descriptions are public")
    references_public = BooleanField("References downloadable by participants")
    description = TextAreaField("Description", validators=[Length(max=5000)])


class RoleForm(Form):
    role = SelectField("Role", choices=choices([(r, r) for r in ROLES]))


class TeamVerifyForm(Form):
    verified = BooleanField("Verified")
