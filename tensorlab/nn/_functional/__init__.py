"""The numpy forwards of ``tensorlab.nn.functional``'s ops, grouped by family as in torch's
``functional.py``: conv, padding, fold, activations, linear, pooling, normalization, losses,
sparse (embedding), upsampling. ``nn.functional`` re-exports them (and imports nothing back);
their backward formulas live in :mod:`tensorlab.autograd` (``conv``, ``nn_ops``, ``pooling``).
Results are made by :func:`tensorlab._tensor.from_array`."""
