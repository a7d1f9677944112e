//! stats: see ../shared/DESIGN.md.
