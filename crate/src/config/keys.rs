//! The key table: every leaf key of [`GpuConfig`](super::GpuConfig) with its unit, allowed range
//! and one line of documentation. It is the single source of truth for
//!
//! ```text
//!            ┌─> validate()            range checks, error names key and range
//!  specs() ──┼─> schema_doc()          the browser's config form (JSON via serde)
//!            ├─> to_toml_documented()  `config show`, preset files: unit and doc per key
//!            └─> apply_override()      dotted keys accepted by `--set`
//! ```
//!
//! A test checks that the table and the serialised schema name exactly the same keys, so a
//! field added to `schema.rs` without a row here fails the build's tests.

use serde::Serialize;

/// What kind of value a key holds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum KeyKind {
    /// An integer within `min..=max`.
    Int,
    /// A real number within `min..=max`.
    Float,
    Bool,
    /// One of a fixed list of lower-case names.
    Choice {
        choices: &'static [&'static str],
    },
    /// Free text (names); `gpu.id` is further restricted to `[a-z0-9_-]`.
    Text,
    /// A list of integers, each within `min..=max`.
    IntList,
}

/// One documented configuration key (serialisable for the browser's config form).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyDoc {
    /// Dotted path, e.g. `l1d.cache.size_kb`.
    pub key: String,
    /// Top-level section, e.g. `l1d`.
    pub group: String,
    /// Unit of the value (`KiB`, `core cycles`, `count`, ...).
    pub unit: &'static str,
    pub doc: String,
    /// Smallest allowed value (numbers and list elements).
    pub min: Option<f64>,
    /// Largest allowed value (numbers and list elements).
    pub max: Option<f64>,
    pub kind: KeyKind,
}

impl KeyDoc {
    /// The allowed range written as Rust writes inclusive ranges: `1..=1024`.
    pub fn range_text(&self) -> String {
        match self.kind {
            KeyKind::Choice { choices } => format!("one of {}", choices.join(", ")),
            KeyKind::Bool => "true or false".into(),
            KeyKind::Text if self.key == "gpu.id" => "[a-z0-9_-]+".into(),
            KeyKind::Text => "any text".into(),
            _ => match (self.min, self.max) {
                (Some(lo), Some(hi)) => format!("{}..={}", num(lo), num(hi)),
                (Some(lo), None) => format!("{}..", num(lo)),
                (None, Some(hi)) => format!("..={}", num(hi)),
                (None, None) => "any".into(),
            },
        }
    }
}

fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

pub const ARCHS: &[&str] = &["pascal", "volta", "turing", "ampere", "ada", "hopper"];
pub const DRAM_KINDS: &[&str] = &[
    "gddr5", "gddr5x", "gddr6", "gddr6x", "hbm2", "hbm2e", "hbm3",
];
pub const DRAM_SCHEDULERS: &[&str] = &["frfcfs", "fifo"];
pub const SCHED_POLICIES: &[&str] = &["gto", "lrr", "two_level", "cggty"];
pub const CORE_MODELS: &[&str] = &["accelsim", "modern"];
pub const MULTI_ISSUE: &[&str] = &["same_warp", "other_warps"];
pub const REPLACEMENTS: &[&str] = &["lru", "fifo", "random"];
pub const INDEX_FNS: &[&str] = &["linear", "ipoly", "hash"];
pub const WRITE_POLICIES: &[&str] = &["write_back", "write_through", "write_evict"];

mod rows;
pub use rows::specs;

/// Builder for the table.
struct Table {
    rows: Vec<KeyDoc>,
}

impl Table {
    fn push(
        &mut self,
        key: String,
        unit: &'static str,
        kind: KeyKind,
        lo: Option<f64>,
        hi: Option<f64>,
        doc: &str,
    ) {
        let group = key.split('.').next().unwrap_or_default().to_string();
        self.rows.push(KeyDoc {
            key,
            group,
            unit,
            doc: doc.to_string(),
            min: lo,
            max: hi,
            kind,
        });
    }
    fn int(&mut self, key: &str, unit: &'static str, lo: i64, hi: i64, doc: &str) {
        self.push(
            key.into(),
            unit,
            KeyKind::Int,
            Some(lo as f64),
            Some(hi as f64),
            doc,
        );
    }
    fn float(&mut self, key: &str, unit: &'static str, lo: f64, hi: f64, doc: &str) {
        self.push(key.into(), unit, KeyKind::Float, Some(lo), Some(hi), doc);
    }
    fn flag(&mut self, key: &str, doc: &str) {
        self.push(key.into(), "flag", KeyKind::Bool, None, None, doc);
    }
    fn choice(&mut self, key: &str, choices: &'static [&'static str], doc: &str) {
        self.push(
            key.into(),
            "name",
            KeyKind::Choice { choices },
            None,
            None,
            doc,
        );
    }
    fn text(&mut self, key: &str, doc: &str) {
        self.push(key.into(), "text", KeyKind::Text, None, None, doc);
    }
    fn list(&mut self, key: &str, unit: &'static str, lo: i64, hi: i64, doc: &str) {
        self.push(
            key.into(),
            unit,
            KeyKind::IntList,
            Some(lo as f64),
            Some(hi as f64),
            doc,
        );
    }

    fn cache(&mut self, p: &str, clock: &'static str, max_kb: i64) {
        let size_doc = match p {
            "l1d.cache" => "Capacity; with l1d.adaptive_carveout the smallest L1 (unified_kb - largest carve-out), the model picks the size per kernel",
            "l2.cache" => "Capacity of one L2 slice; the L2 has l2.partitions x l2.subpartitions slices",
            _ => "Capacity",
        };
        self.int(&format!("{p}.size_kb"), "KiB", 1, max_kb, size_doc);
        self.int(
            &format!("{p}.line_bytes"),
            "bytes",
            16,
            1024,
            "Line (tag) size, a power of two",
        );
        self.int(
            &format!("{p}.sector_bytes"),
            "bytes",
            4,
            1024,
            "Sector size; line_bytes is a multiple of it (equal = not sectored)",
        );
        self.int(
            &format!("{p}.assoc"),
            "ways",
            1,
            1024,
            "Associativity; size / (line * assoc) gives the number of sets",
        );
        self.choice(
            &format!("{p}.replacement"),
            REPLACEMENTS,
            "Replacement policy",
        );
        self.choice(
            &format!("{p}.index"),
            INDEX_FNS,
            "Set-index function (ipoly needs a power-of-two number of sets)",
        );
        self.choice(
            &format!("{p}.write_policy"),
            WRITE_POLICIES,
            "Write policy on a write hit",
        );
        self.flag(
            &format!("{p}.write_allocate"),
            "Allocate a line on a write miss",
        );
        self.flag(
            &format!("{p}.lazy_fetch_on_read"),
            "Write-back + allocate: a store miss does not read the sectors it writes; a sector \
             written in part is read when a load needs it (Volta+ L2 write-validate)",
        );
        self.int(
            &format!("{p}.fetch_bytes"),
            "bytes",
            0,
            1024,
            "Bytes a read miss fetches: the aligned blocks its missing sectors touch (0 = the \
             missing sectors alone; sm_80+ L2: 64)",
        );
        self.int(&format!("{p}.latency"), clock, 0, 100_000, "Hit latency");
        self.int(
            &format!("{p}.mshr_entries"),
            "entries",
            1,
            65_536,
            "Miss status holding registers",
        );
        self.int(
            &format!("{p}.mshr_merge"),
            "requests",
            1,
            1024,
            "Requests merged into one MSHR entry",
        );
        self.int(
            &format!("{p}.seed"),
            "seed",
            0,
            u32::MAX as i64,
            "Seed for replacement = random (deterministic)",
        );
    }

    fn icache(&mut self, p: &str) {
        self.int(
            &format!("{p}.size_kb"),
            "KiB",
            0,
            4096,
            "Capacity; 0 = perfect (always hits)",
        );
        self.int(
            &format!("{p}.line_bytes"),
            "bytes",
            16,
            1024,
            "Line size, a power of two",
        );
        self.int(&format!("{p}.assoc"), "ways", 1, 1024, "Associativity");
        self.int(
            &format!("{p}.latency"),
            "core cycles",
            0,
            10_000,
            "Hit latency",
        );
        self.int(
            &format!("{p}.mshr"),
            "entries",
            1,
            1024,
            "Outstanding misses",
        );
    }

    fn unit(&mut self, p: &str, what: &str) {
        self.int(
            &format!("{p}.count"),
            "pipelines",
            0,
            16,
            &format!("{what} pipelines per sub-core (0 = none; ops run on int)"),
        );
        self.int(
            &format!("{p}.width"),
            "lanes",
            1,
            32,
            "Lanes per pipeline; a warp needs 32 / width cycles to enter",
        );
        self.flag(
            &format!("{p}.shared"),
            "One pool per SM instead of one per sub-core",
        );
    }

    fn timing(&mut self, p: &str, what: &str) {
        self.int(
            &format!("{p}.latency"),
            "core cycles",
            1,
            10_000,
            &format!("{what}: cycles from dispatch to write-back"),
        );
        self.int(
            &format!("{p}.interval"),
            "core cycles",
            1,
            10_000,
            &format!("{what}: initiation interval of one pipeline"),
        );
    }
}

/// The machine-readable schema for the browser's config form (same table `validate` uses).
pub fn schema_doc() -> Vec<KeyDoc> {
    specs()
}

/// The documentation row of one dotted key.
pub fn key_doc(key: &str) -> Option<KeyDoc> {
    specs().into_iter().find(|k| k.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GpuConfig;

    fn leaves(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
        if let toml::Value::Table(t) = v {
            for (k, sub) in t {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(sub, &p, out);
            }
        } else {
            out.push(prefix.to_string());
        }
    }

    #[test]
    fn table_names_exactly_the_schema_leaves() {
        let v = toml::Value::try_from(GpuConfig::default()).unwrap();
        let mut from_schema = Vec::new();
        leaves(&v, "", &mut from_schema);
        from_schema.sort();
        let mut from_table: Vec<String> = specs().into_iter().map(|k| k.key).collect();
        let n = from_table.len();
        from_table.sort();
        from_table.dedup();
        assert_eq!(n, from_table.len(), "duplicate key in the table");
        assert_eq!(from_schema, from_table);
    }

    #[test]
    fn range_text_and_json() {
        let k = key_doc("l1d.cache.assoc").unwrap();
        assert_eq!(k.range_text(), "1..=1024");
        assert_eq!(k.group, "l1d");
        assert_eq!(
            key_doc("clocks.core_mhz").unwrap().range_text(),
            "1..=10000"
        );
        let j = serde_json::to_value(key_doc("dram.kind").unwrap()).unwrap();
        assert_eq!(j["kind"]["type"], "choice");
        assert_eq!(j["kind"]["choices"][6], "hbm3");
        assert_eq!(j["unit"], "name");
    }
}
