// pyopencl.elementwise-style generated kernel (the body is what ElementwiseKernel generates).
#define PYOPENCL_ELWISE_CONTINUE continue

__kernel void elwise_kernel(__global float *z, float a, __global float *x, float b,
                            __global float *y, long n)
{
  int lid = get_local_id(0);
  int gsize = get_global_size(0);
  int work_group_start = get_local_size(0)*get_group_id(0);
  long i;

  for (i = work_group_start + lid; i < n; i += gsize)
  {
    z[i] = a*x[i] + b*y[i];
  }
  ;
}
