from wtforms import BooleanField, EmailField, PasswordField, StringField
from wtforms.validators import DataRequired, EqualTo, Length

from ..forms import EmptyForm, Form


class LoginForm(Form):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=1024)])
    remember = BooleanField("Keep me logged in")


class RegisterForm(Form):
    name = StringField("Your name", validators=[Length(max=100)])
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password (at least 10 characters)", validators=[DataRequired(), Length(max=1024)])
    confirm = PasswordField("Repeat the password",
                            validators=[DataRequired(), EqualTo("password", message="the passwords differ")])


class PasswordForm(Form):
    current_password = PasswordField("Current password", validators=[DataRequired()])
    password = PasswordField("New password (at least 10 characters)", validators=[DataRequired(), Length(max=1024)])
    confirm = PasswordField("Repeat the new password",
                            validators=[DataRequired(), EqualTo("password", message="the passwords differ")])


class ResetForm(Form):
    password = PasswordField("New password (at least 10 characters)", validators=[DataRequired(), Length(max=1024)])
    confirm = PasswordField("Repeat the new password",
                            validators=[DataRequired(), EqualTo("password", message="the passwords differ")])


class TokenForm(Form):
    name = StringField("Token name (e.g. the machine it is for)", validators=[Length(max=100)])


__all__ = ["EmptyForm", "LoginForm", "RegisterForm", "PasswordForm", "ResetForm", "TokenForm"]
