// CUDA C compiled by NVRTC at load (tests/cuda/test_nvrtc.py): Numba's device ABI, the
// result through the first pointer and an int status.
extern "C" __device__ int mul_cu(int *result, int x, int y)
{
    *result = x * y;
    return 0;
}
