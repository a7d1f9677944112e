//! The SLURM job-array script: one array task per chunk of runs, each calling the CLI.
//!
//! ```text
//!  sbatch DIR/sweep.sbatch ──> task $SLURM_ARRAY_TASK_ID = i
//!       └─ /abs/warpweave sweep run-chunk /abs/plan.toml --chunk i --of N --out DIR/part-i.json
//! ```
//!
//! Paths are absolute and single-quoted, so the script runs from any working directory.

use super::chunk::Manifest;

/// Options of the emitted script beyond the manifest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlurmOptions {
    /// `#SBATCH --partition`.
    pub partition: Option<String>,
    /// `#SBATCH --time` (e.g. `01:00:00`).
    pub time: Option<String>,
    /// `#SBATCH --cpus-per-task`; the task's rayon pool uses as many threads.
    pub cpus_per_task: u32,
    /// More arguments of every `run-chunk` (e.g. `--unknown-opcodes warn`), quoted.
    pub run_args: Vec<String>,
}

/// Quotes a string for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The job-array script for `m`, writing its parts and logs under `dir` (absolute).
pub fn script(m: &Manifest, dir: &str, name: &str, opt: &SlurmOptions) -> String {
    let safe_name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let cpus = opt.cpus_per_task.max(1);
    let q = |p: &str| shell_quote(p);
    let mut s = String::new();
    s.push_str("#!/bin/bash\n");
    s.push_str(&format!("#SBATCH --job-name=ww-{safe_name}\n"));
    s.push_str(&format!(
        "#SBATCH --array=0-{}\n",
        m.chunks.saturating_sub(1)
    ));
    s.push_str("#SBATCH --ntasks=1\n");
    s.push_str(&format!("#SBATCH --cpus-per-task={cpus}\n"));
    if let Some(p) = &opt.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if let Some(t) = &opt.time {
        s.push_str(&format!("#SBATCH --time={t}\n"));
    }
    // sbatch does not expand variables in #SBATCH lines; %a is the array index.
    s.push_str(&format!("#SBATCH --output={dir}/logs/task-%a.out\n"));
    s.push_str(&format!(
        "# warpweave sweep `{name}`: {} runs in {} chunks; plan hash {}\n",
        m.runs, m.chunks, m.plan_hash
    ));
    s.push_str(&format!(
        "# collect with: {} sweep collect {}\n",
        q(&m.binary),
        q(dir)
    ));
    s.push_str("set -euo pipefail\n");
    s.push_str(&format!(
        "export RAYON_NUM_THREADS=\"${{SLURM_CPUS_PER_TASK:-{cpus}}}\"\n"
    ));
    s.push_str("ID=\"${SLURM_ARRAY_TASK_ID:?not run as a SLURM array task}\"\n");
    let extra: String = opt.run_args.iter().map(|a| format!(" {}", q(a))).collect();
    s.push_str(&format!(
        "exec {} sweep run-chunk {} --chunk \"$ID\" --of {} --out {}\"/part-$ID.json\"{extra}\n",
        q(&m.binary),
        q(&m.plan_path),
        m.chunks,
        q(dir)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_script() {
        let m = Manifest {
            format: "warpweave-sweep/1".into(),
            plan_path: "/p/it's.toml".into(),
            plan_text: String::new(),
            plan_hash: "abc".into(),
            runs: 10,
            chunks: 4,
            binary: "/bin/warpweave".into(),
        };
        let s = script(
            &m,
            "/out",
            "my plan",
            &SlurmOptions {
                time: Some("00:10:00".into()),
                ..Default::default()
            },
        );
        let want = "#!/bin/bash
#SBATCH --job-name=ww-my_plan
#SBATCH --array=0-3
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --time=00:10:00
#SBATCH --output=/out/logs/task-%a.out
# warpweave sweep `my plan`: 10 runs in 4 chunks; plan hash abc
# collect with: '/bin/warpweave' sweep collect '/out'
set -euo pipefail
export RAYON_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"
ID=\"${SLURM_ARRAY_TASK_ID:?not run as a SLURM array task}\"
exec '/bin/warpweave' sweep run-chunk '/p/it'\\''s.toml' --chunk \"$ID\" --of 4 --out '/out'\"/part-$ID.json\"
";
        assert_eq!(s, want);
        // The reading policy reaches every task.
        let s = script(
            &m,
            "/out",
            "p",
            &SlurmOptions {
                run_args: vec![
                    "--unknown-opcodes".into(),
                    "warn".into(),
                    "--allow-partial".into(),
                ],
                ..Default::default()
            },
        );
        assert!(
            s.contains("\"/part-$ID.json\" '--unknown-opcodes' 'warn' '--allow-partial'\n"),
            "{s}"
        );
    }
}
