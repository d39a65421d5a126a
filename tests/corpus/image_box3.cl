// A 3x3 box filter reading an image through a program-scope sampler.
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void box3(read_only image2d_t src, global float* dst)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const int width = get_image_width(src);
    float4 acc = (float4)(0.0f);
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            acc += read_imagef(src, smp, (int2)(x + dx, y + dy));
    dst[y * width + x] = acc.x / 9.0f;
}
