//! Reader and writer tests (the checks of `trace::check`: tests_check.rs; the real traces:
//! tests_real.rs): hand-written traces for every address mode and tracer version,
//! raw grouping, compression, bad input, round trips, binary version 0, compressed kernel files
//! named uncompressed in the kernels list; the sample folders in `sample-traces/text/`; and the
//! three real traces (ignored unless `../shared/real-traces` is there: `scripts/test.sh` runs them
//! when it is).

use std::sync::Arc;

use super::fuzz::kernels_equal;
use super::*;
use crate::trace::check::Policy;
use crate::trace::model::{inst_flags, Command, Dim3, MemSpace, OpKind, TraceSource};

fn header(version: Option<u32>, lineinfo: bool, bin: u32) -> String {
    let mut h = String::from(
        "-kernel name = _Z4testPfS_\n-kernel id = 3\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 256\n-nregs = 16\n",
    );
    h += &format!("-binary version = {bin}\n-cuda stream id = 0\n");
    h += "-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007f0010000000\n-nvbit version = 1.5.5\n";
    if let Some(v) = version {
        h += &format!("-accelsim tracer version = {v}\n");
    }
    if version.is_some_and(|v| v >= 4) {
        h += &format!("-enable lineinfo = {}\n", lineinfo as u32);
    }
    h += "-future key = something new\n\n#traces format = whatever\n\n";
    h
}

/// Instruction lines of warp 0 and warp 1, without prefixes.
const W0: [&str; 5] = [
    "0010 ffffffff 1 R2 LDG.E.SYS 1 R4 4 1 0x7f0020000000 4",
    "0020 0000000f 1 R3 LDG.E.64 1 R4 8 0 0x0000000000001000 0x0000000000001010 0x0000000000001008 0x0000000000000ff0",
    "0030 00000505 0 STG.E 2 R4 R3 4 2 0x2000 -16 48 -8",
    "0040 00000000 0 STG.E 2 R4 R3 4 1 0x0 0",
    "0050 ffffffff 0 EXIT 0 0",
];
const W1: [&str; 2] = [
    "0010 80000000 1 R2 LDS.U.32 1 R4 4 2 0x40",
    "0050 ffffffff 0 EXIT 0 0",
];

/// A `.traceg` with one block (1,0,0); `line` decorates each instruction line.
fn traceg(
    version: Option<u32>,
    lineinfo: bool,
    line: impl Fn(usize, usize, &str) -> String,
) -> String {
    let mut t = header(version, lineinfo, 70);
    t += "\n#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 0\ninsts = 5\n";
    for (i, l) in W0.iter().enumerate() {
        t += &line(0, i, l);
        t += "\n";
    }
    t += "\nwarp = 1\ninsts = 2\n";
    for (i, l) in W1.iter().enumerate() {
        t += &line(1, i, l);
        t += "\n";
    }
    t += "\n#END_TB\n";
    t
}

pub(super) fn v4() -> String {
    traceg(Some(4), false, |_, _, l| l.to_string())
}

/// The sample kernel lists one block of a grid of two: read with `allow_partial` (strictly, it
/// is an error: tests_check.rs).
const PARTIAL: Policy = Policy {
    allow_partial: true,
    ..Policy::STRICT
};

fn read_partial(bytes: &[u8], name: &str, arch: Arch) -> crate::Result<KernelTrace> {
    read_kernel_bytes_with(bytes, name, arch, PARTIAL)
}

fn partial_opts() -> OpenOptions {
    OpenOptions {
        policy: PARTIAL,
        ..Default::default()
    }
}

pub(super) fn read(text: &str, name: &str) -> crate::Result<KernelTrace> {
    read_partial(text.as_bytes(), name, Arch::Turing)
}

fn check_sample(k: &KernelTrace) {
    assert_eq!(k.info.name, "_Z4testPfS_");
    assert_eq!(k.info.id, 3);
    assert_eq!(k.info.grid, Dim3::new(2, 1, 1));
    assert_eq!(k.info.block, Dim3::new(64, 1, 1));
    assert_eq!(k.info.shmem_bytes, 256);
    assert_eq!(k.info.binary_version, 70);
    assert_eq!(k.info.shmem_base, 0x7f00_0000_0000);
    assert_eq!(k.info.local_base, 0x7f00_1000_0000);
    assert_eq!(k.info.nvbit_version, "1.5.5");
    assert_eq!(
        k.info.extra,
        vec![("future key".to_string(), "something new".to_string())]
    );
    assert_eq!(k.ctas.len(), 1);
    let c = &k.ctas[0];
    assert_eq!(c.id, Dim3::new(1, 0, 0));
    assert_eq!(c.warps.len(), 2);
    let w = &c.warps[0];
    assert_eq!(w.insts.len(), 5);
    // Mode 1: lane k at base + 4k.
    let a: Vec<(u32, u64)> = w.lane_addrs(&w.insts[0]).collect();
    assert_eq!(a.len(), 32);
    assert_eq!(a[0], (0, 0x7f00_2000_0000));
    assert_eq!(a[31], (31, 0x7f00_2000_007c));
    // Mode 0: listed per active lane.
    let a: Vec<(u32, u64)> = w.lane_addrs(&w.insts[1]).collect();
    assert_eq!(a, vec![(0, 0x1000), (1, 0x1010), (2, 0x1008), (3, 0xff0)]);
    assert_eq!(w.insts[1].mem_width, 8);
    // Mode 2 on lanes 0, 2, 8, 10: deltas from the previous active lane.
    let a: Vec<(u32, u64)> = w.lane_addrs(&w.insts[2]).collect();
    assert_eq!(a, vec![(0, 0x2000), (2, 0x1ff0), (8, 0x2020), (10, 0x2018)]);
    assert_eq!(
        (w.insts[2].ndst, w.insts[2].nsrc, w.insts[2].srcs()),
        (0, 2, &[4u16, 3][..])
    );
    // Zero mask: a memory instruction with no address.
    assert_eq!(
        (
            w.insts[3].mask,
            w.insts[3].mem_width,
            w.lane_addrs(&w.insts[3]).count()
        ),
        (0, 4, 0)
    );
    assert_eq!(w.addrs.len(), 32 + 4 + 4);
    let exit = k.ops.get(w.insts[4].op);
    assert_eq!((exit.name.as_str(), exit.kind), ("EXIT", OpKind::Exit));
    let w1 = &c.warps[1];
    let a: Vec<(u32, u64)> = w1.lane_addrs(&w1.insts[0]).collect();
    assert_eq!(a, vec![(31, 0x40)]);
    assert_eq!(k.ops.get(w1.insts[0].op).space, MemSpace::Shared);
    assert_eq!(k.ops.get(w.insts[0].op).space, MemSpace::Global);
}

#[test]
fn v4_every_address_mode_decodes() {
    let k = read(&v4(), "k.traceg").unwrap();
    check_sample(&k);
    assert_eq!(k.info.tracer_version, 4);
    assert!(k.ctas[0].warps[0]
        .insts
        .iter()
        .all(|i| !i.has_imm() && i.line == 0));
}

#[test]
fn v3_header_reads_like_v4() {
    let k = read(&traceg(Some(3), false, |_, _, l| l.to_string()), "k.traceg").unwrap();
    check_sample(&k);
    assert_eq!(k.info.tracer_version, 3);
    assert!(!k.info.lineinfo);
}

#[test]
fn v5_immediates_and_lineinfo() {
    let imm =
        |w: usize, i: usize| -> i64 { (w as i64 * 10 + i as i64) * if i == 1 { -1 } else { 1 } };
    let t = traceg(Some(5), true, |w, i, l| {
        format!("{} {l} {}", 100 + w * 10 + i, imm(w, i))
    });
    let k = read(&t, "k.traceg").unwrap();
    check_sample(&k);
    assert!(k.info.lineinfo);
    let w = &k.ctas[0].warps[0];
    assert_eq!(w.insts[0].line, 100);
    assert_eq!(w.insts[4].line, 104);
    assert_eq!(k.ctas[0].warps[1].insts[1].line, 111);
    assert!(w.insts.iter().all(|i| i.flags & inst_flags::HAS_IMM != 0));
    assert_eq!(w.insts[1].imm, (-1i64) as u64);
    assert_eq!(w.insts[3].imm, 3);
    // And the writer reproduces the immediates and line numbers exactly.
    let text = kernel_to_text(&k).unwrap();
    let s = String::from_utf8(text.clone()).unwrap();
    assert!(
        s.contains("\n101 0020 0000000f 1 R3 LDG.E.64 1 R4 8 2 0x1000 16 -8 -24 -1 \n"),
        "{s}"
    );
    assert!(kernels_equal(
        &k,
        &read_partial(&text, "k.traceg", Arch::Turing).unwrap()
    ));
}

#[test]
fn pre_v3_lines_carry_a_block_and_warp_prefix() {
    let k = read(
        &traceg(None, false, |w, _, l| format!("1 0 0 {w} {l}")),
        "k.traceg",
    )
    .unwrap();
    check_sample(&k);
    assert_eq!(k.info.tracer_version, 0);
}

#[test]
fn writer_chooses_address_modes_like_the_tracer() {
    let k = read(&v4(), "k.traceg").unwrap();
    let s = String::from_utf8(kernel_to_text(&k).unwrap()).unwrap();
    let expect = [
        "0010 ffffffff 1 R2 LDG.E.SYS 1 R4 4 1 0x7f0020000000 4 \n",
        // Listed addresses without a constant stride become base + deltas.
        "0020 0000000f 1 R3 LDG.E.64 1 R4 8 2 0x1000 16 -8 -24 \n",
        "0030 00000505 0 STG.E 2 R4 R3 4 2 0x2000 -16 48 -8 \n",
        "0040 00000000 0 STG.E 2 R4 R3 4 1 0x0 0 \n",
        // One active lane: base + no delta.
        "0010 80000000 1 R2 LDS.U.32 1 R4 4 2 0x40 \n",
        "\nwarp = 1\ninsts = 2\n",
        "-future key = something new\n",
    ];
    for e in expect {
        assert!(s.contains(e), "missing {e:?} in\n{s}");
    }
    // text -> model -> text -> model.
    let back = read_partial(s.as_bytes(), "k.traceg", Arch::Turing).unwrap();
    assert!(kernels_equal(&k, &back));
    assert_eq!(kernel_to_text(&back).unwrap(), s.as_bytes());
}

#[test]
fn stride_outside_32_bits_falls_back_to_deltas() {
    let mut t = v4();
    t = t.replace(
        W0[0],
        "0010 00000003 1 R2 LDG.E.SYS 1 R4 4 0 0x10 0x100000010",
    );
    let k = read(&t, "k.traceg").unwrap();
    let s = String::from_utf8(kernel_to_text(&k).unwrap()).unwrap();
    assert!(
        s.contains("0010 00000003 1 R2 LDG.E.SYS 1 R4 4 2 0x10 4294967296 \n"),
        "{s}"
    );
}

const RAW_LINES: [&str; 8] = [
    "1 0 0 1 0010 80000000 1 R2 LDS.U.32 1 R4 4 2 0x40",
    "0 0 0 0 0010 ffffffff 0 NOP 0 0",
    "1 0 0 0 0010 ffffffff 1 R2 LDG.E.SYS 1 R4 4 1 0x7f0020000000 4",
    "1 0 0 0 0020 ffffffff 0 LDGSTS.E.128 2 R1 R2 16 1 0x100 16",
    "1 0 0 0 0020 ffffffff 0 LDGSTS.E.128 2 R1 R2 16 1 0x7f0020001000 16",
    "1 0 0 1 0050 ffffffff 0 EXIT 0 0",
    "0 0 0 0 0050 ffffffff 0 EXIT 0 0",
    "1 0 0 0 0050 ffffffff 0 EXIT 0 0",
];

pub(super) fn raw_text(core_ids: bool) -> String {
    let mut t = header(Some(4), false, 80);
    for l in RAW_LINES {
        if core_ids {
            let (pre, rest) = l.split_at(8);
            t += &format!("{pre}5 17 {rest}\n");
        } else {
            t += l;
            t += "\n";
        }
    }
    t
}

fn check_raw(k: &KernelTrace) {
    let names = |w: &crate::trace::model::WarpTrace| -> Vec<String> {
        w.insts
            .iter()
            .map(|i| k.ops.get(i.op).name.clone())
            .collect()
    };
    assert_eq!(k.ctas.len(), 2);
    assert_eq!(k.ctas[0].id, Dim3::new(0, 0, 0));
    assert_eq!(k.ctas[1].id, Dim3::new(1, 0, 0));
    assert_eq!(names(&k.ctas[0].warps[0]), ["NOP", "EXIT"]);
    assert!(k.ctas[0].warps[1].insts.is_empty());
    let w = &k.ctas[1].warps[0];
    assert_eq!(names(w), ["LDG.E.SYS", "LDGSTS.E.128", "EXIT"]);
    // The first LDGSTS line (shared side) is dropped, the global one kept.
    let a: Vec<(u32, u64)> = w.lane_addrs(&w.insts[1]).collect();
    assert_eq!(a[0], (0, 0x7f00_2000_1000));
    assert_eq!(a[31], (31, 0x7f00_2000_1000 + 31 * 16));
    assert_eq!(w.addrs.len(), 64);
    assert_eq!(names(&k.ctas[1].warps[1]), ["LDS.U.32", "EXIT"]);
}

#[test]
fn raw_trace_is_grouped_into_blocks_and_warps() {
    let k = read(&raw_text(false), "kernel-3.trace").unwrap();
    check_raw(&k);
    let k = read(&raw_text(true), "kernel-3.trace").unwrap();
    check_raw(&k);
    // Grouped raw text written as .traceg reads back the same.
    let text = kernel_to_text(&k).unwrap();
    assert!(kernels_equal(
        &k,
        &read_partial(&text, "kernel-3.traceg", Arch::Turing).unwrap()
    ));
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut e, b).unwrap();
    e.finish().unwrap()
}

fn zstd(b: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(b, ruzstd::encoding::CompressionLevel::Fastest)
}

fn xz(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    lzma_rs::xz_compress(&mut b, &mut out).unwrap();
    out
}

#[test]
fn compressed_inputs_read_the_same() {
    let plain = v4();
    let (zst, xz) = (zstd(plain.as_bytes()), xz(plain.as_bytes()));
    let list = b"MemcpyHtoD,0x00007f0020000000,128\nkernel-3.traceg.gz\nkernel-4.traceg.zst\nMemcpyDtoH,0x1,2\nkernel-5.traceg.xz\n";
    let files: Vec<(String, Arc<[u8]>)> = vec![
        ("kernelslist.g".into(), Arc::from(&list[..])),
        ("kernel-3.traceg.gz".into(), gzip(plain.as_bytes()).into()),
        ("kernel-4.traceg.zst".into(), zst.into()),
        ("kernel-5.traceg.xz".into(), xz.into()),
    ];
    let mut t = AccelSimTrace::from_files("up", files, partial_opts()).unwrap();
    assert_eq!(
        t.commands(),
        &[
            Command::MemcpyHtoD {
                addr: 0x7f00_2000_0000,
                bytes: 128
            },
            Command::Kernel { index: 0 },
            Command::Kernel { index: 1 },
            Command::Kernel { index: 2 }
        ]
    );
    let h = t.trace_hash();
    assert_eq!(h.len(), 16);
    let m = crate::trace::model::MemTrace::collect(&mut t).unwrap();
    let reference = read(&plain, "k.traceg").unwrap();
    for k in &m.kernels {
        check_sample(k);
        assert!(kernels_equal(k, &reference));
    }
    // The raw form compressed too.
    let raw = gzip(raw_text(false).as_bytes());
    check_raw(&read_partial(&raw, "kernel-3.trace.gz", Arch::Ampere).unwrap());
}

#[test]
fn trace_hash_follows_the_bytes() {
    let files = |t: &str| -> Vec<(String, Arc<[u8]>)> {
        vec![("kernel-3.traceg".into(), Arc::from(t.as_bytes()))]
    };
    let a = AccelSimTrace::from_files("a", files(&v4()), partial_opts()).unwrap();
    let b = AccelSimTrace::from_files("b", files(&v4()), partial_opts()).unwrap();
    let c = AccelSimTrace::from_files("c", files(&v4().replace("0x40", "0x44")), partial_opts())
        .unwrap();
    assert_eq!(a.trace_hash(), b.trace_hash());
    assert_ne!(a.trace_hash(), c.trace_hash());
}

pub(super) fn err(text: &str) -> String {
    match read(text, "kernel-3.traceg") {
        Ok(_) => panic!("accepted bad input"),
        Err(e) => e.to_string(),
    }
}

/// Line number of the first line containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn bad_input_names_file_line_and_field() {
    let t = v4();
    // Truncated: the file stops in the middle of the block.
    let cut = &t[..t.find("0050 ffffffff 0 EXIT").unwrap()];
    assert_eq!(
        err(cut),
        format!(
            "kernel-3.traceg:{}: #END_TB: the file ends inside a thread block (truncated?)",
            cut.lines().count()
        )
    );
    // Bad hex in an address.
    let b = t.replace("0x7f0020000000 4", "0x7f00z0000000 4");
    assert_eq!(
        err(&b),
        format!("kernel-3.traceg:{}: base_address: expected a hexadecimal number, found `0x7f00z0000000`", line_of(&b, "0x7f00z"))
    );
    // Wrong count: insts promises more lines than follow.
    let b = t.replace("insts = 2", "insts = 3");
    assert_eq!(
        err(&b),
        format!(
            "kernel-3.traceg:{}: insts: warp 1 promises 3 instructions but 2 lines follow (block ends at line {})",
            line_of(&b, "insts = 3"),
            line_of(&b, "#END_TB")
        )
    );
    // ... and fewer.
    let b = t.replace("insts = 5", "insts = 4");
    assert!(
        err(&b).contains(": insts: more instruction lines than `insts = 4` for warp 0"),
        "{}",
        err(&b)
    );
    // Too few addresses in list mode.
    let b = t.replace(" 0x0000000000000ff0", "");
    assert!(
        err(&b).ends_with(": mem_addresses: missing (line ends too early)"),
        "{}",
        err(&b)
    );
    // Mask that is not hex, warp outside the block, block outside the grid, bad register.
    assert!(err(&t.replace("0020 0000000f", "0020 0000000g"))
        .contains(": mask: expected a hexadecimal number"));
    assert!(err(&t.replace("warp = 1", "warp = 2"))
        .contains(": warp: block 1,0,0: warp 2 but a block has 2 warps"));
    assert!(
        err(&t.replace("thread block = 1,0,0", "thread block = 2,0,0"))
            .contains("outside the grid (2,1,1)")
    );
    assert!(err(&t.replace("1 R2 LDG.E.SYS", "1 Q2 LDG.E.SYS"))
        .contains(": reg_dests: expected a register"));
    assert!(
        err(&t.replace("4 1 0x7f0020000000 4", "4 7 0x7f0020000000 4"))
            .contains(": address_mode: 7 is out of range (at most 2)")
    );
    // An immediate in a version 4 file, junk after the line.
    assert!(err(&t.replace(
        "0050 ffffffff 0 EXIT 0 0\n\nwarp",
        "0050 ffffffff 0 EXIT 0 0 7\n\nwarp"
    ))
    .contains(": end of line: unexpected `7`"));
    // Header problems.
    assert!(
        err(&t.replace("-block dim = (64,1,1)", "-block dim = (64,1)"))
            .contains(":4: block dim: expected (x,y,z), found `(64,1)`")
    );
    assert!(err(&t.replace("-grid dim = (2,1,1)\n", "")).contains("grid dim: missing: (0,0,0)"));
    assert!(err(&t.replace("-shmem = 256", "-shmem = lots"))
        .contains(":5: shmem: expected a decimal number"));
    assert!(err(&t.replace("#BEGIN_TB", "#BEGIN_TX")).contains("#BEGIN_TB: expected `#BEGIN_TB`"));
}

#[test]
fn kernelslist_lines_and_errors() {
    let (c, n) = parse_kernelslist(b"MemcpyHtoD,0x00007f2b2d500000,400\n\nkernel-593-ctx_0x55c28dad19e0.traceg\nMemcpyDtoH,0x1,4\n", "kl").unwrap();
    assert_eq!(
        c,
        vec![
            Command::MemcpyHtoD {
                addr: 0x7f2b_2d50_0000,
                bytes: 400
            },
            Command::Kernel { index: 0 }
        ]
    );
    assert_eq!(n, vec!["kernel-593-ctx_0x55c28dad19e0.traceg".to_string()]);
    let e = parse_kernelslist(b"kernel-1.traceg\nMemcpyHtoD,0x12,4x\n", "kl")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "kl:2: MemcpyHtoD bytes: expected a decimal number, found `4x`"
    );
}

#[test]
fn same_pc_with_another_opcode_is_interned_separately() {
    let t = v4().replace(
        "0050 ffffffff 0 EXIT 0 0\n\n#END",
        "0050 ffffffff 0 NOP 0 0\n\n#END",
    );
    let k = read(&t, "k.traceg").unwrap();
    let w0 = &k.ctas[0].warps[0];
    let w1 = &k.ctas[0].warps[1];
    assert_eq!(k.ops.get(w0.insts[4].op).name, "EXIT");
    assert_eq!(k.ops.get(w1.insts[1].op).name, "NOP");
}

pub(super) fn real(dir: &str) -> std::path::PathBuf {
    crate::testing::real_trace(dir)
}

/// A sample Accel-Sim folder shipped in the repository (`sample-traces/text/<name>`).
fn sample_text(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../sample-traces/text")
        .join(name)
}

#[test]
fn a_single_kernel_file_opens_as_a_source() {
    let p = sample_text("vecadd-100").join("kernel-1.traceg");
    let mut t = AccelSimTrace::open(&p, OpenOptions::default()).unwrap();
    assert_eq!(t.commands(), &[Command::Kernel { index: 0 }]);
    let mut s = t.open_kernel(0).unwrap();
    let mut n = 0;
    while let Some(c) = s.next_cta().unwrap() {
        n += c.warp_insts();
    }
    // 4 warps of 16 instructions: MOV, S2R x2, IMAD, ISETP, EXIT (mask 0 for the in-range
    // lanes), then the loads, add, store and EXIT.
    assert_eq!(n, 64);
}

/// Decode speed on a synthetic 40x copy of accelsim-my_app (about 12 MB of text):
/// `cargo test -p warpweave --lib decode_speed -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark; needs ../shared/real-traces"]
fn decode_speed() {
    let bytes = std::fs::read(real("accelsim-my_app").join("kernel-593-ctx_0x55c28dad19e0.traceg"))
        .unwrap();
    let k = read_kernel_bytes(&bytes, "k.traceg", Arch::Volta).unwrap();
    let mut big = k.clone();
    let copies = 40u32;
    big.info.grid.x = 55 * copies;
    big.ctas = (0..copies)
        .flat_map(|c| {
            k.ctas.iter().map(move |cta| {
                let mut cta = cta.clone();
                cta.id.x += 55 * c;
                cta
            })
        })
        .collect();
    let text = kernel_to_text(&big).unwrap();
    // CPU time of this thread (Linux), since the build machine is shared.
    let cpu = || -> f64 {
        std::fs::read_to_string("/proc/thread-self/stat")
            .ok()
            .and_then(|s| {
                s.rsplit(')')
                    .next()
                    .and_then(|r| r.split_whitespace().nth(11)?.parse::<f64>().ok())
            })
            .map_or(0.0, |t| t / 100.0)
    };
    let c0 = cpu();
    let mut lines = super::header::Lines::new(
        crate::trace::io::open_bytes(Arc::from(&text[..]), "b").unwrap(),
        "b",
    );
    let mut nl = 0u64;
    while lines.next_line().unwrap() {
        nl += 1;
    }
    eprintln!("lines only: {nl} lines in {:.2} s CPU", cpu() - c0);
    let cpu0 = cpu();
    let start = std::time::Instant::now();
    let input = crate::trace::io::open_bytes(Arc::from(&text[..]), "big.traceg").unwrap();
    let mut s = TracegStream::open(input, "big.traceg", Arch::Volta).unwrap();
    let mut n = 0u64;
    while let Some(c) = crate::trace::KernelStream::next_cta(&mut s).unwrap() {
        n += c.warp_insts();
    }
    let secs = start.elapsed().as_secs_f64();
    let cpu_secs = cpu() - cpu0;
    assert_eq!(n, 7260 * copies as u64);
    eprintln!(
        "decoded {:.1} MB, {n} warp instructions in {secs:.3} s wall, {cpu_secs:.2} s CPU: \
         {:.0} MB/s and {:.2} M warp inst/s per CPU second",
        text.len() as f64 / 1e6,
        text.len() as f64 / 1e6 / cpu_secs.max(0.01),
        n as f64 / 1e6 / cpu_secs.max(0.01)
    );
}

#[test]
fn a_source_written_as_a_folder_reads_back_identically() {
    let sample = sample_text("vecadd-100");
    let mut src = AccelSimTrace::open(
        &sample,
        OpenOptions {
            default_arch: Arch::Volta,
            ..Default::default()
        },
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("warpweave-text-{}", std::process::id()));
    let names = write_dir(&dir, &mut src).unwrap();
    assert_eq!(names, vec!["kernel-1.traceg".to_string()]);
    for f in ["kernelslist.g", "kernel-1.traceg"] {
        let a = std::fs::read(dir.join(f)).unwrap();
        let b = std::fs::read(sample.join(f)).unwrap();
        assert!(a == b, "{f} differs");
    }
    let mut back = AccelSimTrace::open(&dir, OpenOptions::default()).unwrap();
    assert_eq!(back.commands(), src.commands());
    assert_eq!(back.trace_hash(), src.trace_hash());
    let a = crate::trace::model::MemTrace::collect(&mut src).unwrap();
    let b = crate::trace::model::MemTrace::collect(&mut back).unwrap();
    assert!(kernels_equal(&a.kernels[0], &b.kernels[0]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_raw_folder_with_the_tracers_kernelslist_opens() {
    let dir = std::env::temp_dir().join(format!("warpweave-raw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernelslist"), "kernel-3.trace.gz\n").unwrap();
    std::fs::write(
        dir.join("kernel-3.trace.gz"),
        gzip(raw_text(false).as_bytes()),
    )
    .unwrap();
    // (Its lines cover both blocks of the grid: complete, read strictly.)
    let mut t = AccelSimTrace::open(&dir, OpenOptions::default()).unwrap();
    assert!(t.kernels()[0].raw);
    assert_eq!(t.arch_of(0), Arch::Ampere);
    let m = crate::trace::model::MemTrace::collect(&mut t).unwrap();
    check_raw(&m.kernels[0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn binary_version_0_uses_the_callers_architecture() {
    // Some tracer builds write `-binary version = 0`: the opcodes are classified with the
    // architecture the caller gives, not a fixed one.
    let text = traceg(Some(5), false, |_, _, l| format!("{l} 0"))
        .replace("-binary version = 70", "-binary version = 0");
    let files = |t: &str| vec![("kernel-3.traceg".to_string(), Arc::from(t.as_bytes()))];
    for arch in [Arch::Ampere, Arch::Volta, Arch::Turing] {
        let t = AccelSimTrace::from_files(
            "b0",
            files(&text),
            OpenOptions {
                default_arch: arch,
                policy: PARTIAL,
            },
        )
        .unwrap();
        assert_eq!(t.kernel_info(0).binary_version, 0);
        assert_eq!(t.arch_of(0), arch);
    }
    let k = read(&text, "k.traceg").unwrap();
    assert_eq!(k.info.binary_version, 0);
    assert_eq!(k.ctas[0].warps[0].insts.len(), 5);
    // A known version wins over the default.
    let t = AccelSimTrace::from_files(
        "b70",
        files(&v4()),
        OpenOptions {
            default_arch: Arch::Ampere,
            policy: PARTIAL,
        },
    )
    .unwrap();
    assert_eq!(t.arch_of(0), Arch::Volta);
}

#[test]
fn a_kernel_file_listed_uncompressed_is_read_from_its_compressed_form() {
    // kernelslist.g names kernel-N.traceg while only kernel-N.traceg.gz / .zst / .xz exists
    // (a trace folder compressed file by file): the compressed file is read.
    let plain = v4();
    let (zst, xz) = (zstd(plain.as_bytes()), xz(plain.as_bytes()));
    let list = b"kernel-1.traceg\nkernel-2.traceg\nkernel-3.traceg\nkernel-4.traceg\n";
    let files: Vec<(String, Vec<u8>)> = vec![
        ("kernelslist.g".into(), list.to_vec()),
        ("kernel-1.traceg.gz".into(), gzip(plain.as_bytes())),
        ("kernel-2.traceg.zst".into(), zst),
        ("kernel-3.traceg.xz".into(), xz),
        // Both present: the plain file named in the list is the one read.
        ("kernel-4.traceg".into(), plain.clone().into_bytes()),
        ("kernel-4.traceg.gz".into(), b"not gzip".to_vec()),
    ];
    let reference = read(&plain, "k.traceg").unwrap();
    let check = |t: &mut AccelSimTrace| {
        let names: Vec<&str> = t.kernels().iter().map(|k| k.file.as_str()).collect();
        assert_eq!(
            names,
            [
                "kernel-1.traceg.gz",
                "kernel-2.traceg.zst",
                "kernel-3.traceg.xz",
                "kernel-4.traceg"
            ]
        );
        let m = crate::trace::model::MemTrace::collect(t).unwrap();
        assert_eq!(m.kernels.len(), 4);
        for k in &m.kernels {
            assert!(kernels_equal(k, &reference));
        }
    };
    // In memory (the page's upload).
    let mem: Vec<(String, Arc<[u8]>)> = files
        .iter()
        .map(|(n, b)| (n.clone(), Arc::from(b.as_slice())))
        .collect();
    check(&mut AccelSimTrace::from_files("up", mem, partial_opts()).unwrap());
    // A folder on disk (the CLI).
    let dir = std::env::temp_dir().join(format!("warpweave-listed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, b) in &files {
        std::fs::write(dir.join(n), b).unwrap();
    }
    check(&mut AccelSimTrace::open(&dir, partial_opts()).unwrap());
    // Neither form: the error names the listed file.
    std::fs::write(dir.join("kernelslist.g"), "kernel-9.traceg\n").unwrap();
    let e = AccelSimTrace::open(&dir, partial_opts())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("kernel-9.traceg"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A spill as NVBit records it: every lane of both warps of block (1,0,0) stores `R7:R8` to
/// one local offset (`0xfffcc0`) and loads it back. Laid out as the hardware interleaves local
/// memory, lane `l` of warp `w` (global warp `1 * 2 + w`) has offset `0xfcc0` at
/// `LOCAL_LAYOUT_BASE + gw * 2 MiB + 0xfcc0 * 32 + width * l`: the STL.64 of a whole warp
/// covers two full 128-byte lines, the LDL one, and no two lanes or warps share a byte. Global addresses are
/// kept, and a trace written back and read again reads the same addresses.
#[test]
fn local_spills_are_interleaved_per_lane_and_warp() {
    use super::local::LOCAL_LAYOUT_BASE;
    let mut t = header(Some(4), false, 70);
    t += "\n#BEGIN_TB\n\nthread block = 1,0,0\n";
    for w in 0..2 {
        t += &format!("\nwarp = {w}\ninsts = 4\n");
        t += "0010 ffffffff 0 STL.64 2 R1 R7 8 1 0xfffcc0 0\n";
        t += "0020 ffffffff 1 R9 LDL 1 R1 4 1 0xfffcc0 0\n";
        t += "0030 ffffffff 1 R2 LDG.E.SYS 1 R4 4 1 0x7f0020000000 4\n";
        t += "0050 ffffffff 0 EXIT 0 0\n";
    }
    t += "\n#END_TB\n";
    let k = read(&t, "spill.traceg").unwrap();
    let word = 0xfcc0u64 * 32;
    for (w, warp) in k.ctas[0].warps.iter().enumerate() {
        let region = LOCAL_LAYOUT_BASE + (2 + w as u64) * (32 << 16);
        for (i, width) in [(0, 8), (1, 4)] {
            let a: Vec<(u32, u64)> = warp.lane_addrs(&warp.insts[i]).collect();
            assert_eq!(a.len(), 32);
            for (lane, addr) in a {
                assert_eq!(
                    addr,
                    region + word + width * lane as u64,
                    "warp {w} inst {i}"
                );
            }
        }
        let g: Vec<(u32, u64)> = warp.lane_addrs(&warp.insts[2]).collect();
        assert_eq!(g[31], (31, 0x7f00_2000_007c));
    }
    // The lines one warp's STL.64 touches (8 bytes from each lane's word): the coalescer's
    // view of the same addresses.
    let warp = &k.ctas[0].warps[0];
    let mut lines: Vec<u64> = warp
        .lane_addrs(&warp.insts[0])
        .flat_map(|(_, a)| [a / 128, (a + 7) / 128])
        .collect();
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines.len(), 2);
    // Written back as text and read again: already laid out, kept.
    let mut out = Vec::new();
    writer::write_kernel_trace(&mut out, &k).unwrap();
    let again = read(std::str::from_utf8(&out).unwrap(), "spill2.traceg").unwrap();
    assert_eq!(again.ctas[0].warps[1].addrs, k.ctas[0].warps[1].addrs);
}

/// Fuzz findings: a raw trace whose EXIT names two destination registers (the text writer
/// keeps one, what the tracer records and Accel-Sim's reader takes), and a fully masked load
/// held with width 0; the round trip compares the kernel as written.
#[test]
fn traces_round_trip_as_the_writer_writes_them() {
    let input = "-kernel name = k\n-block dim = (64,1,1)\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-binary version = 80\n-accelsim tracer version  dim = (2,1,1)\n-kernel id = 3\n-b= 4\n-enable lineinfo = 0\n\n#traces fo= x\n\n1 0 0 1 0010 80000000 1 R2 LDS.U.32 1 R4 4 2 0x40 \n0 0 0 0 0010 ffffffff 0 NOP 0 0 \n1 0 0 0 0020 ffffffff 0 LDGSTS.E.128 2 R1 R2 16 1 0x100 16 \n1 0 0 0 0020 ffffffff 0 LDGSTS.E.128 2 R1 R2 16 1 0x7f0020001000 16 \n1 0 0 1 0050 ffffffff 2 R1 R0 EXIT 0 0 \n0 0 0 0 0050 ffffffff 0 EXIT 0 0 \n";
    super::fuzz::fuzz_raw_trace(input.as_bytes());
    // A fully masked memory instruction held with width 0 is written at its opcode's width.
    let input = "-kernel name = k\n-kernel id = 2\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-binary versio. = 61\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n#traces format = x\n\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n0008 ffffffff 1 R1 MOV 0 0 \n0098 0000000f 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500180 4 \n0058 00000000 0  LDG.E.EXIT 0 0 \n#END_TB\n";
    super::fuzz::fuzz_text_trace(input.as_bytes());
}
