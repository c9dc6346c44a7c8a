"""Uploaded bytes: kept on disk by content (``<data_dir>/uploads/<sha256>``), zips checked before extraction.

A zip is refused before any member is decompressed when it has too many
members, a member or a total that would decompress past the caps, a member
whose compression ratio only a zip bomb reaches, members whose data overlap
(the "non-recursive" zip bomb), encrypted members, symbolic links, or names
that are absolute or climb out with ``..``. Members are then read with a
bounded read, so a lying size field cannot make them bigger either.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from flask import current_app

CHUNK = 1024 * 1024
RATIO_MIN_SIZE = 1024 * 1024    # smaller members may compress as well as they like


class UploadError(Exception):
    def __init__(self, code: str, message: str, details: dict | None = None, status: int = 400):
        super().__init__(message)
        self.code, self.message, self.details, self.status = code, message, details or {}, status


@dataclass
class StoredFile:
    name: str          # the name as uploaded (display-safe)
    sha256: str
    size: int
    temp_path: Path    # moved to uploads/<sha256> once the submission is committed


def uploads_dir() -> Path:
    return Path(current_app.config["DATA_DIR"]) / "uploads"   # created with uploads/tmp by create_app


def blob_path(sha256: str) -> Path:
    if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
        raise ValueError("not a sha256")
    return uploads_dir() / sha256


def safe_name(name: str) -> str:
    """An uploaded name as we store and show it: no control characters, no NUL (PostgreSQL refuses it)."""
    cleaned = "".join(ch if ch.isprintable() else "\N{REPLACEMENT CHARACTER}" for ch in (name or ""))
    return cleaned[:500] or "(no name)"


def stream_to_temp(stream: BinaryIO, name: str, max_bytes: int) -> StoredFile:
    """Copy an upload to a temporary file, hashing as it goes; refuse it past ``max_bytes``."""
    tmp = uploads_dir() / "tmp" / f"{os.getpid()}-{secrets.token_hex(8)}"
    digest = hashlib.sha256()
    size = 0
    try:
        with open(tmp, "wb") as out:
            while True:
                chunk = stream.read(CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > max_bytes:
                    raise UploadError("too_large", f"{safe_name(name)} is larger than the upload limit of "
                                      f"{max_bytes // 1024 // 1024} MiB", {"file": safe_name(name)}, 413)
                digest.update(chunk)
                out.write(chunk)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return StoredFile(safe_name(name), digest.hexdigest(), size, tmp)


def commit_file(stored: StoredFile) -> None:
    """Move a temporary upload into place (idempotent: same bytes, same name)."""
    final = blob_path(stored.sha256)
    if final.exists():
        stored.temp_path.unlink(missing_ok=True)
    else:
        os.replace(stored.temp_path, final)


def discard(files: list[StoredFile]) -> None:
    for f in files:
        f.temp_path.unlink(missing_ok=True)


# --------------------------------------------------------------------------- zip archives


def _unsafe_member_name(name: str) -> str | None:
    norm = name.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        return "an absolute path"
    if ".." in PurePosixPath(norm).parts:
        return "a path that leaves the archive (..)"
    if "\x00" in name:
        return "a NUL character in its name"
    return None


def inspect_zip(path: Path, *, max_members: int, max_total: int, max_member: int, max_ratio: int
                ) -> list[zipfile.ZipInfo]:
    """Check a zip from its central directory only; returns the file members (folders dropped)."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise UploadError("bad_zip", f"the archive cannot be read as a zip file ({exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > max_members:
            raise UploadError("zip_too_many_members", f"the archive has {len(infos)} entries, more than the "
                              f"{max_members} allowed", {"members": len(infos)})
        total = 0
        members = []
        for info in infos:
            label = safe_name(info.filename)
            why = _unsafe_member_name(info.filename)
            if why:
                raise UploadError("zip_unsafe_path", f"{label}: the archive member has {why}; nothing was "
                                  "extracted", {"member": label})
            mode = (info.external_attr >> 16) & 0o170000
            if mode == stat.S_IFLNK:
                raise UploadError("zip_unsafe_path", f"{label}: the archive holds a symbolic link; nothing was "
                                  "extracted", {"member": label})
            if info.flag_bits & 0x1:
                raise UploadError("zip_encrypted", f"{label}: the archive member is encrypted", {"member": label})
            if info.is_dir():
                continue
            if info.file_size > max_member:
                raise UploadError("zip_too_large", f"{label} would decompress to {info.file_size} bytes, over the "
                                  f"limit of {max_member}", {"member": label})
            total += info.file_size
            if total > max_total:
                raise UploadError("zip_too_large", f"the archive would decompress to more than {_mib(max_total)} "
                                  f"(the limit); nothing was extracted", {"limit": max_total})
            if info.file_size > RATIO_MIN_SIZE and info.file_size > max_ratio * max(info.compress_size, 1):
                raise UploadError("zip_bomb", f"{label}: compression ratio "
                                  f"{info.file_size / max(info.compress_size, 1):.0f}:1 looks like a zip bomb; "
                                  "nothing was extracted", {"member": label})
            members.append(info)
        # Members whose data overlap share compressed bytes: the trick of the non-recursive zip bomb.
        spans = []
        fp = zf.fp
        for info in infos:
            fp.seek(info.header_offset)
            header = fp.read(30)
            if len(header) != 30 or header[:4] != b"PK\x03\x04":
                raise UploadError("bad_zip", f"{safe_name(info.filename)}: broken local header in the archive")
            name_len, extra_len = struct.unpack("<HH", header[26:30])
            start = info.header_offset
            spans.append((start, start + 30 + name_len + extra_len + info.compress_size, info.filename))
        spans.sort()
        for (_start_a, end_a, name_a), (start_b, _end_b, name_b) in zip(spans, spans[1:]):
            if start_b < end_a:
                raise UploadError("zip_bomb", f"{safe_name(name_b)} overlaps {safe_name(name_a)} in the archive "
                                  "(a zip bomb); nothing was extracted", {"member": safe_name(name_b)})
        return members


def _mib(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def zip_limits() -> dict:
    """The caps of a submitted zip. Its members together may not decompress past what the validator takes of a
    submission (``MAX_UPLOAD_BYTES``): refused from the declared sizes at the upload, before anything is
    decompressed, instead of after decompressing it all."""
    cfg = current_app.config
    return {"max_members": cfg["MAX_UPLOAD_FILES"], "max_total": min(cfg["MAX_UNZIPPED_BYTES"], cfg["MAX_UPLOAD_BYTES"]),
            "max_member": cfg["MAX_UPLOAD_BYTES"], "max_ratio": cfg["MAX_ZIP_RATIO"]}


#: What a damaged archive raises while a member is decompressed (bad CRC, truncated or corrupt data).
_DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError)


def _member_chunks(zf: zipfile.ZipFile, info: zipfile.ZipInfo, budget: list[int]) -> Iterator[bytes]:
    """A member's bytes in chunks, checked while they stream: never past its declared size, never past what
    is left of the archive's total (``budget[0]``, decremented), and a damaged member is a clear refusal."""
    label = safe_name(info.filename)
    size = 0
    try:
        with zf.open(info) as fh:
            while True:
                chunk = fh.read(CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > info.file_size:
                    raise UploadError("zip_bomb", f"{label} is larger than the archive says", {"member": label})
                budget[0] -= len(chunk)
                if budget[0] < 0:
                    raise UploadError("zip_too_large", "the archive decompresses to more than the limit",
                                      {"member": label})
                yield chunk
    except _DAMAGED as exc:
        raise UploadError("bad_zip", f"{label}: the archive is damaged and cannot be read ({exc}); make the zip "
                          "again and upload it", {"member": label}) from None


def read_zip_members(path: Path, **limits) -> list[tuple[str, bytes]]:
    """The members of a checked zip as (name, bytes), decompressed in chunks under the declared sizes."""
    members = inspect_zip(path, **limits)
    budget = [limits["max_total"]]
    with zipfile.ZipFile(path) as zf:
        return [(info.filename, b"".join(_member_chunks(zf, info, budget))) for info in members]


#: A file or folder name longer than this many bytes cannot be created (ext4, APFS, NTFS: 255).
MAX_NAME_BYTES = 255


def safe_extract(path: Path, dest: Path, *, max_total: int) -> None:
    """Extract a checked zip under ``dest`` (organizer uploads of test sets), streaming each member to disk."""
    limits = {"max_members": 100000, "max_total": max_total, "max_member": max_total, "max_ratio": 200}
    dest = dest.resolve()
    members = inspect_zip(path, **limits)
    for info in members:   # names first: nothing is written for an archive that cannot be extracted
        long = next((p for p in PurePosixPath(info.filename.replace("\\", "/")).parts
                     if len(p.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES), None)
        if long is not None:
            raise UploadError("zip_name_too_long", f"{safe_name(info.filename)[:80]}…: the name "
                              f"{safe_name(long)[:40]}… is too long ({len(long.encode('utf-8', 'surrogateescape'))}"
                              f" bytes; at most {MAX_NAME_BYTES}); shorten it", {"member": safe_name(long)[:80]})
    budget = [max_total]
    with zipfile.ZipFile(path) as zf:
        for info in members:
            target = (dest / info.filename.replace("\\", "/")).resolve()
            if dest not in target.parents:
                raise UploadError("zip_unsafe_path", f"{safe_name(info.filename)}: leaves the archive")
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as out:
                for chunk in _member_chunks(zf, info, budget):
                    out.write(chunk)


def is_zip_upload(name: str) -> bool:
    return name.lower().endswith(".zip")


def receive(file_storages, max_bytes: int | None = None) -> list[StoredFile]:
    """Stream request files (werkzeug FileStorage) to temporary files; empty file inputs are skipped."""
    from . import ServiceError

    max_bytes = max_bytes or current_app.config["MAX_UPLOAD_BYTES"]
    stored: list[StoredFile] = []
    try:
        for fs in file_storages:
            if fs is None or not getattr(fs, "filename", None):
                continue
            if len(stored) >= current_app.config["MAX_UPLOAD_FILES"]:
                raise UploadError("too_many_files", f"at most {current_app.config['MAX_UPLOAD_FILES']} files per "
                                  "upload; put them in a zip")
            stored.append(stream_to_temp(fs.stream, fs.filename, max_bytes))
            if sum(f.size for f in stored) > max_bytes:
                raise UploadError("too_large", f"the upload is larger than the limit of {max_bytes // 1024 // 1024} "
                                  "MiB", {}, 413)
    except UploadError as exc:
        discard(stored)
        raise ServiceError(exc.code, exc.message, exc.status, exc.details) from None
    except BaseException:
        discard(stored)
        raise
    return stored
