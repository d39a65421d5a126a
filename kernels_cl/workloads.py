"""Realistic workloads built from kernels_cl, for `clmodes warm kernels_cl.workloads:NAME`.

Each workload is a zero-argument callable that runs on ``clmodes.client().stream()`` (the
device is ``$CLMODES_DEVICE``, else the first) and returns its output as a numpy array.
Under COMPILE_ONLY / COMPILE_AND_AUTOTUNE its launches are dropped, so the returned array
is meaningless there: only the kernels gathered, compiled and tuned matter. Each has a
``*_reference()`` twin computing the same thing with numpy in float64.

Sizes come from environment variables, read at each call (defaults run in a few seconds
on PoCL, tuning included): `kernels_cl.settings` declares them (`python -m kernels_cl`
lists them; docs/kernels_cl.md).
"""

from __future__ import annotations

import math

import numpy as np
import pyopencl.array as cla

import clmodes
from kernels_cl import settings
from kernels_cl.elementwise import elementwise
from kernels_cl.matmul import matmul
from kernels_cl.rows import layer_norm, softmax
from kernels_cl.transpose import transpose


def _dtype() -> np.dtype:
    return np.dtype(settings.DTYPE.get())


def _linear(
    rng: np.random.Generator, fan_in: int, fan_out: int, dtype: np.dtype
) -> tuple[np.ndarray, np.ndarray]:
    w = rng.standard_normal((fan_in, fan_out)) / math.sqrt(fan_in)
    b = rng.standard_normal(fan_out) * 0.1
    return w.astype(dtype), b.astype(dtype)


# -- MLP --------------------------------------------------------------------------------

def mlp_parameters() -> dict[str, object]:
    """Inputs and weights of the MLP for the current environment (deterministic)."""
    dtype = _dtype()
    batch = settings.BATCH.get() or 64
    hidden = settings.HIDDEN.get() or 128
    layers = settings.LAYERS.get() or 2
    classes = settings.CLASSES.get() or 10
    rng = np.random.default_rng(settings.SEED.get())
    x = rng.standard_normal((batch, hidden)).astype(dtype)
    weights = [_linear(rng, hidden, hidden, dtype) for _ in range(layers)]
    weights.append(_linear(rng, hidden, classes, dtype))
    return {"x": x, "weights": weights}


def mlp_forward(
    stream: clmodes.Stream, x: cla.Array, weights: list[tuple[cla.Array, cla.Array]]
) -> cla.Array:
    """relu(h @ W + b) per hidden layer, then softmax(h @ W + b): class probabilities."""
    h = x
    for w, b in weights[:-1]:
        h = matmul(stream, h, w)
        elementwise(stream, "relu(h + b)", h=h, b=b, out=h)  # bias + activation, in place
    w, b = weights[-1]
    logits = matmul(stream, h, w)
    elementwise(stream, "z + b", z=logits, b=b, out=logits)
    return softmax(stream, logits, out=logits)


def mlp() -> np.ndarray:
    """An MLP forward pass (KERNELS_CL_BATCH x KERNELS_CL_HIDDEN, KERNELS_CL_LAYERS
    hidden layers, KERNELS_CL_CLASSES outputs): probabilities, shape (batch, classes)."""
    stream = clmodes.client().stream()
    p = mlp_parameters()
    x = cla.to_device(stream.queue, p["x"])
    weights = [(cla.to_device(stream.queue, w), cla.to_device(stream.queue, b))
               for w, b in p["weights"]]
    return _result(mlp_forward(stream, x, weights))


def _softmax_reference(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp_reference() -> np.ndarray:
    p = mlp_parameters()
    h = p["x"].astype(np.float64)
    for w, b in p["weights"][:-1]:
        h = np.maximum(h @ w.astype(np.float64) + b.astype(np.float64), 0)
    w, b = p["weights"][-1]
    return _softmax_reference(h @ w.astype(np.float64) + b.astype(np.float64))


# -- attention --------------------------------------------------------------------------

def attention_parameters() -> dict[str, object]:
    dtype = _dtype()
    batch = settings.BATCH.get() or 2
    seq = settings.SEQ.get() or 48
    hidden = settings.HIDDEN.get() or 64
    rng = np.random.default_rng(settings.SEED.get())
    params = {
        "x": rng.standard_normal((batch * seq, hidden)).astype(dtype),
        "batch": batch,
        "seq": seq,
        "gamma": (1 + 0.1 * rng.standard_normal(hidden)).astype(dtype),
        "beta": (0.1 * rng.standard_normal(hidden)).astype(dtype),
    }
    for name in ("q", "k", "v", "o"):
        params["w" + name], params["b" + name] = _linear(rng, hidden, hidden, dtype)
    return params


def attention_forward(stream: clmodes.Stream, p: dict[str, object]) -> cla.Array:
    """One single-head self-attention block over `batch` sequences of `seq` tokens:
    Q, K, V projections; softmax(Q K^T / sqrt(d)) V per sequence; output projection;
    layer_norm(x + attention). `p` holds device arrays (see `attention`)."""
    batch, seq = p["batch"], p["seq"]
    x = p["x"]
    d = x.shape[1]
    scale = 1.0 / math.sqrt(d)
    q = matmul(stream, x, p["wq"])
    elementwise(stream, "(q + b) * scale", q=q, b=p["bq"], scale=scale, out=q)
    k = matmul(stream, x, p["wk"])
    elementwise(stream, "k + b", k=k, b=p["bk"], out=k)
    v = matmul(stream, x, p["wv"])
    elementwise(stream, "v + b", v=v, b=p["bv"], out=v)
    context = cla.empty(stream.queue, x.shape, x.dtype)
    scores = cla.empty(stream.queue, (seq, seq), x.dtype)
    for s in range(batch):
        rows = slice(s * seq, (s + 1) * seq)  # views into the (batch * seq, d) arrays
        kt = transpose(stream, k[rows])
        matmul(stream, q[rows], kt, out=scores)
        softmax(stream, scores, out=scores)
        matmul(stream, scores, v[rows], out=context[rows])
    o = matmul(stream, context, p["wo"])
    elementwise(stream, "x + o + b", x=x, o=o, b=p["bo"], out=o)  # residual + bias
    return layer_norm(stream, o, p["gamma"], p["beta"], out=o)


def attention() -> np.ndarray:
    """One attention block (KERNELS_CL_BATCH sequences of KERNELS_CL_SEQ tokens, width
    KERNELS_CL_HIDDEN): the block's output, shape (batch, seq, hidden)."""
    stream = clmodes.client().stream()
    p = attention_parameters()
    on_device = {k: cla.to_device(stream.queue, v) if isinstance(v, np.ndarray) else v
                 for k, v in p.items()}
    out = attention_forward(stream, on_device)
    return _result(out).reshape(p["batch"], p["seq"], -1)


def _result(out: cla.Array) -> np.ndarray:
    """The result on the host. Under `warm` (a mode that drops launches) the device holds
    nothing worth reading, so it is not read: the workloads stay warmable (clmodes counts
    and warns about reads made then)."""
    if clmodes.process_mode() is not clmodes.ProcessMode.EXECUTE:
        return np.zeros(out.shape, out.dtype)
    return out.get()


def attention_reference() -> np.ndarray:
    p = {k: v.astype(np.float64) if isinstance(v, np.ndarray) else v
         for k, v in attention_parameters().items()}
    batch, seq, x = p["batch"], p["seq"], p["x"]
    d = x.shape[1]
    q = x @ p["wq"] + p["bq"]
    k = x @ p["wk"] + p["bk"]
    v = x @ p["wv"] + p["bv"]
    context = np.empty_like(x)
    for s in range(batch):
        rows = slice(s * seq, (s + 1) * seq)
        scores = q[rows] @ k[rows].T / math.sqrt(d)
        context[rows] = _softmax_reference(scores) @ v[rows]
    y = x + context @ p["wo"] + p["bo"]
    mean = y.mean(axis=-1, keepdims=True)
    var = y.var(axis=-1, keepdims=True)
    out = (y - mean) / np.sqrt(var + 1e-5) * p["gamma"] + p["beta"]
    return out.reshape(batch, seq, d)


WORKLOADS = {"mlp": mlp, "attention": attention}
REFERENCES = {"mlp": mlp_reference, "attention": attention_reference}
