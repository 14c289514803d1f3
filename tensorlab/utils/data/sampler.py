"""Samplers: which indices a ``DataLoader`` visits, and in which order."""

from __future__ import annotations

from collections.abc import Iterator


class Sampler:
    """Iterates over indices of a dataset."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _generator(generator):
    """PyTorch draws a fresh seed from the default generator when none is given: seeding with
    ``manual_seed`` therefore makes shuffling reproducible."""
    from ... import _dtype as D
    from ..._ops.creation import Generator, default_generator

    if generator is not None:
        return generator
    from ...random._kernels import random_full

    seed = int(random_full(default_generator, 1, D.int64)[0])  # torch: empty((), int64).random_()
    return Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """A random permutation of the indices (or ``num_samples`` draws, with ``replacement``)."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        from ..._ops.creation import randint, randperm

        n = len(self.data_source)
        generator = _generator(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(n, (32,), generator=generator).tolist()
            yield from randint(n, (self.num_samples % 32,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from ..._ops.creation import randperm

        for i in randperm(len(self.indices), generator=_generator(self.generator)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with or
    without ``replacement``), from ``generator`` or the default generator."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        from ..._ops.creation import as_tensor

        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        from ... import _dtype as D

        weights_tensor = as_tensor(weights, dtype=D.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        import numpy as np

        from ..._ops.distributions import multinomial

        w = np.asarray(self.weights._np(), dtype=np.float64)
        if (w < 0).any() or not np.isfinite(w).all():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry < 0)"
            )
        if w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > w.size:
            raise RuntimeError(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
            )
        picks = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        ).tolist()
        yield from (int(i) for i in picks)

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
