# Debug mode costs nothing when it is off (issue 10): the plain variants' LLVM IR and OpenCL C
# below were produced by a tackc built from main without debug mode (da507b0), and must stay
# byte-identical; the `--debug` typed IR shows what the debug variants add. Regenerate with
# `scripts/golden.sh build/tools/tackc/tackc --update` only for a deliberate code-generation
# change (and say so in the commit); scripts/debug_off_identical.sh compares every golden
# kernel on every target with any reference tackc.
import tack

# codegen: saxpy --args f32[:],f32[:],f32 --target cpu --mode source
# codegen: saxpy --args f32[:],f32[:],f32 --target opencl --mode source
# codegen: saxpy --args f32[:],f32[:],f32 --debug --mode ir
@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


# codegen: stencil --args f32[:,:],f32[:,:] --target cpu --mode source --shapes '64,32;64,32'
# codegen: stencil --args f32[:,:],f32[:,:] --target opencl --mode source --shapes '64,32;64,32'
# codegen: stencil --args f32[:,:],f32[:,:] --debug --mode ir
@tack.kernel
def stencil(a, b):
    for i, j in tack.ndrange(a.shape[0] - 2, a.shape[1] - 2):
        a[i + 1, j + 1] = 0.25 * (b[i, j + 1] + b[i + 2, j + 1] + b[i + 1, j] + b[i + 1, j + 2])


@tack.func
def clamp_index(i, n):
    return min(max(i, 0), n - 1)


# codegen: gather --args f32[:],i32[:],f32[:] --target cpu --mode source
# codegen: gather --args f32[:],i32[:],f32[:] --target opencl --mode source
# codegen: gather --args f32[:],i32[:],f32[:] --debug --mode ir
@tack.kernel
def gather(out, idx, src):
    for i in range(out.shape[0]):
        k = clamp_index(idx[i], src.shape[0])
        out[i] = src[k] if idx[i] >= 0 else 0.0


# codegen: divide --args i32[:],i32[:],i32 --target cpu --mode source
# codegen: divide --args u8[:],u8[:],i32 --target opencl --mode source
# codegen: divide --args i64[:],i64[:],i32 --debug --mode ir
@tack.kernel
def divide(a, b, k):
    for i in range(a.shape[0]):
        a[i] = b[i] // k + b[i] % (i + 1)


# codegen: scratch --args f32[:],i32[:] --target cpu --mode source
# codegen: scratch --args f32[:],i32[:] --target opencl --mode source
# codegen: scratch --args f32[:],i32[:] --debug --mode ir
@tack.kernel
def scratch(x, counts):
    for i in range(x.shape[0]):
        t = tack.local_array(tack.f32, 4)
        for k in range(4):
            t[k] = x[i] * k
        j = 0
        while j < 3 and t[j] < 1.0:
            j += 1
        tack.atomic_add(counts, j, 1)
        x[i] = t[j]


# codegen: group --args f32[:],f32[:] --target opencl --mode source
# codegen: group --args f32[:],f32[:] --target opencl --debug --mode ir
@tack.kernel
def group(x, y):
    for i in range(x.shape[0]):
        s = tack.shared(tack.f32, 256)
        t = tack.thread_id()
        s[t] = x[i]
        tack.barrier()
        y[i] = s[255 - t]
