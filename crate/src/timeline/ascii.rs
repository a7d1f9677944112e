//! The seed 003 picture (its Figure 3): per cycle, each sub-core's warp slots, collector units
//! and execution pipelines drawn stage by stage, then the memory pipelines.
//!
//! ```text
//!  SM 0 cycle 5
//!   sub-core 0
//!    slot 0  w0   issued      FFMA @0x0010
//!    slot 1  w2   comp_data
//!    CU      [w0 FFMA  ][          ]
//!    SP      [w2 FFMA  ][    .     ][    .     ][    .     ]   stage 1 .. latency
//!   mem 0    dispatch [          ] addr [          ] buf 0 wb [          ] wait
//! ```
//! The picture is built as a [`Canvas`] of (character, colour) cells so the terminal (plain or
//! ANSI colour) and the bitmap views draw exactly the same thing.

use super::{Frame, Occ, SlotState, Timeline, UNIT_NAMES};

/// Colour of a cell: 0 the default, `1 + warp % 6` a warp's instruction, 7 a heading.
pub type Colour = u8;
/// Number of distinct warp colours.
pub const WARP_COLOURS: u8 = 6;
const HEAD: Colour = 7;
const CELL: usize = 10;

/// Lines of (character, colour) cells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Canvas {
    pub lines: Vec<Vec<(char, Colour)>>,
}

impl Canvas {
    fn put(&mut self, s: &str, c: Colour) {
        if self.lines.is_empty() {
            self.lines.push(Vec::new());
        }
        let l = self.lines.last_mut().expect("a line");
        l.extend(s.chars().map(|ch| (ch, c)));
    }

    fn nl(&mut self) {
        self.lines.push(Vec::new());
    }

    /// Widest line, in characters.
    pub fn width(&self) -> usize {
        self.lines.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// The picture as text, with ANSI colours when `colour`.
    pub fn to_text(&self, colour: bool) -> String {
        let mut out = String::new();
        for l in &self.lines {
            let mut cur = 0;
            for &(ch, c) in l {
                if colour && c != cur {
                    out.push_str(&ansi(c));
                    cur = c;
                }
                out.push(ch);
            }
            if colour && cur != 0 {
                out.push_str("\x1b[0m");
            }
            let end = out.trim_end_matches(' ').len();
            out.truncate(end);
            out.push('\n');
        }
        out
    }
}

fn ansi(c: Colour) -> String {
    match c {
        0 => "\x1b[0m".into(),
        HEAD => "\x1b[1m".into(),
        c => format!("\x1b[{}m", 30 + c),
    }
}

/// Colour of warp slot `w`.
pub fn warp_colour(w: u16) -> Colour {
    1 + (w % WARP_COLOURS as u16) as u8
}

/// What the picture of one SM shows, fixed over the window so frames line up.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Per sub-core: local slots that hold a warp at some point of the window.
    pub slots: Vec<Vec<usize>>,
    /// Per sub-core: (unit, stages) of the units used in the window.
    pub units: Vec<Vec<(u8, usize)>>,
    pub collectors: usize,
}

impl Layout {
    pub fn of(frames: &[Frame]) -> Layout {
        let n = frames.first().map_or(0, |f| f.subcores.len());
        let mut l = Layout {
            slots: vec![Vec::new(); n],
            units: vec![Vec::new(); n],
            collectors: 0,
        };
        for f in frames {
            for (s, sf) in f.subcores.iter().enumerate() {
                for (k, st) in sf.slots.iter().enumerate() {
                    if *st != SlotState::Empty && !l.slots[s].contains(&k) {
                        l.slots[s].push(k);
                    }
                }
                l.collectors = l.collectors.max(sf.collectors.len());
                for u in &sf.units {
                    // The completion cycle is the write-back: the unit holds it `end - start`.
                    let stages = (u.end - u.start).max(1) as usize;
                    match l.units[s].iter_mut().find(|(x, _)| *x == u.unit) {
                        Some(e) => e.1 = e.1.max(stages),
                        None => l.units[s].push((u.unit, stages)),
                    }
                }
            }
        }
        for v in &mut l.slots {
            v.sort_unstable();
        }
        for v in &mut l.units {
            v.sort_unstable();
        }
        l
    }
}

fn cell(cv: &mut Canvas, tl: &Timeline, o: Option<&Occ>) {
    match o {
        Some(o) => {
            let mut s = format!("w{} {}", o.warp, tl.op_name(o));
            s.truncate(CELL);
            cv.put("[", 0);
            cv.put(&format!("{s:<CELL$}"), warp_colour(o.warp));
            cv.put("]", 0);
        }
        None => cv.put(&format!("[{:^CELL$}]", "."), 0),
    }
}

/// Draws frame `fi` of SM `si` into `cv`.
pub fn draw_frame(cv: &mut Canvas, tl: &Timeline, si: usize, fi: usize, lay: &Layout) {
    let sm = &tl.sms[si];
    let f = &sm.frames[fi];
    cv.put(
        &format!(
            "SM {} cycle {}  (memory requests outstanding: {})",
            sm.sm, f.cycle, f.mem_outstanding
        ),
        HEAD,
    );
    cv.nl();
    for (s, sf) in f.subcores.iter().enumerate() {
        cv.put(&format!(" sub-core {s}"), HEAD);
        cv.nl();
        for &k in &lay.slots[s] {
            let w = (k * f.subcores.len() + s) as u16;
            cv.put(&format!("  slot {k:<2} "), 0);
            let st = sf.slots.get(k).copied().unwrap_or(SlotState::Empty);
            let name = match st {
                SlotState::Empty => "-".to_string(),
                SlotState::Issued => "issued".into(),
                SlotState::Ready => "ready".into(),
                SlotState::Draining => "draining".into(),
                SlotState::Stalled(why) => why.name().into(),
            };
            let c = if st == SlotState::Empty {
                0
            } else {
                warp_colour(w)
            };
            cv.put(&format!("w{w:<4}"), c);
            cv.put(&format!("{name:<12}"), 0);
            for o in sf.issued.iter().filter(|o| o.warp == w) {
                cv.put(&format!("{} @0x{:04x} ", tl.op_name(o), o.pc), c);
            }
            cv.nl();
        }
        cv.put(&format!("  {:<9}", "CU"), 0);
        for k in 0..lay.collectors {
            cell(cv, tl, sf.collectors.get(k).and_then(Option::as_ref));
        }
        cv.nl();
        for &(u, stages) in &lay.units[s] {
            cv.put(&format!("  {:<9}", UNIT_NAMES[u as usize]), 0);
            // Several pipelines of one unit kind may hold an instruction in the same stage:
            // one row per such overlap.
            let mine: Vec<_> = sf.units.iter().filter(|x| x.unit == u).collect();
            let mut rows: Vec<Vec<Option<&Occ>>> = vec![vec![None; stages]];
            for x in mine {
                let st = (f.cycle.saturating_sub(x.start) as usize).min(stages - 1);
                match rows.iter_mut().find(|r| r[st].is_none()) {
                    Some(r) => r[st] = Some(&x.inst),
                    None => {
                        let mut r = vec![None; stages];
                        r[st] = Some(&x.inst);
                        rows.push(r);
                    }
                }
            }
            for (ri, r) in rows.iter().enumerate() {
                if ri > 0 {
                    cv.nl();
                    cv.put(&" ".repeat(11), 0);
                }
                for o in r {
                    cell(cv, tl, *o);
                }
            }
            cv.nl();
        }
    }
    for (p, m) in f.mem.iter().enumerate() {
        cv.put(&format!(" mem {p:<6}"), HEAD);
        cv.put("dispatch ", 0);
        cell(cv, tl, m.dispatch.as_ref());
        cv.put(" addr ", 0);
        cell(cv, tl, m.addr.as_ref());
        cv.put(&format!(" buf {:<2} wb ", m.buffered), 0);
        cell(cv, tl, m.writeback.as_ref());
        cv.put(" wait", 0);
        for o in &m.waiting {
            cv.put(" ", 0);
            cell(cv, tl, Some(o));
        }
        cv.nl();
    }
}

/// The picture of every recorded cycle of every recorded SM.
pub fn canvas(tl: &Timeline) -> Canvas {
    let mut cv = Canvas::default();
    for (si, sm) in tl.sms.iter().enumerate() {
        let lay = Layout::of(&sm.frames);
        for fi in 0..sm.frames.len() {
            draw_frame(&mut cv, tl, si, fi, &lay);
            cv.nl();
        }
    }
    cv
}

/// The plain-text picture of each recorded cycle of SM `si`, one string per frame, each ending
/// with its blank separator line: `render(tl, false)` is every SM's strings concatenated, then
/// one more newline.
pub fn frame_texts(tl: &Timeline, si: usize) -> Vec<String> {
    let lay = Layout::of(&tl.sms[si].frames);
    (0..tl.sms[si].frames.len())
        .map(|fi| {
            let mut cv = Canvas::default();
            draw_frame(&mut cv, tl, si, fi, &lay);
            cv.to_text(false)
        })
        .collect()
}

/// The picture as text (ANSI colours when `colour`).
pub fn render(tl: &Timeline, colour: bool) -> String {
    canvas(tl).to_text(colour)
}
