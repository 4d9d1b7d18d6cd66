"""PDFs: a small lazy reader, an incremental-update writer, XMP, and the stamp/inspect policy."""
