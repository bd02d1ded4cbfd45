"""The `notarai-rs` command of the notarai-rs wheel: runs the `notarai` binary
the wheel installed beside it, so that `uvx notarai-rs mcp` (the package's
name as the command) works as `notarai mcp` does. `python -m notarai_rs` too."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path


def binary() -> Path:
    """The installed `notarai` binary: the environment's scripts folder, the
    user scheme's, or the folder of the running Python."""
    exe = "notarai" + (sysconfig.get_config_var("EXE") or "")
    folders = [sysconfig.get_path("scripts")]
    user_scheme = {"nt": "nt_user"}.get(os.name, "posix_user")
    if user_scheme in sysconfig.get_scheme_names():
        folders.append(sysconfig.get_path("scripts", user_scheme))
    folders.append(str(Path(sys.executable).parent))
    for folder in folders:
        candidate = Path(folder) / exe
        if candidate.is_file():
            return candidate
    sys.exit(f"notarai-rs: the notarai binary is not in {', '.join(folders)}: reinstall notarai-rs")


def main() -> None:
    """Replace this process with the binary (on Windows, run it and pass its status on)."""
    path = binary()
    args = [str(path), *sys.argv[1:]]
    if os.name == "nt":
        sys.exit(subprocess.run(args).returncode)
    os.execv(path, args)
