//! The SLURM end-to-end test (tests/slurm/run.sh) from cargo: `cargo test --features cli
//! --test sweep_slurm -- --ignored`. Ignored by default: it installs Debian packages (as root)
//! and starts munged, slurmctld and slurmd. The script prints SKIP and passes when it cannot.

#[test]
#[ignore = "starts a single-node SLURM cluster; run with --ignored"]
fn slurm_job_array_collects_the_same_csv_as_a_local_run() {
    let Some(bin) = option_env!("CARGO_BIN_EXE_warpweave") else {
        eprintln!("SKIP: the warpweave binary is built only with --features cli");
        return;
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::process::Command::new("bash")
        .arg(root.join("tests/slurm/run.sh"))
        .arg(bin)
        .arg(root.join("configs/sweeps/test-2x2.toml"))
        .output()
        .expect("bash runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("PASS") || text.contains("SKIP"), "{text}");
}
