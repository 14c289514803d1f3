"""The one place the version is written: the package (``tensorlab.__version__``), the command
(``tensorlab --version``) and the wheel's metadata (hatchling reads it here) all take it from here."""

__version__ = "0.2.0"
