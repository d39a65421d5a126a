"""pyopencl's library kernels, as a program uses them: clrandom, elementwise
arithmetic and math, reductions, a dot product, a scan (cumsum), take and where.

Written for clmodes' benchmark (ci/bench/bench_run_programs.py): pyopencl has no upstream
example that uses these beyond the ones clmodes' tests already run. It only calls
pyopencl's public API; each line it prints is deterministic (a fixed seed, rounded sums).
"""

import numpy as np

import pyopencl as cl
import pyopencl.array as cl_array
import pyopencl.clmath as clmath
import pyopencl.clrandom as clrandom

ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
n = 1 << 16

rng = clrandom.PhiloxGenerator(ctx, seed=12)
a = rng.uniform(queue, n, np.float32, a=0.0, b=1.0)
b = rng.normal(queue, n, np.float32)
print("uniform in [0, 1):", bool(cl_array.min(a).get() >= 0), bool(cl_array.max(a).get() < 1))

c = 2 * a + b * b - 1
d = clmath.sqrt(abs(c)) + clmath.sin(b)
print("sum %.1f" % cl_array.sum(d).get())
print("dot %.1f" % cl_array.dot(a, a).get())
print("min %.3f max %.3f" % (cl_array.min(c).get(), cl_array.max(c).get()))

ints = cl_array.to_device(queue, (np.arange(n) % 7).astype(np.int32))
print("cumsum matches numpy", bool((cl_array.cumsum(ints).get() == np.cumsum(ints.get())).all()))

positive = cl_array.if_positive(c, c, cl_array.zeros_like(c))
print("positive part %.1f" % cl_array.sum(positive).get())
indices = cl_array.arange(queue, 0, n, 4, dtype=np.int32)
print("taken", cl_array.take(d, indices).shape[0])
print("mean of uniform %.2f" % (cl_array.sum(a).get() / n))
