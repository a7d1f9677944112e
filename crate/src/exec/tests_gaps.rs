//! The kernels of `tests/exec/gaps.cu` (nvcc listings for sm_70, sm_75, sm_80 and sm_90),
//! each output equal to a host reference: generic loads, stores and atomics that reach shared,
//! local and global memory; warp votes and shuffles behind BRA.DIV / BRA.CONV; `__constant__`
//! data from the launch spec. A texture fetch and a tensor-core tile stay errors that name
//! the listing line, the kernel, the PC and the opcode.

use std::path::Path;
use std::sync::OnceLock;

use super::tests_kernels::listing;
use super::*;
use crate::workload::builder::{LOCAL_BASE, SHMEM_BASE};

const ARCHS: [u32; 4] = [70, 75, 80, 90];

/// `tests/exec/gaps.sm_XX.sass` of each of [`ARCHS`].
fn programs() -> &'static [(u32, Program); 4] {
    static P: OnceLock<[(u32, Program); 4]> = OnceLock::new();
    P.get_or_init(|| {
        ARCHS.map(|a| {
            let rel = format!("tests/exec/gaps.sm_{a}.sass");
            let p = Program::from_listing(&listing(&rel), &rel, Arch::Hopper).unwrap();
            (a, p)
        })
    })
}

fn spec(text: &str, kernel: &str) -> LaunchSpec {
    LaunchSpec::parse(text, "gaps.toml", Path::new("."), Some(kernel)).unwrap()
}

fn words(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn ints(v: &[i32]) -> String {
    let s: Vec<String> = v.iter().map(i32::to_string).collect();
    s.join(", ")
}

/// Small pseudo-random integers in [0, 1000), as bench.cu draws them.
fn draws(n: usize, seed: u32) -> Vec<i32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((s >> 8) % 1000) as i32
        })
        .collect()
}

#[test]
fn generic_pointers_reach_shared_local_and_global_memory() {
    let (ctas, block) = (3usize, 256usize);
    let n = ctas * block;
    let input = draws(n, 7);
    let scratch: Vec<i32> = (0..4 * n as i32).collect();
    let text = format!(
        "grid = {ctas}\nblock = {block}\nargs = [\"in\", \"out\", \"scratch\", \"hits\"]\n\
         [[buffer]]\nname = \"in\"\ntype = \"i32\"\nlen = {n}\ninit = \"iota\"\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = {n}\n\
         [[buffer]]\nname = \"scratch\"\ntype = \"i32\"\nlen = {}\ninit = \"iota\"\n\
         [[buffer]]\nname = \"hits\"\ntype = \"i32\"\nlen = 1\n",
        4 * n
    );
    let mut s = spec(&text, "generic_windows");
    s.buffers[0].init = Init::Bytes(input.iter().flat_map(|x| x.to_le_bytes()).collect());
    let want: Vec<i32> = (0..n)
        .map(|g| {
            let (t, base) = (g % block, g - g % block);
            let group = base + (t & !7);
            let a: i32 = (group..group + 8).map(|j| input[j] + 3).sum();
            let b = 8 * input[g] + 28 + t as i32;
            let c: i32 = scratch[4 * g..4 * g + 4].iter().sum::<i32>() + 1;
            a + 2 * b + 3 * c + 4 * block as i32
        })
        .collect();
    for (arch, p) in programs() {
        let ex = execute(p, &s, "gaps").unwrap_or_else(|e| panic!("sm_{arch}: {e}"));
        assert_eq!(words(&ex.device.bufs[1].data), want, "sm_{arch}");
        assert_eq!(words(&ex.device.bufs[3].data), [n as i32], "sm_{arch}");
        // The generic accesses are recorded in the trace's shared and local windows, where
        // the timing engine classifies them.
        let k = p.kernel("generic_windows").unwrap();
        let generic: Vec<u32> = k
            .insts
            .iter()
            .filter(|i| {
                matches!(
                    i.opc,
                    decode::Opc::Ld {
                        space: decode::MemSpace::Generic,
                        ..
                    }
                )
            })
            .map(|i| i.pc)
            .collect();
        let (mut shared, mut local) = (0, 0);
        for c in &ex.trace.kernels[0].ctas {
            for w in &c.warps {
                for i in w.insts.iter().filter(|i| generic.contains(&i.pc)) {
                    for (_, a) in w.lane_addrs(i) {
                        shared += usize::from((SHMEM_BASE..SHMEM_BASE + (1 << 24)).contains(&a));
                        local += usize::from((LOCAL_BASE..SHMEM_BASE).contains(&a));
                    }
                }
            }
        }
        assert!(
            shared >= 9 * n && local >= 9 * n,
            "sm_{arch}: {shared} shared, {local} local"
        );
    }
}

#[test]
fn warp_votes_and_shuffles_branch_on_convergence() {
    // Warp 0: every lane odd (converged at the shuffle); warp 1: odd and even lanes; warp 2:
    // every lane even (no lane shuffles); warp 3: a few odd lanes.
    let n = 128;
    let input: Vec<i32> = (0..n)
        .map(|g| match g / 32 {
            0 => 2 * (g as i32 * 37 % 61) + 1,
            1 => g as i32 * 13 % 97,
            2 => 2 * (g as i32 % 50),
            _ => {
                if g % 7 == 0 {
                    2 * g as i32 + 1
                } else {
                    4 * g as i32
                }
            }
        })
        .collect();
    let mut want = vec![0i32; n];
    for w in 0..n / 32 {
        let lanes = w * 32..w * 32 + 32;
        let s: Vec<i32> = lanes
            .clone()
            .map(|g| (0..input[g] & 7).map(|k| k ^ input[g]).sum())
            .collect();
        let all = i32::from(s.iter().all(|&x| x > 8));
        let odd: Vec<usize> = lanes.clone().filter(|&g| input[g] & 1 == 1).collect();
        let mut v: Vec<i32> = lanes.clone().map(|g| input[g]).collect();
        if let Some(&leader) = odd.first() {
            for &g in &odd {
                v[g - w * 32] += input[leader];
            }
            let above = odd.iter().filter(|&&g| v[g - w * 32] > 100).count() as i32;
            for &g in &odd {
                v[g - w * 32] += above;
            }
        }
        for (l, g) in lanes.enumerate() {
            want[g] = v[l] + all;
        }
    }
    let text = format!(
        "grid = 1\nblock = {n}\nargs = [\"in\", \"out\"]\n\
         [[buffer]]\nname = \"in\"\ntype = \"i32\"\nlen = {n}\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = {n}\n"
    );
    let mut s = spec(&text, "warp_votes");
    s.buffers[0].init = Init::Bytes(input.iter().flat_map(|x| x.to_le_bytes()).collect());
    let mut branches = 0;
    for (arch, p) in programs() {
        let ex = execute(p, &s, "gaps").unwrap_or_else(|e| panic!("sm_{arch}: {e}"));
        assert_eq!(words(&ex.device.bufs[1].data), want, "sm_{arch}");
        let k = p.kernel("warp_votes").unwrap();
        branches += k
            .insts
            .iter()
            .filter(|i| matches!(i.opc, decode::Opc::BraWarp { .. }))
            .count();
    }
    // BRA.CONV on sm_75 and sm_80, BRA.DIV on sm_80 (sm_90 needs neither).
    assert!(branches >= 3, "{branches} BRA.DIV / BRA.CONV");
}

#[test]
fn warp_convergence_branches_follow_the_live_lanes() {
    // BRA.DIV (no mask) branches while lanes 16-31 wait elsewhere; BRA.CONV once they exited.
    let text = "\tcode for sm_80\n\t\tFunction : conv\n\
        /*0000*/                   S2R R0, SR_TID.X ;\n\
        /*0010*/                   MOV R5, 0x0 ;\n\
        /*0020*/                   ISETP.GE.U32.AND P0, PT, R0, 0x10, PT ;\n\
        /*0030*/                   BSSY B0, 0x70 ;\n\
        /*0040*/               @P0 BRA 0x70 ;\n\
        /*0050*/                   BRA.DIV ~URZ, 0x70 ;\n\
        /*0060*/                   MOV R5, 0x1 ;\n\
        /*0070*/                   BSYNC B0 ;\n\
        /*0080*/               @P0 EXIT ;\n\
        /*0090*/                   BRA.CONV 0xb0 ;\n\
        /*00a0*/                   IADD3 R5, R5, 0x10, RZ ;\n\
        /*00b0*/                   IADD3 R5, R5, 0x100, RZ ;\n\
        /*00c0*/                   IMAD.WIDE.U32 R2, R0, 0x4, c[0x0][0x160] ;\n\
        /*00d0*/                   STG.E [R2.64], R5 ;\n\
        /*00e0*/                   EXIT ;\n";
    let p = Program::from_listing(text, "conv.sass", Arch::Ampere).unwrap();
    let s = spec(
        "grid = 1\nblock = 32\nargs = [\"o\"]\n[[buffer]]\nname = \"o\"\ntype = \"i32\"\nlen = 32\ninit = { fill = -1 }",
        "conv",
    );
    let ex = execute(&p, &s, "conv").unwrap();
    let o = words(&ex.device.bufs[0].data);
    // Lanes 0-15: diverged at BRA.DIV (R5 stays 0), converged at BRA.CONV (no +0x10).
    assert_eq!(o[..16], [0x100; 16]);
    assert_eq!(o[16..], [-1; 16]);
}

/// `constant_poly`'s coefficients and offsets, as gaps.cu initialises them.
const POLY: [f32; 8] = [1.0, -0.5, 0.25, 2.0, -1.5, 0.125, 3.0, -0.75];
const OFFSETS: [i32; 4] = [10, 20, 30, 40];

fn poly_want(x: &[f32]) -> Vec<f32> {
    x.iter()
        .enumerate()
        .map(|(g, &v)| {
            let mut acc = 0f32;
            for k in (0..8).rev() {
                acc = v.mul_add(acc, POLY[k]);
            }
            acc + OFFSETS[g & 3] as f32
        })
        .collect()
}

#[test]
fn constant_bank_data_comes_from_the_launch_spec() {
    let n = 200;
    let floats: Vec<String> = POLY.iter().map(|c| format!("{c:?}")).collect();
    let text = format!(
        "grid = 2\nblock = 128\nargs = [\"x\", \"y\", {n}]\n\
         [[buffer]]\nname = \"x\"\ntype = \"f32\"\nlen = {n}\ninit = {{ random = 5, min = -2, max = 2 }}\n\
         [[buffer]]\nname = \"y\"\ntype = \"f32\"\nlen = {n}\n\
         [[constant]]\ntype = \"f32\"\nvalues = [{}]\n\
         [[constant]]\nbank = 3\noffset = 32\ntype = \"i32\"\nvalues = [{}]\n",
        floats.join(", "),
        ints(&OFFSETS)
    );
    let s = spec(&text, "constant_poly");
    let x: Vec<f32> = launch::initial_bytes(&s.buffers[0])
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want = poly_want(&x);
    for (arch, p) in programs() {
        let ex = execute(p, &s, "gaps").unwrap_or_else(|e| panic!("sm_{arch}: {e}"));
        let got: Vec<f32> = ex.device.bufs[1]
            .data
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "sm_{arch}");
    }
    // The program's own bank (what `run --cuda` reads from the cubin) serves as well, and
    // the spec writes over it.
    let (_, p) = &programs()[2];
    let mut p = p.clone();
    let mut bank: Vec<u8> = POLY.iter().flat_map(|c| c.to_le_bytes()).collect();
    bank.extend(OFFSETS.iter().flat_map(|c| (c + 1).to_le_bytes()));
    p.banks.insert(3, bank);
    let mut s2 = s.clone();
    s2.constants.truncate(1);
    let ex = execute(&p, &s2, "gaps").unwrap();
    assert_eq!(
        f32::from_le_bytes(ex.device.bufs[1].data[4..8].try_into().unwrap()),
        want[1] + 1.0
    );
    // Without the bank: an error naming the bank and where to give it.
    let mut s3 = s.clone();
    s3.constants.clear();
    let e = execute(&programs()[0].1, &s3, "gaps")
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("constant bank 3") && e.contains("[[constant]]") && e.contains("constant_poly"),
        "{e}"
    );
}

#[test]
fn constant_specs_are_checked() {
    for (extra, want) in [
        (
            "[[constant]]\nvalues = [1]",
            "gaps.toml: key `constant[0].type`: missing",
        ),
        (
            "[[constant]]\nbank = 0\ntype = \"i32\"\nvalues = [1]",
            "gaps.toml: key `constant[0].bank`: 0: expected 1 to 17",
        ),
        (
            "[[constant]]\noffset = 65535\ntype = \"i32\"\nvalues = [1]",
            "gaps.toml: key `constant[0].offset`",
        ),
        (
            "[[constant]]\ntype = \"i32\"\nvalues = [1.5]",
            "gaps.toml: key `constant[0].values[0]`: 1.5: expected an integer",
        ),
        (
            "[[constant]]\nbank = 3",
            "gaps.toml: key `constant[0].values`: missing",
        ),
    ] {
        let e = LaunchSpec::parse(
            &format!("grid = 1\nblock = 1\n{extra}"),
            "gaps.toml",
            Path::new("."),
            Some("k"),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(e.starts_with(want), "{extra}: {e}");
    }
}

#[test]
fn textures_and_tensor_cores_are_errors_naming_line_kernel_pc_and_opcode() {
    for (arch, p) in programs() {
        let mut cases = vec![("tex_fetch", "TLD", "grid = 1\nblock = 32\nargs = [{ u64 = 1 }, \"y\"]\n[[buffer]]\nname = \"y\"\ntype = \"f32\"\nlen = 32")];
        if *arch >= 75 {
            cases.push(("mma_tile", "HMMA", "grid = 1\nblock = 32\nargs = [\"a\", \"a\", \"y\"]\n[[buffer]]\nname = \"a\"\ntype = \"u32\"\nlen = 64\n[[buffer]]\nname = \"y\"\ntype = \"f32\"\nlen = 128"));
        }
        for (kernel, opcode, text) in cases {
            let e = execute(p, &spec(text, kernel), "gaps")
                .err()
                .unwrap_or_else(|| panic!("sm_{arch} {kernel} ran"))
                .to_string();
            let k = p.kernel(kernel).unwrap();
            let inst = k.insts.iter().find(|i| i.name.starts_with(opcode)).unwrap();
            let want = format!(
                "tests/exec/gaps.sm_{arch}.sass:{}: kernel {kernel} at pc 0x{:x} ({}",
                inst.line, inst.pc, inst.name
            );
            assert!(e.starts_with(&want), "sm_{arch}: {e}\nwant {want}");
        }
    }
}
