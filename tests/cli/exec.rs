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
