//! Import of the options of Accel-Sim's tested configurations (SM7_QV100, SM75, SM86_RTX3070,
//! SM80_A100, SM90_H100 with its trace.config; `crate/tests/fixtures/accelsim_tested`): the
//! keys each gives and, word for word, the warnings (`<name>.warnings` beside each file).

use super::*;
use crate::config::schema::IndexFn;

macro_rules! fixture {
    ($f:literal) => {
        include_str!(concat!("../../../tests/fixtures/accelsim_tested/", $f))
    };
}

/// (file name, gpgpusim.config, trace.config, expected warnings)
const TESTED: [(&str, &str, &str, &str); 5] = [
    (
        "SM7_QV100.config",
        fixture!("SM7_QV100.config"),
        "",
        fixture!("SM7_QV100.warnings"),
    ),
    (
        "SM75.config",
        fixture!("SM75.config"),
        "",
        fixture!("SM75.warnings"),
    ),
    (
        "SM86_RTX3070.config",
        fixture!("SM86_RTX3070.config"),
        "",
        fixture!("SM86_RTX3070.warnings"),
    ),
    (
        "SM80_A100.config",
        fixture!("SM80_A100.config"),
        "",
        fixture!("SM80_A100.warnings"),
    ),
    (
        "SM90_H100.config",
        fixture!("SM90_H100.config"),
        fixture!("SM90_H100.trace.config"),
        fixture!("SM90_H100.warnings"),
    ),
];

fn import(i: usize) -> ImportResult {
    let (name, text, trace, _) = TESTED[i];
    import_accel_sim((name, text), ("trace.config", trace)).unwrap()
}

#[test]
fn every_tested_config_warns_word_for_word() {
    for (i, (name, _, _, expected)) in TESTED.iter().enumerate() {
        let got: Vec<String> = import(i).warnings.iter().map(|w| w.to_string()).collect();
        let want: Vec<&str> = expected.lines().filter(|l| !l.is_empty()).collect();
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{name}");
        }
        assert_eq!(got.len(), want.len(), "{name}: {got:#?}");
    }
}

#[test]
fn options_once_ignored_now_give_keys() {
    // (l2.input_queue, l2.interleave_bytes, dram.row_bytes, l2.cache.latency, l2.dram_latency,
    //  l2.partition_index, l1d.data_port_bytes)
    let keys = |i: usize| {
        let c = import(i).config;
        (
            c.l2.input_queue,
            c.l2.interleave_bytes,
            c.dram.row_bytes,
            c.l2.cache.latency,
            c.l2.dram_latency,
            c.l2.partition_index,
            c.l1d.data_port_bytes,
        )
    };
    // Equal core and L2 clocks: the ROP and DRAM latencies as written.
    assert_eq!(keys(0), (64, 256, 2048, 160, 100, IndexFn::Ipoly, 32));
    assert_eq!(keys(1), (64, 256, 2048, 194, 96, IndexFn::Linear, 32));
    assert_eq!(keys(2), (64, 256, 2048, 187, 254, IndexFn::Ipoly, 32));
    // A100: L2 at 1512 MHz against a 1410 MHz core: 200 and 190 core cycles in L2 cycles.
    assert_eq!(keys(3), (64, 256, 2048, 214, 204, IndexFn::Linear, 32));
    // H100: L2 at 3106 MHz against 1980; partition indexing 6 (IPOLY, modulo 40 partitions).
    assert_eq!(keys(4), (64, 256, 2048, 372, 304, IndexFn::Ipoly, 32));
    // The analytical twin keeps core cycles: ROP + DRAM.
    assert_eq!(import(3).config.analytic.dram_latency, 390);
}

#[test]
fn options_that_agree_with_the_model_are_silent_and_others_say_what_it_does() {
    let warned = |text: &str| -> Vec<String> {
        import_accel_sim(("g.config", text), ("t", ""))
            .unwrap()
            .warnings
            .iter()
            .map(|w| w.to_string())
            .collect()
    };
    // What warpweave does anyway: nothing to say.
    let agree = "-gpgpu_dual_issue_diff_exec_units 1\n-gpgpu_flush_l1_cache 1\n\
                 -gpgpu_shmem_limited_broadcast 0\n-gpgpu_shmem_warp_parts 1\n\
                 -gpgpu_coalesce_arch 86\n-gpgpu_cache:dl2_texture_only 0\n-network_mode 2\n\
                 -icnt_subnets 2\n-gpgpu_n_mem_per_ctrlr 1\n-gpgpu_mem_address_mask 1\n\
                 -dram_dual_bus_interface 0\n-dram_bnk_indexing_policy 0\n\
                 -dram_bnkgrp_indexing_policy 1\n-gpgpu_l1_cache_write_ratio 0\n\
                 -gpgpu_enable_specialized_operand_collector 0\n\
                 -gpgpu_operand_collector_num_units_sp 4\n-gpgpu_lrc_enabled 0\n\
                 -gpgpu_lrc_max_entries 8\n-gpgpu_simple_dram_model 0\n\
                 -gpgpu_n_chiplet_partition 1\n-inter_chiplet_queue_size 8\n\
                 -gpgpu_shader_registers 65536\n-gpgpu_registers_per_block 65536\n\
                 -gpgpu_dram_return_queue_size 0\n-gpgpu_adaptive_cache_config 1\n\
                 -gpgpu_shmem_sizeDefault 65536\n";
    assert_eq!(warned(agree), Vec::<String>::new());
    // The other values: one line each on what the model does instead.
    let differ = "-gpgpu_dual_issue_diff_exec_units 0\n-gpgpu_flush_l1_cache 0\n\
                  -icnt_subnets 1\n-gpgpu_enable_specialized_operand_collector 1\n\
                  -gpgpu_operand_collector_num_units_sp 4\n-gpgpu_registers_per_block 32768\n\
                  -dram_bnk_indexing_policy 1\n-some_future_option 3\n";
    assert_eq!(
        warned(differ),
        [
            "g.config:1: -gpgpu_dual_issue_diff_exec_units 0: the instructions of a multi-issue cycle always go to different units",
            "g.config:2: -gpgpu_flush_l1_cache 0: the L1 is emptied at every kernel start",
            "g.config:3: -icnt_subnets 1: requests and replies always travel on two separate crossbars",
            "g.config:4: -gpgpu_enable_specialized_operand_collector 1: specialised collector units modelled as one pool of generic units per sub-core (regfile.collector_units, from -gpgpu_operand_collector_num_units_gen)",
            "g.config:5: -gpgpu_operand_collector_num_units_sp 4: specialised collector units modelled as one pool of generic units per sub-core (regfile.collector_units, from -gpgpu_operand_collector_num_units_gen)",
            "g.config:6: -gpgpu_registers_per_block 32768: no per-CTA register limit below the SM's: a CTA may hold the whole register file (sm.registers)",
            "g.config:7: -dram_bnk_indexing_policy 1: no XOR bank hashing: consecutive dram.row_bytes blocks go to consecutive banks",
            "g.config:8: -some_future_option 3: unknown to warpweave's importer; ignored",
        ]
    );
}

#[test]
fn malformed_new_options_name_file_line_and_option() {
    let err = |text: &str| {
        import_accel_sim(("q.config", text), ("t", ""))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("-gpgpu_n_mem 4\n-gpgpu_dram_partition_queues 8:8:8\n"),
        "q.config:2: -gpgpu_dram_partition_queues: expected i2$:$2d:d2$:$2i"
    );
    assert_eq!(
        err("\n-gpgpu_mem_addr_mapping dramid@x;RRRRCCCC\n"),
        "q.config:2: -gpgpu_mem_addr_mapping: `dramid@x`: expected dramid@<bit> (bit below 40)"
    );
    assert_eq!(
        err("-gpgpu_mem_addr_mapping RRRRQQCC\n"),
        "q.config:1: -gpgpu_mem_addr_mapping: `Q` is not one of D, B, R, C, S, 0"
    );
    // A mapping whose row is too small for warpweave: the validation names the option.
    assert_eq!(
        err("-gpgpu_mem_addr_mapping dramid@8;RRRRRRBBBBCSSSS\n"),
        "q.config:1: -gpgpu_mem_addr_mapping: gives dram.row_bytes: 32 is out of range 64..=65536"
    );
}
