// libwwtrace.so: a Compute Sanitizer tool that records, per launched kernel, every global,
// shared and local memory access (PC, address, size, read/write/atomic, CTA, warp, lane),
// block entry and exit and barriers into one binary file (layout: wwtrace_format.h).
//
//   CUDA_INJECTION64_PATH=/path/libwwtrace.so WWTRACE_PATCHES=/path/wwtrace_patches.fatbin
//   WWTRACE_OUT=records.wwsan [WWTRACE_BUFFER_MB=256] [WWTRACE_KERNEL=substring] ./app
//
//  driver loads libwwtrace.so -> InitializeInjection(): sanitizerSubscribe + domains
//   module loaded     -> sanitizerAddPatchesFromFile(patches) once per context,
//                        sanitizerPatchInstructions(enter/exit/global/shared/local/barrier),
//                        sanitizerPatchModule
//   launch begin      -> device buffer (sanitizerAlloc, first launch of the context); a launch
//                        still pending is drained first; reset the buffer's counter,
//                        sanitizerSetCallbackData(function, buffer)
//   stream / context synchronized, context destroyed
//                     -> drain the pending launch: copy the records back, subtract the
//                        function's start PC, append KernelHeader + name + records to the file
// Records are read back when the application synchronizes, not at launch end: synchronizing
// inside the launch-end callback hung on an H100 (driver 580). WWTRACE_VERBOSE=1 prints each step.
//
// Memory stays bounded: the device buffer holds WWTRACE_BUFFER_MB (default 256 MiB, 8 M
// records) and is drained by the host after every launch; a kernel writing more loses the
// excess, counted in its header's `dropped` (the importer refuses such a kernel unless told).
#include <sanitizer.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "wwtrace_format.h"

namespace {

struct Launch {
    std::string name;
    uint32_t grid[3];
    uint32_t block[3];
    uint64_t func_pc;
    Sanitizer_StreamHandle stream;
};

struct Ctx {
    bool patches = false;           // patches added to this context
    WwDeviceBuffer* dev = nullptr;  // device copy of the buffer descriptor
    WwRecord* records = nullptr;    // device records
    unsigned long long capacity = 0;
    WwDeviceBuffer staging{};  // host source of the async reset copy (must outlive it)
    bool pending = false;      // a traced launch whose records are not read back yet
    Launch launch;
};

std::mutex g_lock;
std::map<CUcontext, Ctx> g_ctx;
FILE* g_out = nullptr;
std::string g_patches;
std::string g_filter;
size_t g_buffer_bytes = 256u << 20;
bool g_verbose = false;
Sanitizer_SubscriberHandle g_sub;

void check(SanitizerResult r, const char* what) {
    if (r == SANITIZER_SUCCESS) return;
    const char* s = nullptr;
    sanitizerGetResultString(r, &s);
    fprintf(stderr, "wwtrace: %s failed: %s\n", what, s ? s : "?");
    exit(1);
}

void say(const char* what, const char* name) {
    if (g_verbose) fprintf(stderr, "wwtrace: %s %s\n", what, name ? name : "");
}

void on_module(CUcontext ctx, CUmodule module) {
    Ctx& c = g_ctx[ctx];
    if (!c.patches) {
        check(sanitizerAddPatchesFromFile(g_patches.c_str(), ctx), "sanitizerAddPatchesFromFile");
        c.patches = true;
        say("patches added", g_patches.c_str());
    }
    check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_BLOCK_ENTER, module, "ww_block_enter"),
          "patch block enter");
    check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_BLOCK_EXIT, module, "ww_block_exit"),
          "patch block exit");
    check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, module,
                                     "ww_global_access"),
          "patch global");
    check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, module,
                                     "ww_shared_access"),
          "patch shared");
    check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, module,
                                     "ww_local_access"),
          "patch local");
    check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_BARRIER, module, "ww_barrier"),
          "patch barrier");
    check(sanitizerPatchModule(module), "sanitizerPatchModule");
    say("module patched", nullptr);
}

// Copies the pending launch's records back and appends the kernel to the file.
void drain(Ctx& c) {
    if (!c.pending) return;
    c.pending = false;
    const Launch& l = c.launch;
    check(sanitizerStreamSynchronize(l.stream), "sanitizerStreamSynchronize");
    WwDeviceBuffer host{};
    check(sanitizerMemcpyDeviceToHost(&host, c.dev, sizeof host, l.stream), "read buffer");
    unsigned long long n = host.count < c.capacity ? host.count : c.capacity;
    std::vector<WwRecord> recs(n);
    if (n)
        check(sanitizerMemcpyDeviceToHost(recs.data(), c.records, n * sizeof(WwRecord), l.stream),
              "read records");
    for (auto& r : recs) r.pc -= l.func_pc;
    WwKernelHeader h{};
    memcpy(h.magic, WW_KERNEL_MAGIC, 4);
    h.name_len = static_cast<uint32_t>(l.name.size());
    memcpy(h.grid, l.grid, sizeof h.grid);
    memcpy(h.block, l.block, sizeof h.block);
    h.func_pc = l.func_pc;
    h.records = n;
    h.dropped = host.count - n;
    fwrite(&h, sizeof h, 1, g_out);
    fwrite(l.name.data(), 1, l.name.size(), g_out);
    if (n) fwrite(recs.data(), sizeof(WwRecord), n, g_out);
    fflush(g_out);
    if (g_verbose)
        fprintf(stderr, "wwtrace: %s: %llu records\n", l.name.c_str(),
                static_cast<unsigned long long>(n));
    if (h.dropped)
        fprintf(stderr, "wwtrace: %s: buffer full, %llu records dropped (raise WWTRACE_BUFFER_MB)\n",
                l.name.c_str(), static_cast<unsigned long long>(h.dropped));
}

void on_launch_begin(const Sanitizer_LaunchData* d) {
    const char* name = d->functionName ? d->functionName : "?";
    bool traced = g_filter.empty() || std::string(name).find(g_filter) != std::string::npos;
    Ctx& c = g_ctx[d->context];
    drain(c);  // one buffer per context: the launch before this one is read back first
    if (!traced) {
        check(sanitizerSetCallbackData(d->function, nullptr), "sanitizerSetCallbackData");
        return;
    }
    if (!c.records) {
        c.capacity = g_buffer_bytes / sizeof(WwRecord);
        check(sanitizerAlloc(d->context, reinterpret_cast<void**>(&c.records),
                             c.capacity * sizeof(WwRecord)),
              "sanitizerAlloc(records)");
        check(sanitizerAlloc(d->context, reinterpret_cast<void**>(&c.dev), sizeof(WwDeviceBuffer)),
              "sanitizerAlloc(buffer)");
    }
    Launch& l = c.launch;
    l.name = name;
    l.grid[0] = d->gridDim_x;
    l.grid[1] = d->gridDim_y;
    l.grid[2] = d->gridDim_z;
    l.block[0] = d->blockDim_x;
    l.block[1] = d->blockDim_y;
    l.block[2] = d->blockDim_z;
    l.stream = d->hStream;
    uint64_t size = 0;
    l.func_pc = 0;
    check(sanitizerGetFunctionPcAndSize(d->module, d->functionName, &l.func_pc, &size),
          "sanitizerGetFunctionPcAndSize");
    c.staging = WwDeviceBuffer{c.records, c.capacity, 0};
    check(sanitizerMemcpyHostToDeviceAsync(c.dev, &c.staging, sizeof c.staging, d->hStream),
          "reset buffer");
    check(sanitizerSetCallbackData(d->function, c.dev), "sanitizerSetCallbackData");
    c.pending = true;
    say("launch", name);
}

void drain_context(CUcontext ctx) {
    auto it = g_ctx.find(ctx);
    if (it != g_ctx.end()) drain(it->second);
}

void SANITIZERAPI callback(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                           const void* cbdata) {
    std::lock_guard<std::mutex> guard(g_lock);
    if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
        if (cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED) {
            const auto* m = static_cast<const Sanitizer_ResourceModuleData*>(cbdata);
            on_module(m->context, m->module);
        } else if (cbid == SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
            drain_context(static_cast<const Sanitizer_ResourceContextData*>(cbdata)->context);
        }
    } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
        if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
            on_launch_begin(static_cast<const Sanitizer_LaunchData*>(cbdata));
    } else if (domain == SANITIZER_CB_DOMAIN_SYNCHRONIZE) {
        say("synchronized", nullptr);
        drain_context(static_cast<const Sanitizer_SynchronizeData*>(cbdata)->context);
    }
}

}  // namespace

// Called by the CUDA driver for the library named in CUDA_INJECTION64_PATH. Returns 1 on
// success, as the driver's injection contract (CUPTI's samples) has it: a 0 tells the driver the
// tool failed, and it unloads the library with the callbacks still subscribed (a crash at the
// first CUDA call; seen on an H100, driver 580).
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
    const char* p = getenv("WWTRACE_PATCHES");
    const char* o = getenv("WWTRACE_OUT");
    if (!p || !o) {
        fprintf(stderr, "wwtrace: set WWTRACE_PATCHES (the patches fatbin) and WWTRACE_OUT\n");
        return 0;
    }
    g_patches = p;
    if (const char* f = getenv("WWTRACE_KERNEL")) g_filter = f;
    if (const char* v = getenv("WWTRACE_VERBOSE")) g_verbose = v[0] == '1';
    if (const char* m = getenv("WWTRACE_BUFFER_MB")) g_buffer_bytes = strtoull(m, nullptr, 10) << 20;
    if (g_buffer_bytes < sizeof(WwRecord)) g_buffer_bytes = 1u << 20;
    g_out = fopen(o, "wb");
    if (!g_out) {
        fprintf(stderr, "wwtrace: cannot create %s\n", o);
        return 0;
    }
    fwrite(WW_FILE_MAGIC, 1, 8, g_out);
    uint32_t v[2] = {WW_VERSION, static_cast<uint32_t>(sizeof(WwRecord))};
    fwrite(v, sizeof v, 1, g_out);
    check(sanitizerSubscribe(&g_sub, callback, nullptr), "sanitizerSubscribe");
    check(sanitizerEnableDomain(1, g_sub, SANITIZER_CB_DOMAIN_RESOURCE), "enable resource");
    check(sanitizerEnableDomain(1, g_sub, SANITIZER_CB_DOMAIN_LAUNCH), "enable launch");
    check(sanitizerEnableDomain(1, g_sub, SANITIZER_CB_DOMAIN_SYNCHRONIZE), "enable synchronize");
    fprintf(stderr, "wwtrace: recording to %s\n", o);
    return 1;
}
