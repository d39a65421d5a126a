"""The version, defined once: pyproject.toml reads it, and so does everything else."""

__version__ = "0.1.0"
