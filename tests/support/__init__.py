"""Helpers shared by the tests (importable from every test folder: pyproject.toml puts
tests/ on the path). Fixtures live in tests/conftest.py."""

from support.build_spy import BuildSpy
from support.devices import OCLGRIND_ERRORS, device_id, fresh, is_oclgrind, test_devices

__all__ = ["OCLGRIND_ERRORS", "BuildSpy", "device_id", "fresh", "is_oclgrind", "test_devices"]
