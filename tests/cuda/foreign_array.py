"""A stand-in for another library's device array (CuPy, PyTorch), for tests."""


class Foreign:
    """What CuPy or PyTorch hand over: only a CUDA Array Interface, made anew at each read
    from the wrapped kiln device array's current memory and shape (a producer `stream`, and
    its strides even when contiguous if `strided`)."""

    def __init__(self, dev, stream=None, strided=False):
        self.dev, self.stream, self.strided = dev, stream, strided

    @property
    def __cuda_array_interface__(self):
        return dict(self.dev.__cuda_array_interface__, stream=self.stream,
                    **({"strides": self.dev.strides} if self.strided else {}))
