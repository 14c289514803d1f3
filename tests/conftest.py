"""Shared test setup. Tests that compare with real PyTorch use the ``torch`` fixture or
``helpers.require_torch()``; they skip locally without the ``oracle`` extra and FAIL under CI."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "tensorlab",
    deadline=None,
    database=None,  # never write .hypothesis/ into the repo
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("tensorlab")


@pytest.fixture(scope="session")
def torch():
    from helpers import require_torch

    return require_torch()


def pytest_report_header(config):
    try:
        import torch as _t

        return f"oracle: torch {_t.__version__}"
    except ImportError:
        return "oracle: torch not installed (oracle tests skip; they fail under CI)"


def pytest_configure(config):
    os.environ.setdefault("MPLBACKEND", "Agg")
