//! core: see ../shared/DESIGN.md.
