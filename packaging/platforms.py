"""The platforms notarai ships prebuilt, and what every packaging script shares.

One row per Rust target: the npm package's `os`/`cpu` (npm's names, which are
Node's `process.platform`/`process.arch`, so the launcher finds its package by
name alone), the wheel's platform tag and the archive's format. The scripts
take any built binary for one of these targets; nothing here runs it (the
packaging job packs binaries of other platforms than its own).

Python 3.11 or newer, standard library only.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The names on the registries: `notarai` on crates.io and npm is the upstream
# tool's, so every registry gets `notarai-rs`; the command stays `notarai`.
PACKAGE = "notarai-rs"
COMMAND = "notarai"


@dataclass(frozen=True)
class Platform:
    """One prebuilt target."""

    target: str
    npm_os: str
    npm_cpu: str
    # None on Linux: the manylinux tag is read from the binary (`wheel_tags`).
    wheel_tag: str | None
    windows: bool = False

    @property
    def npm_name(self) -> str:
        """The npm package holding this platform's binary."""
        return f"{PACKAGE}-{self.npm_os}-{self.npm_cpu}"

    @property
    def exe(self) -> str:
        """The binary's file name on this platform."""
        return COMMAND + (".exe" if self.windows else "")


PLATFORMS = [
    Platform("x86_64-unknown-linux-gnu", "linux", "x64", None),
    Platform("aarch64-unknown-linux-gnu", "linux", "arm64", None),
    # rustc's default deployment targets: macOS 10.12 on x86_64, 11.0 on arm64.
    Platform("x86_64-apple-darwin", "darwin", "x64", "macosx_10_12_x86_64"),
    Platform("aarch64-apple-darwin", "darwin", "arm64", "macosx_11_0_arm64"),
    Platform("x86_64-pc-windows-msvc", "win32", "x64", "win_amd64", windows=True),
]


def fail(message: str) -> None:
    """Stop with a message on stderr and exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def platform(target: str) -> Platform:
    """The row of a Rust target triple, or a clear error naming the known ones."""
    for row in PLATFORMS:
        if row.target == target:
            return row
    known = ", ".join(row.target for row in PLATFORMS)
    fail(f"no packaging for target {target!r}; the targets are: {known}")
    raise AssertionError("unreachable")


def version() -> str:
    """The workspace's version (Cargo.toml), the version of every package."""
    with open(ROOT / "Cargo.toml", "rb") as file:
        return tomllib.load(file)["workspace"]["package"]["version"]


def mcp_name() -> str:
    """The MCP Registry's name for the server (server.json), which the npm
    package (`mcpName`) and the PyPI description (`mcp-name:`) must repeat."""
    with open(ROOT / "server.json", encoding="utf-8") as file:
        return json.load(file)["name"]


def read_binary(path: str, plat: Platform) -> bytes:
    """The binary's bytes, refused when it is not an executable of `plat`."""
    file = Path(path)
    if not file.is_file():
        fail(f"{path}: no such file; build it first (cargo build --release)")
    data = file.read_bytes()
    magic = {
        "linux": (b"\x7fELF",),
        "darwin": (b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe"),
        "win32": (b"MZ",),
    }[plat.npm_os]
    if not data.startswith(magic) or machine(data) not in (plat.npm_cpu, None):
        fail(f"{path} is not a {plat.npm_os}-{plat.npm_cpu} executable (target {plat.target})")
    return data


def machine(data: bytes) -> str | None:
    """The CPU an executable is built for, in npm's names (None: a macOS
    universal binary, or a CPU we do not ship)."""
    if data.startswith(b"\x7fELF"):
        code = int.from_bytes(data[18:20], "little")
        return {0x3E: "x64", 0xB7: "arm64"}.get(code, "other")
    if data.startswith(b"\xcf\xfa\xed\xfe"):
        code = int.from_bytes(data[4:8], "little")
        return {0x01000007: "x64", 0x0100000C: "arm64"}.get(code, "other")
    if data.startswith(b"MZ"):
        header = int.from_bytes(data[0x3C:0x40], "little")
        code = int.from_bytes(data[header + 4 : header + 6], "little")
        return {0x8664: "x64", 0xAA64: "arm64"}.get(code, "other")
    return None


def wheel_tags(plat: Platform, binary: bytes) -> list[str]:
    """The wheel's platform tags. On Linux, the newest glibc symbol version
    the binary needs gives `manylinux_2_N` (never below manylinux2014's 2.17,
    which is also named by its legacy alias for pip older than 20.3)."""
    if plat.wheel_tag is not None:
        return [plat.wheel_tag]
    arch = {"x64": "x86_64", "arm64": "aarch64"}[plat.npm_cpu]
    needed = [int(minor) for minor in re.findall(rb"GLIBC_2\.(\d+)", binary)]
    if not needed:
        fail("the binary names no glibc version: not a dynamically linked linux-gnu build")
    minor = max(17, *needed)
    tags = [f"manylinux_2_{minor}_{arch}"]
    if minor == 17:
        tags.append(f"manylinux2014_{arch}")
    return tags
