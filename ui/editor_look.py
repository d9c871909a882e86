"""How the code editor draws what the app adds to it: the definition's error marked at its line (a sign
in the gutter whose message shows on hover, and the line shaded), the placeholder on the first line,
and a strip under the text for the Apply button."""

from __future__ import annotations

from hfuse.errors import HfuseError

ERROR_LINE = "hfuse-error-line"  # the class of the shaded line
SCROLL_MARGIN_PX = 15  # blank space above the first line and under the last
# Injected into the editor's frame: a strip under the text for the Apply button, so the button covers no
# line; the error line's shade; the placeholder in the editor's own font on the first line (Ace draws it
# smaller, in Arial, above the scroll margin).
EDITOR_CSS = f"""
.streamlit_code-editor .ace_editor {{ border-bottom: 2.6rem solid transparent; }}
.{ERROR_LINE} {{ position: absolute; background: rgba(255, 43, 43, 0.16); }}
.ace_editor .ace_placeholder {{
  font-family: inherit; font-size: inherit; transform: none; margin: 0 4px; padding: 0;
  top: {SCROLL_MARGIN_PX}px;
}}
"""
NO_MARKS: dict[str, list] = {"annotations": [], "markers": []}


def error_marks(err: HfuseError | None, text: str) -> dict[str, list]:
    """The code editor's props that mark `err` at its line of `text` (react-ace's `annotations` and
    `markers`); none for an error without a place in the script."""
    lines = text.splitlines()
    if err is None or err.loc is None or not 1 <= err.loc.line <= len(lines):
        return NO_MARKS
    row = err.loc.line - 1
    message = f"{type(err).__name__} at {err.loc}: {err.reason}"
    return {
        "annotations": [{"row": row, "column": max(err.loc.column - 1, 0), "type": "error", "text": message}],
        "markers": [
            {
                "startRow": row,
                "endRow": row,
                "startCol": 0,
                "endCol": len(lines[row]),
                "className": ERROR_LINE,
                "type": "text",  # every screen row of a wrapped line
            }
        ],
    }
