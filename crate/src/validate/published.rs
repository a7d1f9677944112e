//! The published hardware figures the suite compares with: one row per (preset, metric), each
//! with the GPU it was measured on and the citation. Only figures that can be attributed are
//! here; a metric without a row is printed with its simulated value alone.
//!
//! `checked` says how the number was checked when the table was written: `search` (the figure
//! was read in a public copy of the source, or of notes quoting it), `paper` (taken from the
//! paper itself; not re-read since, and the search tool found no public copy of the table to
//! confirm it: re-check against the PDF), `recalled` (written down from memory of the paper's
//! table; neither re-read nor confirmed: the weakest status, re-check first), `spec` (a vendor
//! document, not a measurement), `measured` (measured by this project on a lent GPU with Nsight
//! Compute: `tests/hardware/results/<preset>.csv`, solved per hop as its README says).
//!
//! None of the `paper` latency figures (Jia18 L1
//! 28 / L2 193 / shared 19 / FFMA 4 / DFMA 8, Jia19 L2 188 / FFMA 4, Abdelkhalik L1 33 / L2 200
//! / DRAM 290 / shared 23) could be read in a stored copy (the stored pages show only the
//! abstracts), so they stay `paper`. An NVIDIA engineer's forum answer confirms the 128 B/cycle
//! L1 and shared-memory return bandwidth of cc 7.x that the `data_port_bytes` rows start from
//! (forums.developer.nvidia.com/t/unexpected-shared-memory-bank-conflict/77228), and a quote
//! of the CUDA guide's throughput table confirms the cc 7.x FP32 64 / FP64 32 rows.
//!
//! The `l2_step_kb` rows compare the footprint where the simulated chase steps to DRAM with the
//! vendor's L2 size. titanv's step comes at 0.87x (4000 of 4608 KiB): its `l2.partition_index
//! = ipoly` over 24 partitions (not a power of two) spreads a contiguous footprint unevenly, so
//! some slices overflow early; with `linear` the step is at +0.7% and every other titanv row
//! stays within 5%. rtx2080ti (ipoly over 64 sets) +2.8%, a100 +0.9%, h100 +0.9%.
//!
//! DRAM bandwidth is compared as a fraction of the preset's theoretical peak (the peak itself
//! is the vendor figure: TITAN V 652.8 GB/s, RTX 2080 Ti 616 GB/s, A100 80GB PCIe 1935 GB/s,
//! which the presets reproduce exactly); only the V100 has an attributable measured fraction.

/// One published figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    /// Preset id (`titanv`, `rtx2080ti`, `a100`).
    pub gpu: &'static str,
    /// Metric id (see `crate::validate::METRICS`).
    pub metric: &'static str,
    pub value: f64,
    /// The board the figure was measured on (the same SM generation as the preset).
    pub measured_on: &'static str,
    pub source: &'static str,
    pub checked: &'static str,
}

const JIA18: &str = "Jia et al., \"Dissecting the NVIDIA Volta GPU Architecture via \
                     Microbenchmarking\", arXiv:1804.06826, 2018, ch. 3 (memory latencies)";
const JIA18_ARITH: &str = "Jia et al., \"Dissecting the NVIDIA Volta GPU Architecture via \
                           Microbenchmarking\", arXiv:1804.06826, 2018, ch. 4 (instruction latency)";
const JIA19: &str = "Jia et al., \"Dissecting the NVidia Turing T4 GPU via Microbenchmarking\", \
                     arXiv:1903.07486, 2019, ch. 3 (memory latencies; seed 000 Table II uses the \
                     same 188 cycles for the RTX 2080 Ti)";
const JIA19_ARITH: &str = "Jia et al., \"Dissecting the NVidia Turing T4 GPU via \
                           Microbenchmarking\", arXiv:1903.07486, 2019, ch. 4 (instruction latency)";
const SJFENG: &str = "sjfeng1999/gpu-arch-microbenchmark (GitHub), README latency table, \
                      Turing RTX 2070";
const ABDEL: &str = "Abdelkhalik et al., \"Demystifying the Nvidia Ampere Architecture through \
                     Microbenchmarking and Instruction-level Analysis\", HPEC 2022 \
                     (arXiv:2208.11174), memory-latency table";
const ABDEL_ARITH: &str = "Abdelkhalik et al., \"Demystifying the Nvidia Ampere Architecture \
                           through Microbenchmarking and Instruction-level Analysis\", HPEC 2022 \
                           (arXiv:2208.11174), add.f32 dependent / independent CPI";
const JIA18_L1BW: &str = "Jia et al., \"Dissecting the NVIDIA Volta GPU Architecture via \
                          Microbenchmarking\", arXiv:1804.06826, 2018, ch. 3 (L1 load throughput \
                          per SM)";
const JIA19_L1BW: &str = "Jia et al., \"Dissecting the NVidia Turing T4 GPU via \
                          Microbenchmarking\", arXiv:1903.07486, 2019, ch. 3 (L1 load throughput \
                          per SM)";
const CUDA_SHMEM: &str = "NVIDIA CUDA C++ Programming Guide, compute capability 5.x-9.0 \
                          \"Shared Memory\": 32 banks of 32 bits per clock; an n-way bank conflict \
                          is split into n conflict-free requests, i.e. one more cycle per extra way";
const L2_SIZE: &str =
    "L2 capacity from the vendor: TITAN V 4.5 MB (seed 004 Table 3), RTX 2080 Ti \
                       5.5 MB (seed 000 Table I), A100 40 MB (A100 whitepaper), H100 SXM5 50 MB \
                       (H100 whitepaper); a size, not a measurement of the step";
const HW_H100: &str = "warpweave tests/hardware/results/h100.csv: pointer_chase under Nsight \
    Compute 2025.3.1 on an NVIDIA H100 80GB HBM3 (2026-11-22)";
const CUDA_TPUT: &str = "NVIDIA CUDA C++ Programming Guide, \"Arithmetic Instructions\": \
                         throughput of native arithmetic instructions (operations per clock \
                         cycle per multiprocessor)";
const PARANUMAL: &str = "\"Rough-n-Ready Roofline: NVIDIA V100 edition\", paranumal.com blog, \
                         2018-02-08: 790 GB/s measured with cudaMemcpy of 900 GB/s theoretical \
                         (V100 16GB PCIe)";

macro_rules! row {
    ($gpu:expr, $metric:expr, $v:expr, $on:expr, $src:expr, $checked:expr) => {
        Published {
            gpu: $gpu,
            metric: $metric,
            value: $v,
            measured_on: $on,
            source: $src,
            checked: $checked,
        }
    };
}

/// Every published figure, grouped by preset.
pub static PUBLISHED: [Published; 45] = [
    // TITAN V: Jia et al. measured the Tesla V100 (the same GV100 SM, cycles per SM clock).
    row!("titanv", "lat_l1", 28.0, "Tesla V100", JIA18, "paper"),
    row!("titanv", "lat_l2", 193.0, "Tesla V100", JIA18, "paper"),
    row!("titanv", "lat_shmem", 19.0, "Tesla V100", JIA18, "paper"),
    row!(
        "titanv",
        "lat_ffma",
        4.0,
        "Tesla V100",
        JIA18_ARITH,
        "paper"
    ),
    row!(
        "titanv",
        "lat_dfma",
        8.0,
        "Tesla V100",
        JIA18_ARITH,
        "paper"
    ),
    row!("titanv", "tput_fp32", 64.0, "cc 7.0", CUDA_TPUT, "spec"),
    row!("titanv", "tput_int", 64.0, "cc 7.0", CUDA_TPUT, "spec"),
    row!("titanv", "tput_fp64", 32.0, "cc 7.0", CUDA_TPUT, "spec"),
    row!("titanv", "tput_sfu", 16.0, "cc 7.0", CUDA_TPUT, "spec"),
    row!(
        "titanv",
        "bw_dram_eff",
        87.8,
        "Tesla V100",
        PARANUMAL,
        "search"
    ),
    row!(
        "titanv",
        "bw_l1",
        108.3,
        "Tesla V100",
        JIA18_L1BW,
        "recalled"
    ),
    row!(
        "titanv",
        "shmem_conflict",
        1.0,
        "cc 7.0",
        CUDA_SHMEM,
        "spec"
    ),
    row!("titanv", "l2_step_kb", 4608.0, "TITAN V", L2_SIZE, "spec"),
    // RTX 2080 Ti: microbenchmarks of the same Turing SM on an RTX 2070 and a T4.
    row!("rtx2080ti", "lat_l1", 32.0, "RTX 2070", SJFENG, "search"),
    row!("rtx2080ti", "lat_l2", 188.0, "Tesla T4", JIA19, "paper"),
    row!("rtx2080ti", "lat_shmem", 23.0, "RTX 2070", SJFENG, "search"),
    row!(
        "rtx2080ti",
        "lat_ffma",
        4.0,
        "Tesla T4",
        JIA19_ARITH,
        "paper"
    ),
    row!("rtx2080ti", "tput_fp32", 64.0, "cc 7.5", CUDA_TPUT, "spec"),
    row!("rtx2080ti", "tput_int", 64.0, "cc 7.5", CUDA_TPUT, "spec"),
    row!("rtx2080ti", "tput_fp64", 2.0, "cc 7.5", CUDA_TPUT, "spec"),
    row!("rtx2080ti", "tput_sfu", 16.0, "cc 7.5", CUDA_TPUT, "spec"),
    row!(
        "rtx2080ti",
        "bw_l1",
        58.83,
        "Tesla T4",
        JIA19_L1BW,
        "recalled"
    ),
    row!(
        "rtx2080ti",
        "shmem_conflict",
        1.0,
        "cc 7.5",
        CUDA_SHMEM,
        "spec"
    ),
    row!(
        "rtx2080ti",
        "l2_step_kb",
        5632.0,
        "RTX 2080 Ti",
        L2_SIZE,
        "spec"
    ),
    // A100: Abdelkhalik et al. measured the A100 (PCIe 40 GB).
    row!("a100", "lat_l1", 33.0, "A100", ABDEL, "paper"),
    row!("a100", "lat_l2", 200.0, "A100", ABDEL, "paper"),
    row!("a100", "lat_dram", 290.0, "A100", ABDEL, "paper"),
    row!("a100", "lat_shmem", 23.0, "A100", ABDEL, "paper"),
    row!("a100", "lat_fadd", 4.0, "A100", ABDEL_ARITH, "search"),
    row!("a100", "tput_fadd", 64.0, "A100", ABDEL_ARITH, "search"),
    row!("a100", "tput_fp32", 64.0, "cc 8.0", CUDA_TPUT, "spec"),
    row!("a100", "tput_int", 64.0, "cc 8.0", CUDA_TPUT, "spec"),
    row!("a100", "tput_fp64", 32.0, "cc 8.0", CUDA_TPUT, "spec"),
    row!("a100", "tput_sfu", 16.0, "cc 8.0", CUDA_TPUT, "spec"),
    row!("a100", "shmem_conflict", 1.0, "cc 8.0", CUDA_SHMEM, "spec"),
    row!("a100", "l2_step_kb", 40960.0, "A100", L2_SIZE, "spec"),
    // H100: our own pointer chases (ncu, H100 80GB HBM3, driver 580.159.04, 1.98 GHz), each
    // hop solved from two or three chase sizes (tests/hardware/README.md), and vendor figures.
    row!(
        "h100",
        "lat_l1",
        32.1,
        "H100 80GB HBM3",
        HW_H100,
        "measured"
    ),
    row!(
        "h100",
        "lat_l2",
        286.0,
        "H100 80GB HBM3",
        HW_H100,
        "measured"
    ),
    row!(
        "h100",
        "lat_dram",
        685.0,
        "H100 80GB HBM3",
        HW_H100,
        "measured"
    ),
    row!("h100", "tput_fp32", 128.0, "cc 9.0", CUDA_TPUT, "spec"),
    row!("h100", "tput_int", 64.0, "cc 9.0", CUDA_TPUT, "spec"),
    row!("h100", "tput_fp64", 64.0, "cc 9.0", CUDA_TPUT, "spec"),
    row!("h100", "tput_sfu", 16.0, "cc 9.0", CUDA_TPUT, "spec"),
    row!("h100", "shmem_conflict", 1.0, "cc 9.0", CUDA_SHMEM, "spec"),
    row!("h100", "l2_step_kb", 51200.0, "H100 SXM5", L2_SIZE, "spec"),
];

/// The published figure for `metric` on preset `gpu`, if there is one.
pub fn lookup(gpu: &str, metric: &str) -> Option<&'static Published> {
    PUBLISHED
        .iter()
        .find(|p| p.gpu == gpu && p.metric == metric)
}
