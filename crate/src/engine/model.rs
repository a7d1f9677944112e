//! Which model simulates each module (seed 000: cycle-accurate or analytical behind one
//! interface). Printed in every result so each number says how it was made.

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// A run mode: a timing model, or the functional memory pass (`memory`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Timing(ModelChoice),
    /// `mem::functional::run`: caches only, no timing.
    Memory,
}

impl Mode {
    /// `cycle`, `hybrid`, `fast` or `memory`.
    pub fn parse(name: &str) -> Result<Self> {
        if name == "memory" {
            return Ok(Mode::Memory);
        }
        ModelChoice::named(name).map(Mode::Timing)
    }
}

/// How one module is simulated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleModel {
    /// Ticked every cycle with real queues, ports and arbiters.
    #[default]
    Cycle,
    /// A latency from a formula, with only the contention that matters simulated.
    Analytical,
    /// Never a bottleneck (e.g. an instruction cache that always hits).
    Perfect,
}

impl ModuleModel {
    pub fn parse(key: &str, v: &str) -> Result<Self> {
        match v {
            "cycle" => Ok(ModuleModel::Cycle),
            "analytical" | "analytic" => Ok(ModuleModel::Analytical),
            "perfect" => Ok(ModuleModel::Perfect),
            _ => Err(Error::config(
                key,
                format!(
                    "`{v}` is not a model; {}allowed: cycle, analytical, perfect",
                    crate::error::did_you_mean(v, ["cycle", "analytical", "perfect"])
                ),
            )),
        }
    }
}

/// The model of every module.
///
/// `frontend`: `cycle` ticks fetch, decode, instruction buffers, scoreboard, scheduler and
/// operand collectors every cycle; `perfect` is the same with instruction caches that always
/// hit; `analytical` is the event-driven front end of `core::event` (per-warp next-issue times
/// in a per-sub-core heap, cost per instruction, not per cycle; fetch groups and I-caches
/// modelled per fetch, no operand collectors or register-bank ports). It issues straight into
/// the ALU twin, so it needs `alu = analytical`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelChoice {
    pub alu: ModuleModel,
    pub memory: ModuleModel,
    pub noc: ModuleModel,
    pub dram: ModuleModel,
    pub frontend: ModuleModel,
}

impl Default for ModelChoice {
    /// Cycle-accurate SM, analytical memory side (the cycle memory system plugs in later).
    fn default() -> Self {
        ModelChoice {
            alu: ModuleModel::Cycle,
            memory: ModuleModel::Analytical,
            noc: ModuleModel::Analytical,
            dram: ModuleModel::Analytical,
            frontend: ModuleModel::Cycle,
        }
    }
}

impl ModelChoice {
    /// Sets one module from `module=model` (`alu`, `memory`, `noc`, `dram`, `frontend`).
    pub fn set(&mut self, module: &str, v: &str) -> Result<()> {
        const MODULES: [&str; 5] = ["alu", "memory", "noc", "dram", "frontend"];
        let unknown = || {
            Error::other(format!(
                "`{module}` is not a module; {}allowed: {}",
                crate::error::did_you_mean(module, MODULES),
                MODULES.join(", ")
            ))
        };
        if !MODULES.contains(&module) && module != "mem" {
            return Err(unknown());
        }
        let m = ModuleModel::parse(module, v).map_err(|e| match e {
            Error::Config { key, msg } => Error::other(format!("{key}={v}: {msg}")),
            other => other,
        })?;
        match module {
            "alu" => self.alu = m,
            "memory" | "mem" => self.memory = m,
            "noc" => self.noc = m,
            "dram" => self.dram = m,
            "frontend" => self.frontend = m,
            _ => return Err(unknown()),
        }
        Ok(())
    }

    /// A named mode (`--mode`): `cycle` (everything ticked), `hybrid` (analytical ALU
    /// pipeline: the event-driven front end and the ALU twin, with the cycle memory system),
    /// `fast` (analytical front end, ALU and memory path: memory instructions go straight from
    /// the event front end into the twin, `core::mem_direct`, with no per-cycle memory
    /// pipeline). `memory` (functional caches only) is
    /// not a timing model; the CLI and `compare` run it separately ([`Mode`]).
    ///
    /// Measured on the large samples (bench/compare.md): the event front end with the cycle
    /// memory stays within 1.3 % of `cycle`, so `hybrid` uses it (it was the cycle front end
    /// with the ALU twin, as accurate but slower).
    pub fn named(name: &str) -> Result<Self> {
        let all = |m| ModelChoice {
            alu: m,
            memory: m,
            noc: m,
            dram: m,
            frontend: m,
        };
        match name {
            "cycle" => Ok(all(ModuleModel::Cycle)),
            "hybrid" => Ok(ModelChoice {
                alu: ModuleModel::Analytical,
                frontend: ModuleModel::Analytical,
                ..all(ModuleModel::Cycle)
            }),
            "fast" => Ok(all(ModuleModel::Analytical)),
            _ => Err(Error::config(
                "--mode",
                format!(
                    "`{name}` is not a mode; {}allowed: cycle, hybrid, fast, memory",
                    crate::error::did_you_mean(name, ["cycle", "hybrid", "fast", "memory"])
                ),
            )),
        }
    }

    /// Applies a comma-separated mix `alu=analytical,noc=cycle`.
    pub fn set_mix(&mut self, mix: &str) -> Result<()> {
        for item in mix.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| {
                Error::config("--model", format!("`{item}`: expected MODULE=MODEL"))
            })?;
            self.set(k.trim(), v.trim()).map_err(|e| match e {
                Error::Other(m) => Error::config("--model", m),
                other => other,
            })?;
        }
        Ok(())
    }

    /// Rejects combinations this build cannot simulate.
    pub fn validate(&self) -> Result<()> {
        if self.alu == ModuleModel::Perfect {
            return Err(Error::config(
                "model.alu",
                "only `cycle` and `analytical` are available",
            ));
        }
        if self.frontend == ModuleModel::Analytical && self.alu != ModuleModel::Analytical {
            return Err(Error::config(
                "model.frontend",
                "the analytical (event-driven) front end issues straight into the ALU twin: \
                 it needs `alu = analytical`",
            ));
        }
        if self.memory == ModuleModel::Perfect {
            return Err(Error::config(
                "model.memory",
                "only `analytical` and `cycle` are available",
            ));
        }
        Ok(())
    }

    /// One line for reports: `alu=cycle memory=analytical ...`.
    pub fn describe(&self) -> String {
        let n = |m: ModuleModel| match m {
            ModuleModel::Cycle => "cycle",
            ModuleModel::Analytical => "analytical",
            ModuleModel::Perfect => "perfect",
        };
        format!(
            "alu={} memory={} noc={} dram={} frontend={}",
            n(self.alu),
            n(self.memory),
            n(self.noc),
            n(self.dram),
            n(self.frontend)
        )
    }
}
