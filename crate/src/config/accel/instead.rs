//! What warpweave does in place of each Accel-Sim option that sets no key of its own.
//!
//! Some options describe behaviour warpweave has built in (a crossbar with separate request and
//! reply networks, an L1 emptied at every kernel start, shared-memory broadcast): a value that
//! agrees is imported without a word. A value that asks for something else, and every option
//! for a structure warpweave does not have (texture cache, BookSim networks, operand-collector
//! ports), gives one warning line saying what the model does instead.
//!
//! | option | agrees when | otherwise warpweave |
//! |---|---|---|
//! | `gpgpu_dual_issue_diff_exec_units` | 1 | sends each instruction of a cycle to its own unit |
//! | `gpgpu_enable_specialized_operand_collector` | 0 | uses one pool of generic collector units |
//! | `gpgpu_flush_l1_cache` | 1 | empties the L1 at every kernel start |
//! | `gpgpu_l1_cache_write_ratio` | 0 | evicts the LRU line, written or not |
//! | `gpgpu_shmem_limited_broadcast`, `gpgpu_shmem_warp_parts` | 0, 1 | broadcasts a word to every lane, whole warp at once |
//! | `gpgpu_shmem_sizeDefault` | adaptive carve-out | sizes shared memory from `gpgpu_shmem_size` |
//! | `gpgpu_coalesce_arch` | 70 or more | coalesces into 32-byte sectors (Volta and later) |
//! | `gpgpu_cache:dl2_texture_only` | 0 | caches every access in L2 |
//! | `network_mode`, `icnt_subnets` | 2, 2 | uses its crossbar, one for requests, one for replies |
//! | `gpgpu_dram_return_queue_size` | 0 | returns DRAM data without a bounded queue |
//! | `gpgpu_n_mem_per_ctrlr` | 1 | has one channel per memory partition |
//! | `gpgpu_mem_address_mask` | 1 | reads `gpgpu_mem_addr_mapping` as a 64-bit mask |
//! | `dram_dual_bus_interface` | 0 | issues one command per DRAM cycle |
//! | `dram_bnk_indexing_policy`, `dram_bnkgrp_indexing_policy` | 0, 1 | banks row by row, groups from the low bank bits |
//! | `gpgpu_lrc_*`, `gpgpu_simple_dram_*`, chiplet options | disabled | (see each message) |

/// The verdict on an option that sets no key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The value is what warpweave always does: imported without a warning.
    Agrees,
    /// What warpweave does instead (the warning's text).
    Instead(String),
}

use Verdict::{Agrees, Instead};

const GENERIC_COLLECTORS: &str = "specialised collector units modelled as one pool of generic \
     units per sub-core (regfile.collector_units, from -gpgpu_operand_collector_num_units_gen)";
const BOOKSIM: &str = "BookSim networks are not modelled: the interconnect is warpweave's \
     crossbar (noc.*), one for requests and one for replies";
const ONE_DIE: &str = "one die modelled: every SM reaches every L2 slice through one crossbar";
const LRC: &str = "no L2 request coalescer: requests reach their L2 slice one by one and \
     misses to a line merge in the slice's MSHRs (l2.cache.mshr_merge)";
const SIMPLE_DRAM: &str = "the timed DRAM model (dram.*) is kept; `--model dram=analytical` \
     gives a fixed-latency DRAM";

/// `value` of option `name` judged against warpweave's fixed behaviour; `get` gives the last
/// value of another option. None: an option this table does not know.
pub(super) fn verdict(
    name: &str,
    value: &str,
    get: &dyn Fn(&str) -> Option<String>,
) -> Option<Verdict> {
    let v = value.trim();
    let n = v.parse::<i64>().ok();
    let on = |opt: &str| {
        get(opt)
            .and_then(|s| s.trim().parse::<i64>().ok())
            .is_some_and(|x| x != 0)
    };
    let agrees_if = |ok: bool, msg: &str| if ok { Agrees } else { Instead(msg.into()) };
    Some(match name {
        "gpgpu_registers_per_block" => agrees_if(
            get("gpgpu_shader_registers").is_some_and(|r| r.trim() == v),
            "no per-CTA register limit below the SM's: a CTA may hold the whole register file (sm.registers)",
        ),
        "gpgpu_pipeline_widths" => Instead(
            "no pipeline registers between issue, operand collection, units and write-back: an \
             issued instruction waits in a collector unit (regfile.collector_units) and writes \
             back through the register-bank ports (regfile.ports_per_bank)"
                .into(),
        ),
        "gpgpu_enable_specialized_operand_collector" => agrees_if(n == Some(0), GENERIC_COLLECTORS),
        "gpgpu_operand_collector_num_units_sp"
        | "gpgpu_operand_collector_num_units_dp"
        | "gpgpu_operand_collector_num_units_sfu"
        | "gpgpu_operand_collector_num_units_int"
        | "gpgpu_operand_collector_num_units_tensor_core"
        | "gpgpu_operand_collector_num_units_mem" => agrees_if(
            get("gpgpu_enable_specialized_operand_collector").is_some_and(|s| s.trim() == "0"),
            GENERIC_COLLECTORS,
        ),
        "gpgpu_operand_collector_num_in_ports_gen" => Instead(
            "no collector in-port limit: an issued instruction enters a free collector unit \
             directly, up to scheduler.issue_width per cycle"
                .into(),
        ),
        "gpgpu_operand_collector_num_out_ports_gen" => Instead(
            "no collector out-port limit: every collector unit whose operands are read \
             dispatches in the same cycle once its unit is free"
                .into(),
        ),
        "gpgpu_opndcoll_model" => Instead(
            "the operand-collector model follows core.model (accelsim: generic collector \
             units; modern: a register read window, no collectors)"
                .into(),
        ),
        "gpgpu_dual_issue_diff_exec_units" => agrees_if(
            n == Some(1),
            "the instructions of a multi-issue cycle always go to different units",
        ),
        "gpgpu_l1_cache_write_ratio" => agrees_if(
            n == Some(0),
            "no dirty-line eviction threshold: the L1 evicts its LRU line whether written or not",
        ),
        "gpgpu_flush_l1_cache" => agrees_if(n == Some(1), "the L1 is emptied at every kernel start"),
        "gpgpu_n_cluster_ejection_buffer_size" => Instead(
            "replies leave the reply crossbar into the SM without a bound; requests are bounded \
             at each L2 slice's input (l2.input_queue)"
                .into(),
        ),
        "gpgpu_n_ldst_response_buffer_size" => Instead(
            "the SM's memory side takes every reply the cycle it arrives (no response buffer)".into(),
        ),
        "gpgpu_shmem_sizeDefault" => agrees_if(
            on("gpgpu_adaptive_cache_config"),
            "no per-kernel cache preference: shared memory per SM is shmem.max_per_sm_kb (-gpgpu_shmem_size)",
        ),
        "gpgpu_shmem_limited_broadcast" => agrees_if(
            n == Some(0),
            "a shared-memory word is broadcast to every lane that reads it in the same wavefront",
        ),
        "gpgpu_shmem_warp_parts" => agrees_if(
            n == Some(1),
            "shared-memory bank conflicts are counted over the whole warp at once",
        ),
        "gpgpu_coalesce_arch" => agrees_if(
            n.is_some_and(|a| a >= 70),
            "accesses coalesce as on Volta and later: 32-byte sectors of 128-byte lines per warp",
        ),
        "gpgpu_cache:dl2_texture_only" => agrees_if(n == Some(0), "the L2 caches every access"),
        "gpgpu_tex_cache:l1" => Instead(
            "no texture cache: texture fetches (TEX, TLD) go through the L1 data cache".into(),
        ),
        "network_mode" => agrees_if(n == Some(2), BOOKSIM),
        "inter_config_file" | "inct_config_file" => agrees_if(
            get("network_mode").is_some_and(|m| m.trim() == "2"),
            BOOKSIM,
        ),
        "icnt_subnets" => agrees_if(
            n == Some(2),
            "requests and replies always travel on two separate crossbars",
        ),
        "icnt_out_buffer_limit" => Instead(
            "output buffers are the receivers' queues: l2.input_queue packets at each L2 slice, \
             unbounded at the SMs"
                .into(),
        ),
        "icnt_arbiter_algo" => Instead(
            "no iSLIP: each crossbar output takes the oldest packet of the next input in \
             round-robin order (virtual output queues)"
                .into(),
        ),
        "gpgpu_dram_return_queue_size" => agrees_if(
            n == Some(0),
            "DRAM data returns to the L2 slice without a bounded return queue",
        ),
        "gpgpu_n_mem_per_ctrlr" => agrees_if(
            n == Some(1),
            "one DRAM channel per memory partition (l2.partitions)",
        ),
        "gpgpu_mem_address_mask" => agrees_if(
            n == Some(1),
            "-gpgpu_mem_addr_mapping is read as a 64-bit mask",
        ),
        "dram_dual_bus_interface" => agrees_if(
            n == Some(0),
            "one command per DRAM cycle: row and column commands share the command bus",
        ),
        "dram_bnk_indexing_policy" => agrees_if(
            n == Some(0),
            "no XOR bank hashing: consecutive dram.row_bytes blocks go to consecutive banks",
        ),
        "dram_bnkgrp_indexing_policy" => agrees_if(
            n == Some(1),
            "bank groups take the low bank bits (bank mod dram.bank_groups)",
        ),
        "gpgpu_lrc_enabled" => agrees_if(n == Some(0), LRC),
        "gpgpu_lrc_max_entries" | "gpgpu_lrc_max_merged" => {
            agrees_if(!on("gpgpu_lrc_enabled"), LRC)
        }
        "gpgpu_simple_dram_model" => agrees_if(n == Some(0), SIMPLE_DRAM),
        "gpgpu_simple_dram_clock_multiplier" => {
            agrees_if(!on("gpgpu_simple_dram_model"), SIMPLE_DRAM)
        }
        "gpgpu_n_chiplet_partition" => agrees_if(n.is_some_and(|c| c <= 1), ONE_DIE),
        "inter_chiplet_queue_size" | "gpgpu_chiplet_interleave" => agrees_if(
            get("gpgpu_n_chiplet_partition")
                .and_then(|s| s.trim().parse::<i64>().ok())
                .is_none_or(|c| c <= 1),
            ONE_DIE,
        ),
        _ => return None,
    })
}
