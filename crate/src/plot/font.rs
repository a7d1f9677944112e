//! The fonts every picture is drawn with, embedded so that charts and pipeline pictures look the
//! same on every machine and in the browser, whatever fonts the system has: DejaVu Sans and
//! DejaVu Sans Mono, cut down to Latin-1 and a few symbols (52 KB together; where they come from,
//! how they were cut and their licence: `crate/assets/fonts/LICENSE.txt`).

/// DejaVu Sans (chart text).
pub const SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-subset.ttf");
/// Its family name, which the charts' SVG asks for first.
pub const SANS_FAMILY: &str = "DejaVu Sans";
/// DejaVu Sans Mono (the pipeline pictures' character cells).
pub const MONO: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono-subset.ttf");
