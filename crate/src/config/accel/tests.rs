use super::*;
use crate::config::schema::{IndexFn, WritePolicy};

const GPGPUSIM: &str = include_str!("../../../tests/fixtures/accelsim_sm75/gpgpusim.config");
const TRACE: &str = include_str!("../../../tests/fixtures/accelsim_sm75/trace.config");

fn fixture() -> ImportResult {
    import_accel_sim(("gpgpusim.config", GPGPUSIM), ("trace.config", TRACE)).unwrap()
}

#[test]
fn fixture_geometry_and_clocks() {
    let r = fixture();
    let c = &r.config;
    assert_eq!(
        (c.gpu.num_sms, c.gpu.compute_capability, c.gpu.arch.as_str()),
        (46, 75, "turing")
    );
    assert_eq!(
        (
            c.clocks.core_mhz,
            c.clocks.icnt_mhz,
            c.clocks.l2_mhz,
            c.clocks.dram_mhz
        ),
        (1515.0, 1515.0, 1515.0, 3500.0)
    );
    assert_eq!(
        (
            c.sm.subcores,
            c.sm.max_threads,
            c.sm.max_warps,
            c.sm.max_ctas
        ),
        (4, 1024, 32, 16)
    );
    assert_eq!(c.sm.kernel_launch_latency, 5000);
    // per-SM counts divided over 4 sub-cores
    assert_eq!(
        (
            c.units.sp.count,
            c.units.int.count,
            c.units.dp.count,
            c.units.sfu.count
        ),
        (1, 1, 1, 1)
    );
    assert_eq!(
        (
            c.units.tensor.count,
            c.units.branch.count,
            c.units.uniform.count
        ),
        (1, 1, 1)
    );
    assert_eq!(
        (
            c.regfile.banks,
            c.regfile.ports_per_bank,
            c.regfile.collector_units
        ),
        (2, 2, 2)
    );

    // L1D: S:4:128:64,L:T:m:L:L,A:512:8 = 4 sets x 128 B x 64 ways = 32 KiB
    let l1 = &c.l1d.cache;
    assert_eq!(
        (l1.size_kb, l1.line_bytes, l1.sector_bytes, l1.assoc),
        (32, 128, 32, 64)
    );
    assert_eq!(
        (l1.write_policy, l1.write_allocate, l1.index),
        (WritePolicy::WriteThrough, true, IndexFn::Linear)
    );
    assert_eq!((l1.mshr_entries, l1.mshr_merge, l1.latency), (512, 8, 32));
    assert_eq!(
        (
            c.l1d.unified_kb,
            c.l1d.shmem_options_kb.as_slice(),
            c.l1d.banks
        ),
        (96, &[32, 64][..], 4)
    );
    assert!(c.l1d.adaptive_carveout && !c.l1d.streaming && c.l1d.cache_global);
    assert_eq!(
        (
            c.shmem.max_per_sm_kb,
            c.shmem.max_per_cta_kb,
            c.shmem.latency,
            c.shmem.banks
        ),
        (64, 48, 30, 32)
    );

    // L2: 16 channels x 2 sub-partitions, 128 KiB slices (4 MiB), ipoly
    let l2 = &c.l2;
    assert_eq!(
        (
            l2.partitions,
            l2.subpartitions,
            l2.cache.size_kb,
            l2.cache.assoc
        ),
        (16, 2, 128, 16)
    );
    assert_eq!(
        (l2.cache.write_policy, l2.cache.index, l2.partition_index),
        (WritePolicy::WriteBack, IndexFn::Ipoly, IndexFn::Ipoly)
    );
    assert_eq!(
        (l2.cache.mshr_entries, l2.cache.mshr_merge, l2.cache.latency),
        (192, 4, 160)
    );
    assert_eq!(l2.partitions * l2.subpartitions * l2.cache.size_kb, 4096);

    // perfect instruction cache, 64 KiB constant cache of 64 B lines
    assert_eq!(
        (
            c.frontend.l1i.size_kb,
            c.frontend.l0i.size_kb,
            c.frontend.fetch_width
        ),
        (0, 0, 4)
    );
    assert_eq!(
        (
            c.const_cache.size_kb,
            c.const_cache.line_bytes,
            c.const_cache.sector_bytes
        ),
        (64, 64, 64)
    );

    // DRAM
    let d = &c.dram;
    assert_eq!(
        (
            d.kind.as_str(),
            d.bus_width_bytes,
            d.burst_length,
            d.data_rate,
            d.queue
        ),
        ("gddr6", 2, 16, 4, 64)
    );
    assert_eq!((d.banks, d.bank_groups), (16, 4));
    let t = &d.timing;
    assert_eq!(
        (t.t_ccd, t.t_rrd, t.t_rcd, t.t_ras, t.t_rp, t.t_rc),
        (4, 12, 24, 55, 24, 79)
    );
    assert_eq!(
        (t.t_cl, t.t_cwl, t.t_wtr, t.t_wr, t.t_ccdl),
        (24, 8, 10, 24, 6)
    );
    assert_eq!(
        (
            c.analytic.l1_latency,
            c.analytic.l2_latency,
            c.analytic.dram_latency
        ),
        (32, 160, 260)
    );
    assert_eq!((c.noc.flit_bytes, c.noc.buffer_flits), (40, 512));

    // trace.config latencies win over the PTX ones
    let l = &c.latency;
    assert_eq!(
        (l.int.latency, l.int.interval, l.int_mul.latency),
        (4, 2, 4)
    );
    assert_eq!((l.fp32.latency, l.fp32.interval), (4, 2));
    assert_eq!(
        (l.dp.latency, l.dp.interval, l.sfu.latency, l.sfu.interval),
        (64, 64, 21, 8)
    );
    assert_eq!(
        (
            l.tensor.latency,
            l.tensor.interval,
            l.branch.latency,
            l.uniform.interval
        ),
        (32, 32, 4, 1)
    );
}

#[test]
fn fixture_warnings_list_every_unmodelled_option() {
    let r = fixture();
    let names: Vec<(&str, &str)> = r
        .warnings
        .iter()
        .map(|w| (w.file.as_str(), w.option.as_str()))
        .collect();
    let g = "gpgpusim.config";
    let expected: Vec<(&str, &str)> = vec![
        (g, "gpgpu_ptx_instruction_classification"),
        (g, "gpgpu_ptx_sim_mode"),
        (g, "gpgpu_ptx_force_max_capability"),
        (g, "gpgpu_stack_size_limit"),
        (g, "gpgpu_heap_size_limit"),
        (g, "gpgpu_occupancy_sm_number"),
        (g, "gpgpu_simd_model"),
        (g, "gpgpu_pipeline_widths"),
        (g, "gpgpu_operand_collector_num_in_ports_gen"),
        (g, "gpgpu_operand_collector_num_out_ports_gen"),
        (g, "gpgpu_cache:dl1"), // miss queue
        (g, "gpgpu_n_cluster_ejection_buffer_size"),
        (g, "gpgpu_cache:dl2"), // miss queue
        (g, "gpgpu_cache:dl2"), // data port width
        (g, "gpgpu_dram_partition_queues"),
        (g, "gpgpu_cache:il1"), // read-only
        (g, "gpgpu_cache:il1"), // allocate on fill
        (g, "gpgpu_cache:il1"), // miss queue
        (g, "gpgpu_tex_cache:l1"),
        (g, "gpgpu_const_cache:l1"),
        (g, "gpgpu_const_cache:l1"),
        (g, "gpgpu_const_cache:l1"),
        (g, "gpgpu_perfect_inst_const_cache"),
        (g, "icnt_out_buffer_limit"),
        (g, "icnt_arbiter_algo"),
        (g, "gpgpu_dram_return_queue_size"),
        (g, "gpgpu_mem_addr_mapping"),
        (g, "gpgpu_dram_timing_opt"), // RTPL
        (g, "gpgpu_memlatency_stat"),
        (g, "gpgpu_runtime_stat"),
        (g, "enable_ptx_file_line_stats"),
        (g, "visualizer_enabled"),
        (g, "power_simulation_enabled"),
        ("trace.config", "specialized_unit_2"),
        ("trace.config", "trace_opcode_latency_initiation_spec_op_2"),
    ];
    assert_eq!(names, expected);
    let timing = r
        .warnings
        .iter()
        .find(|w| w.option == "gpgpu_dram_timing_opt")
        .unwrap();
    assert_eq!(
        timing.reason,
        "timing RTPL=4 not modelled: a precharge waits for t_ras and t_wr only"
    );
    assert_eq!(timing.line, 135);
    let tex = r
        .warnings
        .iter()
        .find(|w| w.option == "specialized_unit_2")
        .unwrap();
    assert_eq!(tex.to_string(), "trace.config:12: -specialized_unit_2 1,4,200,4,4,TEX: no fixed-latency texture unit: TEX and TLD are memory instructions timed through the L1 data cache");
    let stat = r
        .warnings
        .iter()
        .find(|w| w.option == "gpgpu_runtime_stat")
        .unwrap();
    assert!(stat.reason.starts_with("no timing effect"));
}

#[test]
fn import_errors_name_file_line_and_option() {
    let e = import_accel_sim(
        ("a.config", "-gpgpu_n_clusters 4\n-gpgpu_n_mem many\n"),
        ("t", ""),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "a.config:2: -gpgpu_n_mem: expected a whole number, got `many`"
    );
    let e = import_accel_sim(
        ("a.config", "-gpgpu_cache:dl1 S:4:128,L:T:m:L:L,A:256:32\n"),
        ("t", ""),
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "a.config:1: -gpgpu_cache:dl1: `S:4:128,L:T:m:L:L,A:256:32`: expected 4, 5 and 3"
        ),
        "{e}"
    );
    let e = import_accel_sim(
        ("a", ""),
        ("t.config", "\n-trace_opcode_latency_initiation_int 4\n"),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "t.config:2: -trace_opcode_latency_initiation_int: expected <latency>,<initiation interval>, got `4`");
    let e = import_accel_sim(("a", "-gpgpu_clock_domains 1:2:3\n"), ("t", "")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("a:1: -gpgpu_clock_domains: expected"),
        "{e}"
    );
    // the imported config is validated: 3 schedulers do not divide 32 warps; the error names
    // the option that set the key
    let e = import_accel_sim(
        ("a", "-gpgpu_n_clusters 2\n-gpgpu_num_sched_per_core 3\n"),
        ("t", ""),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "a:2: -gpgpu_num_sched_per_core: gives sm.subcores: 3 does not divide sm.max_warps = 32"
    );
    let e = import_accel_sim(("g.config", "\n-gpgpu_n_clusters 0\n"), ("t", "")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "g.config:2: -gpgpu_n_clusters: gives gpu.num_sms: 0 is out of range 1..=1024"
    );
    // a gpgpusim.config without options is no config
    for text in ["", "# only a comment\n\n"] {
        let e = import_accel_sim(("e.config", text), ("t.config", "")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "e.config: file: sets no option: an Accel-Sim gpgpusim.config holds `-option value` lines"
        );
    }
}

#[test]
fn older_configs_without_carveout_options_still_fit() {
    // TITAN V style: no gpgpu_shmem_option / unified size, 96 KiB shared, streaming 32 KiB L1
    let text = "-gpgpu_adaptive_cache_config 1\n-gpgpu_cache:dl1 S:1:128:256,L:L:s:N:L,A:256:8,16:0,32\n\
                -gpgpu_shmem_size 98304\n-gpgpu_shmem_per_block 65536\n-gpgpu_shader_core_pipeline 2048:32\n\
                -gpgpu_tensor_core_avail 0\n";
    let r = import_accel_sim(("titanv.config", text), ("t", "")).unwrap();
    let c = &r.config;
    assert_eq!(c.l1d.shmem_options_kb, vec![32, 64, 96]);
    assert_eq!(
        (
            c.l1d.unified_kb,
            c.l1d.cache.size_kb,
            c.shmem.max_per_cta_kb
        ),
        (128, 32, 64)
    );
    assert!(c.l1d.streaming);
    assert_eq!((c.units.tensor.count, c.sm.max_warps), (0, 64));
}

#[test]
fn separate_write_queue_is_imported_when_enabled() {
    let dram = |text: &str| {
        let c = import_accel_sim(("g", text), ("t", ""))
            .unwrap()
            .config
            .dram;
        (c.write_queue, c.write_high, c.write_low)
    };
    // AS-SM7_TITANV
    let on = "-dram_seperate_write_queue_enable 1\n-dram_write_queue_size 128:108:32\n";
    assert_eq!(dram(on), (128, 108, 32));
    // Accel-Sim's default size when only enabled; nothing when disabled
    assert_eq!(dram("-dram_seperate_write_queue_enable 1\n"), (32, 28, 16));
    let off = "-dram_seperate_write_queue_enable 0\n-dram_write_queue_size 64:56:32\n";
    assert_eq!(dram(off), (0, 0, 0));
    let e = import_accel_sim(("g", "-dram_write_queue_size 64:56\n"), ("t", "")).unwrap_err();
    assert!(e.to_string().contains("SIZE:HIGH:LOW"), "{e}");
}
