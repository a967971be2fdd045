"""`numba.cuda.cudadrv`: numba-cuda's driver package. Of it the facade has only the public
names of its `devicearray` module (kiln.cuda.devicearray: conformance/facade/numba's
CUDA_MODULES); its driver internals are absent and fail honestly."""
