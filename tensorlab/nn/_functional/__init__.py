"""The numpy forwards of ``tensorlab.nn.functional``'s layer ops, grouped by family as in torch:
activations, linear, pooling, normalization, losses, upsampling. ``nn.functional`` re-exports
them; their backward formulas live in :mod:`tensorlab.autograd.nn_ops` and
:mod:`tensorlab.autograd.pooling`."""
