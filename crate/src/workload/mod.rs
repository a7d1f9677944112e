//! workload: see ../shared/DESIGN.md.
