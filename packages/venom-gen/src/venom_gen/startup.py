"""`run_product`: a product's binary, started from its start-up image (rfcs/0004 D-S76, D-S77).

A product's ``__main__`` names its `Product` instead of importing it::

    def main() -> int:  # for tests and embedding: returns the exit status
        return run_product("my_tool.product:PRODUCT")

    def run() -> None:  # the console script ([project.scripts] my-tool = "...:run")
        exit_product("my_tool.product:PRODUCT")

so the binary can read the image of its CLI path before it imports anything else of the
toolkit or the product. ``product_main(PRODUCT)`` does the same work the ordinary way.

**The image.** CPython's import system spends about 0.3 M instructions on every module,
however small (finders, the ``.pyc``'s stat, open, read and checks, specs, locks): on a verb
call's ~35 modules, a quarter of a bare interpreter's start. The image holds their code
objects in the order their imports completed, and the cached model already decoded, in one
marshal file beside the product's ``.pyc`` files; it installs the modules as the import system
would (spec, loader, ``__file__``, ``__path__``, the parent's attribute), without it. CPython
freezes its own start-up modules for the same reason.

It is a cache with the ``.pyc`` rules: valid only for this interpreter's bytecode and
optimization level and while every file in it keeps its size and mtime; anything else, and
any error reading it, means ordinary imports. A successful call to the daemon that had no
image, or imported modules the image lacks, writes the image when it ends, with what it
imported (source modules only), unless bytecode writing is off (``-B``,
``PYTHONDONTWRITEBYTECODE``). Nothing else shapes it: ``--help``, usage errors and local verbs
(``serve``, ``mcp`` and the rest, which import their own worlds) would make every call run
their modules. Trust: the file sits in the package's ``__pycache__``, where whoever can write
it can already write a ``.pyc`` the interpreter runs; one that is a symbolic link or not a
regular file, is writable by group or others, or belongs to another user than this one or
root, is never read.

**The exit.** Through `exit_product`, a finished CLI call (no local verb, no thread, no
``atexit`` callback) flushes stdout and stderr and ends with ``os._exit``: interpreter
finalization, tearing the loaded modules down object by object, costs about 1 ms and does
nothing a finished call needs. `run_product` returns instead, for code that goes on.

``VENOM_STARTUP_IMAGE=0`` turns both off. This module is the first of the toolkit a CLI call
loads: it imports only modules the interpreter has loaded before it runs anything (``gc``,
``marshal``, ``os``, ``stat``, ``sys``), and no ``from __future__`` import, which would load
``__future__`` outside the image.
"""

import gc
import marshal
import os
import stat
import sys

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from importlib.machinery import ModuleSpec, SourceFileLoader
    from types import CodeType, ModuleType
    from typing import Any, NoReturn, TypeAlias

    # One entry per module: (name, source path, is package, source mtime in ns, size, code).
    Entry: TypeAlias = tuple[str, str, bool, int, int, CodeType]
    # One entry per data file read through `_Session.load`: (path, mtime in ns, size, value).
    Datum: TypeAlias = tuple[str, int, int, Any]

__all__ = ("ENV", "exit_product", "run_product")


def run_product(product: str, argv: list[str] | None = None) -> int:
    """Run the binary of the `Product` that ``product`` names (``"package.module:ATTRIBUTE"``)
    on ``argv`` (default ``sys.argv[1:]``) with its start-up image; returns the exit status,
    as `venom_gen.product_main` does. For tests and embedding; the console script calls
    `exit_product`."""
    return _run(product, argv, own_process=False)


def _run(product: str, argv: list[str] | None, *, own_process: bool) -> int:
    package = product.partition(":")[0].partition(".")[0]
    __import__(package)
    locations = getattr(sys.modules[package], "__path__", None)
    if not locations:
        raise ValueError(f"{product!r}: {package} is not a package")
    session = _open_session(next(iter(locations)), os.environ, freeze=own_process)
    try:
        from venom_gen.binary import product_main
        from venom_gen.product import resolve

        status = product_main(resolve(product), argv)
    except BaseException:
        session.stop()
        raise
    session.close(status)
    return status


def exit_product(product: str) -> "NoReturn":
    """The console script's entry: `run_product` on this process's command line, then the
    end of the process with its exit status. After a CLI call (no local verb ran, no thread,
    no ``atexit`` callback) the process ends with ``os._exit`` once stdout and stderr are
    flushed: interpreter finalization, tearing the loaded modules down object by object,
    costs about 1 ms and does nothing a finished call needs. Never returns."""
    status = _run(product, None, own_process=True)
    session = _current
    if session is not None and session.may_exit_now():
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except BaseException:
            pass  # the interpreter's own exit reports it, as it always does
        else:
            os._exit(status)
    sys.exit(status)


#: Bumped when the layout of the file changes.
_FORMAT = 1
#: The environment variable that switches the image and the quick exit off when ``0``:
#: ordinary imports and an ordinary interpreter exit.
ENV = "VENOM_STARTUP_IMAGE"
_NAME = "venom-startup"
#: The largest image read (a CLI path's is well under 1 MiB): anything bigger is not ours.
_MAX_SIZE = 16 << 20

#: How every reader of a file of ours opens it (venom_proto.files, the family's model cache):
#: no symbolic link followed, and a FIFO with no writer never blocks the open.
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

_bootstrap = sys.modules.get("_frozen_importlib")
_external = sys.modules.get("_frozen_importlib_external")


def _image_path(package_dir: str) -> str | None:
    """Where the image of the package in ``package_dir`` lives (None: no bytecode cache here)."""
    tag: str | None = sys.implementation.cache_tag  # None where bytecode is not cached
    if tag is None:
        return None
    name = f"{_NAME}.{tag}.image"
    prefix = sys.pycache_prefix
    if prefix:
        # As importlib.util.cache_from_source places .pyc files under PYTHONPYCACHEPREFIX.
        return os.path.join(prefix, os.path.abspath(package_dir).lstrip(os.sep), name)
    return os.path.join(package_dir, "__pycache__", name)


def _header() -> tuple[object, ...]:
    """What the image was made under: its layout, the bytecode, the optimization level, and
    where imports look (``sys.path``, the meta-path finders), since the image pins where each
    module was found: under another ``PYTHONPATH`` the ordinary imports decide again."""
    magic = getattr(_external, "MAGIC_NUMBER", None)
    finders = tuple(getattr(f, "__qualname__", type(f).__qualname__) for f in sys.meta_path)
    return (_FORMAT, magic, sys.flags.optimize, tuple(sys.path), finders)


def _read(path: str, expected: "tuple[object, ...]") -> "tuple[list[Entry], list[Datum]] | None":
    """The image's entries, or None when it is absent, foreign, stale or unreadable."""
    try:
        fd = os.open(path, _READ)
    except OSError:
        return None  # absent, or a symbolic link (ELOOP)
    try:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_mode & 0o022
            or st.st_uid not in (0, os.geteuid())
            or st.st_size > _MAX_SIZE
        ):
            return None  # not a regular file, someone else's, or no image of ours
        blob = os.read(fd, st.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        header, entries, data = marshal.loads(blob)
        if header != expected:
            return None
        stat_of = os.stat
        for _name, source, _is_package, mtime, size, _code in entries:
            st = stat_of(source)
            if st.st_mtime_ns != mtime or st.st_size != size:
                return None
        for source, mtime, size, _value in data:
            st = stat_of(source)
            if st.st_mtime_ns != mtime or st.st_size != size:
                return None
    except Exception:  # a cache: whatever is wrong with it means "import as usual"
        return None
    image: tuple[list[Entry], list[Datum]] = (entries, data)
    return image


def _install(entries: "list[Entry]") -> list[str]:
    """Run the image's modules into ``sys.modules``; the names it ran.

    The entries are in the order their imports completed, so a package whose ``__init__``
    imports its own modules comes after them; as in an ordinary import, the package is in
    ``sys.modules`` (created here, its body not yet run) before any of its modules runs.
    """
    modules = sys.modules
    by_name = {entry[0]: entry for entry in entries}
    created: set[str] = set()

    def create(entry: "Entry") -> "ModuleType":
        name, source, is_package, _mtime, _size, _code = entry
        parent = name.rpartition(".")[0]
        if parent and parent not in modules and parent in by_name:
            create(by_name[parent])
        loader = _external.SourceFileLoader(name, source)  # type: ignore[union-attr]
        spec = _bootstrap.ModuleSpec(  # type: ignore[union-attr]
            name, loader, origin=source, is_package=is_package
        )
        spec.has_location = True
        module: ModuleType = type(sys)(name)
        module.__spec__ = spec
        module.__loader__ = loader
        module.__file__ = source
        if is_package:
            locations = [os.path.dirname(source)]
            spec.submodule_search_locations = locations
            module.__path__ = locations
            module.__package__ = name
        else:
            module.__package__ = parent
        modules[name] = module
        created.add(name)
        return module

    done: list[str] = []
    for entry in entries:
        name, code = entry[0], entry[5]
        if name in created:
            module = modules[name]
        elif name in modules:
            continue  # imported before the image was read: it stays as it is
        else:
            module = create(entry)
        try:
            exec(code, module.__dict__)
        except Exception:
            # The rest imports as usual: the failing module where its importer asks for it,
            # with the traceback an ordinary import gives. What ran stays, as it would have.
            for pending in created - set(done):
                modules.pop(pending, None)
            return done
        parent, _, child = name.rpartition(".")
        if parent and parent in modules:
            setattr(modules[parent], child, module)
        done.append(name)
    return done


class _Recorder:
    """A meta-path finder that notes each source module an import completes, in order."""

    def __init__(self) -> None:
        self.completed: list[tuple[str, SourceFileLoader]] = []

    def find_spec(
        self,
        fullname: str,
        path: "Sequence[str] | None",
        target: "ModuleType | None" = None,
        /,
    ) -> "ModuleSpec | None":
        spec: ModuleSpec | None = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is not self and find is not None:
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        if spec is not None and isinstance(spec.loader, _external.SourceFileLoader):  # type: ignore[union-attr]
            spec.loader = _Recording(spec.loader, self)  # type: ignore[assignment]
        return spec


class _Recording:
    """A source loader's stand-in for one import: runs it, then notes it and steps aside."""

    def __init__(self, loader: "SourceFileLoader", recorder: _Recorder) -> None:
        self.loader = loader
        self.recorder = recorder

    def create_module(self, spec: "ModuleSpec") -> None:
        return None

    def __getattr__(self, name: str) -> object:
        # Whatever else asks the spec's loader (resources, get_code) gets the real one's.
        return getattr(self.loader, name)

    def exec_module(self, module: "ModuleType") -> None:
        spec = module.__spec__
        assert spec is not None  # the import system set it from the finder's spec
        spec.loader = self.loader
        module.__loader__ = self.loader
        self.loader.exec_module(module)
        self.recorder.completed.append((spec.name, self.loader))


class _Session:
    """One run of a binary with its image: what was installed, what is being recorded."""

    def __init__(
        self,
        path: str | None,
        header: "tuple[object, ...]",
        image: "tuple[list[Entry], list[Datum]] | None",
        recorder: _Recorder | None,
    ) -> None:
        self.path = path
        # What the image was read under, and is written under: whatever the run adds to
        # sys.path or the meta path must not make the next run's image a stranger.
        self.header = header
        self.enabled = path is not None
        self.local_verb = False
        self.daemon_call = False
        self.entries, data = image or ([], [])
        self.data = {datum[0]: datum for datum in data}
        self.recorder = recorder
        self.installed: list[str] = []
        self.fresh_data: list[Datum] = []

    def stop(self) -> None:
        """Stop recording: nothing more will be noted."""
        recorder, self.recorder = self.recorder, None
        finders: list[object] = sys.meta_path  # type: ignore[assignment]
        if recorder is not None and recorder in finders:
            finders.remove(recorder)

    def dispatch(self, kind: str) -> None:
        """What the CLI is about to run: ``"local"`` (a local verb: what it imports is its
        own, and how the process ends its business) or ``"daemon"`` (a call to the daemon:
        the path the image is for)."""
        if kind == "local":
            self.local_verb = True
            self.stop()
        elif kind == "daemon":
            self.daemon_call = True

    def load(self, path: str, read: "Callable[[str], Any]") -> "Any":
        """``read(path)``, or its value as the image holds it while the file is unchanged.

        For the CLI's own build output (the cached model): plain JSON values, which the image
        keeps already decoded. A value read while recording is copied into the next image.
        """
        datum = self.data.get(path)
        if datum is not None:
            return datum[3]
        value = read(path)
        if self.recorder is not None:
            try:
                st = os.stat(path)
                # A copy as read, before the caller can change the object.
                self.fresh_data.append(
                    (path, st.st_mtime_ns, st.st_size, marshal.loads(marshal.dumps(value)))
                )
            except (OSError, ValueError):
                pass  # not a file, or not plain data: read every time
        return value

    def may_exit_now(self) -> bool:
        """True when nothing is left for interpreter finalization to do: a CLI call (no local
        verb), no thread module loaded, no ``atexit`` callback registered."""
        if not self.enabled or self.local_verb or "threading" in sys.modules:
            return False
        import atexit  # built in: no file to find

        callbacks = getattr(atexit, "_ncallbacks", None)
        return callbacks is not None and callbacks() == 0

    def close(self, status: int) -> bool:
        """End the run: write the image if this was a successful call to the daemon that
        loaded what the image lacked (help, usage errors and failures never shape it: every
        call would run their modules); True if written."""
        recorder = self.recorder
        self.stop()
        if recorder is None or self.path is None or not self.daemon_call or status != 0:
            return False
        known = {entry[0] for entry in self.entries}
        fresh = [(name, loader) for name, loader in recorder.completed if name not in known]
        if not fresh and not self.fresh_data:
            return False
        data = [*self.data.values(), *self.fresh_data]

        def image() -> "tuple[Any, ...]":
            return (self.header, [*self.entries, *_entries(fresh)], data)

        try:
            return _write(self.path, image)
        except Exception:  # a cache: a failed write costs the next run its speed, no more
            return False


_current: _Session | None = None


def _session() -> _Session | None:
    """The session of this process's binary, if `venom_gen.startup` started it."""
    return _current


def _open_session(
    package_dir: str, environ: "Mapping[str, str]", *, freeze: bool = False
) -> _Session:
    """Install the image of the package in ``package_dir`` if it is valid, and record this run
    when bytecode may be written. ``freeze``: the process is the binary's own, and what it
    loaded lives as long as it does, so the collector need not look at it again."""
    global _current
    enabled = environ.get(ENV, "1") != "0" and _bootstrap is not None and _external is not None
    path = _image_path(package_dir) if enabled else None  # None: the switch is off
    # Unmarshalling and running ~37 modules allocates a few hundred thousand objects, all kept
    # for the life of the process: collections meanwhile would only walk them (~2 M
    # instructions).
    collecting = gc.isenabled()
    gc.disable()
    try:
        header = _header()
        image = _read(path, header) if path is not None else None
        recorder = None
        if path is not None and not sys.dont_write_bytecode:
            recorder = _Recorder()
            sys.meta_path.insert(0, recorder)
        session = _current = _Session(path, header, image, recorder)
        if session.entries:
            try:
                session.installed = _install(session.entries)
            except BaseException:  # KeyboardInterrupt, SystemExit: the run ends here
                session.stop()
                raise
    finally:
        if collecting:
            if freeze:
                gc.freeze()  # ~1.3 M instructions of collections over start-up's objects
            gc.enable()
    return session


def _write(path: str, image: "Callable[[], tuple[Any, ...]]") -> bool:
    """Write ``image()`` at ``path`` with the one atomic writer; False, having computed
    nothing, where the cache directory cannot be written (a read-only install)."""
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError:
        return False
    if not os.access(directory, os.W_OK):
        return False
    from venom_proto.files import write_atomic  # only on a run that writes the image

    write_atomic(path, marshal.dumps(image()), 0o644)
    return True


def _entries(fresh: "list[tuple[str, SourceFileLoader]]") -> "list[Entry]":
    result: list[Entry] = []
    for name, loader in fresh:
        source = str(loader.path)
        is_package = loader.is_package(name)
        st = os.stat(source)
        # Compiled from the source as the loader would, not taken from the .pyc: a .pyc is
        # checked against the source's mtime in whole seconds, the image in nanoseconds.
        code = loader.source_to_code(loader.get_data(source), source)
        if os.stat(source).st_mtime_ns != st.st_mtime_ns:
            raise OSError(f"{source} changed while the image was written")
        result.append((name, source, is_package, st.st_mtime_ns, st.st_size, code))
    return result
