#!/usr/bin/env python3
"""Build notarai's npm packages as tarballs, ready for `npm publish` or
`npm install ./file.tgz`.

    build.py platform --target TRIPLE --binary PATH --out DIR
        notarai-rs-<os>-<cpu>-<version>.tgz: the binary in bin/, `os` and `cpu`
        set so npm installs it only there, no install script
    build.py launcher --out DIR
        notarai-rs-<version>.tgz: the `notarai` command (notarai.js), which
        runs its platform's package; every platform package an optional
        dependency at the same version

Each tarball is packed by `npm pack` from a staged folder; the script prints
the tarball's path. Python 3.11+, npm on PATH.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the repository
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import platforms  # noqa: E402  (the shared table, one folder up)

HERE = Path(__file__).resolve().parent
DESCRIPTION = (
    "Keeps a project's specs, code and docs from drifting apart while AI agents "
    "edit all three: the notarai CLI and MCP server"
)


def common(name: str, description: str) -> dict:
    """The fields every package of ours has."""
    return {
        "name": name,
        "version": platforms.version(),
        "description": description,
        "license": "MIT OR Apache-2.0",
        "keywords": ["mcp", "mcp-server", "specs", "ai-agents"],
    }


def pack(stage: Path, manifest: dict, out: Path) -> Path:
    """Write package.json, the license and README into `stage`, then `npm pack`."""
    (stage / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    shutil.copyfile(platforms.ROOT / "LICENSE", stage / "LICENSE")
    npm = shutil.which("npm")
    if npm is None:
        platforms.fail("npm is not on PATH: install Node.js (npm comes with it)")
    out.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [npm, "pack", "--json", "--ignore-scripts", "--pack-destination", str(out.resolve())],
        cwd=stage,
        check=True,
        capture_output=True,
        text=True,
    )
    filename = json.loads(result.stdout)[0]["filename"]
    return out / filename


def platform_package(target: str, binary: str, out: Path) -> Path:
    """The package of one platform's binary."""
    plat = platforms.platform(target)
    data = platforms.read_binary(binary, plat)
    manifest = common(plat.npm_name, f"The notarai binary for {plat.npm_os}-{plat.npm_cpu} (used by notarai-rs)")
    manifest.update(
        {
            "os": [plat.npm_os],
            "cpu": [plat.npm_cpu],
            "files": [f"bin/{plat.exe}"],
            # Yarn PnP: a binary must be a real file on disk.
            "preferUnplugged": True,
        }
    )
    if plat.npm_os == "linux":
        manifest["libc"] = ["glibc"]
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp)
        (stage / "bin").mkdir()
        exe = stage / "bin" / plat.exe
        exe.write_bytes(data)
        exe.chmod(0o755)
        (stage / "README.md").write_text(
            f"# {plat.npm_name}\n\nThe prebuilt `notarai` binary for "
            f"{plat.npm_os}-{plat.npm_cpu}. Install `{platforms.PACKAGE}`, not this package: "
            "its `notarai` command runs this binary.\n",
            encoding="utf-8",
        )
        return pack(stage, manifest, out)


def launcher_package(out: Path) -> Path:
    """The package users install: the command and its optional dependencies."""
    manifest = common(platforms.PACKAGE, DESCRIPTION)
    manifest.update(
        {
            "bin": {platforms.COMMAND: "bin/notarai.js"},
            "files": ["bin/notarai.js"],
            "engines": {"node": ">=18"},
            "optionalDependencies": {row.npm_name: platforms.version() for row in platforms.PLATFORMS},
            # The MCP Registry checks that the package names the server.
            "mcpName": platforms.mcp_name(),
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp)
        (stage / "bin").mkdir()
        script = stage / "bin" / "notarai.js"
        shutil.copyfile(HERE / "notarai.js", script)
        script.chmod(0o755)
        shutil.copyfile(platforms.ROOT / "README.md", stage / "README.md")
        return pack(stage, manifest, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    kinds = parser.add_subparsers(dest="kind", required=True)
    one = kinds.add_parser("platform", help="the package of one platform's binary")
    one.add_argument("--target", required=True, help="Rust target triple of the binary")
    one.add_argument("--binary", required=True, help="the built notarai binary")
    one.add_argument("--out", required=True, type=Path, help="folder for the tarball")
    launcher = kinds.add_parser("launcher", help="the notarai-rs package with the command")
    launcher.add_argument("--out", required=True, type=Path, help="folder for the tarball")
    args = parser.parse_args()
    if args.kind == "platform":
        print(platform_package(args.target, args.binary, args.out))
    else:
        print(launcher_package(args.out))


if __name__ == "__main__":
    main()
