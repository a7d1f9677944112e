// Host driver: `bench WORKLOAD [key=value ...]` with the same workload names, parameters and
// defaults as `warpweave gen`. Arrays are allocated in the model's order (inputs first, each
// copied in with cudaMemcpy, then outputs) and the kernel is launched exactly once, so ncu's
// per-kernel metrics line up with the simulated trace's single kernel.

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

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench WORKLOAD [key=value ...]\n");
        return 2;
    }
    std::string w = argv[1];
    for (int i = 2; i < argc; ++i) {
        const char* eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "bad parameter %s (want key=value)\n", argv[i]);
            return 2;
        }
        P[std::string(argv[i], eq - argv[i])] = eq + 1;
    }
    if (w == "vecadd") {
        long long n = num("n", 1024), block = num("block", 128), vec = num("vec", 1);
        size_t bytes = n * 4;
        float *a = (float*)input(bytes), *b = (float*)input(bytes), *c = (float*)alloc(bytes);
        if (vec == 4)
            vecadd4<<<cdiv(n / 4, block), block>>>((float4*)a, (float4*)b, (float4*)c, n / 4);
        else
            vecadd<<<cdiv(n, block), block>>>(a, b, c, n);
    } else if (w == "saxpy") {
        long long n = num("n", 1024), block = num("block", 256);
        float *x = (float*)input(n * 4), *y = (float*)input(n * 4);
        saxpy<<<cdiv(n, block), block>>>(x, y, 2.0f, n);
    } else if (w == "transpose_naive" || w == "transpose_tiled") {
        long long rows = num("rows", 256), cols = num("cols", 256), pad = num("pad", 0);
        float *in = (float*)input(rows * cols * 4), *out = (float*)alloc(rows * cols * 4);
        dim3 block(32, 8), grid(cdiv(cols, 32), cdiv(rows, w == "transpose_naive" ? 8 : 32));
        if (w == "transpose_naive")
            transpose_naive<<<grid, block>>>(in, out, rows, cols);
        else if (pad)
            transpose_tiled1<<<grid, block>>>(in, out, rows, cols);
        else
            transpose_tiled0<<<grid, block>>>(in, out, rows, cols);
    } else if (w == "matmul_naive" || w == "matmul_tiled") {
        long long m = num("m", 64), n = num("n", 64), k = num("k", 64), t = num("tile", 16);
        float *A = (float*)input(m * k * 4), *B = (float*)input(k * n * 4);
        float* C = (float*)alloc(m * n * 4);
        if (w == "matmul_naive")
            matmul_naive<<<dim3(cdiv(n, 16), cdiv(m, 16)), dim3(16, 16)>>>(A, B, C, m, n, k);
        else if (t == 32)
            matmul_tiled32<<<dim3(n / 32, m / 32), dim3(32, 32)>>>(A, B, C, m, n, k);
        else
            matmul_tiled16<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(A, B, C, m, n, k);
    } else if (w == "reduction") {
        long long n = num("n", 65536), block = num("block", 256);
        float* in = (float*)input(n * 4);
        unsigned grid = cdiv(n, block);
        float* out = (float*)alloc(grid * 4);
        reduction<<<grid, block, block * 4>>>(in, out, n);
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
        pointer_chase<<<1, 1>>>((void**)base, out, iters);
    } else if (w == "ffma_dep") {
        long long n = num("n", 1024), warps = num("warps", 1);
        float* out = (float*)alloc(warps * 32 * 4);
        ffma_dep<<<1, 32 * warps>>>(out, n);
    } else if (w == "ffma_indep") {
        long long n = num("n", 256), chains = num("chains", 8), warps = num("warps", 1);
        if (chains != 8) {
            fprintf(stderr, "ffma_indep: this build has chains=8 only\n");
            return 2;
        }
        float* out = (float*)alloc(warps * 32 * 4);
        ffma_indep8<<<1, 32 * warps>>>(out, n);
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
        k<<<ctas, threads>>>((float4*)base, sink, reps, reuse, region);
    } else {
        fprintf(stderr, "unknown workload %s\n", w.c_str());
        return 2;
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return 0;
}
