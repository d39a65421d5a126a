// CLBlast-style direct GEMM with tuning parameters as defines (after xgemm_direct_part*.opencl),
// reduced to square tiles: C = alpha * A * B + beta * C, all column-major.
#ifndef WGD
  #define WGD 8      // Tile-size in dimension M, N, and K (e.g. 8, 16, 32, 64)
#endif
#ifndef MDIMCD
  #define MDIMCD 8    // Threads per workgroup in M-dimension (e.g. 8, 16, 32)
#endif
#ifndef NDIMCD
  #define NDIMCD 8    // Threads per workgroup in N-dimension (e.g. 8, 16, 32)
#endif
#ifndef PADA
  #define PADA 1      // Local memory padding for matrix A
#endif
#ifndef PADB
  #define PADB 1      // Local memory padding for matrix B
#endif
#if MDIMCD != WGD || NDIMCD != WGD
  #error "this reduced XgemmDirect needs MDIMCD == NDIMCD == WGD"
#endif

INLINE_FUNC real LoadA(const __global real* restrict agm, const int m, const int k, const int ld) {
  return agm[k*ld + m];
}

__kernel __attribute__((reqd_work_group_size(MDIMCD, NDIMCD, 1)))
void XgemmDirectNN(const int kSizeM, const int kSizeN, const int kSizeK,
                   const real_arg arg_alpha, const real_arg arg_beta,
                   const __global real* restrict agm, const __global real* restrict bgm,
                   __global real* cgm) {
  const real alpha = GetRealArg(arg_alpha);
  const real beta = GetRealArg(arg_beta);
  __local real alm[WGD * (WGD + PADA)];
  __local real blm[WGD * (WGD + PADB)];
  const int tid_m = get_local_id(0);
  const int tid_n = get_local_id(1);
  const int gm = get_group_id(0) * WGD + tid_m;
  const int gn = get_group_id(1) * WGD + tid_n;

  real acc;
  SetToZero(acc);
  for (int kwg = 0; kwg < kSizeK; kwg += WGD) {
    alm[tid_n * (WGD + PADA) + tid_m] = LoadA(agm, gm, kwg + tid_n, kSizeM);
    blm[tid_m * (WGD + PADB) + tid_n] = bgm[gn * kSizeK + kwg + tid_m];
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll
    for (int k = 0; k < WGD; ++k) {
      MultiplyAdd(acc, alm[k * (WGD + PADA) + tid_m], blm[k * (WGD + PADB) + tid_n]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  real result;
  AXPBY(result, alpha, acc, beta, cgm[gn * kSizeM + gm]);
  cgm[gn * kSizeM + gm] = result;
}
