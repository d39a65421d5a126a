// The same enum constant names with other values, in another file.
enum mode { MODE_SUB = 10, MODE_ADD = 20 };

__kernel void modal_b(__global int* out, __global const int* in)
{
    size_t i = get_global_id(0);
    out[i] = in[i] * MODE_ADD + MODE_SUB;
}
