"""Shareable links: a definition travels in the URL, or under a short id in an embedded SQLite store.

Link format, version 1 (query parameters):
- `f`: the definition text, UTF-8, zlib-compressed at level 9, base64url-encoded without padding;
- `s`: instead of `f`, the id of a text stored with `ShortLinkStore.put` (a content hash, checked
  again on every read: a stored text that no longer hashes to its id is refused, never served);
- `c`: optional, a second definition (or a link to one) that the view compares the first with, encoded
  as `f` is;
- `v`: the format version, "1";
- any other parameter is a view option, passed through untouched.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import sqlite3
import time
import urllib.parse
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hfuse import settings
from hfuse.errors import LimitError, LinkError, LinkLimitError

FORMAT_VERSION = "1"
DEFINITION_PARAM = "f"
SHORT_PARAM = "s"
COMPARED_PARAM = "c"
VERSION_PARAM = "v"
RESERVED_PARAMS = (DEFINITION_PARAM, SHORT_PARAM, COMPARED_PARAM, VERSION_PARAM)
LONG_LINK_BYTES = 8192  # proxies commonly reject longer request lines: offer a short link beyond this
SHORT_ID_LENGTH = 12
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
_SHORT_ID = re.compile(rf"[A-Za-z0-9_-]{{{SHORT_ID_LENGTH}}}")
_BUSY_SECONDS = 10.0


def encode_definition(text: str) -> str:
    return (
        base64.urlsafe_b64encode(zlib.compress(utf8(text, "the definition"), 9)).rstrip(b"=").decode("ascii")
    )


def utf8(text: str, what: str) -> bytes:
    """`text` as UTF-8; a LinkError when it holds a lone surrogate, which is not text and no link carries."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        line = text.count("\n", 0, err.start) + 1
        column = err.start - (text.rfind("\n", 0, err.start) + 1) + 1
        raise LinkError(
            f"{what} holds a lone surrogate character (U+{ord(text[err.start]):04X}) at line {line}, column "
            f"{column}: it is not text, so no link can carry it. Remove it, or write the character it was "
            "meant to be."
        ) from None


def decode_definition(token: str, param: str = DEFINITION_PARAM) -> str:
    """The text inside an `f=` parameter (or `c=`, as `param` says). Raises LinkError for anything that is
    not one: a LinkLimitError for a definition longer than the server reads, which is found without
    inflating more of it than the longest script it reads can take (HFUSE_MAX_SCRIPT_CHARS characters of
    4 UTF-8 bytes at most)."""
    named = f"the link's {'compared definition' if param == COMPARED_PARAM else 'definition'} ({param}=)"
    damaged = f"{named} is damaged"
    longest = settings.MAX_LINK_CHARS.as_int()
    if len(token) > longest:
        raise LinkLimitError(
            f"{named} has {len(token)} characters; this server opens links up to "
            f"{settings.MAX_LINK_CHARS.env}={longest}. Raise that setting, or ask for a short link."
        )
    if not _BASE64URL.fullmatch(token) or len(token) % 4 == 1:
        raise LinkError(
            f"{damaged}: it is not base64url text. Ask for the link again, or paste the definition."
        )
    try:
        compressed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise LinkError(f"{damaged}: it is not base64url text. Ask for the link again.") from None
    longest_text = settings.MAX_SCRIPT_CHARS.as_int()
    most_bytes = longest_text * 4  # UTF-8 needs at most 4 bytes a character
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(compressed, most_bytes + 1)
    except zlib.error:
        raise LinkError(f"{damaged}: it does not decompress (cut short?). Ask for the link again.") from None
    if len(raw) > most_bytes:
        raise _too_long(named, f"more than {most_bytes} bytes")
    if not inflater.eof:
        raise LinkError(f"{damaged}: it is cut short. Copy the whole link and try again.")
    if inflater.unused_data:
        raise LinkError(
            f"{damaged}: {len(inflater.unused_data)} bytes follow the end of its compressed text. "
            "Ask for the link again, or paste the definition."
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LinkError(f"{damaged}: it is not UTF-8 text. Ask for the link again.") from None
    if len(text) > longest_text:
        raise _too_long(named, f"{len(text)} characters")
    return text


def _too_long(named: str, size: str) -> LinkLimitError:
    return LinkLimitError(
        f"{named} holds {size}, longer than {settings.MAX_SCRIPT_CHARS.env}="
        f"{settings.MAX_SCRIPT_CHARS.raw()} characters, the longest script this server reads; raise that "
        "setting to open it"
    )


def short_id(text: str) -> str:
    """The content hash a text is stored under: the same text always gets the same id."""
    digest = hashlib.sha256(utf8(text, "the definition")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:SHORT_ID_LENGTH]


class ShortLinkStore:
    """Texts under their content hash in one SQLite file.

    WAL mode: a writer killed mid-transaction leaves every committed text intact. Inserts are atomic
    and idempotent; a text is refused beyond HFUSE_MAX_SHORT_LINK_BYTES and a new one once the store
    holds HFUSE_MAX_SHORT_LINKS. Every read checks that the text still hashes to its id, so a damaged
    entry or file is a LinkError, never served.
    """

    def __init__(self, path: Path):
        self.path = Path(path)

    def _unreadable(self, error: sqlite3.Error) -> LinkError:
        return LinkError(
            f"the short-link store ({settings.LINK_DB.env}) cannot be used: {error}. Long links still "
            f"work; the server's operator should move the damaged file away or point "
            f"{settings.LINK_DB.env} at a new one."
        )

    def _unopenable(self, reason: str) -> LinkError:
        return LinkError(
            f"the short-link store ({settings.LINK_DB.env}={self.path}) cannot be opened: {reason}. Long "
            f"links still work; the server's operator should point {settings.LINK_DB.env} at a file in a "
            "folder it can write."
        )

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            blocker = _file_in_the_way(self.path.parent)
            reason = f"{blocker} is a file, not a folder" if blocker else (error.strerror or str(error))
            raise self._unopenable(reason) from None
        connection = sqlite3.connect(self.path, timeout=_BUSY_SECONDS, isolation_level=None)
        try:
            _use_wal(connection)
            connection.execute(
                "CREATE TABLE IF NOT EXISTS links"
                " (id TEXT PRIMARY KEY, text TEXT NOT NULL, created REAL NOT NULL)"
            )
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    def put(self, text: str) -> str:
        _check_storable(text)
        link_id = short_id(text)
        try:
            connection = self._connect()
            try:
                connection.execute("BEGIN IMMEDIATE")
                try:
                    row = connection.execute("SELECT text FROM links WHERE id = ?", (link_id,)).fetchone()
                    if row is None:
                        _check_room(connection)
                        connection.execute(
                            "INSERT INTO links (id, text, created) VALUES (?, ?, ?)",
                            (link_id, text, time.time()),
                        )
                    connection.execute("COMMIT")
                except BaseException:
                    if connection.in_transaction:
                        connection.execute("ROLLBACK")
                    raise
            finally:
                connection.close()
        except sqlite3.Error as error:
            raise self._unreadable(error) from None
        if row is not None and row[0] != text:
            raise LinkError(f"short id {link_id} already holds another text; share this one with a long link")
        return link_id

    def get(self, link_id: str) -> str | None:
        """The text stored under `link_id`, None when there is none; LinkError when it is damaged."""
        if not _SHORT_ID.fullmatch(link_id):
            return None
        if not self.path.exists():
            blocker = _file_in_the_way(self.path.parent)
            if blocker is not None:
                raise self._unopenable(f"{blocker} is a file, not a folder")
            return None
        try:
            connection = self._connect()
            try:
                row = connection.execute("SELECT text FROM links WHERE id = ?", (link_id,)).fetchone()
            finally:
                connection.close()
        except sqlite3.Error as error:
            raise self._unreadable(error) from None
        if row is None:
            return None
        if not isinstance(row[0], str) or short_id(row[0]) != link_id:
            raise LinkError(
                f"short link s={link_id} is damaged on this server: its stored text no longer matches its "
                f"id, so it is not shown. Ask for a long link; the server's operator should check "
                f"{settings.LINK_DB.env}."
            )
        return row[0]


def _use_wal(connection: sqlite3.Connection) -> None:
    """Switch the file to WAL, waiting for other connections as a busy timeout would.

    SQLite answers a journal-mode change on a file another connection is creating with "database is
    locked" at once, without calling the busy handler, so the wait is done here.
    """
    deadline = time.monotonic() + _BUSY_SECONDS
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            busy = getattr(error, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def _file_in_the_way(folder: Path) -> Path | None:
    """The file standing where `folder` or one of its parents should be, if there is one."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return None if candidate.is_dir() else candidate
    return None


def _check_storable(text: str) -> None:
    limit = settings.MAX_SCRIPT_CHARS.as_int()
    if len(text) > limit:
        raise LimitError(
            f"the definition has {len(text)} characters; short links hold up to "
            f"{settings.MAX_SCRIPT_CHARS.env}={limit}"
        )
    size, most = len(utf8(text, "the definition")), settings.MAX_SHORT_LINK_BYTES.as_int()
    if size > most:
        raise LimitError(
            f"the definition is {size} bytes; this server stores short links up to "
            f"{settings.MAX_SHORT_LINK_BYTES.env}={most} bytes. Share it with a long link, or raise that "
            "setting."
        )


def _check_room(connection: sqlite3.Connection) -> None:
    most = settings.MAX_SHORT_LINKS.as_int()
    (count,) = connection.execute("SELECT COUNT(*) FROM links").fetchone()
    if count >= most:
        raise LimitError(
            f"this server's short-link store is full ({count} links, {settings.MAX_SHORT_LINKS.env}={most}). "
            "Share a long link instead; the server's operator can raise that setting."
        )


def default_store() -> ShortLinkStore:
    return ShortLinkStore(settings.LINK_DB.as_path())


@dataclass(frozen=True, slots=True)
class LinkState:
    """What a link reproduces: the definition text, its short id if it came by one, view options, and the
    text the view compares the definition with, if any."""

    text: str
    short_id: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    compared: str | None = None


def link_params(
    text: str,
    options: Mapping[str, str] | None = None,
    short: str | None = None,
    compared: str | None = None,
) -> dict[str, str]:
    """The query parameters of a link to `text`; by its short id when `short` is the id of this text;
    with the text it is compared with, when there is one."""
    params = {SHORT_PARAM: short} if short is not None else {DEFINITION_PARAM: encode_definition(text)}
    if compared:
        params[COMPARED_PARAM] = encode_definition(compared)
    params[VERSION_PARAM] = FORMAT_VERSION
    params.update({k: v for k, v in (options or {}).items() if k not in RESERVED_PARAMS})
    return params


def link_query(params: Mapping[str, str]) -> str:
    return urllib.parse.urlencode(params, safe="")


def is_long(params: Mapping[str, str]) -> bool:
    return len(link_query(params)) > LONG_LINK_BYTES


def read_link(params: Mapping[str, str], store: ShortLinkStore | None = None) -> LinkState | None:
    """The state a link's query parameters describe; None when they hold no definition.

    Raises LinkError for a damaged `f` or `c`, an unknown `s`, or a version this code does not read.
    """
    options = {k: v for k, v in params.items() if k not in RESERVED_PARAMS}
    if DEFINITION_PARAM not in params and SHORT_PARAM not in params:
        return None
    version = params.get(VERSION_PARAM, FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise LinkError(
            f"the link has format version v={version!r}; this hfuse reads v={FORMAT_VERSION}. "
            "Open it with the hfuse that made it, or ask for the definition text."
        )
    if DEFINITION_PARAM in params and SHORT_PARAM in params:
        raise LinkError("the link has both f= and s=; keep one of them")
    compared = decode_definition(params[COMPARED_PARAM], COMPARED_PARAM) if COMPARED_PARAM in params else None
    if DEFINITION_PARAM in params:
        return LinkState(decode_definition(params[DEFINITION_PARAM]), None, options, compared)
    link_id = params[SHORT_PARAM]
    text = (store or default_store()).get(link_id)
    if text is None:
        raise LinkError(
            f"short link s={link_id[:40]!r} is not known on this server (the store was reset, or the id "
            "was mistyped). Ask for a long link."
        )
    return LinkState(text, link_id, options, compared)
