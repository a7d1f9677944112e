// CUDA versions of warpweave's built-in workloads (crate/src/workload/*.rs), written so every
// thread touches the same array elements in the same order as the workload model: same
// launch shapes, same row-major layouts, same per-thread index math, same unrolling. Only
// the base addresses differ (cudaMalloc decides them; the model puts arrays at
// 0x7f0000000000 + ... in allocation order, which bench.cu follows).
//
// Build: see run.sh (nvcc -O3 -lineinfo -arch=sm_XX). No warp-level tricks beyond what the
// models show; `volatile`/asm keep nvcc from removing the microbenchmark chains.

#include <cstdint>

// vecadd: c[i] = a[i] + b[i], one float per thread, bounds-checked (vecadd.rs, vec=1).
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    c[i] = a[i] + b[i];
}

// vecadd with float4 (vec=4): thread i handles elements 4i..4i+3.
extern "C" __global__ void vecadd4(const float4* a, const float4* b, float4* c, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// saxpy: y[i] = alpha * x[i] + y[i].
extern "C" __global__ void saxpy(const float* x, float* y, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = alpha * x[i] + y[i];
}

// transpose_naive: block (32, 8), out[x*rows + y] = in[y*cols + x].
extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 8 + threadIdx.y;
    if (x >= cols || y >= rows) return;
    out[x * rows + y] = in[y * cols + x];
}

// transpose_tiled: block (32, 8), 32x32 tile, rows j = 0, 8, 16, 24; PAD = 0 or 1.
template <int PAD>
__device__ __forceinline__ void transpose_tiled(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[32][32 + PAD];
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) tile[ty + j][tx] = in[(by * 32 + ty + j) * cols + bx * 32 + tx];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 32; j += 8) out[(bx * 32 + ty + j) * rows + by * 32 + tx] = tile[tx][ty + j];
}
extern "C" __global__ void transpose_tiled0(const float* in, float* out, int rows, int cols) {
    transpose_tiled<0>(in, out, rows, cols);
}
extern "C" __global__ void transpose_tiled1(const float* in, float* out, int rows, int cols) {
    transpose_tiled<1>(in, out, rows, cols);
}

// matmul_naive: block (16, 16), thread (col = gx, row = gy); k loop unrolled by 4, loads
// A[row*K + k+i] and B[(k+i)*N + col] interleaved as the model does.
extern "C" __global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N,
                                        int K) {
    int col = blockIdx.x * 16 + threadIdx.x;
    int row = blockIdx.y * 16 + threadIdx.y;
    if (col >= N || row >= M) return;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < K; k += 4) {
        float a0 = A[row * K + k], b0 = B[k * N + col];
        float a1 = A[row * K + k + 1], b1 = B[(k + 1) * N + col];
        float a2 = A[row * K + k + 2], b2 = B[(k + 2) * N + col];
        float a3 = A[row * K + k + 3], b3 = B[(k + 3) * N + col];
        acc += a0 * b0;
        acc += a1 * b1;
        acc += a2 * b2;
        acc += a3 * b3;
    }
    C[row * N + col] = acc;
}

// matmul_tiled: block (T, T); As at shared offset 0, Bs at T*T*4 (matmul.rs).
template <int T>
__device__ __forceinline__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ __align__(16) float As[T][T];
    __shared__ __align__(16) float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * T + tx, row = blockIdx.y * T + ty;
    float acc = 0.0f;
#pragma unroll 1
    for (int t = 0; t < K / T; ++t) {
        As[ty][tx] = A[row * K + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; k += 4) {
            float4 a = *reinterpret_cast<const float4*>(&As[ty][k]);
            acc += a.x * Bs[k][tx];
            acc += a.y * Bs[k + 1][tx];
            acc += a.z * Bs[k + 2][tx];
            acc += a.w * Bs[k + 3][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
extern "C" __global__ void matmul_tiled16(const float* A, const float* B, float* C, int M, int N,
                                          int K) {
    matmul_tiled<16>(A, B, C, M, N, K);
}
extern "C" __global__ void matmul_tiled32(const float* A, const float* B, float* C, int M, int N,
                                          int K) {
    matmul_tiled<32>(A, B, C, M, N, K);
}

// reduction: shared tree down to 32, then warp 0 with shfl_down; lane 0 stores out[blockIdx].
extern "C" __global__ void reduction(const float* in, float* out, int n) {
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < (unsigned)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s >= 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid >= 32) return;
    float v = sdata[tid];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid == 0) out[blockIdx.x] = v;
}

// pointer_chase: one thread; node j at base + j*stride holds the address of node j+1 (mod).
// The load is spelled ld.global: a pointer loaded from memory is generic to nvcc, which would
// emit a generic LD.E.64 where the model (latency.rs) has LDG.E.64.
extern "C" __global__ void pointer_chase(void** p, void** out, int iters) {
    void** q = p;
#pragma unroll 1
    for (int i = 0; i < iters; ++i) asm volatile("ld.global.u64 %0, [%0];" : "+l"(q));
    *out = (void*)q;
}

// ffma_dep: R2 = R2 * R3 + R3, n times; one CTA of `warps` warps (micro.rs).
extern "C" __global__ void ffma_dep(float* out, int n) {
    float x = (float)threadIdx.x, c = 1.0f;
#pragma unroll 64
    for (int i = 0; i < n; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x) : "f"(c));
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// ffma_indep: K chains advanced round-robin, n rounds, folded with FADDs at the end.
template <int K>
__device__ __forceinline__ void ffma_indep(float* out, int n) {
    float x[K], c = 1.0f;
#pragma unroll
    for (int k = 0; k < K; ++k) x[k] = (float)threadIdx.x;
#pragma unroll 8
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < K; ++k) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x[k]) : "f"(c));
    }
    float s = x[0];
#pragma unroll
    for (int k = 1; k < K; ++k) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void ffma_indep8(float* out, int n) { ffma_indep<8>(out, n); }

// stream_load (bandwidth.rs): `reps` loop iterations of U independent float4 loads (U = the
// `unroll` parameter, a template argument so the loads are unrolled exactly as the model has
// them); load number r = U*i + j. reuse re-reads the CTA's region, otherwise every load is
// new. The sum keeps the loads alive.
template <int U>
__device__ __forceinline__ void stream_load(const float4* base, float* sink, int reps, int reuse,
                                            long long region) {
    long long c = blockIdx.x, t = threadIdx.x, threads = blockDim.x, ctas = gridDim.x;
    const char* b = reinterpret_cast<const char*>(base);
    float acc = 0.0f;
    if (reuse) {
#pragma unroll 1
        for (int i = 0; i < reps; ++i) {
            float4 v[U];
#pragma unroll
            for (int j = 0; j < U; ++j) {
                long long r = (long long)U * i + j;
                v[j] = *reinterpret_cast<const float4*>(b + c * region + ((r * threads + t) * 16) % region);
            }
#pragma unroll
            for (int j = 0; j < U; ++j) acc += v[j].x;
        }
    } else {
        // ((r * ctas + c) * threads + t) * 16 = p + r * stride: one pointer, one add per load.
        long long stride = ctas * threads * 16;
        const char* p = b + (c * threads + t) * 16;
#pragma unroll 1
        for (int i = 0; i < reps; ++i, p += U * stride) {
            float4 v[U];
#pragma unroll
            for (int j = 0; j < U; ++j) v[j] = *reinterpret_cast<const float4*>(p + j * stride);
#pragma unroll
            for (int j = 0; j < U; ++j) acc += v[j].x;
        }
    }
    if (acc == 12345.0f) sink[0] = acc;
}
extern "C" __global__ void stream_load1(const float4* b, float* s, int reps, int reuse, long long region) {
    stream_load<1>(b, s, reps, reuse, region);
}
extern "C" __global__ void stream_load2(const float4* b, float* s, int reps, int reuse, long long region) {
    stream_load<2>(b, s, reps, reuse, region);
}
extern "C" __global__ void stream_load4(const float4* b, float* s, int reps, int reuse, long long region) {
    stream_load<4>(b, s, reps, reuse, region);
}
extern "C" __global__ void stream_load8(const float4* b, float* s, int reps, int reuse, long long region) {
    stream_load<8>(b, s, reps, reuse, region);
}

// ---------------------------------------------------------------------------------------------
// Held-out kernels and microbenchmarks (issues 30 and 36). None of these has a workload model
// that a preset was fitted to: they are measured under ncu and nsys (lease.sh) and traced with
// the Compute Sanitizer tracer at the same sizes; the imported traces are what the simulator
// runs (tests/hardware/traced/). Probes read the SM clock inside the kernel and write
// (start, end) pairs to `clk`, so their figures carry no launch overhead.

// btree_find: a B+tree-like search with divergent, data-dependent loads and a per-thread
// local array indexed at run time (spilled to local memory: STL then LDL), as Rodinia's
// find_k. Node j holds FANOUT sorted keys and FANOUT child indices (struct of arrays per
// node). Each thread searches its own key from the root down `depth` levels.
#define BT_FANOUT 8
struct BtNode {
    int keys[BT_FANOUT];
    int child[BT_FANOUT];
};
extern "C" __global__ void btree_find(const BtNode* nodes, const int* queries, int* found,
                                      int depth, int nq) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    int key = queries[q];
    int path[16];  // indexed by a run-time value below: local memory
    int node = 0;
#pragma unroll 1
    for (int l = 0; l < depth; ++l) {
        const BtNode* n = &nodes[node];
        int k = 0;
#pragma unroll 1
        while (k < BT_FANOUT - 1 && n->keys[k + 1] <= key) ++k;  // divergent trip counts
        path[l] = node;
        node = n->child[k];
    }
    found[q] = node + path[key % depth];
}

// bfs_step: one frontier expansion of a CSR graph (Rodinia bfs kernel 1): thread per vertex.
extern "C" __global__ void bfs_step(const int* row, const int* col, const int* frontier,
                                    int* visited, int* cost, int* next, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v]) return;
    int c = cost[v] + 1;
#pragma unroll 1
    for (int e = row[v]; e < row[v + 1]; ++e) {
        int nb = col[e];
        if (!visited[nb]) {
            cost[nb] = c;
            next[nb] = 1;
        }
    }
}

// histogram_atomic: global atomicAdd into `bins` counters (few bins: contention).
extern "C" __global__ void histogram_atomic(const unsigned* in, unsigned* hist, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
#pragma unroll 1
    for (; i < n; i += stride) atomicAdd(&hist[in[i] % bins], 1u);
}

// l1_lines: one warp per sub-core (4 warps); after a warm-up pass every load hits in L1 and
// touches exactly `lines` distinct 128-byte lines (lane l reads line l % lines). `reps`
// rounds of 8 independent loads; clk gets each warp's (start, end) of the timed loop.
extern "C" __global__ void l1_lines(const float* buf, float* sink, long long* clk, int lines,
                                    int reps) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    // 8 slots of 32 lines each (32 KiB): slot s, line l%lines, word (l / lines).
    const float* p = buf + (lane % lines) * 32 + (lane / lines);
    float acc = 0.0f;
#pragma unroll
    for (int s = 0; s < 8; ++s) {
        float v;
        asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p + s * 1024));
        acc += v;
    }
    __syncthreads();
    long long t0 = clock64();
#pragma unroll 1
    for (int r = 0; r < reps; ++r) {
        float v[8];
#pragma unroll
        for (int s = 0; s < 8; ++s)
            asm volatile("ld.global.f32 %0, [%1];" : "=f"(v[s]) : "l"(p + s * 1024));
#pragma unroll
        for (int s = 0; s < 8; ++s) acc += v[s];
    }
    long long t1 = clock64();
    if (lane == 0) { clk[2 * w] = t0; clk[2 * w + 1] = t1; }
    if (acc == 12345.0f) sink[0] = acc;
}

// mshr_merge: `warps` warps of one CTA load the same cold 128-byte line at once (every lane a
// different word of it), then use it. clk: each warp's (start, end) around load + use.
extern "C" __global__ void mshr_merge(const float* buf, float* sink, long long* clk) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    __syncthreads();
    long long t0 = clock64();
    float v;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(buf + lane));
    float u = v * 2.0f;
    asm volatile("" ::"f"(u));
    long long t1 = clock64();
    if (lane == 0) { clk[2 * w] = t0; clk[2 * w + 1] = t1; }
    if (u == 12345.0f) sink[0] = u;
}

// l2_sides: one warp per CTA, as many CTAs as SMs. CTA c reads `lines` 128-byte lines of its
// own (every lane a word), each twice in a row with ld.global.cg (cached in L2, not in L1),
// timing each read with its use. The first read finds the line where cudaMemcpy left it (its
// home L2 slice), the second wherever the first left a copy: on a GPU whose L2 has two sides
// the first reads of far-homed lines take two fabric crossings more than the second.
// clk: per CTA (smid, 0), then (first, second) per line. `zero` must be 0.
extern "C" __global__ void l2_sides(const float* buf, float* sink, long long* clk, int lines,
                                    int zero) {
    int lane = threadIdx.x & 31;
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    long long* o = clk + 2 * (long long)blockIdx.x * (lines + 1);
    if (lane == 0) { o[0] = smid; o[1] = 0; }
    float acc = 0.0f;
#pragma unroll 1
    for (int i = 0; i < lines; ++i) {
        const float* p = buf + ((long long)blockIdx.x * lines + i) * 32 + lane;
        long long t[2];
        const float* q = p;
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            long long t0 = clock64();
            float v;
            asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(q));
            float u = v * 2.0f;
            asm volatile("" ::"f"(u));
            long long t1 = clock64();
            t[k] = t1 - t0;
            acc += u;
            // The same address, through the value just read (`zero` is 0 at run time): the
            // compiler can neither merge the two reads nor start the second early.
            q = p + (__float_as_int(u) & zero);
        }
        if (lane == 0) { o[2 + 2 * i] = t[0]; o[3 + 2 * i] = t[1]; }
    }
    if (acc == 12345.0f) sink[0] = acc;
}

// local_spill: every thread stores `n` ints to a local array at run-time indices and reads
// them back, `reps` times (STL / LDL of one local offset across the warp's lanes).
extern "C" __global__ void local_spill(const int* seed, int* out, long long* clk, int n, int reps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int a[32];
    int s = seed[t & 31] & 31, acc = 0;
    long long t0 = clock64();
#pragma unroll 1
    for (int r = 0; r < reps; ++r) {
#pragma unroll 1
        for (int i = 0; i < n; ++i) a[(i + s) & 31] = i * r + t;
#pragma unroll 1
        for (int i = 0; i < n; ++i) acc += a[(i + s + r) & 31];
    }
    long long t1 = clock64();
    if ((threadIdx.x & 31) == 0 && blockIdx.x == 0) {
        clk[2 * (threadIdx.x >> 5)] = t0;
        clk[2 * (threadIdx.x >> 5) + 1] = t1;
    }
    out[t] = acc;
}

// ifetch_probe: straight-line code of N FADDs over 8 independent accumulators (16-byte
// instructions: 8 per 128-byte line), run once by one warp from cold instruction caches;
// loop_probe: a 64-FADD body run `trips` times (fits every instruction cache).
template <int N>
__device__ __forceinline__ void fadd_line(float (&x)[8], float c) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("add.f32 %0, %0, %1;" : "+f"(x[i & 7]) : "f"(c));
}
template <int N>
__device__ __forceinline__ void ifetch_probe(float* out, long long* clk) {
    float x[8], c = 1.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = (float)threadIdx.x + k;
    long long t0 = clock64();
    fadd_line<N>(x, c);
    long long t1 = clock64();
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[threadIdx.x] = s;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}
extern "C" __global__ void ifetch8(float* o, long long* c) { ifetch_probe<8>(o, c); }
extern "C" __global__ void ifetch128(float* o, long long* c) { ifetch_probe<128>(o, c); }
extern "C" __global__ void ifetch512(float* o, long long* c) { ifetch_probe<512>(o, c); }
extern "C" __global__ void ifetch2048(float* o, long long* c) { ifetch_probe<2048>(o, c); }
extern "C" __global__ void loop_probe(float* out, long long* clk, int trips) {
    float x[8], c = 1.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = (float)threadIdx.x + k;
    long long t0 = clock64();
#pragma unroll 1
    for (int t = 0; t < trips; ++t) fadd_line<64>(x, c);
    long long t1 = clock64();
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[threadIdx.x] = s;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}

// ffma_chain: N dependent FFMAs written straight (no loop), one warp.
template <int N>
__device__ __forceinline__ void ffma_chain(float* out, long long* clk) {
    float x = (float)threadIdx.x, c = 1.0f;
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x) : "f"(c));
    long long t1 = clock64();
    out[threadIdx.x] = x;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}
extern "C" __global__ void ffma_chain2048(float* o, long long* c) { ffma_chain<2048>(o, c); }

// issue_order (Fig. 4 of the modern-cores paper): 16 warps, of which warps 0, 4, 8, 12 (one
// sub-core, warp id mod 4) run 32 independent FADDs each between two clock reads; the others
// exit at once. clk: (start, end) of each of the four warps.
extern "C" __global__ void issue_order(float* out, long long* clk) {
    int w = threadIdx.x >> 5;
    if (w & 3) return;
    float x[8], c = 1.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = (float)threadIdx.x + k;
    long long t0 = clock64();
    fadd_line<32>(x, c);
    long long t1 = clock64();
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += x[k];
    out[threadIdx.x] = s;
    if ((threadIdx.x & 31) == 0) { clk[2 * (w >> 2)] = t0; clk[2 * (w >> 2) + 1] = t1; }
}
