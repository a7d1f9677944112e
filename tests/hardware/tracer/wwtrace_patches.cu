// Device patches of the warpweave tracer: the Compute Sanitizer calls these before every
// patched instruction (see wwtrace.cpp's sanitizerPatchInstructions calls). Each appends one
// WwRecord (wwtrace_format.h) to the context's WwDeviceBuffer, passed as `userdata`.
//
// Build (build.sh): nvcc --fatbin --compile-as-tools-patch -arch=sm_XX wwtrace_patches.cu
#include <sanitizer_patching.h>

#include "wwtrace_format.h"

static __device__ __forceinline__ uint32_t ww_cta() {
    return blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
}
static __device__ __forceinline__ uint32_t ww_tid() {
    return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}

static __device__ __forceinline__ void ww_push(void* userdata, uint64_t pc, uint64_t addr,
                                               uint8_t kind, uint8_t size, uint8_t flags,
                                               uint32_t mask) {
    WwDeviceBuffer* b = static_cast<WwDeviceBuffer*>(userdata);
    if (b == nullptr) return;
    unsigned long long i = atomicAdd(&b->count, 1ull);
    if (i >= b->capacity) return;  // full: counted, dropped (the host reports it)
    uint32_t t = ww_tid();
    WwRecord r;
    r.pc = pc;
    r.addr = addr;
    r.cta = ww_cta();
    r.warp = static_cast<uint16_t>(t / 32);
    r.lane = static_cast<uint8_t>(t % 32);
    r.kind = kind;
    r.size = size;
    r.flags = flags;
    r.reserved = 0;
    r.mask = mask;
    b->records[i] = r;
}

// Lowest active lane of the warp writes the per-warp records.
static __device__ __forceinline__ bool ww_leader(uint32_t* mask) {
    *mask = __activemask();
    return (ww_tid() % 32) == static_cast<uint32_t>(__ffs(*mask) - 1);
}

static __device__ __forceinline__ uint8_t ww_mem_flags(uint32_t flags, uint8_t space) {
    uint8_t f = static_cast<uint8_t>(space << WW_SPACE_SHIFT);
    if (flags & SANITIZER_MEMORY_DEVICE_FLAG_READ) f |= WW_READ;
    if (flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE) f |= WW_WRITE;
    if (flags & SANITIZER_MEMORY_DEVICE_FLAG_ATOMSYS) f |= WW_ATOMIC;
    return f;
}

extern "C" __device__ __noinline__ SanitizerPatchResult ww_global_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t size, uint32_t flags, const void*) {
    ww_push(userdata, pc, reinterpret_cast<uint64_t>(ptr), WW_MEM, static_cast<uint8_t>(size),
            ww_mem_flags(flags, WW_GLOBAL), 0);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult ww_shared_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t size, uint32_t flags, const void*) {
    uint64_t a = reinterpret_cast<uint64_t>(ptr);
    if (__isShared(ptr)) a = static_cast<uint64_t>(__cvta_generic_to_shared(ptr));
    ww_push(userdata, pc, a, WW_MEM, static_cast<uint8_t>(size), ww_mem_flags(flags, WW_SHARED),
            0);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult ww_local_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t size, uint32_t flags, const void*) {
    uint64_t a = reinterpret_cast<uint64_t>(ptr);
    if (__isLocal(ptr)) a = static_cast<uint64_t>(__cvta_generic_to_local(ptr));
    ww_push(userdata, pc, a, WW_MEM, static_cast<uint8_t>(size), ww_mem_flags(flags, WW_LOCAL),
            0);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult ww_block_enter(void* userdata,
                                                                        uint64_t pc) {
    uint32_t mask;
    if (ww_leader(&mask)) ww_push(userdata, pc, 0, WW_BLOCK_ENTER, 0, 0, mask);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult ww_block_exit(void* userdata,
                                                                       uint64_t pc) {
    uint32_t mask;
    if (ww_leader(&mask)) ww_push(userdata, pc, 0, WW_BLOCK_EXIT, 0, 0, mask);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult ww_barrier(void* userdata, uint64_t pc,
                                                                    uint32_t bar_index,
                                                                    uint32_t thread_count,
                                                                    uint32_t) {
    uint32_t mask;
    if (ww_leader(&mask))
        ww_push(userdata, pc, bar_index | (static_cast<uint64_t>(thread_count) << 32), WW_BARRIER,
                0, 0, mask);
    return SANITIZER_PATCH_SUCCESS;
}
