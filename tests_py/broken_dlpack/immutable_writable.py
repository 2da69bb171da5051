"""Breaks P2.read_only for a library whose arrays are all immutable (as jax's,
pyarrow's and tensorflow's are): it says so (immutable), and exports its
memory in legacy capsules and in versioned ones without READ_ONLY, so a
consumer that trusts the capsule writes into an array that cannot change."""

from ._base import CHECK, namespace

__dlpack_check__ = dict(CHECK, immutable=True)
# the memory behind the arrays is writable numpy memory, exported as such
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))
