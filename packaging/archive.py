#!/usr/bin/env python3
"""Build the release archive of one platform and its checksum file.

    archive.py --target TRIPLE --binary PATH --out DIR

notarai-<version>-<target>.tar.gz (a .zip on Windows) holding one folder of
the same name with the binary, README.md and LICENSE; beside it
<archive>.sha256 in the format `sha256sum -c` reads. Entries carry a fixed
date and owner, so the same binary gives the same archive. Prints the
archive's path. Python 3.11+, standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import os
import sys
import tarfile
import time
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the repository
sys.path.insert(0, str(Path(__file__).resolve().parent))
import platforms  # noqa: E402  (the shared table, beside this script)


def write_tar(path: Path, folder: str, files: list[tuple[str, bytes, int]], epoch: int) -> None:
    """A gzipped tar with fixed dates and owners (and no name in the gzip header)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, content, mode in files:
            entry = tarfile.TarInfo(f"{folder}/{name}")
            entry.size, entry.mode, entry.mtime = len(content), mode, epoch
            entry.uname = entry.gname = ""
            tar.addfile(entry, io.BytesIO(content))
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=epoch) as gz:
        gz.write(buffer.getvalue())


def write_zip(path: Path, folder: str, files: list[tuple[str, bytes, int]], epoch: int) -> None:
    """A zip with fixed dates."""
    date = time.gmtime(max(epoch, 315532800))[:6]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content, mode in files:
            entry = zipfile.ZipInfo(f"{folder}/{name}", date_time=date)
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, content)


def build(target: str, binary: str, out: Path) -> Path:
    """Write the archive and its .sha256; return the archive's path."""
    plat = platforms.platform(target)
    data = platforms.read_binary(binary, plat)
    folder = f"notarai-{platforms.version()}-{plat.target}"
    files = [
        (plat.exe, data, 0o755),
        ("README.md", (platforms.ROOT / "README.md").read_bytes(), 0o644),
        ("LICENSE", (platforms.ROOT / "LICENSE").read_bytes(), 0o644),
    ]
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    out.mkdir(parents=True, exist_ok=True)
    path = out / (folder + (".zip" if plat.windows else ".tar.gz"))
    (write_zip if plat.windows else write_tar)(path, folder, files, epoch)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    Path(f"{path}.sha256").write_text(f"{digest}  {path.name}\n", encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", required=True, help="Rust target triple of the binary")
    parser.add_argument("--binary", required=True, help="the built notarai binary")
    parser.add_argument("--out", required=True, type=Path, help="folder for the archive")
    args = parser.parse_args()
    print(build(args.target, args.binary, args.out))


if __name__ == "__main__":
    main()
