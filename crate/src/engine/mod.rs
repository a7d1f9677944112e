//! The clocked engine: one `step()` per epoch (`features.epoch_cycles` core cycles, default 1)
//! for serial and parallel runs, CTA issue, clock domains, idle-cycle skipping and the deadlock
//! detector.
//!
//! ```text
//!  Simulator::run_for(n) ──> loop: Gpu::step(now)   (one epoch, see epoch.rs)
//!     1. block scheduler: start eligible kernels, issue CTAs (occupancy-limited; their traces
//!        come from the stream through feed.rs, and go back to it when they finish)
//!     2. SMs step the epoch's cycles (on this thread, or shared by a crew of threads owned
//!        for the run, `sync/crew.rs`; K > 1: rayon's par_iter_mut): each SM reads StepCtx,
//!        writes only its own state, stats, outbox and marks
//!     3. each cycle's outboxes merged in SM order ─> memory partitions, replies to per-SM
//!        inboxes (K > 1: the memory side runs the previous epoch beside step 2)
//!     4. finished CTAs collected in cycle and SM order
//!     5. nothing changed anywhere? jump to the earliest next event, rounded down to an epoch
//!        start (exact: skipped cycles replay the last cycle's stall accounting); nothing
//!        pending at all? deadlock report
//! ```
//! Seed 002: per-SM state and stats, merged in a fixed order, give identical results for any
//! thread count. In `fast` (no cycle memory system) step 2 is a *window* instead
//! (`window.rs`): every SM steps on its own up to the next CTA completion anywhere, at most
//! 64 cycles, so one step covers dozens of cycles (same results).
//!
//! # Skipping cycles: the `next_event` contract
//! Two levels of skipping, both exact (a test compares the full JSON with
//! `features.skip_idle_cycles` on and off) and both driven by one interface:
//!
//! ```text
//!  block                      reports                              woken early by
//!  SubCore / ExecUnits        next_event(now): completions, pipes   -
//!  FetchUnit, MemPipe          next_event(now)                       -
//!  SmMem (Analytic | Cycle)   next_event(): next response ready     deliver() (engine)
//!  Sm                         next_event(now) = min of the above    launch_cta, deliver -> wake_now()
//!  MemPartitions              next_event(): NoC / L2 / DRAM         inject() (engine)
//! ```
//! - **Per SM** ([`crate::core::Sm::step`]): after a cycle in which the SM changed nothing
//!   (`step` returned false), it sleeps until `Sm::next_event(now)`; the cycles in between only
//!   replay the last cycle's stall accounting (`Sm::skip`). Anything from outside the SM (a CTA
//!   launch, a memory reply) calls `Sm::wake_now`.
//! - **Whole GPU** (`Simulator::run_for`): when no SM and no memory partition changed anything,
//!   the clock jumps to the earliest `next_event` of all blocks.
//!
//! The contract for every block (cycle or analytical twin): `next_event` must return the
//! earliest cycle > now at which the block's state or outputs can change *without outside
//! input* (a response becoming ready, a pipeline freeing, a queue that is not empty: `now + 1`),
//! or `None` when only outside input can wake it. Reporting too early only costs speed;
//! reporting too late breaks exactness. A block that changes state inside `step`/`tick` must
//! make that step return "changed" (true), so the SM stays awake on the next cycle.
//! Analytical twins with a known ready time (e.g. `AnalyticSmMem`'s response heap, the ALU
//! twin's completions in `ExecUnits::inflight`) report exactly that time.

pub mod clocks;
pub mod compare;
pub mod cta_issue;
mod epoch;
mod feed;
pub mod model;
pub mod notes;
pub mod occupancy;
pub mod result;
mod run;
mod sync;
#[cfg(target_arch = "wasm32")]
pub mod wasm_bench;
mod window;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_prefetch;

use std::collections::VecDeque;

use crate::analytic::AnalyticSmMem;
use crate::config::GpuConfig;
use crate::core::{KernelCtx, Sm, SmMem, StepCtx};
use crate::mem::NocPacket;
use crate::stats::SmStats;
use crate::trace::{Command, KernelStream, Packer, TraceSource};
use crate::{Cycle, Error, Result};

pub use clocks::ClockDomains;
pub use cta_issue::{BlockScheduler, KernelRun};
use epoch::{EpochMarks, Inboxes, Staged};
pub use model::{Mode, ModelChoice, ModuleModel};
pub use occupancy::{occupancy, Limiter, Occupancy};
pub use result::SimResult;
use run::{feed, run_epochs, Slice};

/// Cycles without any progress after which a run is declared deadlocked even though events are
/// still pending (a safety net; a true deadlock, with nothing pending, is reported at once).
pub const DEADLOCK_CYCLES: u64 = 2_000_000;

/// Fewest SMs with work in a cycle for the parallel executor to fork; below it they step
/// serially (the fork/join would cost more than it saves).
pub const PAR_MIN_BUSY_SMS: usize = 8;

/// How a `run_for` slice ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// The slice's cycle budget is used up; call again.
    Running { cycle: Cycle },
    /// Every kernel finished; `cycle` is the total cycle count.
    Done { cycle: Cycle },
    /// Nothing can ever change again: the report names SM, warp, PC and what it waits on.
    Deadlock(String),
}

/// How far a run has come, for progress displays (reading it never changes the run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunProgress {
    /// The next cycle to simulate.
    pub cycle: Cycle,
    /// Warp instructions issued so far, every SM together.
    pub warp_insts: u64,
    /// The trace's warp instructions, where its source knows them without decoding.
    pub warp_insts_total: Option<u64>,
    /// CTAs finished, and CTAs in every kernel of the trace.
    pub ctas_done: u64,
    pub ctas_total: u64,
}

/// How the SMs of a cycle are stepped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Executor {
    #[default]
    Serial,
    /// Several threads (feature `parallel`; falls back to serial without it): the crew of
    /// [`Simulator::set_threads`] at K = 1, rayon at K > 1.
    Parallel,
}

/// The global memory side (NoC, L2 slices, DRAM), stepped after the SMs in its own clock
/// domains. With the analytical model every request is answered inside the SM's `SmMem`, so
/// there is nothing here.
#[derive(Default)]
pub enum MemPartitions {
    #[default]
    None,
    /// The cycle memory system (`model.memory = cycle`).
    Cycle(Box<crate::mem::MemPartitions>),
}

impl std::fmt::Debug for MemPartitions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemPartitions::None => f.write_str("None"),
            MemPartitions::Cycle(_) => f.write_str("Cycle"),
        }
    }
}

impl MemPartitions {
    /// Takes the merged outboxes (what is refused stays in `pending`, in order, for the next
    /// cycle), steps the memory side to `now` and returns the replies in SM order.
    fn exchange(&mut self, now: Cycle, pending: &mut Vec<NocPacket>, replies: &mut Vec<NocPacket>) {
        if let Some(m) = self.inject(now, pending) {
            m.tick(now, replies);
        }
    }
    /// The merged outboxes enter the request crossbar (what is refused stays in `pending`);
    /// the cycle memory system, if there is one, to step next.
    fn inject(
        &mut self,
        now: Cycle,
        pending: &mut Vec<NocPacket>,
    ) -> Option<&mut crate::mem::MemPartitions> {
        match self {
            MemPartitions::None => {
                debug_assert!(pending.is_empty(), "packets without a memory system");
                pending.clear();
                None
            }
            MemPartitions::Cycle(m) => {
                m.inject(now, pending);
                Some(m)
            }
        }
    }
    /// Whether cycle `now` may run in the split order: [`MemPartitions::replies_half`] (beside
    /// the SMs of `now`), then [`MemPartitions::requests_half`] with their packets.
    fn split_ok(&self, now: Cycle) -> bool {
        match self {
            MemPartitions::None => true,
            MemPartitions::Cycle(m) => m.replies_first_ok(now),
        }
    }
    /// The first half of a split cycle: what reaches the SMs by `now`, in SM order.
    fn replies_half(&mut self, now: Cycle, replies: &mut Vec<NocPacket>) {
        if let MemPartitions::Cycle(m) = self {
            m.tick_replies(now, replies);
        }
    }
    /// The second half: the SMs' packets of `now` (merged, in order; refused ones stay in
    /// `pending`) enter the request crossbar, which steps.
    fn requests_half(&mut self, now: Cycle, pending: &mut Vec<NocPacket>) {
        if let Some(m) = self.inject(now, pending) {
            m.tick_requests();
        }
    }
    /// `ticks` cycles of clock domain `d` that fall in the current core cycle. The cycle memory
    /// system converts core cycles to its own domains inside `exchange` (it keeps per-domain
    /// clocks from `cfg.clocks`), so this hook only keeps the domain clocks advancing.
    fn tick(&mut self, _d: clocks::Domain, _ticks: u64) {
        match self {
            MemPartitions::None | MemPartitions::Cycle(_) => {}
        }
    }
    /// Lets the cycle memory system step its partitions in parallel (at least `min` busy).
    fn set_parallel(&mut self, on: bool, min: usize) {
        if let MemPartitions::Cycle(m) = self {
            m.set_parallel(on, min);
        }
    }
    fn next_event(&self) -> Option<Cycle> {
        match self {
            MemPartitions::None => None,
            MemPartitions::Cycle(m) => m.next_event(),
        }
    }
    fn is_idle(&self) -> bool {
        match self {
            MemPartitions::None => true,
            MemPartitions::Cycle(m) => m.is_idle(),
        }
    }
    fn warm(&mut self, addr: u64, bytes: u64) {
        if let MemPartitions::Cycle(m) = self {
            m.warm(addr, bytes);
        }
    }
    fn end_kernel(&mut self) {
        if let MemPartitions::Cycle(m) = self {
            m.end_kernel();
        }
    }
    /// Counters of the L2 slices, DRAM channels and crossbars (None for the analytical model).
    pub fn stats(&self) -> Option<crate::mem::PartitionStats> {
        match self {
            MemPartitions::None => None,
            MemPartitions::Cycle(m) => Some(m.stats()),
        }
    }
}

/// The whole GPU: SMs, block scheduler, memory partitions.
pub struct Gpu {
    pub cfg: GpuConfig,
    pub sms: Vec<Sm>,
    pub kernels: Vec<KernelCtx>,
    pub sched: BlockScheduler,
    /// Packs the CTAs of streams that hand them out decoded (`KernelStream::next_packed`).
    packer: Packer,
    /// CTAs with more warp instructions than this are kept packed; None: `trace::packed`'s
    /// budget rule (tests set 0 to pack every CTA).
    pub pack_above: Option<u64>,
    /// `fast` mode steps each SM on its own between CTA completions (`window.rs`); false:
    /// cycle by cycle (tests compare the two).
    pub windows: bool,
    pub clocks: ClockDomains,
    pub partitions: MemPartitions,
    pub executor: Executor,
    /// Fewest busy SMs for a parallel cycle (`PAR_MIN_BUSY_SMS`; tests lower it to 1 to
    /// fork on every cycle).
    pub par_min_busy: usize,
    /// Fewest busy memory partitions for their step to fork (`PAR_MIN_BUSY_PARTS`; tests lower
    /// it to 1).
    pub par_min_parts: usize,
    /// The thread pool of the parallel executor (None: rayon's global pool).
    #[cfg(feature = "parallel")]
    pub pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// Two threads or more: the crew that steps the SMs of each K = 1 cycle or window
    /// (`sync/crew.rs`; a rayon join costs too much once per cycle).
    #[cfg(feature = "parallel")]
    crew: Option<sync::Crew>,
    /// The next cycle to simulate.
    pub now: Cycle,
    last_progress: Cycle,
    /// Distinct code slots handed out (one per distinct kernel name).
    code_slots: Vec<String>,
    outbox: Vec<NocPacket>,
    replies: Vec<NocPacket>,
    /// Per SM, for the epoch being stepped: outbox and finished-CTA counts after each cycle,
    /// and the replies waiting for it.
    marks: Vec<EpochMarks>,
    /// Replies the memory side produces in the epoch it is running (per SM), handed to `marks`
    /// at the epoch's end.
    inbox_next: Inboxes,
    /// The SMs' packets and finished CTAs of the last epoch, for the memory side to run.
    staged: Staged,
    /// SMs that sent packets or finished CTAs in the epoch being stepped (scratch).
    senders: Vec<u32>,
    /// Forks of the SMs' step onto the pool so far (K > 1 epochs; see [`Gpu::exchanges`]).
    forks: u64,
    /// The request half of cycle `staged.t0` is staged and has not run yet (a crew, K = 1: it
    /// runs beside the next cycle's SMs); see
    /// `Gpu::finish_requests`.
    req_pending: bool,
    /// The SMs' wake cycles for the serial one-pass SM half (`run.rs`, `SmWakes`).
    wakes: run::SmWakes,
    /// Cycles per epoch (`features.epoch_cycles`, at least 1).
    pub epoch: u64,
    pub memcpys: u64,
    pub warnings: Vec<String>,
}

impl Gpu {
    pub fn new(cfg: GpuConfig, model: &ModelChoice) -> Result<Self> {
        model.validate()?;
        let mut cfg = cfg;
        if model.frontend == ModuleModel::Perfect {
            cfg.frontend.l0i.size_kb = 0;
            cfg.frontend.l1i.size_kb = 0;
        }
        if cfg.gpu.num_sms == 0 {
            return Err(Error::config("gpu.num_sms", "must be at least 1"));
        }
        if cfg.sm.subcores == 0 || cfg.sm.subcores > 16 {
            return Err(Error::config("sm.subcores", "must be 1..=16"));
        }
        if cfg.regfile.banks == 0 || cfg.regfile.banks > 64 {
            return Err(Error::config("regfile.banks", "must be 1..=64"));
        }
        if cfg.sm.max_warps == 0 || cfg.sm.max_warps > 1024 {
            return Err(Error::config("sm.max_warps", "must be 1..=1024"));
        }
        let cycle_mem = model.memory == ModuleModel::Cycle;
        let sms = (0..cfg.gpu.num_sms)
            .map(|i| {
                let mem = if cycle_mem {
                    SmMem::Cycle(Box::new(crate::mem::SmMemory::new(&cfg, i)?))
                } else {
                    SmMem::Analytic(AnalyticSmMem::new(&cfg.analytic))
                };
                let mut sm = Sm::new(i, &cfg, mem);
                sm.sh.p.analytic_alu = model.alu == ModuleModel::Analytical;
                sm.sh.p.analytic_frontend = model.frontend == ModuleModel::Analytical;
                Ok(sm)
            })
            .collect::<Result<Vec<_>>>()?;
        let partitions = if cycle_mem {
            MemPartitions::Cycle(Box::new(crate::mem::MemPartitions::try_new(&cfg)?))
        } else {
            MemPartitions::None
        };
        Ok(Gpu {
            clocks: ClockDomains::new(&cfg.clocks),
            sms,
            kernels: Vec::new(),
            sched: BlockScheduler::default(),
            packer: Packer::default(),
            pack_above: None,
            windows: true,
            partitions,
            executor: Executor::Serial,
            par_min_busy: PAR_MIN_BUSY_SMS,
            par_min_parts: crate::mem::partitions::PAR_MIN_BUSY_PARTS,
            #[cfg(feature = "parallel")]
            pool: None,
            #[cfg(feature = "parallel")]
            crew: None,
            now: 0,
            last_progress: 0,
            code_slots: Vec::new(),
            outbox: Vec::new(),
            replies: Vec::new(),
            marks: (0..cfg.gpu.num_sms)
                .map(|_| EpochMarks::default())
                .collect(),
            inbox_next: Inboxes {
                per_sm: vec![Vec::new(); cfg.gpu.num_sms as usize],
                filled: Vec::new(),
            },
            staged: Staged::default(),
            senders: Vec::new(),
            forks: 0,
            req_pending: false,
            wakes: run::SmWakes::default(),
            epoch: cfg.features.epoch_cycles.max(1) as u64,
            memcpys: 0,
            warnings: Vec::new(),
            cfg,
        })
    }

    /// MemcpyHtoD: the L2 warms the copied lines (its partitions on the executor's pool when
    /// parallel; the same lines in the same order per slice either way).
    fn warm(&mut self, addr: u64, bytes: u64) {
        let par = self.executor == Executor::Parallel;
        self.partitions.set_parallel(par, self.par_min_parts);
        #[cfg(feature = "parallel")]
        if let (true, Some(p)) = (par, &self.pool) {
            let parts = &mut self.partitions;
            p.install(|| parts.warm(addr, bytes));
            return;
        }
        self.partitions.warm(addr, bytes);
    }

    /// No packet in flight and no SM memory side with work left (after `finish_requests`).
    fn mem_idle(&self) -> bool {
        self.outbox.is_empty()
            && self.staged.is_empty()
            && self.marks.iter().all(|m| m.inbox.is_empty())
            && self.partitions.is_idle()
            && self.sms.iter().all(|sm| sm.sh.mem.next_event().is_none())
    }

    /// Earliest cycle after `now` at which anything can change.
    fn next_event(&self) -> Option<Cycle> {
        let now = self.now;
        let mut best = self.partitions.next_event();
        if !self.outbox.is_empty()
            || !self.staged.is_empty()
            || self.marks.iter().any(|m| !m.inbox.is_empty())
        {
            best = Some(now + 1);
        }
        let mut take = |c: Option<Cycle>| {
            if let Some(c) = c {
                best = Some(best.map_or(c, |b| b.min(c)));
            }
        };
        for sm in &self.sms {
            take(sm.next_event(now));
        }
        if self.sched.issuing.is_some() {
            take(Some(self.sched.ready_at.max(now + 1)));
            for sm in &self.sms {
                if sm.cta_ready_at > now {
                    take(Some(sm.cta_ready_at));
                }
            }
        }
        best
    }

    fn deadlock_report(&self) -> String {
        let ctx = StepCtx {
            kernels: &self.kernels,
        };
        let mut lines = vec![format!(
            "deadlock at cycle {}: no warp can make progress",
            self.now
        )];
        for sm in &self.sms {
            if let Some(d) = sm.describe_stuck(&ctx) {
                lines.push(d);
            }
            if lines.len() > 8 {
                break;
            }
        }
        if lines.len() == 1 {
            if let Some(l) = self.sched.issuing {
                let k = &self.kernels[l as usize];
                lines.push(format!(
                    "kernel `{}` has {} CTA(s) that no SM can take (occupancy {} per SM)",
                    k.info.name,
                    self.sched.ctas.len(),
                    k.max_ctas_per_sm
                ));
            }
        }
        lines.join("\n  ")
    }

    /// The exchanges between threads so far: forks onto the pool and jobs of the crew, each
    /// a point where one thread waits for others (0 on one thread; not part of
    /// the result, which is the same for any thread count). `bench/scaling.sh` predicts more
    /// threads' speed from it.
    pub fn exchanges(&self) -> u64 {
        #[cfg(feature = "parallel")]
        let joins = self.crew.as_ref().map_or(0, |p| p.joins);
        #[cfg(not(feature = "parallel"))]
        let joins = 0;
        self.forks + joins
    }

    /// Statistics of all SMs merged in SM order.
    pub fn merged_stats(&self) -> SmStats {
        let mut total = SmStats::new(self.cfg.sm.subcores as usize);
        for sm in &self.sms {
            total.merge(&sm.sh.stats);
        }
        total
    }
}

/// A simulation: a GPU fed by a trace source, driven in slices by the host.
pub struct Simulator<'a> {
    pub gpu: Gpu,
    pub model: ModelChoice,
    src: Box<dyn TraceSource + 'a>,
    /// The CTA stream of the kernel the block scheduler is issuing from.
    stream: Option<Box<dyn KernelStream + Send>>,
    commands: VecDeque<Command>,
    done_at: Option<Cycle>,
    trace_name: String,
    /// The source's hash, asked for when the first result is built (a source that executes
    /// as it streams knows it once it has run).
    trace_hash: std::sync::OnceLock<String>,
}

impl<'a> Simulator<'a> {
    pub fn new(cfg: GpuConfig, model: ModelChoice, src: Box<dyn TraceSource + 'a>) -> Result<Self> {
        let gpu = Gpu::new(cfg, &model)?;
        let commands: VecDeque<Command> = src.commands().iter().cloned().collect();
        let trace_name = src.name().to_string();
        for c in &commands {
            if let Command::Kernel { index } = c {
                if *index >= src.kernel_count() {
                    return Err(Error::parse(
                        &trace_name,
                        0,
                        "kernel",
                        format!(
                            "launch of kernel {index}, the trace has {}",
                            src.kernel_count()
                        ),
                    ));
                }
            }
        }
        Ok(Simulator {
            gpu,
            model,
            src,
            stream: None,
            commands,
            done_at: None,
            trace_name,
            trace_hash: std::sync::OnceLock::new(),
        })
    }

    /// Picks the executor (feature `parallel`); results are identical either way.
    pub fn set_executor(&mut self, e: Executor) {
        self.gpu.executor = e;
    }

    /// Steps the SMs on `threads` threads (0: all cores; 1: serial; always serial without the
    /// `parallel` feature, e.g. in wasm): this one and a crew of `threads - 1` owned for the
    /// whole run. Results are identical for any thread count.
    pub fn set_threads(&mut self, threads: usize) -> Result<()> {
        #[cfg(feature = "parallel")]
        {
            let n = if threads == 0 {
                std::thread::available_parallelism().map_or(1, |n| n.get())
            } else {
                threads
            };
            if n > sync::Crew::MAX_WORKERS {
                return Err(Error::other(format!(
                    "{n} threads: at most {} (and more than the cores only wait their turn)",
                    sync::Crew::MAX_WORKERS
                )));
            }
            if n > 1 {
                // K = 1: the pool's one worker runs the epoch loop (windows run it on the
                // calling thread, `run_slice`) and the crew steps the SMs with it
                // (`sync/crew.rs`); a join the pool itself is asked for (a cycle that cannot
                // split) runs its halves in turn. More workers would find no work, yet wake at
                // each `install` and `sched_yield` for dozens of rounds, taking turns with the
                // crew's spin on a machine with few cores (`perf sched`: up to tens of ms of a
                // 75 ms `fast` run). K > 1 epochs fork with rayon, on `n` workers.
                let workers = if self.gpu.epoch == 1 { 1 } else { n };
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .build()
                    .map_err(|e| Error::other(format!("thread pool of {n}: {e}")))?;
                self.gpu.pool = Some(std::sync::Arc::new(pool));
                self.gpu.crew = Some(
                    sync::Crew::new(n)
                        .map_err(|e| Error::other(format!("{} crew threads: {e}", n - 1)))?,
                );
                self.gpu.executor = Executor::Parallel;
                return Ok(());
            }
            self.gpu.pool = None;
            self.gpu.crew = None;
        }
        let _ = threads;
        self.gpu.executor = Executor::Serial;
        Ok(())
    }

    /// The next cycle to simulate.
    pub fn now(&self) -> Cycle {
        self.gpu.now
    }

    /// How far the run has come ([`RunProgress`]).
    pub fn progress(&self) -> RunProgress {
        RunProgress {
            cycle: self.gpu.now,
            warp_insts: self.gpu.sms.iter().map(|sm| sm.sh.stats.warp_insts).sum(),
            warp_insts_total: self.src.warp_insts_total(),
            ctas_done: self.gpu.sched.runs.iter().map(|r| r.ctas_done).sum(),
            ctas_total: (0..self.src.kernel_count())
                .map(|k| self.src.kernel_info(k).num_ctas())
                .sum(),
        }
    }

    /// Moves launch commands into the block scheduler's queue and starts eligible kernels.
    fn admit(&mut self) -> Result<bool> {
        let mut changed = false;
        while let Some(c) = self.commands.front() {
            match *c {
                Command::Kernel { index } => {
                    let stream = self.src.kernel_info(index).stream_id;
                    self.gpu.sched.enqueue(index, stream);
                }
                Command::MemcpyHtoD { addr, bytes } => {
                    self.gpu.memcpys += 1;
                    if self.gpu.cfg.l2.warm_from_memcpy {
                        self.gpu.warm(addr, bytes);
                    }
                }
            }
            self.commands.pop_front();
        }
        while let Some(i) = self
            .gpu
            .sched
            .next_eligible(self.gpu.cfg.sm.concurrent_kernels)
        {
            let (index, stream) = self.gpu.sched.dequeue(i).expect("index valid");
            let mut s = self.src.open_kernel_owned(index)?;
            self.gpu
                .start_kernel(s.info().clone(), s.ops(), index, stream)?;
            self.gpu.feed_ctas(&mut *s)?;
            self.stream = Some(s);
            changed = true;
        }
        self.feed()?;
        Ok(changed)
    }

    /// Keeps the block scheduler supplied with CTAs of the issuing kernel.
    fn feed(&mut self) -> Result<()> {
        feed(&mut self.gpu, &mut self.stream)
    }

    /// Runs at most `max_cycles` core cycles.
    pub fn run_for(&mut self, max_cycles: u64) -> Result<RunStatus> {
        let r = self.run_slice(max_cycles);
        // SMs defer the stall accounting of skipped cycles: settle it before anyone reads.
        for sm in &mut self.gpu.sms {
            sm.flush_idle();
        }
        r
    }

    fn run_slice(&mut self, max_cycles: u64) -> Result<RunStatus> {
        if let Some(c) = self.done_at {
            return Ok(RunStatus::Done { cycle: c });
        }
        let end = self.gpu.now.saturating_add(max_cycles);
        while self.gpu.now < end {
            let admitted = self.admit()?;
            // Epochs until the slice ends or a kernel waits to start (which needs `src`, on
            // this thread). With a private pool the loop runs on one of its workers, so every
            // fork is a local push and no epoch waits for this thread to be woken. Windows fork
            // only to the crew: the loop stays on this thread, whose
            // allocator already holds the pages the functional pre-pass freed (on a worker,
            // the first chunks' decode wrote fresh ones).
            #[cfg(feature = "parallel")]
            let pool = match self.gpu.executor {
                Executor::Parallel if self.gpu.has_crew() && self.gpu.windowed() => None,
                Executor::Parallel => self.gpu.pool.clone(),
                Executor::Serial => None,
            };
            let (gpu, stream) = (&mut self.gpu, &mut self.stream);
            let mut go = || run_epochs(gpu, stream, end, admitted);
            #[cfg(feature = "parallel")]
            let r = match pool {
                Some(p) => p.install(go),
                None => go(),
            };
            #[cfg(not(feature = "parallel"))]
            let r = go();
            match r? {
                Slice::Admit => {}
                Slice::Done(c) => {
                    self.done_at = Some(c);
                    return Ok(RunStatus::Done { cycle: c });
                }
                Slice::Deadlock(msg) => return Ok(RunStatus::Deadlock(msg)),
            }
        }
        Ok(RunStatus::Running {
            cycle: self.gpu.now,
        })
    }

    /// Runs every kernel to completion.
    pub fn run_to_end(&mut self) -> Result<SimResult> {
        loop {
            match self.run_for(1 << 20)? {
                RunStatus::Running { .. } => {}
                RunStatus::Done { .. } => return Ok(self.result()),
                RunStatus::Deadlock(msg) => return Err(Error::other(msg)),
            }
        }
    }

    /// The result so far (complete once `run_for` said `Done`).
    pub fn result(&self) -> SimResult {
        SimResult::build(
            &self.gpu,
            &self.model,
            &self.trace_name,
            self.trace_hash.get_or_init(|| self.src.trace_hash()),
            self.done_at.unwrap_or(self.gpu.now),
        )
    }
}
