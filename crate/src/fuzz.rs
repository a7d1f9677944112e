//! Fuzzing: every reader of untrusted bytes registers an entry point here. The same entry
//! points run under `cargo fuzz` (nightly, libFuzzer; `crate/fuzz/`) and under the seeded
//! mutation loop below, which needs only stable Rust.
//!
//! ```text
//!  TARGETS: name -> fn(&[u8]) (+ seed inputs)
//!     ├─ crate/fuzz/src/bin/<name>.rs   libfuzzer_sys::fuzz_target!(|d| warpweave::fuzz::run("<name>", d))
//!     └─ mutation_loop(target, iterations, seed)   (tests: a short run always, a long one --ignored)
//! ```
//! Adding a target: one line in [`TARGETS`] and a two-line file in `crate/fuzz/src/bin/`
//! (see `crate/fuzz/README.md`).

use crate::trace::accelsim::fuzz as accelsim;

/// A fuzz target: a name, the entry point, and seed inputs for the mutation loop.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
    pub seeds: fn() -> Vec<Vec<u8>>,
}

/// Every fuzz target of the crate.
pub static TARGETS: &[Target] = &[
    Target {
        name: "accelsim_text",
        run: accelsim::fuzz_text_trace,
        seeds: accelsim::seeds_text,
    },
    Target {
        name: "accelsim_raw",
        run: accelsim::fuzz_raw_trace,
        seeds: accelsim::seeds_raw,
    },
    Target {
        name: "kernelslist",
        run: accelsim::fuzz_kernelslist,
        seeds: accelsim::seeds_kernelslist,
    },
    Target {
        name: "compact",
        run: crate::trace::compact::fuzz_compact,
        seeds: crate::trace::compact::fuzz_seeds,
    },
    Target {
        name: "config",
        run: crate::config::fuzz_config,
        seeds: crate::config::fuzz_seeds,
    },
    Target {
        name: "sass_listing",
        run: crate::exec::fuzz::fuzz_sass,
        seeds: crate::exec::fuzz::seeds_sass,
    },
    Target {
        name: "launch_spec",
        run: crate::exec::fuzz::fuzz_launch,
        seeds: crate::exec::fuzz::seeds_launch,
    },
    Target {
        name: "sweep_plan",
        run: crate::sweep::plan::fuzz_plan,
        seeds: crate::sweep::plan::fuzz_seeds,
    },
];

/// Runs the target called `name` on `data` (what the cargo-fuzz binaries call).
pub fn run(name: &str, data: &[u8]) {
    match TARGETS.iter().find(|t| t.name == name) {
        Some(t) => (t.run)(data),
        None => panic!("no fuzz target named {name}"),
    }
}

/// SplitMix64: a tiny seeded generator, so runs are reproducible.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Tokens that matter to the text readers; mutations splice them in.
const DICT: &[&[u8]] = &[
    b"#BEGIN_TB\n",
    b"#END_TB\n",
    b"warp = ",
    b"insts = ",
    b"thread block = ",
    b"0x",
    b" 0 ",
    b" 1 ",
    b" 2 ",
    b"ffffffff",
    b"00000000",
    b"-accelsim tracer version = 5\n",
    b"-enable lineinfo = 1\n",
    b"4294967295",
    b"-1",
    b"LDGSTS.E",
    b"\n",
    b"R255",
    b"UR4",
    b"-block dim = (32,1,1)\n",
    b"-grid dim = (2,1,1)\n",
    b"MemcpyHtoD,",
    b"kernel-1.traceg",
    b",",
    b"(",
    b")",
    b"=",
];

/// One random mutation of `d`, at most `max_len` long.
pub fn mutate(rng: &mut Rng, d: &mut Vec<u8>, max_len: usize) {
    match rng.below(8) {
        0 if !d.is_empty() => {
            let i = rng.below(d.len());
            d[i] ^= 1 << rng.below(8);
        }
        1 if !d.is_empty() => {
            let i = rng.below(d.len());
            d[i] = b"0123456789abcdefxR-=, \n#.()"[rng.below(27)];
        }
        2 if !d.is_empty() => {
            let i = rng.below(d.len());
            let n = 1 + rng.below(16.min(d.len() - i));
            d.drain(i..i + n);
        }
        3 if !d.is_empty() => {
            let i = rng.below(d.len());
            let n = 1 + rng.below(64.min(d.len() - i));
            let chunk = d[i..i + n].to_vec();
            let at = rng.below(d.len() + 1);
            d.splice(at..at, chunk);
        }
        4 => {
            let t = DICT[rng.below(DICT.len())];
            let at = rng.below(d.len() + 1);
            d.splice(at..at, t.iter().copied());
        }
        5 => {
            // Swap two lines.
            let lines: Vec<Vec<u8>> = d.split(|&c| c == b'\n').map(|l| l.to_vec()).collect();
            if lines.len() > 2 {
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                let mut lines = lines;
                lines.swap(a, b);
                *d = lines.join(&b'\n');
            }
        }
        6 if !d.is_empty() => {
            let n = rng.below(d.len());
            d.truncate(n);
        }
        _ => {
            // Replace a number with an extreme one.
            let t: &[u8] = [
                &b"0"[..],
                b"1",
                b"31",
                b"32",
                b"65535",
                b"18446744073709551615",
                b"99999999999999999999",
            ][rng.below(7)];
            if let Some(i) = (0..d.len())
                .map(|_| rng.below(d.len().max(1)))
                .find(|&i| d.get(i).is_some_and(u8::is_ascii_digit))
            {
                let mut e = i;
                while e < d.len() && d[e].is_ascii_digit() {
                    e += 1;
                }
                d.splice(i..e, t.iter().copied());
            }
        }
    }
    d.truncate(max_len);
}

/// Runs `iterations` mutated inputs through `t`, starting from its seeds. On a panic, prints
/// the input that caused it (escaped) and re-raises. Returns the number of inputs tried.
pub fn mutation_loop(t: &Target, iterations: u64, seed: u64) -> u64 {
    let seeds = (t.seeds)();
    let mut rng = Rng::new(seed);
    for i in 0..iterations {
        let mut d = seeds[rng.below(seeds.len())].clone();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut d, 1 << 16);
        }
        let r = std::panic::catch_unwind(|| (t.run)(&d));
        if let Err(p) = r {
            eprintln!(
                "fuzz target {} panicked at iteration {i} (seed {seed}) on input:\n{}",
                t.name,
                d.escape_ascii()
            );
            std::panic::resume_unwind(p);
        }
    }
    iterations
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_run_clean_and_a_short_mutation_run_finds_nothing() {
        for t in TARGETS {
            for s in (t.seeds)() {
                (t.run)(&s);
            }
            assert_eq!(mutation_loop(t, 300, 7), 300);
        }
    }

    /// The long run: `FUZZ_ITERS=200000 cargo test -p warpweave --lib fuzz_mutation_loop -- --ignored`,
    /// or `FUZZ_SECS=60` for a time per target instead (rounds of 1000 inputs, each round's
    /// seed the next one, so a failure names the seed that reproduces it).
    #[test]
    #[ignore]
    fn fuzz_mutation_loop() {
        let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
        let iters = env("FUZZ_ITERS").unwrap_or(20_000);
        let seed = env("FUZZ_SEED").unwrap_or(1);
        for t in TARGETS {
            let start = std::time::Instant::now();
            let n = match env("FUZZ_SECS") {
                Some(secs) => {
                    let mut n = 0;
                    let mut round = seed;
                    while start.elapsed().as_secs() < secs {
                        n += mutation_loop(t, 1000, round);
                        round += 1;
                    }
                    n
                }
                None => mutation_loop(t, iters, seed),
            };
            eprintln!(
                "{}: {n} inputs in {:.1} s",
                t.name,
                start.elapsed().as_secs_f64()
            );
        }
    }

    #[test]
    fn the_rng_is_deterministic() {
        let mut a = Rng::new(5);
        let mut b = Rng::new(5);
        let va: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va[0], va[1]);
    }
}
