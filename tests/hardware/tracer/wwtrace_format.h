// warpweave Compute Sanitizer trace: the record layout shared by the device patches
// (wwtrace_patches.cu), the injected host library (wwtrace.cpp) and the Rust importer
// (crate/src/trace/sanitizer/records.rs). All integers little-endian.
//
// File = FileHeader, then per launched kernel: KernelHeader, name bytes, `records` Records.
//
//   FileHeader   (16 B): magic "WWSANTR1" (8 B), u32 version = 1, u32 record_size = 32
//   KernelHeader (64 B): magic "KERN" (4 B), u32 name_len, u32 grid[3], u32 block[3],
//                        u32 dyn_shmem (0: not known), u32 reserved, u64 func_pc (absolute
//                        start of the function), u64 records, u64 dropped (records lost to a
//                        full buffer), then name_len bytes of the mangled name (no NUL)
//   Record       (32 B): u64 pc (offset from the function's start: the host subtracts
//                        func_pc before writing), u64 addr, u32 cta (linear blockIdx:
//                        x + y*gx + z*gx*gy), u16 warp (linear threadIdx / 32), u8 lane,
//                        u8 kind, u8 size (bytes accessed by this lane), u8 flags,
//                        u16 reserved, u32 mask (block enter/exit, barrier: the active mask
//                        of the warp; 0 for memory records)
//
// kind: 0 memory access (one record per lane), 1 block enter, 2 block exit, 3 barrier
//       (one record per warp, written by the lowest active lane).
// flags (memory): bit 0 read, bit 1 write, bit 2 atomic, bits 4-5 space (0 global,
//       1 shared: addr is the offset in the CTA's shared window, 2 local: the offset in the
//       thread's local window). barrier: addr = barrier index | thread count << 32.
#pragma once
#include <stdint.h>

#define WW_FILE_MAGIC "WWSANTR1"
#define WW_KERNEL_MAGIC "KERN"
#define WW_VERSION 1u

enum WwKind : uint8_t { WW_MEM = 0, WW_BLOCK_ENTER = 1, WW_BLOCK_EXIT = 2, WW_BARRIER = 3 };
enum WwFlag : uint8_t {
    WW_READ = 1,
    WW_WRITE = 2,
    WW_ATOMIC = 4,
    WW_SPACE_SHIFT = 4,
    WW_GLOBAL = 0,
    WW_SHARED = 1,
    WW_LOCAL = 2,
};

struct WwRecord {
    uint64_t pc;
    uint64_t addr;
    uint32_t cta;
    uint16_t warp;
    uint8_t lane;
    uint8_t kind;
    uint8_t size;
    uint8_t flags;
    uint16_t reserved;
    uint32_t mask;
};
static_assert(sizeof(WwRecord) == 32, "record layout");

// The device-side state: one per CUDA context, reset before each launch.
struct WwDeviceBuffer {
    WwRecord* records;
    unsigned long long capacity;
    unsigned long long count;  // atomically bumped; may exceed capacity (the excess is dropped)
};

struct WwKernelHeader {
    char magic[4];
    uint32_t name_len;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t dyn_shmem;
    uint32_t reserved;
    uint64_t func_pc;
    uint64_t records;
    uint64_t dropped;
};
static_assert(sizeof(WwKernelHeader) == 64, "kernel header layout");
