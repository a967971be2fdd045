"""`numba.cuda.config` for numba-cuda's test harness: whether the simulator is on (kiln's
KILN_ENABLE_CUDASIM / NUMBA_ENABLE_CUDASIM), and numba-cuda's two warning switches, which
its harness turns off for every test; kiln gives neither warning, so they are off here.
CUDA_ENABLE_NRT: numba-cuda's switch for allocating in kernels (its tests turn it on);
kiln's kernels allocate nothing either way, so it switches nothing."""
import kiln.config

ENABLE_CUDASIM = kiln.config.ENABLE_CUDASIM
CUDA_LOW_OCCUPANCY_WARNINGS = 0
CUDA_WARN_ON_IMPLICIT_COPY = 0
CUDA_ENABLE_NRT = 0
