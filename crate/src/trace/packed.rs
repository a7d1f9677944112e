//! A resident CTA's trace, packed (memory while simulating long CTAs).
//!
//! A decoded [`CtaTrace`] spends ~70 bytes per warp instruction ([`TraceInst`]) and 8 bytes per
//! active lane of every memory instruction. An SM keeps every resident CTA's whole trace (a
//! compact chunk cannot be decoded warp by warp: its prediction state runs across the warps of a
//! chunk), so 640 resident CTAs of a long kernel held ~2.5 GB. Packed, a CTA keeps:
//!
//! ```text
//!  tmpl   the CTA's distinct instructions (everything but the addresses: PC, opcode,
//!         registers, width, mask, address shape; `addr_start` 0), shared by its warps
//!  recs   8 bytes per warp instruction: its template and where its addresses start
//!  addrs  per memory instruction: the first lane's address when the shape gives the rest
//!         (the readers' canonical shape, checked here), else [count, lane addresses...]
//!  warps  where each warp's records start
//! ```
//! Instructions come back as the same [`TraceInst`] values (with `addr_start` 0); lane addresses
//! come from [`PackedWarp::addrs`], expanded from the shape into a caller's buffer on the stack.
//!
//! Packing costs ~100-200 host instructions per warp instruction (more than half of decoding
//! it), so a CTA is packed only when it must be: a holder (the engine, the functional pass)
//! that may keep `r` CTAs at once packs those with more than [`pack_above`]`(r)` warp
//! instructions, so the ones it keeps as decoded hold at most [`DECODED_BUDGET`] warp
//! instructions (~100 MB) together. The bench's traces all stay as decoded (vecadd's CTAs of 64
//! instructions, reduction's 323 with 640 resident, the matmul-128s' 64 CTAs of ~5 K);
//! matmul_naive 512x512x384 (CTAs of 15.5 K, 640 resident) is packed.

use super::{CtaTrace, Dim3, TraceInst, WarpTrace};

/// Warp instructions a holder of CTAs keeps as decoded at most, all its CTAs together (~100 MB
/// at ~200 bytes each).
pub const DECODED_BUDGET: u64 = 500_000;

/// The CTA size (warp instructions) above which a holder of up to `held` CTAs at once packs
/// them.
pub fn pack_above(held: u64) -> u64 {
    DECODED_BUDGET / held.max(1)
}

/// One warp instruction: its template and its addresses' offset in `Packed::addrs`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Rec {
    tmpl: u32,
    addr: u32,
}

/// `Rec::addr` flag: the addresses are stored as `[count, lanes...]`, not as a shape's base.
const FULL: u32 = 1 << 31;

/// A resident CTA: packed (see the module docs), or as decoded. Small (a move of it through
/// the engine's queue copies 56 bytes); a packed one's buffers are kept across
/// [`PackedCta::pack`] calls.
#[derive(Clone, Debug, Default)]
pub struct PackedCta {
    /// The CTA's index in the grid.
    pub id: Dim3,
    /// The packed form, or None.
    packed: Option<Box<Packed>>,
    /// A CTA kept as decoded: its warps (empty when packed).
    full: Vec<WarpTrace>,
    /// [`PackedCta::max_op_pc`] once noted ([`PackedCta::note_max`]), else None.
    max: Option<Option<(u16, u32)>>,
}

#[derive(Clone, Debug, Default)]
struct Packed {
    tmpl: Vec<TraceInst>,
    recs: Vec<Rec>,
    addrs: Vec<u64>,
    /// Warp `w`'s records are `recs[warps[w] .. warps[w + 1]]`.
    warps: Vec<u32>,
}

/// Whether template `t` stands for `i`: every field but `addr_start` (destructured, so a new
/// field of [`TraceInst`] must be named here), the ones that differ most often first.
#[inline]
fn same(t: &TraceInst, i: &TraceInst) -> bool {
    let TraceInst {
        pc,
        mask,
        op,
        ndst,
        nsrc,
        dst,
        src,
        mem_width,
        flags,
        addr_start: _,
        imm,
        line,
        shape,
        ctrl,
    } = *t;
    mask == i.mask
        && shape == i.shape
        && pc == i.pc
        && op == i.op
        && ndst == i.ndst
        && nsrc == i.nsrc
        && dst == i.dst
        && src == i.src
        && mem_width == i.mem_width
        && flags == i.flags
        && imm == i.imm
        && line == i.line
        && ctrl == i.ctrl
}

/// A PC -> latest template map with stamps, so packing the next CTA needs no clearing.
#[derive(Clone, Debug, Default)]
pub struct Packer {
    /// (stamp, pc, template) in open addressing; a slot of another stamp is empty.
    slots: Vec<(u32, u32, u32)>,
    stamp: u32,
    used: usize,
}

impl Packer {
    fn begin(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0, 0); 256];
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill((0, 0, 0));
            self.stamp = 1;
        }
        self.used = 0;
    }

    #[inline]
    fn home(&self, pc: u32) -> usize {
        (pc.wrapping_mul(0x9E37_79B1) >> 8) as usize & (self.slots.len() - 1)
    }

    /// The slot of `pc`: its entry, or the empty slot where it goes.
    #[inline]
    fn find(&self, pc: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(pc);
        loop {
            let (s, p, _) = self.slots[i];
            if s != self.stamp || p == pc {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Sets `pc`'s template, growing the table (rebuilt from `tmpl`, later ones winning) when
    /// it is half full.
    fn set(&mut self, pc: u32, t: u32, tmpl: &[TraceInst]) {
        let i = self.find(pc);
        if self.slots[i].0 != self.stamp {
            self.used += 1;
        }
        self.slots[i] = (self.stamp, pc, t);
        if self.used * 2 > self.slots.len() {
            self.slots = vec![(0, 0, 0); self.slots.len() * 2];
            self.used = 0;
            for (k, x) in tmpl.iter().enumerate() {
                let i = self.find(x.pc);
                if self.slots[i].0 != self.stamp {
                    self.used += 1;
                }
                self.slots[i] = (self.stamp, x.pc, k as u32);
            }
        }
    }
}

impl PackedCta {
    /// `cta`, packed if it has more than `above` warp instructions, else as decoded.
    pub fn new(cta: CtaTrace, pk: &mut Packer, above: u64) -> Self {
        let mut p = PackedCta::default();
        p.pack(cta, pk, above);
        p
    }

    /// Replaces the contents with `cta`'s warps (packed if it has more than `above` warp
    /// instructions), reusing the buffers.
    pub fn pack(&mut self, cta: CtaTrace, pk: &mut Packer, above: u64) {
        self.id = cta.id;
        self.max = None;
        if cta.warp_insts() <= above {
            self.packed = None;
            self.full = cta.warps;
            return;
        }
        self.full = Vec::new();
        let p = self.packed.get_or_insert_with(Box::default);
        let Packed {
            tmpl,
            recs,
            addrs,
            warps,
        } = &mut **p;
        tmpl.clear();
        recs.clear();
        addrs.clear();
        warps.clear();
        pk.begin();
        // First sizes that fit a short CTA at once (no growing step by step).
        tmpl.reserve(32);
        addrs.reserve(32);
        warps.reserve(cta.warps.len() + 1);
        for w in &cta.warps {
            warps.push(recs.len() as u32);
            recs.extend(w.insts.iter().map(|inst| Rec {
                tmpl: template(tmpl, inst, pk),
                addr: if inst.mem_width > 0 {
                    push_addrs(addrs, inst, &w.addrs)
                } else {
                    0
                },
            }));
        }
        warps.push(recs.len() as u32);
        debug_assert!(addrs.len() < FULL as usize, "addresses beyond 2^31");
    }

    /// The warps of a CTA kept as decoded (empty when packed), to recycle their buffers.
    pub fn into_warps(self) -> Vec<WarpTrace> {
        self.full
    }

    /// Number of warps.
    pub fn len(&self) -> usize {
        match &self.packed {
            Some(p) => p.warps.len().saturating_sub(1),
            None => self.full.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Warp `w` (which must exist).
    #[inline(always)]
    pub fn warp(&self, w: usize) -> PackedWarp<'_> {
        match &self.packed {
            None => PackedWarp(Form::Full(&self.full[w])),
            Some(p) => {
                let (a, b) = (p.warps[w] as usize, p.warps[w + 1] as usize);
                PackedWarp(Form::Packed {
                    tmpl: &p.tmpl,
                    recs: &p.recs[a..b],
                    addrs: &p.addrs,
                })
            }
        }
    }

    /// The templates of a packed CTA (empty when kept as decoded).
    fn templates(&self) -> &[TraceInst] {
        self.packed.as_ref().map_or(&[], |p| &p.tmpl)
    }

    /// The largest opcode id and PC of the CTA's instructions (None when it has none): noted
    /// before ([`PackedCta::note_max`]), or a pass over them now.
    pub fn max_op_pc(&self) -> Option<(u16, u32)> {
        match self.max {
            Some(m) => m,
            None => self.scan_max(),
        }
    }

    /// Notes [`PackedCta::max_op_pc`] now, so that a later call only reads it: a stream that
    /// decodes ahead calls it there, where the instructions are still in this core's cache
    /// (the engine asks for it when the CTA is queued, serially, on vecadd-1m `fast` 6 ms of
    /// a 0.09 s two-thread run).
    pub fn note_max(&mut self) {
        self.max = Some(self.scan_max());
    }

    fn scan_max(&self) -> Option<(u16, u32)> {
        let fold = |m: (u16, u32), i: &TraceInst| (m.0.max(i.op.0), m.1.max(i.pc));
        let t = self.templates();
        let mut m = t.iter().fold((0, 0), fold);
        for w in &self.full {
            m = w.insts.iter().fold(m, fold);
        }
        (!t.is_empty() || self.full.iter().any(|w| !w.insts.is_empty())).then_some(m)
    }

    /// Instructions that stand for all of the CTA's PCs and opcodes, in trace order (warp by
    /// warp) of their first use: the templates, or the instructions of a CTA kept as decoded.
    pub fn distinct(&self) -> impl Iterator<Item = &TraceInst> {
        self.templates()
            .iter()
            .chain(self.full.iter().flat_map(|w| &w.insts))
    }

    /// Whether the CTA is packed (else kept as decoded).
    pub fn is_packed(&self) -> bool {
        self.packed.is_some()
    }

    /// Warp `w`, or None.
    pub fn get(&self, w: usize) -> Option<PackedWarp<'_>> {
        (w < self.len()).then(|| self.warp(w))
    }
}

/// One warp of a [`PackedCta`].
#[derive(Clone, Copy, Debug)]
pub struct PackedWarp<'a>(Form<'a>);

#[derive(Clone, Copy, Debug)]
enum Form<'a> {
    Packed {
        tmpl: &'a [TraceInst],
        recs: &'a [Rec],
        addrs: &'a [u64],
    },
    Full(&'a WarpTrace),
}

impl<'a> PackedWarp<'a> {
    /// Number of instructions.
    #[inline(always)]
    pub fn len(&self) -> usize {
        match self.0 {
            Form::Packed { recs, .. } => recs.len(),
            Form::Full(w) => w.insts.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Instruction `i` (its `addr_start` is not for use: its addresses come from
    /// [`Self::addrs`]).
    #[inline(always)]
    pub fn inst(&self, i: usize) -> &'a TraceInst {
        match self.0 {
            Form::Packed { tmpl, recs, .. } => &tmpl[recs[i].tmpl as usize],
            Form::Full(w) => &w.insts[i],
        }
    }

    /// Instruction `i`, or None.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a TraceInst> {
        (i < self.len()).then(|| self.inst(i))
    }

    /// Instruction `i`'s PC.
    #[inline(always)]
    pub fn pc(&self, i: usize) -> u32 {
        self.inst(i).pc
    }

    /// Instruction `i`'s active-lane addresses, lowest lane first (empty for an instruction
    /// that does not touch memory; fewer than its active lanes where the trace had fewer).
    #[inline(always)]
    pub fn addrs<'b>(&self, i: usize, buf: &'b mut [u64; 32]) -> &'b [u64]
    where
        'a: 'b,
    {
        match self.0 {
            Form::Packed { tmpl, recs, addrs } => {
                let r = recs[i];
                let t = &tmpl[r.tmpl as usize];
                if t.mem_width == 0 {
                    return &[];
                }
                let at = (r.addr & !FULL) as usize;
                if r.addr & FULL != 0 {
                    let n = addrs[at] as usize;
                    return &addrs[at + 1..at + 1 + n];
                }
                let n = t.mask.count_ones() as usize;
                t.shape.fill(addrs[at], &mut buf[..n]);
                &buf[..n]
            }
            Form::Full(w) => {
                let t = &w.insts[i];
                if t.mem_width == 0 {
                    return &[];
                }
                let n = t.mask.count_ones() as usize;
                let len = w.addrs.len();
                let start = (t.addr_start as usize).min(len);
                &w.addrs[start..(start + n).min(len)]
            }
        }
    }
}

/// The template of `inst`: its PC's latest one if equal, else a new one.
#[inline]
fn template(tmpl: &mut Vec<TraceInst>, inst: &TraceInst, pk: &mut Packer) -> u32 {
    let at = pk.find(inst.pc);
    let (s, _, k) = pk.slots[at];
    if s == pk.stamp && same(&tmpl[k as usize], inst) {
        return k;
    }
    let k = tmpl.len() as u32;
    tmpl.push(TraceInst {
        addr_start: 0,
        ..*inst
    });
    pk.set(inst.pc, k, tmpl);
    k
}

/// Stores a memory instruction's addresses; returns its `Rec::addr`. A regular shape with
/// every lane's address keeps only the first (the shape is canonical: the readers make it
/// from the addresses, [`AddrShape::of`](super::AddrShape::of)).
#[inline]
fn push_addrs(out: &mut Vec<u64>, inst: &TraceInst, addrs: &[u64]) -> u32 {
    let n = inst.mask.count_ones() as usize;
    let start = inst.addr_start as usize;
    let at = out.len() as u32;
    if inst.shape.is_regular() && n > 0 && start + n <= addrs.len() {
        debug_assert!(inst.shape.matches(&addrs[start..start + n]), "{inst:?}");
        out.push(addrs[start]);
        return at;
    }
    let a = &addrs[start.min(addrs.len())..(start + n).min(addrs.len())];
    out.push(a.len() as u64);
    out.extend_from_slice(a);
    at | FULL
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{AddrShape, OpId, WarpTrace};

    fn inst(pc: u32, mask: u32, width: u16, at: u32, addrs: &[u64]) -> TraceInst {
        TraceInst {
            pc,
            mask,
            op: OpId(pc as u16 % 3),
            mem_width: width,
            addr_start: at,
            shape: if width > 0 {
                AddrShape::of(addrs)
            } else {
                AddrShape::NONE
            },
            ..TraceInst::default()
        }
    }

    /// Every instruction and every lane address comes back as the decoded warp had it, for
    /// regular, irregular, truncated and repeated instructions, over many warps and PCs (the
    /// PC table grows past its first size).
    #[test]
    fn packed_gives_back_the_decoded_trace() {
        let mut x: u64 = 7;
        let mut rnd = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        let mut cta = CtaTrace::default();
        for w in 0..6u32 {
            let mut wt = WarpTrace {
                warp_id: w,
                ..WarpTrace::default()
            };
            for k in 0..900u32 {
                let pc = (k % (300 + 50 * w)) * 16;
                let mask = if rnd() % 4 == 0 {
                    rnd() as u32
                } else {
                    u32::MAX
                };
                let n = mask.count_ones() as usize;
                let (width, lanes): (u16, Vec<u64>) = match rnd() % 4 {
                    0 => (0, vec![]),
                    1 => (
                        4,
                        (0..n as u64).map(|j| 0x1000 + 4 * j + k as u64).collect(),
                    ),
                    2 => (8, (0..n).map(|_| rnd() << 3).collect()),
                    _ => (4, vec![0x40; n]),
                };
                let at = wt.addrs.len() as u32;
                wt.insts.push(inst(pc, mask, width, at, &lanes));
                wt.addrs.extend_from_slice(&lanes);
            }
            // A truncated last memory instruction: fewer addresses than lanes.
            let at = wt.addrs.len() as u32;
            let mut last = inst(4, u32::MAX, 4, at, &[]);
            last.shape = AddrShape::strided(4);
            wt.insts.push(last);
            wt.addrs.extend_from_slice(&[0x100, 0x104, 0x108]);
            cta.warps.push(wt);
        }
        let mut p = PackedCta::default();
        let mut pk = Packer::default();
        for _ in 0..2 {
            p.pack(cta.clone(), &mut pk, 0);
            assert_eq!(p.len(), cta.warps.len());
            for (w, wt) in cta.warps.iter().enumerate() {
                let pw = p.warp(w);
                assert_eq!(pw.len(), wt.insts.len());
                let mut buf = [0u64; 32];
                for (i, orig) in wt.insts.iter().enumerate() {
                    let got = *pw.inst(i);
                    assert_eq!(
                        got,
                        TraceInst {
                            addr_start: 0,
                            ..*orig
                        },
                        "warp {w} inst {i}"
                    );
                    let want: Vec<u64> = wt.lane_addrs(orig).map(|(_, a)| a).collect();
                    assert_eq!(pw.addrs(i, &mut buf), &want[..], "warp {w} inst {i}");
                }
            }
        }
    }

    /// A loop of 10 PCs run 100 times by 4 warps, its loads moving by a whole row each time:
    /// 10 templates, 8 bytes per instruction, one address per load.
    #[test]
    fn a_loop_keeps_one_template_per_pc() {
        let mut cta = CtaTrace::default();
        for w in 0..4u32 {
            let mut wt = WarpTrace::default();
            for it in 0..100u64 {
                for pc in 0..10u32 {
                    let width = if pc % 5 == 0 { 4 } else { 0 };
                    let lanes: Vec<u64> = if width > 0 {
                        (0..32)
                            .map(|j| 0x10_0000 * w as u64 + 512 * it + 4 * j)
                            .collect()
                    } else {
                        vec![]
                    };
                    let at = wt.addrs.len() as u32;
                    wt.insts.push(inst(pc * 16, u32::MAX, width, at, &lanes));
                    wt.addrs.extend_from_slice(&lanes);
                }
            }
            cta.warps.push(wt);
        }
        let p = PackedCta::new(cta, &mut Packer::default(), 0);
        let q = p.packed.as_ref().unwrap();
        assert_eq!(q.tmpl.len(), 10);
        assert_eq!(q.recs.len(), 4000);
        assert_eq!(q.addrs.len(), 4 * 100 * 2);
        let mut buf = [0u64; 32];
        assert_eq!(
            p.warp(3).addrs(995, &mut buf)[31],
            0x30_0000 + 512 * 99 + 124
        );
    }

    /// A CTA at most `above` long stays as decoded and reads back the same (addresses
    /// included).
    #[test]
    fn a_short_cta_stays_as_decoded() {
        let mut wt = WarpTrace::default();
        let lanes: Vec<u64> = (0..32).map(|j| 0x2000 + 8 * j).collect();
        wt.insts.push(inst(0, u32::MAX, 0, 0, &[]));
        wt.insts.push(inst(16, u32::MAX, 8, 0, &lanes));
        wt.addrs = lanes.clone();
        let cta = CtaTrace {
            id: Dim3::new(3, 1, 0),
            warps: vec![wt.clone(), wt],
        };
        assert_eq!(pack_above(640), 781);
        let p = PackedCta::new(cta, &mut Packer::default(), 4);
        assert!(!p.is_packed() && p.full.len() == 2);
        assert_eq!((p.len(), p.id), (2, Dim3::new(3, 1, 0)));
        let mut buf = [0u64; 32];
        assert_eq!(p.warp(1).addrs(1, &mut buf), &lanes[..]);
        assert_eq!(p.warp(1).addrs(0, &mut buf), &[] as &[u64]);
        assert_eq!(p.warp(0).pc(1), 16);
        assert_eq!(p.distinct().count(), 4);
    }

    /// The largest opcode id and PC, packed or as decoded, noted or scanned: the same, and
    /// packing another CTA into the buffers forgets the noted one.
    #[test]
    fn max_op_pc_is_the_same_noted_or_scanned() {
        let cta = |pcs: &[u32]| {
            let mut wt = WarpTrace::default();
            for &pc in pcs {
                wt.insts.push(inst(pc, u32::MAX, 0, 0, &[]));
            }
            CtaTrace {
                id: Dim3::new(0, 0, 0),
                warps: vec![WarpTrace::default(), wt],
            }
        };
        // Opcode ids are pc % 3: pc 0x40 (64) has op 1, pc 0x50 (80) op 2.
        let pcs = [0x10, 0x50, 0x40];
        for above in [0, 100] {
            let mut pk = Packer::default();
            let mut p = PackedCta::new(cta(&pcs), &mut pk, above);
            assert_eq!(p.is_packed(), above == 0);
            assert_eq!(p.max_op_pc(), Some((2, 0x50)));
            p.note_max();
            assert_eq!(p.max_op_pc(), Some((2, 0x50)));
            p.pack(cta(&[0x40]), &mut pk, above);
            assert_eq!(p.max_op_pc(), Some((1, 0x40)));
            p.pack(cta(&[]), &mut pk, above);
            p.note_max();
            assert_eq!(p.max_op_pc(), None);
        }
    }
}
