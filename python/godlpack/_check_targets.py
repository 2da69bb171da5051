"""The libraries `python -m godlpack check` knows how to drive (data only).

A target says how to make its arrays as Python source, so that every failing
check comes with a reproducer that is exactly the code the checker ran. The
sources are numpy data (``{data}``) handed to the library by its own
constructor, then viewed by the library's own operations; the checker
applies the same view to the numpy data to know the values the array must
hold. Any other importable module is driven through the array API
(``asarray``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# numpy dtypes every target is tried with (those it cannot make are N/A)
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]

# The source arrays, as numpy expressions of dtype {dt}: name -> (data, view).
# The view is applied to the library's array and, for the expected values,
# to the numpy data; None views are the data itself.
LAYOUTS: dict[str, tuple[str, str | None]] = {
    "0-d": ("np.asarray(5).astype({dt})", None),
    "empty": ("np.zeros((0, 3), dtype={dt})", None),
    "contiguous": ("(np.arange(24) % 7).reshape(2, 3, 4).astype({dt})", None),
    "transposed": ("(np.arange(12) % 5).reshape(3, 4).astype({dt})", "{x}.T"),
    "reversed": ("(np.arange(10) % 6).astype({dt})", "{x}[::-1]"),
    "sliced": ("(np.arange(30) % 9).reshape(5, 6).astype({dt})", "{x}[1:4, ::2]"),
}


# Producers' layouts that only a consumer meets: (base, view) as numpy
# expressions of dtype {dt}; the view is what is exported.
HOSTILE: dict[str, tuple[str, str | None]] = {
    "zero strides": ("np.arange(4).astype({dt})", "np.broadcast_to({x}, (3, 4))"),
    "32 dimensions": ("np.arange(2).astype({dt})", "{x}.reshape((1,) * 31 + (2,))"),
    "unaligned": ("np.zeros(4 * 8 + 1, np.uint8)", "{x}[1:].view({dt})"),
}


@dataclass
class Target:
    """How to make and view arrays of one library."""

    module: str  # what `import` takes
    alias: str  # the name the reproducers use
    make: str  # the library's array from numpy data {data}
    dtypes: list[str] = field(default_factory=lambda: list(DTYPES))
    # views the library cannot make (N/A for it)
    no_views: tuple[str, ...] = ()
    # a read-only array from numpy data {data} (``_readonly(a)`` makes a numpy
    # array read-only), or None when the library has no read-only arrays
    read_only: str | None = None
    # every array the library makes is immutable (jax, pyarrow, tensorflow):
    # each case is a read-only one, so P2 asks every export to say READ_ONLY
    immutable: bool = False
    # it frees what it imported on a thread of its own, a moment after the
    # import dies (jax): the checker waits for that before counting
    frees_later: bool = False
    # the library's arrays are 1-d: the expected values are the data raveled
    flat: bool = False
    # As a consumer: its from_dlpack of producer {p} with keywords {kw}
    # (None: it has none), its array {y} as numpy data, whether {y} is
    # writable (None: it cannot say), and godlpack dtypes it lacks.
    from_dlpack: str | None = None
    to_numpy: str = "np.asarray({y})"
    writable: str | None = None
    # the address of {y}'s first element, to tell a view of the producer's
    # memory from a copy (None: a write through the producer tells)
    pointer: str | None = None
    lacks: tuple[str, ...] = ()
    note: str = ""
    # Devices, by godlpack's spelling: how to move the library's array {x}
    # there. The first is where the library makes arrays; read-only arrays
    # are made there only.
    devices: dict[str, str] = field(default_factory=lambda: {"cpu": "{x}"})
    # The library's CPU device as from_dlpack's device= (None: it takes none),
    # and whether its from_dlpack takes copy=.
    cpu_device: str | None = None
    takes_copy: bool = True
    # Its from_dlpack takes a capsule ({p}.__dlpack__() in from_dlpack),
    # not an object: it asks nothing, so C1 is not its to pass.
    takes_capsule: bool = False
    # Layouts the library spells otherwise than numpy ({x} its array).
    views: dict[str, str] = field(default_factory=dict)
    # The device the check runs on (check --device; set by target_of), and
    # whether it was named: only then are the producers handed to the target
    # on it too (else on the CPU, where most exchanges start).
    device: str = ""
    named: bool = False

    def on(self, device: str | None) -> Target:
        """This target checked on device (None: the first it has)."""
        import dataclasses

        if device is not None and device not in self.devices:
            raise ValueError(f"check --device {device}: {self.module} is checked on {', '.join(self.devices)}; "
                             f"pick one of those")
        return dataclasses.replace(self, device=device or next(iter(self.devices)), named=device is not None)

    @property
    def feed(self) -> str:
        """Where the producers handed to the target's from_dlpack live."""
        return self.device if self.named else "cpu"

    @property
    def home(self) -> bool:
        """The check runs on the device the library makes arrays on."""
        return self.device == next(iter(self.devices))


TARGETS: dict[str, Target] = {
    "numpy": Target("numpy", "np", "np.array({data})", read_only="_readonly(np.array({data}))",
                    from_dlpack="np.from_dlpack({p}{kw})", writable="{y}.flags.writeable", pointer="{y}.ctypes.data",
                    lacks=("bfloat16", "float8_e5m2"), cpu_device="'cpu'"),
    "godlpack": Target("godlpack", "gd", "gd.asarray(np.array({data}))",
                       read_only="gd.from_dlpack(_readonly(np.array({data})))",
                       from_dlpack="gd.from_dlpack({p}{kw})", writable="not {y}.readonly", pointer="{y}.data_ptr",
                       cpu_device="'cpu'", devices={"cpu": "{x}", "oneapi:0": "{x}.to_device('oneapi:0')"}),
    "torch": Target("torch", "torch", "torch.from_numpy(np.array({data}))",
                    dtypes=["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64",
                            "complex64", "complex128"],
                    no_views=("reversed",), from_dlpack="torch.from_dlpack({p}{kw})", to_numpy="{y}.numpy()",
                    pointer="{y}.data_ptr()", cpu_device="'cpu'",
                    devices={"cpu": "{x}", "cuda:0": "{x}.to('cuda:0')"},
                    note="torch has no negative strides"),
    "jax": Target("jax.numpy", "jnp", "jnp.asarray(np.array({data}))",
                  dtypes=["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32",
                          "complex64"], from_dlpack="jnp.from_dlpack({p}{kw})", pointer="{y}.unsafe_buffer_pointer()",
                  writable="False", cpu_device="__import__('jax').devices('cpu')[0]", immutable=True,
                  frees_later=True,
                  note="64-bit types need jax_enable_x64; jax arrays are immutable"),
    "array_api_strict": Target("array_api_strict", "xp", "xp.asarray(np.array({data}))",
                               dtypes=[d for d in DTYPES if d != "float16"], from_dlpack="xp.from_dlpack({p}{kw})",
                               to_numpy="np.asarray({y}._array)", lacks=("bfloat16", "float8_e5m2"),
                               pointer="{y}._array.ctypes.data", writable="{y}._array.flags.writeable",
                               cpu_device="xp.Device('CPU_DEVICE')",
                               note="the array API has no float16"),
    "dpnp": Target("dpnp", "dpnp", "dpnp.asarray(np.array({data}))",
                   dtypes=["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64",
                           "complex64", "complex128"], from_dlpack="dpnp.from_dlpack({p}{kw})",
                   to_numpy="dpnp.asnumpy({y})", devices={"oneapi:0": "{x}"},
                   pointer="(getattr({y}, '__sycl_usm_array_interface__', None) or {y}.__array_interface__)['data'][0]",
                   note="dpnp's arrays are on the default SYCL device; its from_dlpack of CPU memory gives "
                        "a numpy array"),
    "dpctl.tensor": Target("dpctl.tensor", "dpt", "dpt.asarray(np.array({data}))",
                           dtypes=["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32",
                                   "float64", "complex64", "complex128"], devices={"oneapi:0": "{x}"}),
    "pyarrow": Target("pyarrow", "pa", "pa.array(np.array({data}).ravel())",
                      dtypes=["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                              "float32", "float64"],
                      no_views=("0-d", "transposed", "reversed", "sliced"), flat=True, immutable=True,
                      note="pyarrow arrays are 1-d and immutable"),
    "tensorflow": Target("tensorflow", "tf", "tf.constant(np.array({data}))",
                         dtypes=["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                 "float16", "float32", "float64", "complex64", "complex128"],
                         views={"transposed": "tf.transpose({x})"},
                         from_dlpack="tf.experimental.dlpack.from_dlpack({p}.__dlpack__())", takes_copy=False,
                         takes_capsule=True,
                         to_numpy="{y}.numpy()", immutable=True,
                         note="tf.Tensor is immutable; tf.experimental.dlpack.from_dlpack takes a capsule, so its "
                              "reproducers ask for one "
                              "the way TensorFlow's documentation does"),
    "paddle": Target("paddle", "paddle", "paddle.to_tensor(np.array({data}))",
                     dtypes=["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64",
                             "complex64", "complex128"],
                     from_dlpack="paddle.from_dlpack({p}{kw})", to_numpy="{y}.numpy()", pointer="{y}.data_ptr()",
                     cpu_device="'cpu'", devices={"cpu": "{x}", "cuda:0": "{x}.cuda()"}),
    "cupy": Target("cupy", "cp", "cp.asarray(np.array({data}))", from_dlpack="cp.from_dlpack({p}{kw})",
                   to_numpy="{y}.get()", pointer="{y}.data.ptr", devices={"cuda:0": "{x}"},
                   note="needs a CUDA GPU"),
}


def generic(module: str) -> Target:
    """An array-API namespace: asarray of numpy data, from_dlpack."""
    return Target(module, "xp", "xp.asarray(np.array({data}))", from_dlpack="xp.from_dlpack({p}{kw})")
