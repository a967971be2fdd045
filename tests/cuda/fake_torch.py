"""A stand-in for what kiln reads of PyTorch CUDA tensors, for tests on machines without
PyTorch: a module named `torch` (tests put it in sys.modules) whose `Tensor` wraps a kiln
device array and answers `__cuda_array_interface__` as PyTorch's property does, checks and
errors included (torch/_tensor.py), beside the C attributes and methods kiln's compiled
launch entries read instead."""
import types


class Size(tuple):
    """torch.Size: a tuple subclass."""


class Layout:
    def __init__(self, name):
        self.name = name


class DType:
    def __init__(self, name, typestr):
        self.name, self.typestr = name, typestr


strided, sparse_coo = Layout("torch.strided"), Layout("torch.sparse_coo")
float32, float64 = DType("torch.float32", "<f4"), DType("torch.float64", "<f8")
_DTYPES = {"<f4": float32, "<f8": float64}
overridden = []   # tensors with a __torch_function__ override (as under a TorchFunctionMode)


def _has_torch_function_unary(tensor):
    return tensor in overridden


class Tensor:
    def __init__(self, dev, requires_grad=False, is_cuda=True, layout=strided):
        self.dev, self.requires_grad, self.is_cuda, self.layout = \
            dev, requires_grad, is_cuda, layout
        self.calls = 0   # of its C methods (the interface below does not count)

    @property
    def dtype(self):
        return _DTYPES[self.dev.dtype.str]

    @property
    def shape(self):
        return Size(self.dev.shape)

    def is_contiguous(self):
        self.calls += 1
        return self.dev.is_c_contiguous()

    def data_ptr(self):
        self.calls += 1
        return self.dev.__cuda_array_interface__["data"][0]

    @property
    def __cuda_array_interface__(self):
        if _has_torch_function_unary(self):
            raise RuntimeError("a __torch_function__ override answers here")
        if not self.is_cuda:
            raise AttributeError("Can't get __cuda_array_interface__ on non-CUDA tensor type")
        if self.layout is not strided:
            raise AttributeError("Can't get __cuda_array_interface__ on sparse type")
        if self.requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires "
                               "grad.")
        desc = self.dev.__cuda_array_interface__
        strides = None if self.dev.is_c_contiguous() else desc["strides"]
        return dict(typestr=self.dtype.typestr, shape=tuple(self.shape), strides=strides,
                    data=(desc["data"][0] if self.dev.size else 0, False), version=2)


Tensor.__module__ = "torch"
module = types.ModuleType("torch")
module.__dict__.update(Tensor=Tensor, Size=Size, strided=strided, float32=float32,
                       float64=float64, _C=types.SimpleNamespace(
                           _has_torch_function_unary=_has_torch_function_unary))
