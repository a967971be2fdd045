#!/usr/bin/env bash
# Everything kiln.cuda needs a GPU for, as prepared phases on the device machine
# (docs/gpu.md, "A session with a GPU"), from the repository root:
#   bash tests/cuda/gpu_session.sh tests speed sanitize bench
# runs the named phases in order (each a few minutes at most: pick what fits the lease),
# its logs under $OUT.
#   env       the machine: driver, versions, what kiln finds
#   tests     the whole CUDA suite on the device (14 workers), then the `gpu` tests alone
#   speed     bench/gpu_peers.py (kiln beside CuPy, PyTorch, Triton, numba-cuda and the
#             device copy) and a new kernel's first launch in fresh processes
#   sanitize  compute-sanitizer's memcheck over tests/cuda/test_hardware.py, racecheck and
#             synccheck over the kernels with shared memory and barriers
#   bench     bench/run.py's GPU kernels beside numba-cuda
set -u
[ $# -gt 0 ] || { echo "usage: gpu_session.sh env|tests|speed|sanitize|bench ..." >&2; exit 2; }
out=${OUT:-/tmp/kiln-gpu}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
# Wheels the machine lacks (llvmlite >= 0.50 at least) travel in .whl (docs/gpu.md).
if compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD/src
else
    export PYTHONPATH=$PWD/src
fi
export KILN_TEST_CUDA_HARDWARE=1
run() {   # run NAME SECONDS COMMAND...: its output in $OUT/NAME.txt, its status at the end
    local name=$1 seconds=$2
    shift 2
    timeout "$seconds" "$@" > "$out/$name.txt" 2>&1
    echo "exit status $?" >> "$out/$name.txt"
    grep -a -E "^(FAILED|ERROR)|passed|failed|SUMMARY|GB/s|TFLOP|us$|first launch|exit status" \
        "$out/$name.txt" | tail -n 40
}
first_launch() {
    # import, then a new kernel's first launch (compile and load), in fresh processes:
    # the first writes the bytecode (as an installed package has it) and is not counted,
    # the second compiles the kernel anew, the third loads it from the on-disk cache
    cat > /tmp/kiln_first_launch.py <<'PY'
import time
start = time.perf_counter()
from kiln import cuda
import numpy as np
imported = time.perf_counter()
@cuda.jit(cache=True)
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
x = cuda.to_device(np.ones(1000, np.float32))
out = cuda.device_array_like(x)
cuda.synchronize()
ready = time.perf_counter()
saxpy[4, 256](out, np.float32(2), x, x)
cuda.synchronize()
done = time.perf_counter()
assert (out.copy_to_host() == 3).all()
print(f"import kiln.cuda {imported - start:.3f} s, then device ready, first launch "
      f"{done - ready:.3f} s")
PY
    env -u PYTHONDONTWRITEBYTECODE bash -c '
KILN_CACHE_DIR=$(mktemp -d) python3 /tmp/kiln_first_launch.py || exit
export KILN_CACHE_DIR=$(mktemp -d)
echo "a new kernel:"; python3 /tmp/kiln_first_launch.py || exit
echo "from the disk cache:"; python3 /tmp/kiln_first_launch.py || exit
echo "a new kernel, profiled (where the time goes):"
KILN_CACHE_DIR=$(mktemp -d) python3 -m cProfile -s cumtime /tmp/kiln_first_launch.py | head -45
python3 -X importtime -c "import kiln.cuda" 2>&1 | sort -t"|" -k2 -n | tail -8'
}
for phase in "$@"; do
    case $phase in
    env)
        run env 40 bash -c 'nvidia-smi; python3 -c "import llvmlite, numpy, sys;
print(sys.version, llvmlite.__version__, numpy.__version__)"; python3 -m pip show \
cuda-bindings cuda-pathfinder | grep -E "^(Name|Version)"; python3 -c "from kiln import cuda
from kiln.cuda import toolkit; print(cuda.is_available(), cuda.cuda_error())
print(toolkit.libdevice_path(), toolkit.ptxas_path()); cuda.detect()"'
        ;;
    tests)
        # (not the free-memory check: other workers allocate; it runs alone below)
        run cuda_suite 90 python3 -m pytest -q -p no:benchmark -p no:cacheprovider -rfE -n 14 \
            --timeout 30 --durations=10 tests/cuda -k "not memory_coming_back"
        run hardware 60 python3 -m pytest -q -p no:cacheprovider -rfE --timeout 60 -m gpu \
            tests/cuda
        ;;
    speed)
        run peers 100 python3 bench/gpu_peers.py --json "$out/peers.json"
        export -f first_launch
        run first_launch 40 bash -c first_launch
        ;;
    sanitize)
        # (not the free-memory check: the sanitizer keeps freed memory a while)
        run memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 \
            python3 -m pytest -q -p no:cacheprovider tests/cuda/test_hardware.py \
            -k "not memory_coming_back"
        # shared memory races and barriers: the kernels that use them (reduce, the seeds')
        for tool in racecheck synccheck; do
            run "$tool" 120 compute-sanitizer --tool "$tool" --error-exitcode 9 \
                python3 -m pytest -q -p no:cacheprovider tests/cuda/test_library.py \
                tests/cuda/test_intrinsics.py tests/cuda/test_seeds.py \
                -k "reduce or shared or sync or seed"
        done
        ;;
    bench)
        run bench 240 python3 bench/run.py \
            --only saxpy_gpu,matmul_tiled_gpu,reduce_gpu,launch_overhead_gpu \
            --no-process --no-chart --json "$out/bench.json"
        ;;
    *)
        echo "unknown phase $phase: env, tests, speed, sanitize or bench" >&2
        exit 2
        ;;
    esac
done
