"""Limit errors in a visitor's terms. The engine's messages name the HFUSE_* setting that sets a limit, for
those who run hfuse themselves; a visitor of the app cannot change the server's settings, so the app names
the limit as this server's and says what a visitor can do instead."""

from __future__ import annotations

import re

from hfuse.errors import HfuseError, LimitError

SETTING = r"HFUSE_[A-Z0-9_]+"
# "set HFUSE_MAX_OPS to allow more", "raise that setting", "lower HFUSE_MAX_NESTING": up to the clause's end
CHANGE = re.compile(rf"\b([Ss]et|[Rr]aise|[Ll]ower) (?:{SETTING}|that setting)(?: to [^;:.,)]*)?")
VALUE = re.compile(rf"{SETTING}=")
NAME = re.compile(SETTING)
ELSEWHERE = "run hfuse on your own machine, where the limit can be raised"


def visitor_text(err: HfuseError, text: str) -> str:
    """`text` (the message of `err`, or a part of it) with a limit's settings in a visitor's terms; the
    text of any other error unchanged."""
    if not isinstance(err, LimitError):
        return text
    text = CHANGE.sub(
        lambda m: ELSEWHERE[0].upper() + ELSEWHERE[1:] if m[1][0].isupper() else ELSEWHERE, text
    )
    text = VALUE.sub("this server's limit of ", text)
    return NAME.sub("this server's limit", text)
