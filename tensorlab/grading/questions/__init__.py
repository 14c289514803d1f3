"""Question banks, one module per notebook: ids, prompts, references, misconceptions, hints.

Each module defines ``QUESTIONS``, a list of ``tensorlab.grading.model.Question`` in notebook
order. They hold data and small pure functions only; the machinery is in ``tensorlab.grading``.
"""
