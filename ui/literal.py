"""Text from a user (a definition, a link, an error quoting either) shown inside Streamlit markdown as
itself: no links, images, colours, icons, LaTeX or HTML can be made from it.

Streamlit renders the body of `st.error`, `st.warning`, `st.caption`, ... as markdown (CommonMark with
GFM, directives such as `:red[...]` and `$...$` math). A backslash before a punctuation character makes
CommonMark show that character as itself, so every character that can open markup is escaped. Letters,
digits, spaces and the punctuation of plain prose (`'`, `"`, `,`, `;`, `?`, `=`, `/`, `%`, `(`, `)`)
stay as they are, and so do underscores inside words (`HFUSE_MAX_OPS`), which cannot open emphasis.

GFM turns bare URLs and e-mail addresses into links after the escapes are read, so an invisible WORD
JOINER (U+2060) is put into every `://`, `www.` and `@`: they show unchanged and link nowhere.
"""

from __future__ import annotations

import re

_MARKUP = re.compile(
    r"[\\`*~\[\]<>$:!#|&{}^]"  # code, emphasis, links, images, HTML, math, directives, tables, entities
    r"|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"  # an underscore that can open or close emphasis
)
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?=@)", re.IGNORECASE)
WORD_JOINER = "\u2060"
_BLOCK_START = re.compile(r"^([ \t]*(?:\d+)?)([-+=.)])", re.MULTILINE)  # lists, setext underlines, rules


def literal(text: str) -> str:
    """`text` escaped so that Streamlit's markdown shows it character for character."""
    escaped = _MARKUP.sub(lambda match: "\\" + match.group(0), text)
    return _BLOCK_START.sub(r"\1\\\2", _AUTOLINK.sub(WORD_JOINER, escaped))
