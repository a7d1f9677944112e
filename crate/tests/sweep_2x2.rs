//! A sweep plan of 2 x 2 runs yields the four expected rows: the values of each row are the
//! simulator's for that run, done one by one without the sweep machinery, and the same whether
//! the plan runs serially, in parallel, or in chunks merged back together (what SLURM does).

use warpweave::analytic::PrepassCache;
use warpweave::config;
use warpweave::engine::compare::prepared_simulator;
use warpweave::engine::ModelChoice;
use warpweave::sweep::chunk::{merge_parts, Part};
use warpweave::sweep::files::load_plan;
use warpweave::sweep::sim::{metrics, SimRunner};
use warpweave::sweep::{chunk_range, run_jobs, Executor, NoProgress, Table};
use warpweave::workload::{self, Params};

fn plan_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/sweeps/test-2x2.toml")
}

/// The same run as row `(subcores, issue_width)` of the plan, built by hand.
fn one_by_one(subcores: u32, issue_width: u32) -> (u64, u64, f64) {
    let mut cfg = config::preset("teaching").unwrap();
    config::apply_override(&mut cfg, "gpu.num_sms", "1").unwrap();
    config::apply_override(&mut cfg, "sm.subcores", &subcores.to_string()).unwrap();
    config::apply_override(&mut cfg, "scheduler.issue_width", &issue_width.to_string()).unwrap();
    cfg.validate().unwrap();
    // The default model's analytical memory path takes its hit rates from the functional
    // pre-pass, as every front door does.
    let mut open = || -> warpweave::Result<Box<dyn warpweave::trace::TraceSource + Send>> {
        let p = Params::new().set("n", 2048).set("block", 64);
        Ok(Box::new(workload::generate("vecadd", &p)?))
    };
    let mut cache = PrepassCache::new();
    let (mut sim, prepass) =
        prepared_simulator(&cfg, ModelChoice::default(), &mut open, &mut cache).unwrap();
    assert!(prepass.is_some());
    let r = sim.run_to_end().unwrap();
    (r.cycles, r.warp_insts, r.ipc)
}

#[test]
fn two_by_two_plan_gives_the_four_runs_done_one_by_one() {
    let (plan, dir) = load_plan(&plan_path()).unwrap();
    assert_eq!(plan.job_count(), 4);
    let runner = SimRunner::new(dir.display().to_string());
    let jobs = plan.jobs();
    let par = run_jobs(&plan, &jobs, &runner, Executor::Parallel, &NoProgress).unwrap();
    let ser = run_jobs(&plan, &jobs, &runner, Executor::Serial, &NoProgress).unwrap();
    assert_eq!(par, ser);

    let table = Table::build(&plan, &par).unwrap();
    let csv = table.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(lines[0].starts_with(
        "id,workload,mode,sm.subcores,scheduler.issue_width,cycles,warp_insts,thread_insts,ipc"
    ));

    // Row order: subcores outer, issue width inner; values equal the hand-built runs.
    let expect = [(1, 1), (1, 2), (2, 1), (2, 2)];
    let mut cycles = Vec::new();
    for (i, &(sc, iw)) in expect.iter().enumerate() {
        let (c, wi, ipc) = one_by_one(sc, iw);
        let cells: Vec<&str> = lines[i + 1].split(',').collect();
        assert_eq!(
            &cells[..5],
            &[
                i.to_string().as_str(),
                "vecadd-2048",
                "default",
                &sc.to_string(),
                &iw.to_string()
            ]
        );
        assert_eq!(cells[5], c.to_string(), "cycles of run {i}");
        assert_eq!(cells[6], wi.to_string(), "warp_insts of run {i}");
        assert_eq!(cells[8], format!("{ipc}"), "ipc of run {i}");
        assert_eq!(par[i].metrics[0], ("cycles".to_string(), c as f64));
        cycles.push(c);
    }
    // 64 warps of identical work, 16 instructions each (vecadd on sm_80, all lanes in bounds):
    // every run executes the same 1024 warp instructions...
    assert!(par
        .iter()
        .all(|r| r.metrics[1] == ("warp_insts".to_string(), 1024.0)));
    // ...and a second sub-core (a second scheduler and set of units) finishes them sooner.
    assert!(
        cycles[2] < cycles[0],
        "2 sub-cores {} vs 1 sub-core {}",
        cycles[2],
        cycles[0]
    );

    // Chunked the way SLURM array tasks run it, merged in any order: the same table.
    for of in [1usize, 3, 4] {
        let mut parts: Vec<(String, Part)> = (0..of)
            .rev()
            .map(|c| {
                let jobs: Vec<_> = chunk_range(4, c, of).map(|i| plan.job(i)).collect();
                let r = run_jobs(&plan, &jobs, &runner, Executor::Serial, &NoProgress).unwrap();
                let part = Part::new(&plan, c, of, r);
                let json = serde_json::to_string(&part).unwrap();
                (
                    format!("part-{c}.json"),
                    serde_json::from_str(&json).unwrap(),
                )
            })
            .collect();
        parts.rotate_left(1);
        let merged = merge_parts(&plan, of, &parts).unwrap();
        assert_eq!(
            Table::build(&plan, &merged).unwrap().to_csv(),
            csv,
            "{of} chunks"
        );
    }

    // The metrics helper reports exactly what the engine returned.
    let r = runner.simulate(&plan, &jobs[3]).unwrap();
    assert_eq!(metrics(&r), par[3].metrics);
}
