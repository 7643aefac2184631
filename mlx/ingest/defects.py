"""Every defect code a stored message can carry, with its meaning: the one registry.

As CPython's ``email`` records defects on a message instead of failing, mlx records a
code in ``messages.defects`` and keeps the message.  ``README.md``'s table of defect
codes is tested against ``DEFECTS``; codes of Python's ``email`` defects
(``StartBoundaryNotFoundDefect`` -> ``start-boundary-not-found``) come from
``email.errors`` itself.

Strict mode (``MLX_STRICT=1`` in the environment, or ``mlx.ingest(..., strict=True)``)
raises ``DefectError`` on the first defect instead of recording it: for tests and
for debugging a parser change on one archive.
"""

from __future__ import annotations

import email.errors
import os
import re

from mlx.errors import MlxError

DEFECTS: dict[str, str] = {
    "qp-repaired": "undeclared quoted-printable was decoded",
    "charset-mismatch": "the declared charset does not decode the text: decoded by fallback",
    "unknown-charset": "a charset Python does not know: decoded by fallback",
    "undeclared-8bit": "8-bit text without a declared charset: decoded by fallback",
    "header-charset": "raw 8-bit bytes in a header: decoded by fallback",
    "bad-encoded-word": "an RFC 2047 encoded word that does not decode: kept as written",
    "bad-base64": "a base64 part that does not decode cleanly: decoded leniently",
    "bad-date": "a Date header that does not parse (date NaT)",
    "no-date": "no Date header (date NaT)",
    "date-no-timezone": "a date without a zone (pipermail's asctime): taken as UTC",
    "implausible-date": "a date before 1970 or after 2100 (kept as written)",
    "no-message-id": "no Message-ID: a stable ...@mlx.generated id is assigned",
    "message-id-no-brackets": "a Message-ID without <...>: the bare id is taken",
    "bad-message-id": "a Message-ID that holds no id: kept as written",
    "encoded-message-id": "Message-ID, In-Reply-To or References written as RFC 2047 "
                          "encoded words: decoded to the ids they hide",
    "bad-from": "a From header with no address that parses",
    "no-from": "no From header",
    "no-subject": "no Subject header",
    "no-body": "headers only",
    "html-only": "no text/plain part: the HTML part's text is used",
    "no-text-part": "no text part at all",
    "truncated": "the message was longer than the size bound: the rest was dropped",
    "body-truncated": "the decoded body was longer than the size bound: cut",
    "header-too-long": "a header longer than the size bound: cut",
    "mime-too-deep": "MIME parts nested deeper than the bound: the rest is not read",
    "nul-bytes": "NUL bytes in the message: removed",
    "text-rendering": "read from a plain-text rendering (subject, [Name <addr>], body)",
    "extract-failed": "an extractor raised on the body: its rows for this message are "
                      "missing (a bug in mlx; the message and the other tables are kept)",
}


def email_code(name: str) -> str:
    """``StartBoundaryNotFoundDefect`` -> ``start-boundary-not-found``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name.removesuffix("Defect")).lower()


def _email_defects() -> dict[str, str]:
    out = {}
    for name in dir(email.errors):
        cls = getattr(email.errors, name)
        if isinstance(cls, type) and issubclass(cls, email.errors.MessageDefect) \
                and cls is not email.errors.MessageDefect:
            out[email_code(name)] = (cls.__doc__ or name).strip().splitlines()[0]
    return out


EMAIL_DEFECTS = _email_defects()  # MIME defects Python's email reports, by code


def known(code: str) -> bool:
    return code in DEFECTS or code in EMAIL_DEFECTS


class DefectError(MlxError):
    """A defect met in strict mode."""

    def __init__(self, code: str, where: str) -> None:
        meaning = DEFECTS.get(code) or EMAIL_DEFECTS.get(code) or (
            "a chunk that could not be read as a message: an errors row" if code == "error"
            else "unknown defect")
        super().__init__(f"{where}: defect {code} ({meaning}); strict mode (MLX_STRICT) "
                         f"stops at the first")
        self.code, self.where = code, where

    def __reduce__(self) -> tuple[type, tuple[str, str]]:  # back from a worker process
        return DefectError, (self.code, self.where)


def strict() -> bool:
    """Strict mode: ``MLX_STRICT`` set to anything but empty or 0."""
    return os.environ.get("MLX_STRICT", "") not in ("", "0")
