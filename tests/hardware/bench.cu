// Host driver: `bench WORKLOAD [key=value ...]` with the same workload names, parameters and
// defaults as `warpweave gen`. Arrays are allocated in the model's order (inputs first, each
// copied in with cudaMemcpy, then outputs) and the kernel is launched exactly once, so ncu's
// per-kernel metrics line up with the simulated trace's single kernel.
//
//   bench WORKLOAD [key=value ...]      one workload, one launch (ncu, the tracer)
//   bench --list FILE [REPEAT]          every line of FILE in one process, each launched REPEAT
//                                       times (default 3) after an L2 flush, for nsys: prints
//                                       `duration WORKLOAD PARAMS EVENT_NS` per launch
// Probe workloads (l1_lines, mshr_merge, l2_sides, local_spill, ifetch, loop_probe,
// ffma_chain, issue_order) read the SM clock inside the kernel and print `clk WORKLOAD PARAMS t0 t1 ...`.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "kernels.cu"

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e = (x);                                                           \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static std::map<std::string, std::string> P;
static long long num(const char* k, long long def) {
    auto it = P.find(k);
    return it == P.end() ? def : atoll(it->second.c_str());
}
static void* input(size_t bytes) {  // Layout::input: allocate and copy in
    void* d;
    CK(cudaMalloc(&d, bytes));
    std::vector<float> h(bytes / 4 + 1);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (float)(i % 97) * 0.25f;
    CK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
    return d;
}
static void* alloc(size_t bytes) {  // Layout::alloc: allocate only
    void* d;
    CK(cudaMalloc(&d, bytes));
    return d;
}
static unsigned cdiv(long long a, long long b) { return (unsigned)((a + b - 1) / b); }
static unsigned lcg_state = 12345u;
static unsigned lcg() { return lcg_state = lcg_state * 1664525u + 1013904223u; }
template <class T>
static T* input_of(const std::vector<T>& h) {  // Layout::input with given contents
    T* d;
    CK(cudaMalloc(&d, h.size() * sizeof(T) + 4));
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
// --list mode: flush the L2 (a 256 MiB memset, larger than any L2) and time the launch.
static bool g_list = false;
static void* g_flush = nullptr;
static cudaEvent_t g_ev0, g_ev1;
static void before_launch() {
    if (!g_list) return;
    if (!g_flush) CK(cudaMalloc(&g_flush, 256 << 20));
    CK(cudaMemset(g_flush, 1, 256 << 20));
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(g_ev0));
}
static long long* g_clk = nullptr;  // probes: (start, end) pairs
static int g_clk_n = 0;
static long long* clk_buf(int pairs) {
    g_clk_n = 2 * pairs;
    CK(cudaMalloc(&g_clk, g_clk_n * sizeof(long long)));
    CK(cudaMemset(g_clk, 0, g_clk_n * sizeof(long long)));
    return g_clk;
}
static void build_btree(std::vector<BtNode>& nodes, int j, int level, int depth, long long lo,
                        long long span) {
    long long part = span / BT_FANOUT;
    for (int k = 0; k < BT_FANOUT; ++k) {
        nodes[j].keys[k] = (int)(lo + k * part);
        if (level + 1 < depth) {
            int c = BT_FANOUT * j + 1 + k;
            nodes[j].child[k] = c;
            build_btree(nodes, c, level + 1, depth, lo + k * part, part);
        } else {
            nodes[j].child[k] = (int)(lo + k * part);
        }
    }
}

static int run_one(const std::string& w, const std::string& params) {
    g_clk = nullptr;
    if (w == "vecadd") {
        long long n = num("n", 1024), block = num("block", 128), vec = num("vec", 1);
        size_t bytes = n * 4;
        float *a = (float*)input(bytes), *b = (float*)input(bytes), *c = (float*)alloc(bytes);
        if (vec == 4)
            { before_launch(); vecadd4<<<cdiv(n / 4, block), block>>>((float4*)a, (float4*)b, (float4*)c, n / 4); }
        else
            { before_launch(); vecadd<<<cdiv(n, block), block>>>(a, b, c, n); }
    } else if (w == "saxpy") {
        long long n = num("n", 1024), block = num("block", 256);
        float *x = (float*)input(n * 4), *y = (float*)input(n * 4);
        { before_launch(); saxpy<<<cdiv(n, block), block>>>(x, y, 2.0f, n); }
    } else if (w == "transpose_naive" || w == "transpose_tiled") {
        long long rows = num("rows", 256), cols = num("cols", 256), pad = num("pad", 0);
        float *in = (float*)input(rows * cols * 4), *out = (float*)alloc(rows * cols * 4);
        dim3 block(32, 8), grid(cdiv(cols, 32), cdiv(rows, w == "transpose_naive" ? 8 : 32));
        if (w == "transpose_naive")
            { before_launch(); transpose_naive<<<grid, block>>>(in, out, rows, cols); }
        else if (pad)
            { before_launch(); transpose_tiled1<<<grid, block>>>(in, out, rows, cols); }
        else
            { before_launch(); transpose_tiled0<<<grid, block>>>(in, out, rows, cols); }
    } else if (w == "matmul_naive" || w == "matmul_tiled") {
        long long m = num("m", 64), n = num("n", 64), k = num("k", 64), t = num("tile", 16);
        float *A = (float*)input(m * k * 4), *B = (float*)input(k * n * 4);
        float* C = (float*)alloc(m * n * 4);
        if (w == "matmul_naive")
            { before_launch(); matmul_naive<<<dim3(cdiv(n, 16), cdiv(m, 16)), dim3(16, 16)>>>(A, B, C, m, n, k); }
        else if (t == 32)
            { before_launch(); matmul_tiled32<<<dim3(n / 32, m / 32), dim3(32, 32)>>>(A, B, C, m, n, k); }
        else
            { before_launch(); matmul_tiled16<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(A, B, C, m, n, k); }
    } else if (w == "reduction") {
        long long n = num("n", 65536), block = num("block", 256);
        float* in = (float*)input(n * 4);
        unsigned grid = cdiv(n, block);
        float* out = (float*)alloc(grid * 4);
        { before_launch(); reduction<<<grid, block, block * 4>>>(in, out, n); }
    } else if (w == "pointer_chase") {
        long long fp = num("footprint", 65536), stride = num("stride", 128), iters = num("iters", 256);
        char* base = (char*)alloc(fp);
        std::vector<char> h(fp, 0);
        long long slots = fp / stride;
        for (long long j = 0; j < slots; ++j) {
            void* next = base + ((j + 1) % slots) * stride;
            memcpy(&h[j * stride], &next, sizeof next);
        }
        CK(cudaMemcpy(base, h.data(), fp, cudaMemcpyHostToDevice));  // = Layout::input
        void** out = (void**)alloc(8);
        { before_launch(); pointer_chase<<<1, 1>>>((void**)base, out, iters); }
    } else if (w == "ffma_dep") {
        long long n = num("n", 1024), warps = num("warps", 1);
        float* out = (float*)alloc(warps * 32 * 4);
        { before_launch(); ffma_dep<<<1, 32 * warps>>>(out, n); }
    } else if (w == "ffma_indep") {
        long long n = num("n", 256), chains = num("chains", 8), warps = num("warps", 1);
        if (chains != 8) {
            fprintf(stderr, "ffma_indep: this build has chains=8 only\n");
            return 2;
        }
        float* out = (float*)alloc(warps * 32 * 4);
        { before_launch(); ffma_indep8<<<1, 32 * warps>>>(out, n); }
    } else if (w == "stream_load") {
        long long ctas = num("ctas", 1), threads = num("threads", 256), reps = num("reps", 1);
        long long unroll = num("unroll", 8), reuse = num("reuse", 0), region = num("region", 16384);
        long long bytes = reuse ? ctas * region : ctas * threads * reps * unroll * 16;
        void* base = num("warm", 1) ? input(bytes) : alloc(bytes);
        float* sink = (float*)alloc(4);
        auto k = unroll == 1 ? stream_load1 : unroll == 2 ? stream_load2 : unroll == 4 ? stream_load4
                 : unroll == 8 ? stream_load8 : nullptr;
        if (!k) {
            fprintf(stderr, "stream_load: unroll must be 1, 2, 4 or 8\n");
            return 2;
        }
        { before_launch(); k<<<ctas, threads>>>((float4*)base, sink, reps, reuse, region); }
    } else if (w == "btree_find") {
        long long depth = num("depth", 4), ctas = num("ctas", 8), block = num("block", 128);
        long long nnodes = 0, width = 1, range = 1;
        for (int l = 0; l < depth; ++l, width *= BT_FANOUT) nnodes += width;
        for (int l = 0; l < depth; ++l) range *= BT_FANOUT;
        std::vector<BtNode> h(nnodes);
        build_btree(h, 0, 0, (int)depth, 0, range);
        long long nq = ctas * block;
        std::vector<int> q(nq);
        for (auto& x : q) x = (int)(lcg() % range);
        BtNode* nodes = input_of(h);
        int* qs = input_of(q);
        int* found = (int*)alloc(nq * 4);
        { before_launch(); btree_find<<<ctas, block>>>(nodes, qs, found, depth, nq); }
    } else if (w == "bfs_step") {
        long long n = num("n", 65536), deg = num("deg", 8), block = num("block", 256);
        std::vector<int> row(n + 1), col(n * deg), fr(n), vis(n), cost(n, 0);
        for (long long v = 0; v <= n; ++v) row[v] = (int)(v * deg);
        for (auto& c : col) c = (int)(lcg() % n);
        for (auto& f : fr) f = lcg() % 10 == 0;
        for (auto& x : vis) x = lcg() % 5 == 0;
        int *r = input_of(row), *c = input_of(col), *f = input_of(fr), *vi = input_of(vis);
        int *co = input_of(cost), *nx = (int*)alloc(n * 4);
        { before_launch(); bfs_step<<<cdiv(n, block), block>>>(r, c, f, vi, co, nx, n); }
    } else if (w == "histogram_atomic") {
        long long n = num("n", 1 << 20), bins = num("bins", 16), ctas = num("ctas", 264);
        long long block = num("block", 256);
        std::vector<unsigned> h(n);
        for (auto& x : h) x = lcg() >> 8;
        unsigned* in = input_of(h);
        unsigned* hist = (unsigned*)alloc(bins * 4);
        CK(cudaMemset(hist, 0, bins * 4));
        { before_launch(); histogram_atomic<<<ctas, block>>>(in, hist, n, bins); }
    } else if (w == "l1_lines") {
        long long lines = num("lines", 1), reps = num("reps", 256);
        float* buf = (float*)input(8 * 1024 * 4);
        float* sink = (float*)alloc(4);
        long long* clk = clk_buf(4);
        { before_launch(); l1_lines<<<1, 128>>>(buf, sink, clk, lines, reps); }
    } else if (w == "mshr_merge") {
        long long warps = num("warps", 1);
        float* buf = (float*)input(4096);
        float* sink = (float*)alloc(4);
        long long* clk = clk_buf(warps);
        { before_launch(); mshr_merge<<<1, 32 * warps>>>(buf, sink, clk); }
    } else if (w == "l2_sides") {
        long long lines = num("lines", 16), ctas = num("ctas", 0);
        if (ctas <= 0) {
            int dev = 0, sms = 0;
            CK(cudaGetDevice(&dev));
            CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
            ctas = sms;
        }
        float* buf = (float*)input(ctas * lines * 128);
        float* sink = (float*)alloc(4);
        long long* clk = clk_buf(ctas * (lines + 1));
        { before_launch(); l2_sides<<<ctas, 32>>>(buf, sink, clk, lines, 0); }
    } else if (w == "local_spill") {
        long long n = num("n", 32), reps = num("reps", 16), ctas = num("ctas", 1);
        long long block = num("block", 128);
        int* seed = (int*)input(32 * 4);
        int* out = (int*)alloc(ctas * block * 4);
        long long* clk = clk_buf(block / 32);
        { before_launch(); local_spill<<<ctas, block>>>(seed, out, clk, n, reps); }
    } else if (w == "ifetch") {
        long long lines = num("lines", 1);
        float* out = (float*)alloc(32 * 4);
        long long* clk = clk_buf(1);
        auto k = lines == 1 ? ifetch8 : lines == 16 ? ifetch128 : lines == 64 ? ifetch512
                 : lines == 256 ? ifetch2048 : nullptr;
        if (!k) {
            fprintf(stderr, "ifetch: lines must be 1, 16, 64 or 256\n");
            return 2;
        }
        { before_launch(); k<<<1, 32>>>(out, clk); }
    } else if (w == "loop_probe") {
        long long trips = num("trips", 64);
        float* out = (float*)alloc(32 * 4);
        long long* clk = clk_buf(1);
        { before_launch(); loop_probe<<<1, 32>>>(out, clk, trips); }
    } else if (w == "ffma_chain") {
        float* out = (float*)alloc(32 * 4);
        long long* clk = clk_buf(1);
        { before_launch(); ffma_chain2048<<<1, 32>>>(out, clk); }
    } else if (w == "issue_order") {
        float* out = (float*)alloc(512 * 4);
        long long* clk = clk_buf(4);
        { before_launch(); issue_order<<<1, 512>>>(out, clk); }
    } else {
        fprintf(stderr, "unknown workload %s\n", w.c_str());
        return 2;
    }
    CK(cudaGetLastError());
    if (g_list) CK(cudaEventRecord(g_ev1));
    CK(cudaDeviceSynchronize());
    if (g_list) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, g_ev0, g_ev1));
        printf("duration %s %s %.0f\n", w.c_str(), params.c_str(), ms * 1e6);
    }
    if (g_clk) {
        std::vector<long long> h(g_clk_n);
        CK(cudaMemcpy(h.data(), g_clk, g_clk_n * sizeof(long long), cudaMemcpyDeviceToHost));
        printf("clk %s %s", w.c_str(), params.c_str());
        for (long long v : h) printf(" %lld", v);
        printf("\n");
        CK(cudaFree(g_clk));
    }
    fflush(stdout);
    return 0;
}

static int parse(int argc, char** argv, int from, std::string& joined) {
    P.clear();
    joined.clear();
    for (int i = from; i < argc; ++i) {
        const char* eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "bad parameter %s (want key=value)\n", argv[i]);
            return 2;
        }
        P[std::string(argv[i], eq - argv[i])] = eq + 1;
        joined += (joined.empty() ? "" : " ") + std::string(argv[i]);
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench WORKLOAD [key=value ...] | bench --list FILE [REPEAT]\n");
        return 2;
    }
    std::string joined;
    if (std::string(argv[1]) != "--list") {
        if (parse(argc, argv, 2, joined)) return 2;
        return run_one(argv[1], joined);
    }
    if (argc < 3) return 2;
    int repeat = argc > 3 ? atoi(argv[3]) : 3;
    g_list = true;
    CK(cudaEventCreate(&g_ev0));
    CK(cudaEventCreate(&g_ev1));
    FILE* f = fopen(argv[2], "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", argv[2]);
        return 2;
    }
    char line[1024];
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        std::vector<char*> args = {argv[0]};
        for (char* t = strtok(line, " \t\r\n"); t; t = strtok(nullptr, " \t\r\n")) args.push_back(t);
        if (args.size() < 2 || args[1][0] == '#') continue;
        if (parse((int)args.size(), args.data(), 2, joined)) return 2;
        std::string w = args[1];
        for (int r = 0; r < repeat; ++r) rc |= run_one(w, joined);
    }
    fclose(f);
    return rc;
}
