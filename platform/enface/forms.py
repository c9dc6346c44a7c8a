"""Form helpers shared by the blueprints."""

from flask_wtf import FlaskForm

try:   # WTForms 3.3+: choices as SelectChoice objects (tuples are deprecated there)
    from wtforms import SelectChoice

    def choices(pairs) -> list:
        return [SelectChoice(value, label) for value, label in pairs]
except ImportError:   # pragma: no cover - older WTForms
    def choices(pairs) -> list:
        return list(pairs)


class EmptyForm(FlaskForm):
    """A form with only the CSRF token: for buttons that change state (logout, revoke, withdraw)."""
