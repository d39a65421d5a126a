// An RGBA image read through a sampler passed as an argument.
kernel void sample_scaled(read_only image2d_t src, sampler_t s, global float4* dst,
                          const float scale)
{
    const int2 p = (int2)(get_global_id(0), get_global_id(1));
    dst[p.y * get_global_size(0) + p.x] = read_imagef(src, s, p) * scale + (float4)(0.0f, 1.0f, 2.0f, 3.0f);
}
