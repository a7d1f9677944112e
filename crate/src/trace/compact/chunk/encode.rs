//! The chunk encoder: CTAs -> the streams of one chunk (the model and stream layout are in
//! the parent module's docs). Reuse one encoder for every chunk of a file.

use super::*;

/// Builds chunks; reuse one encoder for every chunk of a file.
#[derive(Default)]
pub struct ChunkEncoder {
    model: Model,
    s: [Vec<u8>; NSTREAMS],
    /// Some instruction of the chunk has control bits (else its `cbits` stream is dropped).
    any_ctrl: bool,
}

impl ChunkEncoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Encodes `ctas` as one self-contained chunk (uncompressed).
    pub fn encode(&mut self, ctas: &[CtaTrace]) -> Vec<u8> {
        self.model.reset();
        for s in &mut self.s {
            s.clear();
        }
        self.any_ctrl = false;
        put_varint(&mut self.s[S_HDR], ctas.len() as u64);
        for c in ctas {
            let h = &mut self.s[S_HDR];
            put_varint(h, c.id.x as u64);
            put_varint(h, c.id.y as u64);
            put_varint(h, c.id.z as u64);
            put_varint(h, c.warps.len() as u64);
            for w in &c.warps {
                self.warp(w);
            }
        }
        if !self.any_ctrl {
            // Every instruction has Ctrl::NONE: an empty stream says so.
            self.s[S_CBITS].clear();
        }
        let total: usize = self.s.iter().map(|s| s.len()).sum();
        let mut out = Vec::with_capacity(total + 1 + NSTREAMS * 3);
        out.push(NSTREAMS as u8);
        for s in &self.s {
            put_varint(&mut out, s.len() as u64);
        }
        for s in &self.s {
            out.extend_from_slice(s);
        }
        out
    }

    fn addr_mode(w: &WarpTrace) -> u8 {
        let mut cursor = 0usize;
        let (mut m0, mut m1) = (true, true);
        for i in &w.insts {
            let n = naddr(i);
            let at = i.addr_start as usize;
            m0 &= at == cursor;
            m1 &= if n > 0 { at == cursor } else { at == 0 };
            cursor += n;
        }
        if cursor != w.addrs.len() || cursor > u32::MAX as usize {
            AMODE_RAW
        } else if m0 {
            AMODE_CURSOR
        } else if m1 {
            AMODE_CURSOR_ZERO
        } else {
            AMODE_RAW
        }
    }

    fn warp(&mut self, w: &WarpTrace) {
        let mode = Self::addr_mode(w);
        let h = &mut self.s[S_HDR];
        put_varint(h, w.warp_id as u64);
        put_varint(h, w.insts.len() as u64);
        h.push(mode);
        if mode == AMODE_RAW {
            put_varint(h, w.addrs.len() as u64);
        }
        let (mut prev_slot, mut prev_pc, mut prev_mask) = (START, 0u32, u32::MAX);
        let mut cursor = 0usize;
        for inst in &w.insts {
            let mut ctrl = 0u8;
            let pred = self.model.slots[prev_slot as usize].succ;
            let slot = if pred != NONE && self.model.slots[pred as usize].pc == inst.pc {
                ctrl |= PC_HIT;
                pred
            } else {
                put_svarint(&mut self.s[S_PC], inst.pc as i64 - prev_pc as i64);
                self.model.slot_of(inst.pc)
            };
            self.model.slots[prev_slot as usize].succ = slot;
            let sl = &mut self.model.slots[slot as usize];
            if sl.valid && static_eq(&sl.tmpl, inst) {
                ctrl |= STATIC_HIT;
            } else {
                sl.tmpl = *inst;
                sl.valid = true;
                put_varint(&mut self.s[S_OP], inst.op.0 as u64);
                let r = &mut self.s[S_REG];
                r.push(inst.ndst);
                r.push(inst.nsrc);
                for &d in &inst.dst {
                    put_varint(r, d as u64);
                }
                for &x in &inst.src {
                    put_varint(r, x as u64);
                }
                let m = &mut self.s[S_MISC];
                put_varint(m, inst.mem_width as u64);
                m.push(inst.flags);
                put_varint(m, inst.imm);
                put_varint(m, inst.line as u64);
                // The present bit (31) rotated to bit 0: one byte for none, three for any
                // Ctrl::new word.
                put_varint(&mut self.s[S_CBITS], inst.ctrl.0.rotate_left(1) as u64);
                self.any_ctrl |= inst.ctrl != Ctrl::NONE;
            }
            let mm = if inst.mask == prev_mask {
                MASK_PREV
            } else if inst.mask == sl.last_mask {
                MASK_SLOT
            } else if inst.mask == u32::MAX {
                MASK_FULL
            } else {
                self.s[S_MASK].extend_from_slice(&inst.mask.to_le_bytes());
                MASK_EXPLICIT
            };
            ctrl |= mm << MASK_SHIFT;
            sl.last_mask = inst.mask;
            prev_mask = inst.mask;
            let n = naddr(inst);
            if mode == AMODE_RAW {
                put_varint(&mut self.s[S_RAW], inst.addr_start as u64);
            } else if n > 0 {
                ctrl |= self.addrs(slot, inst.mask, &w.addrs[cursor..cursor + n]);
            }
            cursor += n;
            self.s[S_CTRL].push(ctrl);
            prev_slot = slot;
            prev_pc = inst.pc;
        }
        if mode == AMODE_RAW {
            let mut prev = 0u64;
            for &a in &w.addrs {
                put_svarint(&mut self.s[S_RAW], a.wrapping_sub(prev) as i64);
                prev = a;
            }
        }
    }

    /// Encodes the lane addresses of one memory instruction; returns its CTRL bits.
    fn addrs(&mut self, slot: u32, mask: u32, a: &[u64]) -> u8 {
        let mut ctrl = 0u8;
        let base = a[0];
        let pred = self.model.predict_base(slot);
        if base == pred {
            ctrl |= BASE_HIT;
        } else {
            put_svarint(&mut self.s[S_BASE], base.wrapping_sub(pred) as i64);
        }
        self.model.update_base(slot, base);
        if a.len() == 1 {
            return ctrl | STRIDE_HIT | (KIND_INDEX << KIND_SHIFT);
        }
        let st = a[1].wrapping_sub(base);
        let by_index = a
            .iter()
            .enumerate()
            .all(|(j, &x)| x == base.wrapping_add((j as u64).wrapping_mul(st)));
        let shape = if by_index {
            AddrShape::NONE
        } else {
            AddrShape::of(a)
        };
        let (kind, stride) = if by_index {
            (KIND_INDEX, Some(st))
        } else if shape.is_regular() {
            (KIND_RUNS, None)
        } else {
            let lane0 = mask.trailing_zeros();
            let lane1 = (mask & !(1u32 << lane0)).trailing_zeros();
            let d = (lane1 - lane0) as i64;
            let diff = st as i64;
            if diff % d == 0 {
                let st = (diff / d) as u64;
                let ok = lanes(mask)
                    .zip(a)
                    .all(|(l, &x)| x == base.wrapping_add(((l - lane0) as u64).wrapping_mul(st)));
                if ok {
                    (KIND_LANE, Some(st))
                } else {
                    (KIND_IRREGULAR, None)
                }
            } else {
                (KIND_IRREGULAR, None)
            }
        };
        ctrl |= kind << KIND_SHIFT;
        if kind == KIND_RUNS {
            let sl = &mut self.model.slots[slot as usize];
            if shape == sl.runs {
                ctrl |= STRIDE_HIT;
            } else {
                let st = &mut self.s[S_STRIDE];
                put_varint(st, shape.run as u64);
                put_svarint(st, shape.stride as i64);
                put_svarint(st, shape.stride2 as i64);
                sl.runs = shape;
            }
            return ctrl;
        }
        match stride {
            Some(st) => {
                let sl = &mut self.model.slots[slot as usize];
                if st == sl.stride {
                    ctrl |= STRIDE_HIT;
                } else {
                    put_svarint(&mut self.s[S_STRIDE], st as i64);
                    sl.stride = st;
                }
            }
            None => {
                for j in 1..a.len() {
                    put_svarint(&mut self.s[S_LANE], a[j].wrapping_sub(a[j - 1]) as i64);
                }
            }
        }
        ctrl
    }
}
