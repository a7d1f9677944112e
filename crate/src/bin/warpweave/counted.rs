//! A trace source that counts the CTAs it hands out, for the progress of a pass that pulls CTAs
//! without a simulator's own progress (`convert`, `run --mode memory`, the functional pre-pass
//! of an analytical memory path). It wraps an owned source (`Box`) or a borrowed one (`&mut`). Everything else is the inner source's: the same CTAs in the same
//! order, so results are unchanged. The bar goes when the source does.

use std::ops::DerefMut;
use std::sync::Arc;

use warpweave::trace::model::{Command, CtaTrace, KernelInfo, KernelStream, OpTable, PrefetchHalf};
use warpweave::trace::packed::{PackedCta, Packer};
use warpweave::trace::TraceSource;
use warpweave::Result;

use crate::progress::Progress;

pub struct Counted<S: DerefMut<Target: TraceSource>> {
    inner: S,
    bar: Arc<Progress>,
}

impl<S: DerefMut<Target: TraceSource>> Counted<S> {
    /// `inner` with a bar (`what`: `run`, `pre-pass`, `converting`) over all its kernels' CTAs.
    pub fn new(inner: S, what: &str, quiet: bool) -> Self {
        let total = (0..inner.kernel_count())
            .map(|k| inner.kernel_info(k).grid.count())
            .sum();
        Counted {
            inner,
            bar: Arc::new(Progress::new(what, total, "CTAs", quiet)),
        }
    }

    /// The bar (to print beside it or finish it early).
    pub fn bar(&self) -> &Progress {
        &self.bar
    }
}

impl<S: DerefMut<Target: TraceSource>> Drop for Counted<S> {
    fn drop(&mut self) {
        self.bar.finish();
    }
}

impl<S: DerefMut<Target: TraceSource>> TraceSource for Counted<S> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn commands(&self) -> &[Command] {
        self.inner.commands()
    }
    fn kernel_count(&self) -> usize {
        self.inner.kernel_count()
    }
    fn kernel_info(&self, k: usize) -> &KernelInfo {
        self.inner.kernel_info(k)
    }
    fn open_kernel(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send + '_>> {
        let bar = self.bar.clone();
        Ok(Box::new(CountedStream {
            inner: self.inner.open_kernel(k)?,
            bar,
        }))
    }
    fn open_kernel_owned(&mut self, k: usize) -> Result<Box<dyn KernelStream + Send>> {
        Ok(Box::new(CountedStream {
            inner: self.inner.open_kernel_owned(k)?,
            bar: self.bar.clone(),
        }))
    }
    fn trace_hash(&self) -> String {
        self.inner.trace_hash()
    }
}

struct CountedStream<'a> {
    inner: Box<dyn KernelStream + Send + 'a>,
    bar: Arc<Progress>,
}

impl CountedStream<'_> {
    fn count<T>(&self, got: &Option<T>) {
        if got.is_some() && self.bar.shown() {
            self.bar.inc("");
        }
    }
}

impl KernelStream for CountedStream<'_> {
    fn info(&self) -> &KernelInfo {
        self.inner.info()
    }
    fn ops(&self) -> &OpTable {
        self.inner.ops()
    }
    fn next_cta(&mut self) -> Result<Option<CtaTrace>> {
        let c = self.inner.next_cta()?;
        self.count(&c);
        Ok(c)
    }
    fn next_packed(&mut self, pk: &mut Packer, above: u64) -> Result<Option<PackedCta>> {
        let c = self.inner.next_packed(pk, above)?;
        self.count(&c);
        Ok(c)
    }
    fn will_pack(&mut self, above: u64) {
        self.inner.will_pack(above)
    }
    fn recycle(&mut self, cta: PackedCta) {
        self.inner.recycle(cta)
    }
    fn prefetch(&mut self) {
        self.inner.prefetch()
    }
    fn prefetch_pair(&mut self) -> Option<[PrefetchHalf<'_>; 2]> {
        self.inner.prefetch_pair()
    }
    fn has_decoded(&self) -> bool {
        self.inner.has_decoded()
    }
    fn keep_only(&mut self, keep: &[bool]) -> bool {
        self.inner.keep_only(keep)
    }
}
