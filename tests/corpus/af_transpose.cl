/*******************************************************
 * ArrayFire-style transpose (after src/backend/opencl/kernel/transpose.cl).
 * T, TILE_DIM, THREADS_Y and dim_t come from -D options; arrays are described by KParam,
 * passed by value.
 ********************************************************/

typedef struct {
    dim_t dims[4];
    dim_t strides[4];
    dim_t offset;
} KParam;

__kernel void transpose(__global T *oData, const KParam out, const __global T *iData,
                        const KParam in, const int blocksPerMatX, const int blocksPerMatY)
{
    __local T shrdMem[TILE_DIM * (TILE_DIM + 1)];
    const int shrdStride = TILE_DIM + 1;

    const int oDim0 = out.dims[0];
    const int oDim1 = out.dims[1];
    const int iDim0 = in.dims[0];
    const int iDim1 = in.dims[1];

    const int lx = get_local_id(0);
    const int ly = get_local_id(1);

    const int blockIdx_x = get_group_id(0);
    const int blockIdx_y = get_group_id(1);

    const int x0 = TILE_DIM * blockIdx_x;
    const int y0 = TILE_DIM * blockIdx_y;

    int gx = lx + x0;
    int gy = ly + y0;

    iData += in.offset;
    oData += out.offset;

    for (int repeat = 0; repeat < TILE_DIM; repeat += THREADS_Y) {
        int gy_ = gy + repeat;
        if (gx < iDim0 && gy_ < iDim1)
            shrdMem[(ly + repeat) * shrdStride + lx] = iData[gy_ * in.strides[1] + gx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    gx = lx + y0;
    gy = ly + x0;

    for (int repeat = 0; repeat < TILE_DIM; repeat += THREADS_Y) {
        int gy_ = gy + repeat;
        if (gx < oDim0 && gy_ < oDim1)
            oData[gy_ * out.strides[1] + gx] = shrdMem[lx * shrdStride + ly + repeat];
    }
}
