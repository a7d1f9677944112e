//! PNG of a [`Chart`]: its SVG ([`super::svg`]) rasterised by resvg at [`SCALE`] times the SVG's
//! pixel size, anti-aliased, text in the embedded DejaVu Sans ([`super::font`]; no system fonts,
//! so every machine draws the same pixels), written as 8-bit RGB by the `png` crate with its
//! resolution set so that it prints at the SVG's size. Deterministic: the same chart, the same
//! bytes.
//!
//! ```text
//!  Chart ──svg::render──> SVG text ──usvg──> tree ──resvg──> RGBA pixmap ──png──> RGB PNG
//! ```

use super::font::{SANS, SANS_FAMILY};
use super::Chart;
use resvg::{tiny_skia, usvg};

/// Output pixels per SVG pixel: 3 x 96 = 288 dots per inch.
pub const SCALE: f32 = 3.0;

pub(super) fn render(c: &Chart) -> Vec<u8> {
    rasterise(&super::svg::render(c), SCALE)
}

/// `svg` drawn on white at `scale` output pixels per SVG pixel, as PNG. Panics on SVG this
/// module did not write (the charts' own SVG always parses).
pub fn rasterise(svg: &str, scale: f32) -> Vec<u8> {
    let mut opt = usvg::Options {
        font_family: SANS_FAMILY.into(),
        ..usvg::Options::default()
    };
    let db = opt.fontdb_mut();
    db.load_font_data(SANS.to_vec());
    db.set_sans_serif_family(SANS_FAMILY);
    let tree = usvg::Tree::from_str(svg, &opt).expect("the chart's own SVG parses");
    let size = tree.size();
    let w = (size.width() * scale).round().max(1.0) as u32;
    let h = (size.height() * scale).round().max(1.0) as u32;
    let mut pm = tiny_skia::Pixmap::new(w, h).expect("a chart has a size");
    pm.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pm.as_mut(),
    );
    // Opaque white underneath: premultiplied RGBA is plain RGB with alpha 255.
    let rgb: Vec<u8> = pm
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, h);
    e.set_color(png::ColorType::Rgb);
    e.set_depth(png::BitDepth::Eight);
    let per_metre = (96.0 * scale / 0.0254).round() as u32;
    e.set_pixel_dims(Some(png::PixelDimensions {
        xppu: per_metre,
        yppu: per_metre,
        unit: png::Unit::Meter,
    }));
    let mut wr = e.write_header().expect("in-memory PNG header");
    wr.write_image_data(&rgb).expect("in-memory PNG data");
    wr.finish().expect("in-memory PNG end");
    out
}

#[cfg(test)]
mod tests {
    use super::super::{ChartKind, Series, PALETTE};
    use super::*;

    /// The decoded image: width, height, RGB pixels.
    fn decode(png_bytes: &[u8]) -> (usize, usize, Vec<u8>) {
        let d = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut r = d.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        (info.width as usize, info.height as usize, buf)
    }

    fn rgb(css: &str) -> [u8; 3] {
        let hex = |s: &str| u8::from_str_radix(s, 16).unwrap();
        [hex(&css[1..3]), hex(&css[3..5]), hex(&css[5..7])]
    }

    /// The pixel under SVG point (x, y).
    fn at(img: &(usize, usize, Vec<u8>), x: f32, y: f32) -> [u8; 3] {
        let (px, py) = ((x * SCALE) as usize, (y * SCALE) as usize);
        let i = (py * img.0 + px) * 3;
        [img.2[i], img.2[i + 1], img.2[i + 2]]
    }

    #[test]
    fn points_frame_and_legend_land_where_the_svg_puts_them() {
        let mut c = Chart::new("t", "x", "y");
        c.series.push(Series {
            name: "a".into(),
            points: vec![(1.0, 0.0), (3.0, 10.0)],
        });
        let png = render(&c);
        let img = decode(&png);
        // SVG 640x400 -> 1920x1200.
        assert_eq!((img.0, img.1), (1920, 1200));
        // Point (3, 10) is at SVG (490, 40): the disc's centre is the series colour.
        assert_eq!(at(&img, 490.0, 40.0), rgb(PALETTE[0]));
        // The frame's left edge at SVG x = 72, mid-height; background just inside the frame.
        assert_eq!(at(&img, 72.0, 300.0), [0x33, 0x33, 0x33]);
        assert_eq!(at(&img, 100.0, 300.0), [255, 255, 255]);
        // Legend swatch: SVG rect (502, 41) 14x10.
        assert_eq!(at(&img, 509.0, 46.0), rgb(PALETTE[0]));
        // Corners are background; the image is the same every time, and prints at 288 dpi.
        assert_eq!(at(&img, 0.0, 0.0), [255, 255, 255]);
        assert_eq!(render(&c), png);
        let r = png::Decoder::new(std::io::Cursor::new(&png[..]))
            .read_info()
            .unwrap();
        assert_eq!(r.info().pixel_dims.unwrap().xppu, 11339);
    }

    #[test]
    fn text_is_drawn_with_the_embedded_font() {
        let c = Chart::new("Throughput", "x", "y");
        let img = decode(&render(&c));
        // The title's row (SVG y ~ 16..28 around the centre) holds dark, anti-aliased pixels.
        let row: Vec<[u8; 3]> = (200..440).map(|x| at(&img, x as f32, 20.0)).collect();
        assert!(row.iter().any(|p| p[0] < 80), "no text in the title row");
        assert!(
            row.iter().any(|p| p[0] > 80 && p[0] < 200),
            "text is anti-aliased"
        );
    }

    #[test]
    fn bars_fill_their_rectangles() {
        let mut c = Chart::new("b", "k", "v");
        c.kind = ChartKind::Bar;
        c.categories = vec!["p".into(), "q".into()];
        c.series.push(Series {
            name: "s0".into(),
            points: vec![(0.0, 5.0), (1.0, 10.0)],
        });
        let img = decode(&render(&c));
        // Category 0's bar (one series: width 167.2 from x 92.9, top y 194, base 348).
        assert_eq!(at(&img, 100.0, 300.0), rgb(PALETTE[0]));
        assert_eq!(at(&img, 100.0, 190.0), [255, 255, 255]);
    }
}
