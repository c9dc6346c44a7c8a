"""Form helpers shared by the blueprints."""

from flask import request
from flask_wtf import FlaskForm
from flask_wtf.form import _Auto, _is_submitted
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.exceptions import BadRequest

try:   # WTForms 3.3+: choices as SelectChoice objects (tuples are deprecated there)
    from wtforms import SelectChoice

    def choices(pairs) -> list:
        return [SelectChoice(value, label) for value, label in pairs]
except ImportError:   # pragma: no cover - older WTForms
    def choices(pairs) -> list:
        return list(pairs)


def _json_formdata() -> ImmutableMultiDict:
    """A JSON body as form data: only an object of field names to text (or lists of text) is one. Flask-WTF
    passes any JSON to ``ImmutableMultiDict``, and a string, a number, a list or a nested value there was a
    500 on every form route (issue 15)."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadRequest("a form takes its fields as a form post, or as a JSON object of field names and text; "
                         f"this body is {'not JSON' if data is None else 'a JSON ' + type(data).__name__}")
    pairs = []
    for key, value in data.items():
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str):
                raise BadRequest(f"form field {key[:40]!r}: give text, not a JSON {type(item).__name__}")
            try:
                (key + item).encode("utf-8")
            except UnicodeEncodeError:
                raise BadRequest(f"form field {key[:40]!r}: the text holds a lone surrogate, which is not a "
                                 "character") from None
            pairs.append((key, item))
    return ImmutableMultiDict(pairs)


class Form(FlaskForm):
    """Every form of the platform: Flask-WTF's, with JSON bodies checked (:func:`_json_formdata`)."""

    class Meta(FlaskForm.Meta):
        def wrap_formdata(self, form, formdata):
            if formdata is _Auto and _is_submitted() and not request.files and not request.form \
                    and request.is_json:
                return _json_formdata()
            return super().wrap_formdata(form, formdata)


class EmptyForm(Form):
    """A form with only the CSRF token: for buttons that change state (logout, revoke, withdraw)."""
