//! engine: see ../shared/DESIGN.md.
