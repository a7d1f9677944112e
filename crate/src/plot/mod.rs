//! Charts as SVG text and PNG images: line charts (numeric or categorical x) and grouped bar
//! charts, with nice ticks, a legend and a fixed palette. The SVG is written here; the PNG is
//! that SVG rasterised by resvg with the embedded DejaVu Sans ([`font`]), so both show the same
//! picture. No platform: the browser app can make the same files the CLI writes. Used by sweeps
//! (seed 003's Figures 6-9).
//!
//! ```text
//!  Chart { title, x/y labels, categories, series[ (x, y)... ] } ──to_svg()──> "<svg ...>...</svg>"
//!   ┌──────────── title ─────────────┐
//!   │ y ticks │   curves / bars       │ legend
//!   │         └──────── x ticks ──────┘
//! ```
//!
//! Output is deterministic: the same chart gives byte-identical SVG and PNG.

mod draw;
pub mod font;
mod png;
mod scale;
mod svg;

pub use self::png::{rasterise, SCALE as PNG_SCALE};

pub use draw::{layout, Anchor, Drawing, Label, Shape};

pub use scale::{nice_step, tick_label, Scale};

/// Chart style.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChartKind {
    #[default]
    Line,
    Bar,
}

/// One named curve (or bar group member).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    /// `(x, y)`; for categorical charts x is the category index.
    pub points: Vec<(f64, f64)>,
}

/// A chart ready to draw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chart {
    pub title: String,
    /// A smaller second title line (what the chart is restricted to); empty for none.
    pub subtitle: String,
    pub x_label: String,
    pub y_label: String,
    pub kind: ChartKind,
    /// Category names when x is categorical (bar charts, non-numeric line x); empty for numeric x.
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    pub width: u32,
    pub height: u32,
}

impl Chart {
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Chart {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            width: 640,
            height: 400,
            ..Default::default()
        }
    }

    /// The chart as an SVG document.
    pub fn to_svg(&self) -> String {
        svg::render(self)
    }

    /// The chart as a PNG image: the SVG rasterised at [`PNG_SCALE`] times its pixel size.
    pub fn to_png(&self) -> Vec<u8> {
        png::render(self)
    }
}

/// Colours of the series, in order (Okabe-Ito, readable by colour-blind viewers).
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];
