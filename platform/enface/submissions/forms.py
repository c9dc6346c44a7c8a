from flask_wtf.file import MultipleFileField
from wtforms import BooleanField, RadioField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length

from ..forms import Form, choices


class SubmitForm(Form):
    files = MultipleFileField("Output files")
    label = SelectField("Label", choices=choices([("primary", "Primary"), ("contrastive", "Contrastive")]))
    constrained = RadioField("Training data", default="constrained",
                             choices=choices([("constrained", "Constrained (only the allowed data)"),
                                              ("unconstrained", "Unconstrained (any data or model) ⋆")]))
    system_name = StringField("System name", validators=[DataRequired(), Length(max=100)])
    description = TextAreaField("Short description (model, data, tricks)", validators=[Length(max=2000)])
    allow_duplicate = BooleanField("Submit anyway: I know these files are identical to an earlier submission")
