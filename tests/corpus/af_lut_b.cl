// Another file with a lookup table of the same name and other contents.
__constant int LUT[8] = {0, 1, 1, 2, 1, 2, 2, 3};   // popcount of 0..7

__kernel void popcount3(__global int* out, __global const int* in)
{
    const int g = get_global_id(0);
    out[g] = LUT[in[g] & 7] + LUT[(in[g] >> 3) & 7];
}
