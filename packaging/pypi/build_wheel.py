#!/usr/bin/env python3
"""Build notarai's wheel for one platform from a built binary.

    build_wheel.py --target TRIPLE --binary PATH --out DIR

The same wheel maturin builds with `bindings = "bin"`, without a second
compile: the binary as `notarai_rs-<version>.data/scripts/notarai` (pip and uv
put it in the environment's bin/ or Scripts/ folder), tagged
`py3-none-<platform>` (any Python 3, no ABI), with METADATA, WHEEL and a
RECORD of every file's sha256 and size (PEP 427, PEP 491). One addition:
a `notarai-rs` console script (the small module `notarai_rs`, beside this
script, which runs the binary), because `uvx notarai-rs`, the MCP Registry's
way to start a PyPI server, runs the command named like the package. The Linux tag is
the newest glibc the binary needs (`manylinux_2_N`). Zip entries carry a fixed
date (SOURCE_DATE_EPOCH when set), so the same binary gives the same wheel.
Prints the wheel's path. Python 3.11+, standard library only.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import sys
import time
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the repository
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import platforms  # noqa: E402  (the shared table, one folder up)

SUMMARY = "Keeps a project's specs, code and docs from drifting apart while AI agents edit all three."


def metadata(version: str) -> str:
    """METADATA (core metadata 2.1): the description repeats the MCP Registry
    name (`mcp-name:`), which the registry checks on PyPI."""
    readme = (platforms.ROOT / "README.md").read_text(encoding="utf-8")
    headers = [
        "Metadata-Version: 2.1",
        f"Name: {platforms.PACKAGE}",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        "License: MIT OR Apache-2.0",
        "Keywords: mcp,mcp-server,specs,ai-agents",
        "Classifier: Environment :: Console",
        "Classifier: Programming Language :: Rust",
        "Classifier: Topic :: Software Development :: Quality Assurance",
        "Description-Content-Type: text/markdown",
    ]
    body = f"<!-- mcp-name: {platforms.mcp_name()} -->\n\n{readme}"
    return "\n".join(headers) + "\n\n" + body


def record_line(name: str, data: bytes) -> str:
    """A RECORD row: path, urlsafe base64 sha256 without padding, size."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build(target: str, binary: str, out: Path) -> Path:
    """Write the wheel and return its path."""
    plat = platforms.platform(target)
    data = platforms.read_binary(binary, plat)
    version = platforms.version()
    # The distribution's name in file names (PEP 427: runs of -_. become _).
    dist = re.sub(r"[-_.]+", "_", platforms.PACKAGE)
    tags = platforms.wheel_tags(plat, data)
    info = f"{dist}-{version}.dist-info"
    wheel = "\n".join(
        ["Wheel-Version: 1.0", "Generator: notarai packaging/pypi/build_wheel.py", "Root-Is-Purelib: false"]
        + [f"Tag: py3-none-{tag}" for tag in tags]
    )
    shim = Path(__file__).resolve().parent / "notarai_rs"
    files = [
        (f"{dist}-{version}.data/scripts/{plat.exe}", data, 0o755),
        ("notarai_rs/__init__.py", (shim / "__init__.py").read_bytes(), 0o644),
        ("notarai_rs/__main__.py", (shim / "__main__.py").read_bytes(), 0o644),
        (f"{info}/METADATA", metadata(version).encode(), 0o644),
        (f"{info}/WHEEL", (wheel + "\n").encode(), 0o644),
        (f"{info}/entry_points.txt", b"[console_scripts]\nnotarai-rs = notarai_rs:main\n", 0o644),
        (f"{info}/licenses/LICENSE", (platforms.ROOT / "LICENSE").read_bytes(), 0o644),
    ]
    record = [record_line(name, content) for name, content, _ in files]
    record.append(f"{info}/RECORD,,")
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, zip's first day
    date = time.gmtime(max(epoch, 315532800))[:6]
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{dist}-{version}-py3-none-{'.'.join(tags)}.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content, mode in files:
            entry = zipfile.ZipInfo(name, date_time=date)
            entry.external_attr = (0o100000 | mode) << 16  # a regular file and its mode
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, content)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", required=True, help="Rust target triple of the binary")
    parser.add_argument("--binary", required=True, help="the built notarai binary")
    parser.add_argument("--out", required=True, type=Path, help="folder for the wheel")
    args = parser.parse_args()
    print(build(args.target, args.binary, args.out))


if __name__ == "__main__":
    main()
