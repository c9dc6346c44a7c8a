"""Flask extensions, created unbound here and bound to an app by ``init_app`` in :func:`enface.create_app`."""

from __future__ import annotations

from contextlib import contextmanager

from flask import Flask, current_app, g, has_app_context
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_wtf import CSRFProtect
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from . import ratelimit_storage  # noqa: F401  (registers sqlite:// with the limits library before Limiter starts)

SQLITE_IMMEDIATE = "enface_sqlite_immediate"


def make_engine(url: str, echo: bool = False) -> Engine:
    """An engine with the SQLite settings a multi-process server needs.

    SQLite: WAL (readers never block the writer), a 30 s busy timeout, foreign
    keys on, and transactions begun by us so that :func:`begin_write` can take
    the write lock up front (``BEGIN IMMEDIATE``) instead of failing with
    "database is locked" when a read transaction later tries to write.
    """
    if url.startswith("sqlite"):
        engine = create_engine(url, echo=echo, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _record):
            dbapi_conn.isolation_level = None   # we emit BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn):
            immediate = conn.get_execution_options().get(SQLITE_IMMEDIATE)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine
    return create_engine(url, echo=echo, pool_pre_ping=True, pool_size=5, max_overflow=10)


class Database:
    """A small SQLAlchemy 2.0 binding: one engine per app, one session per app context.

    ``db.session`` is the session of the current app context (a request, a CLI
    command or a job), closed when the context ends.
    """

    def __init__(self) -> None:
        self._after_write: list = []

    def after_write(self, hook):
        """Register ``hook(session)``, called after every :meth:`write` transaction commits (not after a
        rollback): it starts what the committed change calls for, e.g. a job, which must see the change."""
        self._after_write.append(hook)
        return hook

    def init_app(self, app: Flask) -> None:
        engine = make_engine(app.config["SQLALCHEMY_DATABASE_URI"], app.config.get("SQLALCHEMY_ECHO", False))
        app.extensions["enface_db"] = (engine, sessionmaker(bind=engine, expire_on_commit=False))
        app.teardown_appcontext(self._teardown)

    @staticmethod
    def _teardown(_exc) -> None:
        session = g.pop("_enface_session", None)
        if session is not None:
            session.close()

    @property
    def session(self) -> Session:
        if not has_app_context():
            raise RuntimeError("db.session needs an app context")
        session = g.get("_enface_session")
        if session is None:
            session = g._enface_session = current_app.extensions["enface_db"][1]()
        return session

    def new_session(self) -> Session:
        """A session of its own (e.g. for progress updates beside a long transaction)."""
        return current_app.extensions["enface_db"][1]()

    @contextmanager
    def write(self, session: Session | None = None):
        """A write transaction, committed at the end (rolled back on error).

        On SQLite it starts with ``BEGIN IMMEDIATE``: concurrent writers queue
        on the busy timeout instead of one of them failing. Any transaction the
        session had open is committed first (ORM objects stay usable).
        """
        session = session or self.session
        begin_write(session)
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        for hook in self._after_write:
            hook(session)


def begin_write(session: Session) -> None:
    if session.in_transaction():
        session.commit()
    if session.get_bind().dialect.name == "sqlite":
        session.connection(execution_options={SQLITE_IMMEDIATE: True})


db = Database()
login_manager = LoginManager()
csrf = CSRFProtect()
limiter = Limiter(key_func=get_remote_address, default_limits=[])
