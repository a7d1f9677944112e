//! How the process asks the host for threads ([`cap_threads`]) and memory (page size: Linux
//! only; elsewhere nothing changes).
//!
//! Transparent huge pages stay on, as mimalloc asks for them, except on a virtual machine whose
//! balloon device reports free pages to the host (virtio-balloon `VIRTIO_BALLOON_F_REPORTING`).
//! There the guest hands every free 2 MB block back to the host about two seconds after it is
//! freed, and the first touch of such a block as a huge page faults on the host 512 times, in
//! the guest's `clear_page`. A run started a few seconds after the last one (how a user runs
//! the CLI) then spent 0.1-0.2 s more in the kernel: vecadd-1m `fast` at two threads 0.123 s
//! against 0.081 s with 4 KB pages, reduction-256k `hybrid` at two threads 0.21 s against
//! 0.10 s (bench/README.md). 4 KB pages cost runs back to back on such a machine 2-8%
//! (more TLB misses), so they are kept where no balloon takes memory back.
//!
//! `MIMALLOC_ALLOW_THP` set in the environment decides instead (mimalloc reads it: `0` off,
//! `1` on).

/// The virtio device id of a memory balloon.
#[cfg(target_os = "linux")]
const BALLOON_DEVICE: &str = "0x0005";
/// `VIRTIO_BALLOON_F_REPORTING`: the balloon takes back free pages the guest reports.
#[cfg(target_os = "linux")]
const F_REPORTING: usize = 5;

/// Turns transparent huge pages off for this process where a balloon takes free memory back
/// (see the module docs). Call first: pages already faulted in keep their size.
pub fn choose_page_size() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() && balloon_reports_free_pages() {
        // SAFETY: PR_SET_THP_DISABLE takes integer arguments and changes only how later page
        // faults of this process are served. A kernel without it returns an error, ignored:
        // pages then stay as they were.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
        }
    }
}

/// Whether a virtio balloon device with free page reporting is bound (its `features` file is
/// one character per feature bit, bit 0 first).
#[cfg(target_os = "linux")]
fn balloon_reports_free_pages() -> bool {
    let Ok(dir) = std::fs::read_dir("/sys/bus/virtio/devices") else {
        return false;
    };
    dir.flatten().any(|d| {
        let p = d.path();
        let read = |f: &str| std::fs::read_to_string(p.join(f)).unwrap_or_default();
        read("device").trim() == BALLOON_DEVICE
            && read("features").as_bytes().get(F_REPORTING) == Some(&b'1')
    })
}

/// `n` threads (`flag` on the command line; 0: all cores) capped at the cores available, with a
/// note on stderr when capped: more threads than cores only wait their turn (10,000 of them
/// took minutes to start, and their stacks the memory). Results are the same for any count.
pub fn cap_threads(n: usize, flag: &str) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if n > cores {
        eprintln!(
            "note: {flag} {n} is more than the {cores} core{} available; using {cores}",
            if cores == 1 { "" } else { "s" }
        );
        return cores;
    }
    n
}
