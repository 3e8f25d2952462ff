"""The embedding model installed with this package, for memcore to use when no model
directory is configured or set and the default cache (``memcore model fetch``) lacks one.

The wheel carries the model and tokenizer in ``memcore/model/`` (fetched and hash-checked when
the wheel was built); the ONNX Runtime library comes from the ``onnxruntime`` package that
the wheel's ``[embeddings]`` extra installs. It is found without importing ``onnxruntime``
(which would load its own Python bindings for nothing), and only in the environment's
installed packages: a directory named ``onnxruntime`` in the working directory (which is on
``sys.path`` for ``python -m`` and ``python -c``) is native code nobody installed, and is
never loaded. memcore still checks the model's hash before it loads it.
"""

from __future__ import annotations

import importlib.util
import site
import sysconfig
from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent / "model"
# The name the pinned onnxruntime wheel uses first; then the generic names.
RUNTIME_NAMES = (
    "libonnxruntime.so.1.31.1",
    "libonnxruntime.so",
    "libonnxruntime.dylib",
    "onnxruntime.dll",
)


def installed_package_dirs() -> list[Path]:
    """The environment's site-packages directories (the venv's, the system's, the user's)."""
    dirs = [sysconfig.get_paths()[key] for key in ("purelib", "platlib")]
    dirs += site.getsitepackages() if hasattr(site, "getsitepackages") else []
    dirs.append(site.getusersitepackages())
    return [Path(d).resolve() for d in dirs if d]


def onnxruntime_library() -> Path | None:
    """The ONNX Runtime library of the installed ``onnxruntime`` package, if there is one."""
    try:
        spec = importlib.util.find_spec("onnxruntime")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    installed = installed_package_dirs()
    for location in spec.submodule_search_locations:
        package = Path(location).resolve()
        if package.parent not in installed:
            continue
        capi = package / "capi"
        for name in RUNTIME_NAMES:
            if (capi / name).is_file():
                return capi / name
        # Another release of the package: memcore's loader says whether it can use it.
        for candidate in sorted(capi.glob("libonnxruntime.so.*")):
            if candidate.is_file():
                return candidate
    return None


def model_files() -> tuple[str, str, str] | None:
    """``(model, tokenizer, runtime)`` installed with this package, or ``None`` when the wheel
    has no model or the ``embeddings`` extra (``onnxruntime``) is not installed."""
    model = MODEL_DIR / "model.onnx"
    tokenizer = MODEL_DIR / "tokenizer.json"
    runtime = onnxruntime_library()
    if runtime is None or not model.is_file() or not tokenizer.is_file():
        return None
    return (str(model), str(tokenizer), str(runtime))
