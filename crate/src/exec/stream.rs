//! The executed stream as a [`TraceSource`] that executes CTA by CTA as the engine pulls them.
//!
//! ```text
//!  ExecSource (commands, kernel headers) ── open_kernel_owned(k) ──> ExecKernelStream k ─┐
//!        └───────────── Arc<Mutex<Executor>>: device, position (launch, CTA) <───────────┘
//!  next_cta of launch k: a CTA executed earlier for k (queued), else the executor runs the
//!  next CTA in global order (launch by launch, CTAs in grid order) until one of k comes out
//! ```
//!
//! Pulled in order (as the engine pulls a kernel's CTAs, one launch after the other), every
//! CTA is executed just before it is simulated and dropped after, so memory stays bounded
//! whatever the grid. A launch opened before the ones ahead of it are drained makes the
//! executor run those first, queuing their CTAs for their own streams: launch `n + 1` always
//! sees the memory launch `n` left. A launch's shared memory size (its header's
//! `shmem_bytes`) is what the CTAs executed when its stream opens touched (its first CTA),
//! or the spec's `shared` when larger.
//!
//! The trace hash is the content hash of the executed stream ([`MemTrace`]'s), accumulated as
//! CTAs execute; asked before the executor is done, it is computed by a separate execution.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use super::{cta, memory, Device, LaunchSpec, Program};
use crate::trace::model::{
    Command, CtaTrace, Fnv64, KernelInfo, KernelStream, KernelTrace, MemTrace, OpTable, TraceSource,
};
use crate::workload::builder::{LOCAL_BASE, SHMEM_BASE};
use crate::{Error, Result};

/// Executes a spec's launches CTA by CTA, in order.
pub struct Executor {
    prog: Arc<Program>,
    spec: Arc<LaunchSpec>,
    pub device: Device,
    /// The spec's launch of each launch executed or being executed (a repeated launch once
    /// per repetition).
    pub plan: Vec<usize>,
    /// The spec's launch being executed (`spec.launches.len()` when all are done), its
    /// repetitions so far and its next CTA.
    cur: usize,
    iter: u32,
    cta: u64,
    cbank: Vec<u8>,
    /// The user constant banks: the program's, with the spec's `[[constant]]` written over.
    banks: BTreeMap<u8, Vec<u8>>,
    /// Highest shared byte + 1 touched by each launch's CTAs so far.
    shared_hi: Vec<usize>,
    /// Warp instructions and addresses per warp of the last CTA (capacity hints).
    reserve: (usize, usize),
    hash: Fnv64,
    /// Warp instructions executed, and seconds spent executing them (not measured in a
    /// browser).
    pub warp_insts: u64,
    pub secs: f64,
    failed: Option<String>,
}

impl Executor {
    pub fn new(prog: Arc<Program>, spec: Arc<LaunchSpec>) -> Result<Executor> {
        for l in &spec.launches {
            prog.kernel(&l.kernel)?;
        }
        let mut banks = prog.banks.clone();
        for c in &spec.constants {
            let b = banks.entry(c.bank).or_default();
            let end = c.offset as usize + c.bytes.len();
            if b.len() < end {
                b.resize(end, 0);
            }
            b[c.offset as usize..end].copy_from_slice(&c.bytes);
        }
        Ok(Executor {
            banks,
            device: Device::new(&spec)?,
            shared_hi: Vec::new(),
            prog,
            spec,
            plan: Vec::new(),
            cur: 0,
            iter: 0,
            cta: 0,
            cbank: Vec::new(),
            reserve: (0, 0),
            hash: Fnv64::new(),
            warp_insts: 0,
            secs: 0.0,
            failed: None,
        })
    }

    /// True when every launch has run.
    pub fn done(&self) -> bool {
        self.cur >= self.spec.launches.len()
    }

    /// The launch (index into [`Executor::plan`]) the next step executes a CTA of.
    fn next_launch(&self) -> usize {
        if self.cta == 0 {
            self.plan.len()
        } else {
            self.plan.len() - 1
        }
    }

    /// Executes the next CTA in global order; `None` when every launch has run.
    pub fn step(&mut self) -> Result<Option<(usize, CtaTrace)>> {
        if let Some(m) = &self.failed {
            return Err(Error::other(m.clone()));
        }
        let r = self.step_inner();
        if let Err(e) = &r {
            self.failed = Some(e.to_string());
        }
        r
    }

    fn step_inner(&mut self) -> Result<Option<(usize, CtaTrace)>> {
        let spec = self.spec.clone();
        let Some(l) = spec.launches.get(self.cur) else {
            return Ok(None);
        };
        let prog = self.prog.clone();
        let k = prog.kernel(&l.kernel)?;
        if self.cta == 0 {
            self.plan.push(self.cur);
            self.shared_hi.push(0);
            self.cbank = memory::const_bank(l, &self.device, binary_version(k.binary_version));
            self.hash.write(k.name.as_bytes());
        }
        let ctx = cta::LaunchCtx {
            k,
            cbank: &self.cbank,
            banks: &self.banks,
            grid: l.grid,
            block: l.block,
            reserve: self.reserve,
        };
        #[cfg(not(target_arch = "wasm32"))]
        let started = std::time::Instant::now();
        let (t, sh) = cta::Cta::new(&ctx, &mut self.device, self.cta).run()?;
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.secs += started.elapsed().as_secs_f64();
        }
        let n = self.plan.len() - 1;
        self.shared_hi[n] = self.shared_hi[n].max(sh);
        self.reserve = t.warps.iter().fold((0, 0), |(i, a), w| {
            (i.max(w.insts.len()), a.max(w.addrs.len()))
        });
        for w in &t.warps {
            self.warp_insts += w.insts.len() as u64;
            for i in &w.insts {
                self.hash.write_u64(((i.pc as u64) << 32) | i.mask as u64);
                self.hash.write(k.ops.get(i.op).name.as_bytes());
            }
            for a in &w.addrs {
                self.hash.write_u64(*a);
            }
        }
        self.cta += 1;
        if self.cta >= l.grid.count() {
            self.cta = 0;
            self.end_launch(l, &k.name)?;
        }
        Ok(Some((n, t)))
    }

    /// After the last CTA of a launch: the next spec launch, or the same one again while its
    /// flag buffer is set (after the swaps and clears it asks for).
    fn end_launch(&mut self, l: &super::Launch, kernel: &str) -> Result<()> {
        let Some(r) = &l.repeat else {
            self.cur += 1;
            return Ok(());
        };
        self.iter += 1;
        let flag = &self.device.bufs[r.until_zero].data;
        if flag.iter().all(|&b| b == 0) {
            self.cur += 1;
            self.iter = 0;
            return Ok(());
        }
        if self.iter >= r.max_iterations {
            return Err(super::launch::key_error(
                &r.file,
                &format!("{}.max_iterations", r.key),
                format!(
                    "{kernel} launched {} times and the flag buffer \"{}\" is still not zero",
                    self.iter, self.spec.buffers[r.until_zero].name
                ),
            ));
        }
        let bufs = &mut self.device.bufs;
        for &(a, b) in &r.swap {
            let da = std::mem::take(&mut bufs[a].data);
            bufs[a].data = std::mem::replace(&mut bufs[b].data, da);
        }
        for &z in &r.zero {
            bufs[z].data.fill(0);
        }
        Ok(())
    }

    /// Runs every launch to the end, dropping the CTAs' traces.
    pub fn finish(&mut self) -> Result<()> {
        while self.step()?.is_some() {}
        Ok(())
    }

    /// The content hash of the executed stream (complete once [`Executor::done`]).
    pub fn hash(&self) -> String {
        self.hash.hex()
    }

    /// The header of launch `n`, its shared memory as executed so far.
    pub fn info(&self, n: usize) -> KernelInfo {
        let l = &self.spec.launches[self.plan[n]];
        let k = self.prog.kernel(&l.kernel).expect("checked in new");
        KernelInfo {
            name: k.name.clone(),
            id: n as u32 + 1,
            grid: l.grid,
            block: l.block,
            shmem_bytes: (l.shared as usize).max(self.shared_hi[n].div_ceil(256) * 256) as u32,
            nregs: k.nregs,
            binary_version: binary_version(k.binary_version),
            stream_id: 0,
            shmem_base: SHMEM_BASE,
            local_base: LOCAL_BASE,
            nvbit_version: "warpweave-exec".to_string(),
            tracer_version: 4,
            lineinfo: false,
            extra: Vec::new(),
            ctrl_source: k.ctrl_source,
        }
    }

    /// The opcode table of launch `n`'s kernel.
    pub fn ops(&self, n: usize) -> OpTable {
        let l = &self.spec.launches[self.plan[n]];
        self.prog
            .kernel(&l.kernel)
            .expect("checked in new")
            .ops
            .clone()
    }
}

/// A listing's binary version, sm_80 where it names none.
fn binary_version(v: u32) -> u32 {
    if v == 0 {
        80
    } else {
        v
    }
}

/// The executor and the CTAs it ran ahead for launches not yet drained.
struct Shared {
    ex: Executor,
    queued: Vec<VecDeque<CtaTrace>>,
}

impl Shared {
    /// The next CTA of launch `k`.
    fn next(&mut self, k: usize) -> Result<Option<CtaTrace>> {
        if let Some(c) = self.queued[k].pop_front() {
            return Ok(Some(c));
        }
        while !self.ex.done() && self.ex.next_launch() <= k {
            match self.ex.step()? {
                Some((n, c)) if n == k => return Ok(Some(c)),
                Some((n, c)) => self.queued[n].push_back(c),
                None => break,
            }
        }
        Ok(None)
    }
}

/// A handle on a source's executor: the buffers, counts and time once the run is over.
#[derive(Clone)]
pub struct ExecHandle(Arc<Mutex<Shared>>);

impl ExecHandle {
    /// Runs whatever the simulation did not pull (a run stopped early), then gives `f` the
    /// executor.
    pub fn finish<T>(&self, f: impl FnOnce(&Executor) -> T) -> Result<T> {
        let mut s = lock(&self.0);
        s.ex.finish()?;
        Ok(f(&s.ex))
    }
}

fn lock(m: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A kernel executed from SASS, streamed to the engine CTA by CTA ([module docs](self)).
pub struct ExecSource {
    name: String,
    commands: Vec<Command>,
    infos: Vec<KernelInfo>,
    shared: Arc<Mutex<Shared>>,
    prog: Arc<Program>,
    spec: Arc<LaunchSpec>,
    hash: OnceLock<String>,
}

impl ExecSource {
    /// The launches of `spec` on `prog`; `name` names the trace (the listing).
    pub fn new(prog: Arc<Program>, spec: Arc<LaunchSpec>, name: &str) -> Result<ExecSource> {
        let mut ex = Executor::new(prog.clone(), spec.clone())?;
        let mut commands = ex.device.copies();
        // How often a repeated launch runs is known once it has: a first execution finds out.
        let hash = OnceLock::new();
        let plan = if spec.launches.iter().any(|l| l.repeat.is_some()) {
            let mut dry = Executor::new(prog.clone(), spec.clone())?;
            dry.finish()?;
            let _ = hash.set(dry.hash());
            dry.plan
        } else {
            (0..spec.launches.len()).collect()
        };
        commands.extend((0..plan.len()).map(|index| Command::Kernel { index }));
        ex.plan = plan.clone();
        ex.shared_hi = vec![0; plan.len()];
        let infos = (0..plan.len()).map(|n| ex.info(n)).collect();
        ex.plan.clear();
        ex.shared_hi.clear();
        let launches = plan.len();
        Ok(ExecSource {
            name: name.to_string(),
            commands,
            infos,
            shared: Arc::new(Mutex::new(Shared {
                queued: vec![VecDeque::new(); launches],
                ex,
            })),
            prog,
            spec,
            hash,
        })
    }

    /// Decodes `listing` (named `listing_name` in errors) and parses the launch spec text
    /// `spec` (named `spec_name`; `file` inits relative to `dir`): the entry point for a
    /// listing and a spec held as text. `kernel` names the kernel when the spec names none.
    pub fn from_text(
        listing: &str,
        listing_name: &str,
        spec: &str,
        spec_name: &str,
        dir: &std::path::Path,
        kernel: Option<&str>,
        default_arch: crate::trace::opcodes::Arch,
    ) -> Result<ExecSource> {
        let spec = LaunchSpec::parse(spec, spec_name, dir, kernel)?;
        let prog = Program::from_listing(listing, listing_name, default_arch)?;
        ExecSource::new(Arc::new(prog), Arc::new(spec), listing_name)
    }

    /// The executor's handle (buffers, counts, time).
    pub fn handle(&self) -> ExecHandle {
        ExecHandle(self.shared.clone())
    }
}

impl TraceSource for ExecSource {
    fn name(&self) -> &str {
        &self.name
    }
    fn commands(&self) -> &[Command] {
        &self.commands
    }
    fn kernel_count(&self) -> usize {
        self.infos.len()
    }
    fn kernel_info(&self, k: usize) -> &KernelInfo {
        &self.infos[k]
    }
    fn open_kernel(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send + '_>> {
        self.open_kernel_owned(k)
    }
    fn open_kernel_owned(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send>> {
        let (info, ops) = {
            let mut s = lock(&self.shared);
            // The first CTA executed gives the launch's shared memory size.
            if s.queued[k].is_empty() {
                if let Some(c) = s.next(k)? {
                    s.queued[k].push_front(c);
                }
            }
            (s.ex.info(k), s.ex.ops(k))
        };
        Ok(Box::new(ExecKernelStream {
            info,
            ops,
            k,
            shared: self.shared.clone(),
        }))
    }
    fn trace_hash(&self) -> String {
        if let Some(h) = self.hash.get() {
            return h.clone();
        }
        {
            let s = lock(&self.shared);
            if s.ex.done() {
                return s.ex.hash();
            }
        }
        self.hash
            .get_or_init(|| {
                Executor::new(self.prog.clone(), self.spec.clone())
                    .and_then(|mut ex| ex.finish().map(|()| ex.hash()))
                    .unwrap_or_else(|e| format!("unexecutable: {e}"))
            })
            .clone()
    }
}

/// One launch's CTAs, executed as pulled.
pub struct ExecKernelStream {
    info: KernelInfo,
    ops: OpTable,
    k: usize,
    shared: Arc<Mutex<Shared>>,
}

impl KernelStream for ExecKernelStream {
    fn info(&self) -> &KernelInfo {
        &self.info
    }
    fn ops(&self) -> &OpTable {
        &self.ops
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        lock(&self.shared).next(self.k)
    }
}

/// Executes every launch into memory: the whole executed stream and the final buffers.
pub fn execute_all(prog: &Program, spec: &LaunchSpec, name: &str) -> Result<super::Executed> {
    let mut ex = Executor::new(Arc::new(prog.clone()), Arc::new(spec.clone()))?;
    let mut commands = ex.device.copies();
    let mut ctas: Vec<Vec<CtaTrace>> = Vec::new();
    while let Some((n, c)) = ex.step()? {
        if ctas.len() <= n {
            ctas.resize_with(n + 1, Vec::new);
        }
        ctas[n].push(c);
    }
    let mut kernels = Vec::with_capacity(ctas.len());
    for (n, ctas) in ctas.into_iter().enumerate() {
        commands.push(Command::Kernel { index: n });
        kernels.push(KernelTrace {
            info: ex.info(n),
            ops: ex.ops(n),
            ctas,
        });
    }
    Ok(super::Executed {
        trace: MemTrace {
            name: name.to_string(),
            commands,
            kernels,
        },
        device: ex.device,
        spec: spec.clone(),
    })
}
