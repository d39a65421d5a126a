// The entry point's name comes from a define (one source, many generated entry points).
__kernel void KERNEL_NAME(__global int* out, const int base)
{
    int i = get_global_id(0);
    out[i] = base + i * 42;
}
