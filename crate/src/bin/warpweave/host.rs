//! How the process asks the host for threads ([`cap_threads`]).

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
