use super::*;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_kernel_executed_from_sass_simulates_as_its_emitted_trace_does() {
    let d = tmp("exec");
    let sass = repo().join("tests/exec/teaching.sm_90.sass");
    let spec = repo().join("tests/exec/vecmul.toml");
    let (wwt, j1, j2, outs) = (
        d.join("vecmul.wwt"),
        d.join("direct.json"),
        d.join("trace.json"),
        d.join("out"),
    );
    ok(&[
        "run",
        "-q",
        "--gpu",
        "h100",
        "--sass",
        s(&sass),
        "--launch",
        s(&spec),
        "--emit-trace",
        s(&wwt),
        "--json",
        s(&j1),
        "--out-buffers",
        s(&outs),
    ]);
    ok(&[
        "run",
        "-q",
        "--gpu",
        "h100",
        "--trace",
        s(&wwt),
        "--json",
        s(&j2),
    ]);
    assert_eq!(sim_numbers(&j1), sim_numbers(&j2));
    // The output buffer checks against itself and fails against a changed copy.
    let stdout = ok(&[
        "run",
        "-q",
        "--gpu",
        "h100",
        "--sass",
        s(&sass),
        "--launch",
        s(&spec),
        "--check",
        s(&outs),
    ]);
    assert!(stdout.contains("buf1: 8192 f32 elements match"), "{stdout}");
    let bad = d.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let mut b = std::fs::read(outs.join("buf1.bin")).unwrap();
    b[403] ^= 0x40;
    std::fs::write(bad.join("buf1.bin"), b).unwrap();
    fails_with(
        &[
            "run",
            "-q",
            "--gpu",
            "h100",
            "--sass",
            s(&sass),
            "--launch",
            s(&spec),
            "--check",
            s(&bad),
        ],
        &["--check", "buf1", "1 elements differ", "[100]"],
    );
}

#[test]
fn bad_exec_inputs_get_errors_naming_file_key_kernel_and_pc() {
    let d = tmp("exec-bad");
    let sass = repo().join("tests/exec/teaching.sm_90.sass");
    let spec = d.join("spec.toml");
    std::fs::write(&spec, "grid = 1\nblock = 4096\n").unwrap();
    fails_with(
        &[
            "run",
            "-q",
            "--sass",
            s(&sass),
            "--launch",
            s(&spec),
            "--kernel",
            "vecmul",
        ],
        &["spec.toml", "block", "1024"],
    );
    std::fs::write(&spec, "grid = 1\nblock = 32\n").unwrap();
    fails_with(
        &[
            "run",
            "-q",
            "--sass",
            s(&sass),
            "--launch",
            s(&spec),
            "--kernel",
            "nope",
        ],
        &["no function nope", "vecmul"],
    );
    let listing = d.join("k.sass");
    std::fs::write(
        &listing,
        "\tcode for sm_90\n\t\tFunction : k\n        /*0000*/                   IMMA.16816.S32 R4, R8, R12, R4 ;\n        /*0010*/                   EXIT ;\n",
    )
    .unwrap();
    fails_with(
        &[
            "run",
            "-q",
            "--sass",
            s(&listing),
            "--launch",
            s(&spec),
            "--kernel",
            "k",
        ],
        &["k.sass", "kernel k at pc 0x0", "IMMA"],
    );
    fails_with(
        &["run", "-q", "--launch", s(&spec), "--kernel", "k"],
        &["--sass LISTING or --cuda FILE.cu"],
    );
}

/// `cuda sass` writes the listing `run --sass` executes; without nvcc it says what is
/// missing. With nvcc ($WW_NVCC or PATH), the listing it writes runs vecmul as the shipped
/// listing of the same file does.
#[test]
fn cuda_sass_writes_a_listing_that_runs_or_names_the_missing_nvcc() {
    let d = tmp("cuda-sass");
    let cu = repo().join("tests/exec/teaching.cu");
    let out = d.join("t.sass");
    let e = bin()
        .args(["cuda", "sass", s(&cu), "-o", s(&out)])
        .env("WW_NVCC", d.join("no-nvcc"))
        .env("WW_CUOBJDUMP", d.join("no-cuobjdump"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(!e.status.success() && err.contains("no-nvcc"), "{err}");
    let has_nvcc = std::env::var_os("WW_NVCC").is_some_and(|p| !p.is_empty())
        || std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("nvcc").is_file()));
    if !has_nvcc {
        eprintln!("no nvcc: cuda sass not run");
        return;
    }
    let stdout = ok(&["cuda", "sass", s(&cu), "--gpu", "h100", "-o", s(&out)]);
    assert!(stdout.contains("sm_90"), "{stdout}");
    let spec = repo().join("tests/exec/vecmul.toml");
    let (j1, j2) = (d.join("a.json"), d.join("b.json"));
    let shipped = repo().join("tests/exec/teaching.sm_90.sass");
    for (listing, j) in [(&out, &j1), (&shipped, &j2)] {
        ok(&[
            "run",
            "-q",
            "--gpu",
            "h100",
            "--sass",
            s(listing),
            "--launch",
            s(&spec),
            "--json",
            s(j),
        ]);
    }
    let warp_insts = |j: &Path| {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(j).unwrap()).unwrap();
        v["warp_insts"].clone()
    };
    assert_eq!(warp_insts(&j1), warp_insts(&j2));
}

/// `run --cuda` brings the cubin's `__constant__` data (constant bank 3): constant_poly of
/// tests/exec/gaps.cu computes its polynomial from coefficients no launch spec gives. Run
/// where nvcc is ($WW_NVCC or PATH).
#[test]
fn run_cuda_reads_constant_data_from_the_cubin() {
    let has_nvcc = std::env::var_os("WW_NVCC").is_some_and(|p| !p.is_empty())
        || std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("nvcc").is_file()));
    if !has_nvcc {
        eprintln!("no nvcc: run --cuda not run");
        return;
    }
    let d = tmp("cuda-constant");
    let cu = repo().join("tests/exec/gaps.cu");
    let spec = d.join("poly.toml");
    let n = 64;
    std::fs::write(
        &spec,
        format!(
            "kernel = \"constant_poly\"\ngrid = 1\nblock = {n}\nargs = [\"x\", \"y\", {n}]\n\
             [[buffer]]\nname = \"x\"\ntype = \"f32\"\nlen = {n}\ninit = {{ fill = 0.5 }}\n\
             [[buffer]]\nname = \"y\"\ntype = \"f32\"\nlen = {n}\noutput = true\n"
        ),
    )
    .unwrap();
    let outs = d.join("out");
    ok(&[
        "run",
        "-q",
        "--gpu",
        "h100",
        "--cuda",
        s(&cu),
        "--launch",
        s(&spec),
        "--out-buffers",
        s(&outs),
    ]);
    let poly = [1.0f32, -0.5, 0.25, 2.0, -1.5, 0.125, 3.0, -0.75];
    let offsets = [10.0f32, 20.0, 30.0, 40.0];
    let y: Vec<f32> = std::fs::read(outs.join("y.bin"))
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (g, v) in y.iter().enumerate() {
        let acc = poly.iter().rev().fold(0f32, |a, &c| 0.5f32.mul_add(a, c));
        assert_eq!(*v, acc + offsets[g % 4], "y[{g}]");
    }
}
