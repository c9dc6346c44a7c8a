"""``enface create-user`` and ``enface reset-password``: accounts."""

from __future__ import annotations

import secrets

import click

from ._common import fail, load_app


@click.command("create-user")
@click.option("--role", type=click.Choice(["participant", "annotator", "organizer", "admin"]), default="participant",
              show_default=True)
@click.option("--team", "team_name", help="team to join (created if it does not exist; its first member is captain)")
@click.option("--password", help="default: a random password, printed")
@click.option("--name", default="", help="display name")
@click.option("--token", "with_token", is_flag=True, help="also create an API token, printed as the last line")
@click.argument("email")
def create_user(role, team_name, password, name, with_token, email):
    """Create a user (and the team)."""
    from ..services import ServiceError, accounts

    app = load_app()
    with app.app_context():
        generated = password is None
        password = password or secrets.token_urlsafe(12)
        try:
            user = accounts.create_user(email, password, role=role, name=name, check_strength=not generated)
            if team_name:
                team, created = accounts.get_or_create_team(team_name)
                accounts.add_to_team(user, team, "captain" if created else "member")
        except ServiceError as exc:
            fail(exc.message)
        click.echo(f"created {role} {user.email}" + (f" in team {user.team.name}" if user.team else ""))
        if generated:
            click.echo(f"password: {password}")
        if with_token:
            _token, secret = accounts.issue_token(user, "created by enface create-user")
            click.echo(secret)


@click.command("reset-password")
@click.argument("email")
@click.option("--base-url", default="http://127.0.0.1:8000", show_default=True)
def reset_password(email, base_url):
    """Print a one-time password reset link for a user."""
    from ..services import accounts

    app = load_app()
    with app.app_context():
        user = accounts.get_user_by_email(email)
        if user is None:
            fail(f"no user {email}")
        try:
            token = accounts.make_reset_token(user, actor=None)    # the operator: any active account
        except accounts.ServiceError as exc:
            fail(exc.message)
        click.echo(f"{base_url.rstrip('/')}/auth/reset/{token}")
