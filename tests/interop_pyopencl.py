#!/usr/bin/env python3
"""The library on a second OpenCL user's handles: pyopencl creates its own context,
queue and buffers and hands them to clbroadcast through ctypes and int_ptr.

usage: interop_pyopencl.py LIBCLBROADCAST.so

Checks: a tensor over a pyopencl buffer (a strided view) in an op whose result
pyopencl reads through clb_tensor_get_cl_buffer; a pyopencl kernel enqueued right
after the op on the shared queue sees its result (no finish in between); the
buffer's, queue's and context's reference counts come back to what they were
once everything is released. Exits 77 (skipped) without pyopencl or a device."""
import ctypes as C
import gc
import sys
import time

try:
    import numpy as np
    import pyopencl as cl
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

CLB_FLOAT32, CLB_ADD, CLB_MUL = 10, 0, 2


def poll(read, good):
    """Drivers drop finished commands' references from a worker thread: wait a little."""
    now = read()
    for _ in range(2000):
        if good(now):
            break
        time.sleep(0.001)
        now = read()
    return now


def main():
    lib = C.CDLL(sys.argv[1])
    vp, i64p = C.c_void_p, C.POINTER(C.c_int64)
    lib.clb_last_error.restype = C.c_char_p
    lib.clb_context_create_from_cl.argtypes = [vp, vp, vp, C.POINTER(vp)]
    lib.clb_context_get_cl.argtypes = [vp, C.POINTER(vp), C.POINTER(vp), C.POINTER(vp)]
    lib.clb_tensor_from_cl_buffer.argtypes = [vp, vp, C.c_size_t, C.c_int, C.c_int, i64p, i64p,
                                              C.POINTER(vp)]
    lib.clb_tensor_get_cl_buffer.argtypes = [vp, C.POINTER(vp), C.POINTER(C.c_size_t)]
    lib.clb_binary.argtypes = [C.c_int, vp, vp, C.POINTER(vp)]
    lib.clb_tensor_release.argtypes = [vp]
    lib.clb_context_release.argtypes = [vp]

    def ok(status, what):
        if status != 0:
            raise SystemExit(f"{what}: status {status}: {lib.clb_last_error().decode()}")

    devices = [(p, d) for p in cl.get_platforms() for d in p.get_devices()]
    if not devices:
        print("skipped: no OpenCL device")
        sys.exit(77)
    pocl = [pd for pd in devices if "portable" in pd[0].name.lower()]
    platform, device = (pocl or devices)[0]
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)  # in order
    x = np.arange(24, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    prog = cl.Program(ctx, "__kernel void add1(__global float *y) "
                           "{ y[get_global_id(0)] += 1.0f; }").build()
    refs = lambda: (ctx.get_info(cl.context_info.REFERENCE_COUNT),
                    queue.get_info(cl.command_queue_info.REFERENCE_COUNT),
                    buf.get_info(cl.mem_info.REFERENCE_COUNT))
    # a kernel object that has been launched keeps a queue reference of its own
    # (PoCL): launch the one kernel object once before the baseline
    add1 = cl.Kernel(prog, "add1")
    scratch = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    add1(queue, (16,), None, scratch).wait()
    queue.finish()
    base = refs()

    cctx = vp()
    ok(lib.clb_context_create_from_cl(ctx.int_ptr, device.int_ptr, queue.int_ptr, C.byref(cctx)),
       "clb_context_create_from_cl")
    got = (vp(), vp(), vp())
    ok(lib.clb_context_get_cl(cctx, *[C.byref(g) for g in got]), "clb_context_get_cl")
    assert [g.value for g in got] == [ctx.int_ptr, device.int_ptr, queue.int_ptr]
    # a (3, 4) view of every other element from element 1: strides (8, 2)
    shape, strides = (C.c_int64 * 2)(3, 4), (C.c_int64 * 2)(8, 2)
    t = vp()
    ok(lib.clb_tensor_from_cl_buffer(cctx, buf.int_ptr, 4, CLB_FLOAT32, 2, shape, strides,
                                     C.byref(t)), "clb_tensor_from_cl_buffer")
    after_wrap = refs()
    assert after_wrap[2] == base[2] + 1, (base, after_wrap)
    y = vp()
    ok(lib.clb_binary(CLB_ADD, t, t, C.byref(y)), "clb_binary")
    ymem, yoff = vp(), C.c_size_t()
    ok(lib.clb_tensor_get_cl_buffer(y, C.byref(ymem), C.byref(yoff)), "clb_tensor_get_cl_buffer")
    ybuf = cl.Buffer.from_int_ptr(ymem.value, retain=True)
    assert yoff.value == 0
    ev1 = add1(queue, (12,), None, ybuf)  # right after the library's op, no finish
    out = np.empty(12, dtype=np.float32)
    ev2 = cl.enqueue_copy(queue, out, ybuf)  # blocking
    want = (2 * np.lib.stride_tricks.as_strided(x[1:], (3, 4), (32, 8)) + 1).reshape(-1)
    assert np.array_equal(out, want), (out, want)
    del ybuf, ev1, ev2  # pyopencl's events hold the queue
    gc.collect()
    lib.clb_tensor_release(y)
    lib.clb_tensor_release(t)
    lib.clb_context_release(cctx)
    queue.finish()
    final = poll(refs, lambda now: now[0] == base[0] and now[2] == base[2])
    assert (final[0], final[2]) == (base[0], base[2]), (base, final)
    # PoCL keeps the last command on a buffer, and so its queue, until the buffer
    # goes: the queue count returns once the application drops its buffer too.
    qrefs = lambda: queue.get_info(cl.command_queue_info.REFERENCE_COUNT)
    del buf
    gc.collect()
    q_final = poll(qrefs, lambda now: now == base[1])
    assert q_final == base[1], (base, q_final)
    print(f"pyopencl {cl.VERSION_TEXT} on {device.name} ({platform.name}): context, queue and "
          f"buffer handed in by int_ptr; strided view op + app kernel after it OK; "
          f"reference counts (context, queue, buffer) {base} -> {after_wrap} while wrapped -> "
          f"{final} after release (queue {q_final} once the app's buffer went)")


if __name__ == "__main__":
    main()
