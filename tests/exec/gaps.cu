// Kernels of instructions beyond plain global, shared and local accesses, for execution from
// their SASS (crate/src/exec/tests_gaps.rs checks each against a host reference):
//   generic_windows: loads, stores and atomics through generic pointers (non-inlined functions
//     taking `int*`) that point into shared memory, local memory and global memory;
//   warp_votes: warp votes and a shuffle in code the warp may reach diverged (BRA.DIV,
//     BRA.CONV);
//   constant_poly: user __constant__ data (constant bank 3);
//   tex_fetch, mma_tile: a texture fetch and a tensor-core tile, which the executor does not
//     execute (an error naming the instruction).

__device__ __noinline__ void bump(int* p, int i, int v) { p[i] += v; }

__device__ __noinline__ int total(const int* p, int n) {
    int s = 0;
#pragma unroll 1
    for (int k = 0; k < n; ++k) s += p[k];
    return s;
}

__device__ __noinline__ void count(int* p) { atomicAdd(p, 1); }

// out[g] = the sum of the 8 tile entries of its group (each +3), 2x its local array (one entry
// + t), 3x its 4 scratch words (one +1), 4x the threads of the block (atomics on shared);
// hits[0] counts every thread.
extern "C" __global__ void generic_windows(const int* in, int* out, int* scratch, int* hits) {
    __shared__ int tile[256];
    __shared__ int threads;
    int local[8];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    if (t == 0) threads = 0;
    tile[t] = in[g];
#pragma unroll
    for (int k = 0; k < 8; ++k) local[k] = in[g] + k;
    __syncthreads();
    bump(tile, t, 3);                  // shared, through a generic pointer
    bump(local, in[g] & 7, t);         // local
    bump(scratch + g * 4, g & 3, 1);   // global
    count(&threads);                   // generic atomics on shared
    count(hits);                       // and on global
    __syncthreads();
    int a = total(tile + (t & ~7), 8);
    int b = total(local, 8);
    int c = total(scratch + g * 4, 4);
    out[g] = a + 2 * b + 3 * c + 4 * threads;
}

extern "C" __global__ void warp_votes(const int* in, int* out) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    int s = 0;
#pragma unroll 1
    for (int k = 0; k < (v & 7); ++k) s += k ^ v;  // divergent trip counts, then reconverged
    int all = __all_sync(0xffffffff, s > 8);      // the whole warp again
    if (v & 1) {
        unsigned m = __activemask();               // the odd lanes
        int leader = __ffs(m) - 1;
        v += __shfl_sync(m, v, leader);
        v += __popc(__ballot_sync(m, v > 100));
    }
    out[g] = v + all;
}

__constant__ float poly[8] = {1.0f, -0.5f, 0.25f, 2.0f, -1.5f, 0.125f, 3.0f, -0.75f};
__constant__ int offsets[4] = {10, 20, 30, 40};

// y = poly(x) (coefficients in constant memory) + offsets[g % 4].
extern "C" __global__ void constant_poly(const float* x, float* y, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    float v = x[g], acc = 0.0f;
#pragma unroll
    for (int k = 7; k >= 0; --k) acc = acc * v + poly[k];
    y[g] = acc + (float)offsets[g & 3];
}

extern "C" __global__ void tex_fetch(cudaTextureObject_t tex, float* y) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    y[g] = tex1Dfetch<float>(tex, g);
}

// One m16n8k8 tensor-core product per warp (HMMA): a, b as packed halves, c as floats
// (sm_75 and later: left out of the sm_70 listing, made with -DGAPS_NO_MMA).
#ifndef GAPS_NO_MMA
extern "C" __global__ void mma_tile(const unsigned* a, const unsigned* b, float* c) {
    int l = threadIdx.x & 31;
    unsigned a0 = a[2 * l], a1 = a[2 * l + 1], b0 = b[l];
    float d0, d1, d2, d3;
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%7,%7,%7,%7};"
        : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
        : "r"(a0), "r"(a1), "r"(b0), "f"(0.0f));
    c[4 * l] = d0;
    c[4 * l + 1] = d1;
    c[4 * l + 2] = d2;
    c[4 * l + 3] = d3;
}
#endif
