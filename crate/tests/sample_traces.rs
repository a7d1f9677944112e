//! Every trace in `sample-traces/` regenerates from its `MANIFEST.toml` entry: text folders byte
//! for byte; compact files byte for byte when built with `native-zstd` (the encoder the CLI
//! uses), else by decoded content and content hash (the pure-Rust zstd encoder writes other
//! bytes for the same content).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use warpweave::trace::compact::CompactReader;
use warpweave::trace::model::{MemTrace, TraceSource};
use warpweave::workload::{self, output, Params};

#[derive(Deserialize)]
struct Manifest {
    trace: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    path: String,
    workload: String,
    params: Vec<String>,
    format: String,
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../sample-traces")
}

fn manifest() -> Manifest {
    let text = std::fs::read_to_string(samples().join("MANIFEST.toml"))
        .expect("sample-traces/MANIFEST.toml");
    toml::from_str(&text).expect("MANIFEST.toml parses")
}

/// Same trace, field by field (OpTable has no PartialEq: compare op names per instruction).
fn assert_same(a: &MemTrace, b: &MemTrace, what: &str) {
    assert_eq!(a.commands, b.commands, "{what}: commands");
    assert_eq!(a.kernels.len(), b.kernels.len(), "{what}: kernels");
    for (ka, kb) in a.kernels.iter().zip(&b.kernels) {
        assert_eq!(ka.info, kb.info, "{what}: kernel header");
        assert_eq!(ka.ctas.len(), kb.ctas.len(), "{what}: CTAs");
        for (ca, cb) in ka.ctas.iter().zip(&kb.ctas) {
            assert_eq!(ca.id, cb.id);
            for (wa, wb) in ca.warps.iter().zip(&cb.warps) {
                assert_eq!(wa.addrs, wb.addrs, "{what}: addresses");
                assert_eq!(wa.insts.len(), wb.insts.len(), "{what}: instructions");
                for (ia, ib) in wa.insts.iter().zip(&wb.insts) {
                    assert_eq!(
                        ka.ops.get(ia.op),
                        kb.ops.get(ib.op),
                        "{what}: opcode at pc {:#x}",
                        ia.pc
                    );
                    let (mut xa, mut xb) = (*ia, *ib);
                    xa.op = Default::default();
                    xb.op = Default::default();
                    assert_eq!(xa, xb, "{what}: instruction at pc {:#x}", ia.pc);
                }
            }
        }
    }
}

#[test]
fn sample_traces_regenerate_exactly() {
    let m = manifest();
    assert!(m.trace.len() >= 20);
    let tmp = std::env::temp_dir().join(format!("warpweave-samples-{}", std::process::id()));
    let mut total = 0u64;
    for e in &m.trace {
        let committed = samples().join(&e.path);
        let mut t = workload::generate(&e.workload, &Params::parse(&e.params).unwrap()).unwrap();
        let out = tmp.join(&e.path);
        match e.format.as_str() {
            "text" => {
                let files = output::text_files(&t).unwrap();
                std::fs::create_dir_all(&out).unwrap();
                for (name, bytes) in &files {
                    std::fs::write(out.join(name), bytes).unwrap();
                }
                let mut on_disk: Vec<String> = std::fs::read_dir(&committed)
                    .unwrap_or_else(|err| panic!("{}: {err}", committed.display()))
                    .map(|d| d.unwrap().file_name().to_string_lossy().into_owned())
                    .collect();
                on_disk.sort();
                let mut made: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
                made.sort();
                assert_eq!(on_disk, made, "{}: files", e.path);
                for (name, _) in &files {
                    let a = std::fs::read(out.join(name)).unwrap();
                    let b = std::fs::read(committed.join(name)).unwrap();
                    total += b.len() as u64;
                    assert!(a == b, "{}/{name} differs from its regeneration", e.path);
                }
            }
            "compact" => {
                let old = std::fs::read(&committed)
                    .unwrap_or_else(|err| panic!("{}: {err}", committed.display()));
                total += old.len() as u64;
                assert!(
                    old.len() < 1 << 20,
                    "{}: {} bytes, over the 1 MiB budget",
                    e.path,
                    old.len()
                );
                if cfg!(feature = "native-zstd") {
                    let bytes = output::compact_bytes(&mut t).unwrap();
                    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
                    std::fs::write(&out, &bytes).unwrap();
                    let fresh = std::fs::read(&out).unwrap();
                    assert!(fresh == old, "{} differs from its regeneration", e.path);
                }
                let mut rd = CompactReader::from_slice(&old, &e.path).unwrap();
                assert_eq!(rd.trace_hash(), t.trace_hash(), "{}: content hash", e.path);
                let back = MemTrace::collect(&mut rd).unwrap();
                assert_same(&back, &t, &e.path);
            }
            f => panic!("{}: unknown format {f}", e.path),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        total < 8 << 20,
        "sample-traces total {total} bytes, over the 8 MiB budget"
    );
}

#[test]
fn every_sample_file_is_in_the_manifest() {
    let m = manifest();
    let listed: Vec<PathBuf> = m.trace.iter().map(|e| samples().join(&e.path)).collect();
    let mut stack = vec![samples()];
    while let Some(d) = stack.pop() {
        for ent in std::fs::read_dir(&d).unwrap() {
            let p = ent.unwrap().path();
            if listed.contains(&p) {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                let n = p.file_name().unwrap().to_string_lossy();
                assert!(
                    n == "MANIFEST.toml" || n == "regen.sh" || n == "README.md",
                    "{} is not in MANIFEST.toml",
                    p.display()
                );
            }
        }
    }
}
