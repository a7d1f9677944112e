//! Default values of every config section (`GpuConfig::default()`). The presets (configs/,
//! generated from `preset_rows.rs` and `preset_specs.rs`) override them with cited figures.

use super::*;

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            gpu: GpuSection::default(),
            clocks: Clocks::default(),
            core: CoreConfig::default(),
            sm: SmConfig::default(),
            scheduler: SchedulerConfig::default(),
            frontend: FrontendConfig::default(),
            regfile: RegFileConfig::default(),
            units: UnitsConfig::default(),
            latency: LatencyConfig::default(),
            mem_pipeline: MemPipelineConfig::default(),
            features: Features::default(),
            l1d: L1dConfig::default(),
            shmem: ShmemConfig::default(),
            const_cache: CacheConfig {
                size_kb: 2,
                line_bytes: 64,
                sector_bytes: 64,
                assoc: 4,
                latency: 8,
                ..CacheConfig::default()
            },
            l2: L2Config::default(),
            noc: NocConfig::default(),
            dram: DramConfig::default(),
            analytic: AnalyticMemConfig::default(),
        }
    }
}

impl Default for GpuSection {
    fn default() -> Self {
        GpuSection {
            id: "custom".into(),
            name: "Custom GPU".into(),
            arch: "turing".into(),
            compute_capability: 75,
            num_sms: 68,
        }
    }
}

impl Default for Clocks {
    fn default() -> Self {
        Clocks {
            core_mhz: 1365.0,
            icnt_mhz: 1365.0,
            l2_mhz: 1365.0,
            dram_mhz: 3500.0,
        }
    }
}

impl Default for SmConfig {
    fn default() -> Self {
        SmConfig {
            subcores: 4,
            max_warps: 32,
            max_threads: 1024,
            max_ctas: 16,
            registers: 65536,
            reg_alloc_granularity: 256,
            warp_alloc_granularity: 4,
            max_regs_per_thread: 255,
            shmem_alloc_granularity: 256,
            shmem_reserved_per_cta: 0,
            kernel_launch_latency: 0,
            launch_ncu_only: 0,
            cta_launch_latency: 0,
            concurrent_kernels: true,
        }
    }
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            policy: SchedPolicy::Gto,
            issue_width: 1,
            multi_issue: MultiIssue::SameWarp,
            two_level_active: 4,
        }
    }
}

impl Default for FrontendConfig {
    fn default() -> Self {
        FrontendConfig {
            fetch_width: 2,
            decode_width: 2,
            ibuffer_size: 2,
            inst_bytes: 16,
            l0i: ICacheConfig {
                size_kb: 16,
                line_bytes: 128,
                assoc: 4,
                latency: 1,
                mshr: 4,
            },
            l1i: ICacheConfig {
                size_kb: 128,
                line_bytes: 128,
                assoc: 16,
                latency: 20,
                mshr: 8,
            },
            kernel_code_stride: 1 << 20,
            l1i_miss_latency: 188,
            prefetch_depth: 0,
            prefetch_interval: 1,
            taken_branch_delay: 0,
        }
    }
}

impl Default for ICacheConfig {
    fn default() -> Self {
        ICacheConfig {
            size_kb: 0,
            line_bytes: 128,
            assoc: 4,
            latency: 1,
            mshr: 4,
        }
    }
}

impl Default for RegFileConfig {
    fn default() -> Self {
        RegFileConfig {
            banks: 2,
            ports_per_bank: 2,
            collector_units: 2,
        }
    }
}

impl Default for UnitConfig {
    fn default() -> Self {
        UnitConfig {
            count: 1,
            width: 16,
            shared: false,
        }
    }
}

impl Default for UnitsConfig {
    fn default() -> Self {
        UnitsConfig {
            int: UnitConfig {
                count: 1,
                width: 16,
                shared: false,
            },
            sp: UnitConfig {
                count: 1,
                width: 16,
                shared: false,
            },
            dp: UnitConfig {
                count: 1,
                width: 2,
                shared: false,
            },
            sfu: UnitConfig {
                count: 1,
                width: 4,
                shared: false,
            },
            tensor: UnitConfig {
                count: 1,
                width: 32,
                shared: false,
            },
            branch: UnitConfig {
                count: 1,
                width: 32,
                shared: false,
            },
            uniform: UnitConfig {
                count: 1,
                width: 32,
                shared: false,
            },
            mem: UnitConfig {
                count: 1,
                width: 32,
                shared: false,
            },
        }
    }
}

impl Default for LatencyConfig {
    fn default() -> Self {
        let t = |latency, interval| OpTiming { latency, interval };
        LatencyConfig {
            int: t(4, 2),
            int_mul: t(4, 2),
            fp32: t(4, 2),
            fp16: t(6, 2),
            dp: t(48, 16),
            sfu: t(21, 8),
            tensor: t(32, 4),
            branch: t(4, 1),
            uniform: t(2, 1),
        }
    }
}

impl Default for MemPipelineConfig {
    fn default() -> Self {
        MemPipelineConfig {
            coalesce_threads_per_cycle: 1,
            request_buffer: 4,
            dispatch_latency: 1,
            subcore_unit: false,
        }
    }
}

impl Default for Features {
    fn default() -> Self {
        Features {
            subcore_frontend: true,
            result_bus_ports: true,
            subcore_mem_pipeline: true,
            war_check: true,
            skip_idle_cycles: true,
            epoch_cycles: 1,
        }
    }
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            size_kb: 32,
            line_bytes: 128,
            sector_bytes: 32,
            assoc: 4,
            replacement: Replacement::Lru,
            index: IndexFn::Linear,
            write_policy: WritePolicy::WriteBack,
            write_allocate: true,
            lazy_fetch_on_read: false,
            fetch_bytes: 0,
            latency: 20,
            mshr_entries: 32,
            mshr_merge: 8,
            seed: 1,
        }
    }
}

impl Default for L1dConfig {
    fn default() -> Self {
        L1dConfig {
            cache: CacheConfig {
                size_kb: 32,
                assoc: 256,
                write_policy: WritePolicy::WriteThrough,
                write_allocate: false,
                latency: 32,
                mshr_entries: 256,
                mshr_merge: 8,
                ..CacheConfig::default()
            },
            unified_kb: 96,
            shmem_options_kb: vec![32, 64],
            adaptive_carveout: true,
            banks: 4,
            data_port_bytes: 0,
            streaming: true,
            cache_global: true,
        }
    }
}

impl Default for ShmemConfig {
    fn default() -> Self {
        ShmemConfig {
            banks: 32,
            bank_width_bytes: 4,
            latency: 24,
            max_per_sm_kb: 64,
            max_per_cta_kb: 64,
        }
    }
}

impl Default for L2Config {
    fn default() -> Self {
        L2Config {
            cache: CacheConfig {
                size_kb: renumber_kb(5632, 22),
                assoc: 16,
                index: IndexFn::Ipoly,
                latency: 160,
                mshr_entries: 192,
                mshr_merge: 4,
                ..CacheConfig::default()
            },
            partitions: 11,
            subpartitions: 2,
            partition_index: IndexFn::Ipoly,
            interleave_bytes: 256,
            atomic_latency: 4,
            atomic_interval: 0.0,
            warm_from_memcpy: true,
            flush_at_kernel_end: false,
            dram_latency: 100,
            input_queue: 8,
            sides: 1,
            fabric_latency: 0,
            fabric_sectors_per_cycle: 0.0,
        }
    }
}

const fn renumber_kb(total_kb: u32, slices: u32) -> u32 {
    total_kb / slices
}

impl Default for NocConfig {
    fn default() -> Self {
        NocConfig {
            flit_bytes: 40,
            latency: 8,
            port_flits_per_cycle: 1,
            buffer_flits: 64,
        }
    }
}

impl Default for DramConfig {
    fn default() -> Self {
        DramConfig {
            kind: "gddr6".into(),
            banks: 16,
            bank_groups: 4,
            bus_width_bytes: 4,
            burst_length: 16,
            data_rate: 4,
            row_bytes: 2048,
            queue: 64,
            write_queue: 0,
            write_high: 0,
            write_low: 0,
            scheduler: "frfcfs".into(),
            timing: DramTiming::default(),
        }
    }
}

impl Default for DramTiming {
    fn default() -> Self {
        DramTiming {
            t_cl: 24,
            t_rcd: 24,
            t_rp: 24,
            t_ras: 55,
            t_rc: 79,
            t_ccd: 2,
            t_ccdl: 4,
            t_rrd: 10,
            t_wr: 24,
            t_wtr: 8,
            t_rtw: 4,
            t_cwl: 20,
        }
    }
}

impl Default for AnalyticMemConfig {
    fn default() -> Self {
        AnalyticMemConfig {
            l1_latency: 32,
            l2_latency: 188,
            dram_latency: 296,
            shmem_latency: 24,
            const_latency: 8,
            l1_hit_rate: 1.0,
            l2_hit_rate: 1.0,
            max_outstanding: 256,
        }
    }
}
