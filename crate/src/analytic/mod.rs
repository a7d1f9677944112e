//! analytic: see ../shared/DESIGN.md.
