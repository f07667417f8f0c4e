"""The pytest plugin of the test kit: fixtures for a product's tests (docs/testing.md).

Name the product once, in the pytest configuration (``venom_product = "pkg.product:PRODUCT"``
under ``[tool.pytest.ini_options]``), or override the ``venom_product`` fixture. Every fixture
that starts something also ends it, and removes its directories, however the test ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from venom_gen.product import Product, resolve

from . import DaemonProcess, FakeCall, InProcess, PrivateDirs, RawPeer

__all__ = (
    "fake_call",
    "pytest_addoption",
    "venom_app",
    "venom_daemon",
    "venom_dirs",
    "venom_product",
    "venom_raw",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "venom_product",
        'the product under test, as "module:attribute" of its venom_gen.Product',
        default="",
    )


@pytest.fixture
def venom_product(request: pytest.FixtureRequest) -> str:
    """The ``"module:attribute"`` reference of the product under test."""
    ref = str(request.config.getini("venom_product"))
    if not ref:
        raise pytest.UsageError(
            'set venom_product = "pkg.product:PRODUCT" in [tool.pytest.ini_options], '
            "or override the venom_product fixture"
        )
    return ref


@pytest.fixture
def venom_dirs() -> Iterator[PrivateDirs]:
    """Fresh short private directories (runtime, config, data, state, cache, home)."""
    dirs = PrivateDirs()
    try:
        yield dirs
    finally:
        dirs.remove()


@pytest.fixture
def venom_daemon(venom_product: str, venom_dirs: PrivateDirs) -> Iterator[DaemonProcess]:
    """The product's daemon, running in `venom_dirs`; stopped after the test."""
    daemon = DaemonProcess(venom_product, dirs=venom_dirs)
    try:
        yield daemon.start()
    finally:
        daemon.stop()


@pytest.fixture
def venom_raw(venom_daemon: DaemonProcess) -> Iterator[RawPeer]:
    """A raw NDJSON connection to `venom_daemon` (no hello sent yet)."""
    with venom_daemon.raw() as peer:
        yield peer


@pytest.fixture
def venom_app(
    venom_product: str, venom_dirs: PrivateDirs, monkeypatch: pytest.MonkeyPatch
) -> Iterator[InProcess]:
    """The product's verbs in process (`InProcess`), with the environment pointed at
    `venom_dirs` for the test."""
    product: Product = resolve(venom_product)
    for name, value in venom_dirs.env(product.tool).items():
        monkeypatch.setenv(name, value)
    harness = InProcess(product)
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture
def fake_call() -> Callable[..., FakeCall]:
    """``fake_call(verb, **options)``: a `FakeCall` for calling a handler directly."""

    def make(verb: str = "test", **options: Any) -> FakeCall:
        return FakeCall(verb, **options)

    return make
