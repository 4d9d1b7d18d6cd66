"""What the PDF layer's readers raise internally, before a caller turns it into one of
`pithtex.errors`' classes (`UnreadablePdf`, `Refused`) with the file's name.

They live here, not in reader.py, so that crypt.py can raise them without importing the reader
that imports it. They are ValueErrors (bad values read from a file) except `Shrunk`, which is
the file system's news, and `XmpWriteError`, which is a bug of ours.
"""

from __future__ import annotations


class PdfSyntaxError(ValueError):
    """Bytes that are not the PDF syntax expected at this place."""


class TooDeep(PdfSyntaxError):
    """Arrays or dictionaries nested deeper than a document ever needs: said as that, not as
    the misplaced object or broken xref a reader would otherwise take it for."""


class Oversize(PdfSyntaxError):
    """A stream that decodes to more than the limit its reader set."""


class Damaged(ValueError):
    """A file whose structure cannot be read without guessing."""


class Shrunk(OSError):
    """The file became shorter while it was being read (another program is rewriting it): the
    file system's news, not damage, so no ValueError handler takes it for a bad value."""


class EncryptionError(ValueError):
    """An encrypted file the standard handler cannot open (and why, in one clause)."""


class PasswordNeeded(EncryptionError):
    """The file needs a user password that was not given (or the one given is wrong)."""


class XmpError(ValueError):
    """An XMP packet that cannot be parsed safely."""


class XmpWriteError(RuntimeError):
    """The packet pithtex made does not read back as what was meant: a bug, never written."""


class SavedWebPage(Damaged):
    """A web page saved under a PDF's name (a browser's "Save as" of arxiv.org/abs/...)."""
