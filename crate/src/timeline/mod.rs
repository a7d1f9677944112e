//! timeline: see ../shared/DESIGN.md.
