//! Round trips, random access, corruption and version checks of the compact format.

use super::*;
use crate::trace::model::*;

/// The crafted trace has an unknown opcode and a kernel with no CTA (edge cases of the format):
/// read leniently (strictly they are errors: tests_check.rs).
pub(super) const LENIENT: crate::trace::check::Policy = crate::trace::check::Policy::LENIENT;

/// xorshift64*: deterministic test data.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn op(
    name: &str,
    unit: Unit,
    lat: LatClass,
    kind: OpKind,
    space: MemSpace,
    unknown: bool,
) -> OpInfo {
    OpInfo {
        name: name.into(),
        unit,
        lat,
        kind,
        space,
        unknown,
    }
}

fn ops() -> OpTable {
    let mut t = OpTable::new();
    t.push(op(
        "IADD3",
        Unit::Int,
        LatClass::Int,
        OpKind::Alu,
        MemSpace::None,
        false,
    ));
    t.push(op(
        "LDG.E.128.SYS",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Load,
        MemSpace::Global,
        false,
    ));
    t.push(op(
        "STS",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Store,
        MemSpace::Shared,
        false,
    ));
    t.push(op(
        "ATOM.E.ADD",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Atomic,
        MemSpace::Generic,
        false,
    ));
    t.push(op(
        "BRA",
        Unit::Branch,
        LatClass::Branch,
        OpKind::Branch,
        MemSpace::None,
        false,
    ));
    t.push(op(
        "HMMA.16816",
        Unit::Tensor,
        LatClass::Tensor,
        OpKind::Alu,
        MemSpace::None,
        false,
    ));
    t.push(op(
        "WEIRDOP",
        Unit::Int,
        LatClass::Int,
        OpKind::Nop,
        MemSpace::None,
        true,
    ));
    t.push(op(
        "LDL",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Load,
        MemSpace::Local,
        false,
    ));
    t.push(op(
        "EXIT",
        Unit::Branch,
        LatClass::Branch,
        OpKind::Exit,
        MemSpace::None,
        false,
    ));
    t.push(op(
        "RED.E.ADD",
        Unit::Mem,
        LatClass::Mem,
        OpKind::Reduction,
        MemSpace::Texture,
        false,
    ));
    t.push(op(
        "DFMA",
        Unit::Dp,
        LatClass::Dp,
        OpKind::Alu,
        MemSpace::None,
        false,
    ));
    t
}

fn inst(pc: u32, mask: u32, op: u16, width: u16) -> TraceInst {
    TraceInst {
        pc,
        mask,
        op: OpId(op),
        ndst: 1,
        nsrc: 2,
        dst: [(pc / 16 % 200) as u16, 0, 0, 0],
        src: [REG_RZ, UR_BASE + 3, 0, 0, 0, 0],
        mem_width: width,
        ..Default::default()
    }
}

/// A warp that runs a loop over every addressing pattern the encoder knows, plus divergence.
fn warp(rng: &mut Rng, cta: u64, w: u32, iters: u32) -> WarpTrace {
    let mut insts = Vec::new();
    let mut addrs: Vec<u64> = Vec::new();
    let base = 0x7f00_0000_0000u64 + cta * 0x10000 + w as u64 * 0x200;
    let mut push = |mut i: TraceInst, lane_addr: &dyn Fn(u32, usize) -> u64| {
        i.addr_start = addrs.len() as u32;
        if i.mem_width > 0 {
            let mut j = 0;
            for l in 0..32 {
                if i.mask & (1 << l) != 0 {
                    addrs.push(lane_addr(l, j));
                    j += 1;
                }
            }
        }
        insts.push(i);
    };
    let none = |_: u32, _: usize| 0u64;
    push(inst(0x00, u32::MAX, 0, 0), &none);
    for it in 0..iters {
        let ib = base + it as u64 * 4096;
        let m = if it % 3 == 2 { 0x0f0f_0f0f } else { u32::MAX };
        // Coalesced 16-byte loads, lane order.
        push(inst(0x10, m, 1, 16), &|_, j| ib + 16 * j as u64);
        // Shared stores with a lane-number stride under a holey mask.
        push(inst(0x20, m, 2, 4), &|l, _| 0x100 + 4 * l as u64);
        // Irregular gather.
        let salt = rng.next();
        push(inst(0x30, u32::MAX, 3, 8), &move |l, _| {
            ib ^ (salt.rotate_left(l) & 0xfff8)
        });
        // Single active lane, varying width, immediate and line.
        let mut s = inst(0x40, 1 << (it % 32), 7, 4);
        s.flags = inst_flags::HAS_IMM;
        s.imm = 0xdead_beef_0000 + it as u64;
        s.line = 1000 + it;
        push(s, &|_, _| ib + 3);
        // Memory instruction with no active lane; all-zero stride (broadcast).
        push(inst(0x50, 0, 9, 4), &none);
        push(inst(0x60, 0xffff, 1, 4), &|_, _| base);
        // Runs of lanes (format 1.1's kind 3): matmul's B row read by two C rows (the same
        // shape every time), and half-warp broadcasts whose step changes every third time.
        push(inst(0x64, u32::MAX, 1, 4), &|_, j| ib + 4 * (j % 16) as u64);
        let step = 512 + 64 * (it / 3) as u64;
        push(inst(0x68, m, 1, 4), &move |_, j| ib + step * (j / 4) as u64);
        // Tensor op with full register lists, junk beyond the counts.
        let mut t = inst(0x70, u32::MAX, 5, 0);
        t.ndst = 4;
        t.nsrc = 6;
        t.dst = [8, 9, 10, 11];
        t.src = [12, 13, 14, 15, REG_URZ, 300];
        push(t, &none);
        let mut j = inst(0x80, u32::MAX, 0, 0);
        j.ndst = 0;
        j.nsrc = 0;
        j.dst = [1, 2, 3, 4];
        push(j, &none);
        // Random branch target now and then.
        if rng.below(4) == 0 {
            push(
                inst(0x900 + 16 * rng.below(8) as u32, rng.next() as u32, 4, 0),
                &none,
            );
        }
        push(inst(0x90, u32::MAX, 4, 0), &none);
    }
    push(inst(0xa0, u32::MAX, 10, 0), &none);
    push(inst(0xb0, u32::MAX, 8, 0), &none);
    WarpTrace {
        warp_id: w,
        insts,
        addrs,
    }
}

pub(super) fn crafted() -> MemTrace {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut kernels = Vec::new();
    for k in 0..3u32 {
        let info = KernelInfo {
            name: format!("_Z6kernel{k}PfS_i"),
            id: k + 1,
            grid: Dim3::new(3, 2, 1),
            block: Dim3::new(384, 1, 1), // 12 warps: ids 9-11 below are inside it
            shmem_bytes: 4096 * k,
            nregs: 32 + k,
            binary_version: [61, 80, 0][k as usize],
            stream_id: 7 + k as u64,
            shmem_base: 0x7f59_dd00_0000,
            local_base: 0x7f59_db00_0000,
            nvbit_version: "1.7.6".into(),
            tracer_version: 4 + (k % 2),
            lineinfo: k == 1,
            extra: vec![
                ("-my key".into(), "value with spaces".into()),
                ("x".into(), String::new()),
            ],
            ctrl_source: Default::default(),
        };
        let ncta = if k == 2 { 0 } else { 6 };
        let mut ctas = Vec::new();
        for c in 0..ncta {
            let id = info.grid.from_linear(c);
            let warps = (0..3)
                .map(|w| warp(&mut rng, c, w, 5 + (w + c as u32) % 4))
                .collect();
            ctas.push(CtaTrace { id, warps });
        }
        kernels.push(KernelTrace {
            info,
            ops: ops(),
            ctas,
        });
    }
    // Odd shapes: an empty warp, a warp whose addr_start is 0 on non-memory instructions, and
    // one with an arbitrary layout (raw mode).
    let c0 = &mut kernels[0].ctas[0];
    c0.warps.push(WarpTrace {
        warp_id: 9,
        insts: vec![],
        addrs: vec![],
    });
    let mut z = c0.warps[0].clone();
    z.warp_id = 10;
    for i in &mut z.insts {
        if i.mem_width == 0 || i.mask == 0 {
            i.addr_start = 0;
        }
    }
    c0.warps.push(z);
    let mut r = c0.warps[1].clone();
    r.warp_id = 11;
    r.insts[3].addr_start = 1;
    r.addrs.push(42);
    c0.warps.push(r);
    let mut t = MemTrace::from_kernels("crafted", kernels);
    t.commands.insert(
        0,
        Command::MemcpyHtoD {
            addr: 0x7fb0_2d70_0000,
            bytes: 4096,
        },
    );
    // The largest copy accepted, at the top of the address space (10-byte varints).
    t.commands.push(Command::MemcpyHtoD {
        addr: u64::MAX - crate::trace::check::MAX_MEMCPY_BYTES,
        bytes: crate::trace::check::MAX_MEMCPY_BYTES,
    });
    t.commands.push(Command::Kernel { index: 0 });
    for w in t
        .kernels
        .iter_mut()
        .flat_map(|k| &mut k.ctas)
        .flat_map(|c| &mut c.warps)
    {
        w.fill_shapes();
    }
    t
}

pub(super) fn assert_same(a: &MemTrace, b: &MemTrace) {
    assert_eq!(a.commands, b.commands);
    assert_eq!(a.kernels.len(), b.kernels.len());
    for (x, y) in a.kernels.iter().zip(&b.kernels) {
        assert_eq!(x.info, y.info);
        let xo: Vec<_> = x.ops.iter().map(|(_, o)| o.clone()).collect();
        let yo: Vec<_> = y.ops.iter().map(|(_, o)| o.clone()).collect();
        assert_eq!(xo, yo);
        assert_eq!(x.ctas.len(), y.ctas.len());
        for (cx, cy) in x.ctas.iter().zip(&y.ctas) {
            assert_eq!(cx, cy);
        }
    }
}

pub(super) fn encode(t: &MemTrace, chunk_insts: u64) -> Vec<u8> {
    let mut t = t.clone();
    to_compact_bytes(
        &mut t,
        &WriteOptions {
            level: 19,
            chunk_insts,
        },
    )
    .unwrap()
}

#[test]
fn shapes_of_old_and_new_files_are_canonical() {
    // A format 1.0 file (sample-traces/matmul_naive-64.wwt as the 1.0 writer made it), whose
    // runs of lanes are coded as irregular lists: the reader finds their shape; re-encoded as
    // 1.1 they become kind 3 and read back equal.
    let v10 = include_bytes!("testdata/matmul_naive-64-v1.0.wwt");
    let mut rd = CompactReader::from_slice_with(v10, "matmul_naive-64-v1.0.wwt", LENIENT).unwrap();
    assert_eq!(rd.version(), (1, 0));
    let old = MemTrace::collect(&mut rd).unwrap();
    let mut runs = 0;
    for w in old
        .kernels
        .iter()
        .flat_map(|k| &k.ctas)
        .flat_map(|c| &c.warps)
    {
        for i in &w.insts {
            let (at, n) = (i.addr_start as usize, i.mask.count_ones() as usize);
            let want = if i.mem_width > 0 {
                AddrShape::of(&w.addrs[at..at + n])
            } else {
                AddrShape::NONE
            };
            assert_eq!(i.shape, want);
            runs += (i.shape.run > 1 && i.shape.run < 32) as u32;
        }
    }
    assert!(runs > 1000, "{runs} instructions with runs");
    let new = encode(&old, 32768);
    let mut rd2 = CompactReader::from_bytes_with(new, "mem", LENIENT).unwrap();
    assert_eq!(rd2.version(), (1, 2));
    assert_same(&old, &MemTrace::collect(&mut rd2).unwrap());
}

#[test]
fn round_trip_crafted_every_chunking() {
    let t = crafted();
    for chunk in [1, 100, 1 << 20] {
        let bytes = encode(&t, chunk);
        let mut rd = CompactReader::from_bytes_with(bytes, "mem", LENIENT).unwrap();
        assert_eq!(rd.version(), (1, 2));
        assert_eq!(rd.source_name(), "crafted");
        let back = MemTrace::collect(&mut rd).unwrap();
        assert_same(&t, &back);
        assert_eq!(rd.trace_hash(), t.trace_hash());
        assert_eq!(rd.cta_count(0), 6);
        assert_eq!(rd.cta_count(2), 0);
        assert_eq!(rd.kernel_warp_insts(1), t.kernels[1].warp_insts());
        if chunk == 1 {
            assert_eq!(rd.chunk_count(0), 6);
        } else if chunk == 1 << 20 {
            assert_eq!(rd.chunk_count(0), 1);
        }
    }
}

#[test]
fn reencoding_is_byte_identical() {
    let t = crafted();
    let a = encode(&t, 100);
    let mut rd = CompactReader::from_slice_with(&a, "a", LENIENT).unwrap();
    let mut back = MemTrace::collect(&mut rd).unwrap();
    back.name = "crafted".into();
    let b = encode(&back, 100);
    assert_eq!(a, b);
}

#[test]
fn random_access_equals_sequential() {
    let t = crafted();
    let bytes = encode(&t, 100);
    let mut rd = CompactReader::from_slice_with(&bytes, "mem", LENIENT).unwrap();
    assert!(
        rd.chunk_count(0) > 1,
        "needs several chunks to test seeking"
    );
    let mut rng = Rng(99);
    for _ in 0..40 {
        let k = rng.below(2) as usize;
        let i = rng.below(6);
        assert_eq!(rd.read_cta(k, i).unwrap(), t.kernels[k].ctas[i as usize]);
    }
    let e = rd.read_cta(0, 6).unwrap_err().to_string();
    assert_eq!(e, "mem: CTA index: kernel 0 CTA 6 requested; it has 6");
    assert!(rd.read_cta(3, 0).is_err());
    assert!(rd.open_kernel(3).is_err());
    // Chunks decoded apart from the reader (the parallel path) give the same CTAs.
    let mut all = Vec::new();
    for c in 0..rd.chunk_count(1) {
        let raw = rd.raw_chunk(1, c).unwrap();
        all.extend(decode_chunk(&rd, 1, c, &raw).unwrap());
    }
    assert_eq!(all, t.kernels[1].ctas);
}

#[test]
fn regular_trace_compresses_to_little() {
    // 8 CTAs x 4 warps x 22 loop iterations of the same code: after the first warp nearly all
    // is predicted, so the file must stay far below one byte per warp instruction.
    let mut rng = Rng(5);
    let mut ctas = Vec::new();
    for c in 0..8u64 {
        let warps = (0..4)
            .map(|w| {
                let mut wt = warp(&mut rng, c, w, 22);
                // Remove the irregular gather and random branches: a perfectly regular kernel.
                let mut keep: Vec<_> = wt
                    .insts
                    .iter()
                    .filter(|i| i.pc != 0x30 && i.pc < 0x900)
                    .copied()
                    .collect();
                for i in keep.iter_mut().filter(|i| i.pc == 0x40) {
                    i.imm = 77;
                    i.line = 3;
                }
                let mut addrs = Vec::new();
                let mut insts = Vec::new();
                for i in keep {
                    let n = if i.mem_width > 0 {
                        i.mask.count_ones() as usize
                    } else {
                        0
                    };
                    let mut j = i;
                    j.addr_start = addrs.len() as u32;
                    addrs.extend_from_slice(
                        &wt.addrs[i.addr_start as usize..i.addr_start as usize + n],
                    );
                    insts.push(j);
                }
                wt.insts = insts;
                wt.addrs = addrs;
                wt
            })
            .collect();
        ctas.push(CtaTrace {
            id: Dim3::new(c as u32, 0, 0),
            warps,
        });
    }
    let k = KernelTrace {
        info: KernelInfo {
            name: "k".into(),
            ..Default::default()
        },
        ops: ops(),
        ctas,
    };
    let n = k.warp_insts();
    let t = MemTrace::from_kernels("regular", vec![k]);
    let bytes = encode(&t, 1 << 20);
    assert!(
        (bytes.len() as u64) < n / 4,
        "{} bytes for {n} warp instructions",
        bytes.len()
    );
}

fn decode_everything(data: &[u8]) -> crate::Result<MemTrace> {
    let mut rd = CompactReader::from_slice_with(data, "x", LENIENT)?;
    MemTrace::collect(&mut rd)
}

#[test]
fn truncated_input_errors() {
    let t = crafted();
    let bytes = encode(&t, 100);
    for len in 0..bytes.len() {
        assert!(
            decode_everything(&bytes[..len]).is_err(),
            "truncated to {len} bytes decoded"
        );
    }
    let e = decode_everything(&bytes[..bytes.len() - 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("end magic at byte"), "{e}");
    let e = decode_everything(&bytes[..5]).unwrap_err().to_string();
    assert!(e.contains("shorter than the 16-byte header"), "{e}");
}

#[test]
fn every_byte_flip_errors_or_is_harmless() {
    let t = crafted();
    let bytes = encode(&t, 300);
    let mut errors = 0;
    let mut tried = 0;
    // Every byte of header, directory and trailer; every 23rd byte of the chunks.
    let dir_at = bytes.len()
        - 40
        - CompactReader::from_slice_with(&bytes, "x", LENIENT)
            .unwrap()
            .dir_clen() as usize;
    let positions = (0..bytes.len()).filter(|&p| p < 16 || p >= dir_at || p % 23 == 0);
    for pos in positions {
        tried += 1;
        let mut b = bytes.clone();
        b[pos] ^= 0x5a;
        match decode_everything(&b) {
            Err(_) => errors += 1,
            // A flip zstd ignores (e.g. in an optional frame-header field) must not change data.
            Ok(back) => assert_same(&t, &back),
        }
    }
    assert!(
        errors * 10 >= tried * 9,
        "{errors} of {tried} flips detected"
    );
}

#[test]
fn version_and_magic_mismatch() {
    let bytes = encode(&crafted(), 100);
    let mut b = bytes.clone();
    b[8] = 2;
    let e = CompactReader::from_slice_with(&b, "t.wwt", LENIENT)
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        e,
        "t.wwt: version at byte 8: format version 2.2; this reader reads version 1.x only"
    );
    let mut b = bytes.clone();
    b[10] = 7; // a newer minor version is still read
    assert!(CompactReader::from_slice_with(&b, "t", LENIENT).is_ok());
    let mut b = bytes;
    b[1] = b'X';
    let e = CompactReader::from_slice_with(&b, "t", LENIENT)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("magic at byte 0"), "{e}");
    assert!(!is_compact(&b));
}

#[test]
fn corrupt_chunk_reports_kernel_chunk_and_offset() {
    let t = crafted();
    let bytes = encode(&t, 1 << 20);
    let mut rd = CompactReader::from_slice_with(&bytes, "c.wwt", LENIENT).unwrap();
    let raw = rd.raw_chunk(0, 0).unwrap();
    let mut bad = raw.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0xff;
    let e = decode_chunk(&rd, 0, 0, &bad).unwrap_err().to_string();
    assert!(e.starts_with("c.wwt: kernel 0 chunk 0 at byte 16"), "{e}");
}

#[test]
fn mutation_fuzz_never_panics() {
    let bytes = encode(&crafted(), 200);
    let mut rng = Rng(0xfeed);
    for _ in 0..400 {
        let mut b = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let p = rng.below(b.len() as u64) as usize;
            match rng.below(3) {
                0 => b[p] = rng.next() as u8,
                1 => b.truncate(p.max(1)),
                _ => b.insert(p, rng.next() as u8),
            }
        }
        fuzz_compact(&b);
    }
    // Mutated uncompressed chunks exercise the chunk parser behind the checksums.
    let chunk = super::chunk::ChunkEncoder::new().encode(&crafted().kernels[0].ctas);
    for _ in 0..400 {
        let mut b = chunk.clone();
        for _ in 0..1 + rng.below(3) {
            let p = rng.below(b.len() as u64) as usize;
            match rng.below(3) {
                0 => b[p] = rng.next() as u8,
                1 => b.truncate(p),
                _ => b.insert(p, rng.next() as u8),
            }
        }
        fuzz_compact(&b);
    }
    fuzz_compact(&bytes);
    fuzz_compact(&[]);
    let lenient = |b: &[u8]| -> crate::Result<u64> {
        let mut rd = CompactReader::from_slice_with(b, "bytes", LENIENT)?;
        let mut n = 0;
        for k in 0..rd.kernel_count() {
            let mut s = rd.open_kernel(k)?;
            while let Some(c) = s.next_cta()? {
                n += c.warp_insts();
            }
        }
        Ok(n)
    };
    assert!(
        decode_all_count(&bytes).is_err(),
        "strict: an unknown opcode"
    );
    assert_eq!(
        lenient(&bytes).unwrap(),
        crafted()
            .kernels
            .iter()
            .map(|k| k.warp_insts())
            .sum::<u64>()
    );
}

/// Text -> compact -> text on every Accel-Sim folder in `dir`: the same model, the same hash,
/// and every kernel file reproduced byte for byte.
#[cfg(not(target_arch = "wasm32"))]
fn round_trip_text_compact_text(dirs: Vec<std::path::PathBuf>) {
    use crate::trace::accelsim::{kernel_to_text, AccelSimTrace, OpenOptions};
    for d in dirs {
        let mut text = AccelSimTrace::open(&d, OpenOptions::default()).unwrap();
        let model = MemTrace::collect(&mut text).unwrap();
        let bytes = to_compact_bytes(&mut text, &WriteOptions::default()).unwrap();
        let mut rd = CompactReader::from_bytes_with(bytes, "text", LENIENT).unwrap();
        let back = MemTrace::collect(&mut rd).unwrap();
        assert_same(&model, &back);
        assert_eq!(rd.trace_hash(), model.trace_hash());
        for (k, entry) in text.kernels().iter().enumerate() {
            let orig = std::fs::read(d.join(&entry.file)).unwrap();
            assert!(
                kernel_to_text(&back.kernels[k]).unwrap() == orig,
                "{}: {}",
                d.display(),
                entry.file
            );
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn subdirs(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn sample_text_traces_round_trip_text_compact_text() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sample-traces/text");
    let dirs = subdirs(&root);
    assert_eq!(dirs.len(), 3);
    round_trip_text_compact_text(dirs);
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
#[ignore = "needs ../shared/real-traces"]
fn real_traces_round_trip_text_compact_text() {
    let dirs = subdirs(&crate::testing::real_traces());
    assert_eq!(dirs.len(), 3);
    round_trip_text_compact_text(dirs);
}

/// A longer mutation run (`cargo test -p warpweave --lib mutation_fuzz_long -- --ignored`;
/// `WW_FUZZ_ITERS` sets the number of mutations per target, default 20000): mutated files,
/// mutated uncompressed chunks and mutated uncompressed directories of the crafted trace.
#[test]
#[ignore]
fn mutation_fuzz_long() {
    let iters: u64 = std::env::var("WW_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20000);
    let t = crafted();
    let file = encode(&t, 200);
    let chunk = super::chunk::ChunkEncoder::new().encode(&t.kernels[0].ctas[..2]);
    // The real uncompressed directory, located through the trailer.
    let tail = &file[file.len() - 40..];
    let word = |i: usize| u64::from_le_bytes(tail[i..i + 8].try_into().unwrap());
    let (off, clen, ulen) = (word(0) as usize, word(8) as usize, word(16));
    let mut fd = ruzstd::decoding::FrameDecoder::new();
    let dir = super::codec::decompress(&mut fd, &file[off..off + clen], ulen, "x", "dir").unwrap();
    let mut rng = Rng(0xabcdef);
    for seed in [&file, &chunk, &dir] {
        for _ in 0..iters {
            let mut b = seed.clone();
            for _ in 0..1 + rng.below(8) {
                let p = rng.below(b.len().max(1) as u64) as usize;
                let last = b.len() - 1;
                match rng.below(5) {
                    0 => b[p.min(last)] = rng.next() as u8,
                    1 => b[p.min(last)] ^= 1 << rng.below(8),
                    2 => b.truncate(p.max(1)),
                    3 => b.insert(p, rng.next() as u8),
                    _ => {
                        let q = rng.below(b.len() as u64) as usize;
                        let v = b[q];
                        b.insert(p, v);
                    }
                }
            }
            fuzz_compact(&b);
        }
    }
}
