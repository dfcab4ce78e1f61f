"""Files are written whole or not at all: a full disk or a read-only directory leaves the
earlier files whole, names the file in one line, and is found before the work is spent."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import noughts.runtime.atomic as atomic
from noughts.builders.proof_tree import ProofTree
from noughts.builders.strategy_build import checkpoint_path
from noughts.cli import main
from noughts.runtime.atomic import WriteError, write_atomic, write_files


def _no_space(*_: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _mount_tmpfs(folder: Path, options: str) -> bool:
    """Mount a small tmpfs on ``folder`` (root only); False where that cannot be done."""
    if os.geteuid() != 0:
        return False
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                         capture_output=True)
    return run.returncode == 0


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory nobody can write to: a read-only tmpfs as root, else mode 0555."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if _mount_tmpfs(folder, "ro,size=64k"):
        try:
            yield folder
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    folder.chmod(0o555)
    try:
        yield folder
    finally:
        folder.chmod(0o755)


@pytest.fixture
def full_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory on a full disk: a 64 KiB tmpfs filled up as root, else a directory
    whose free space the writer is told is nil."""
    folder = tmp_path / "full"
    folder.mkdir()
    if _mount_tmpfs(folder, "size=64k"):
        try:
            with open(folder / "filler", "wb", buffering=0) as filler:
                try:
                    while True:
                        filler.write(b"\0" * 4096)
                except OSError as error:
                    assert error.errno == errno.ENOSPC
            yield folder
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    yield folder  # (not root: the tests below also simulate ENOSPC in-process)


def _unwritable(where: str, request: pytest.FixtureRequest,
                monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture ``where`` names; a full disk without a real one reports no free space."""
    folder: Path = request.getfixturevalue(where)
    if where == "full_dir" and not (folder / "filler").exists():
        nothing_free = os.statvfs_result((4096,) * 2 + (0,) * 8)
        monkeypatch.setattr(atomic.os, "statvfs", lambda _: nothing_free)
    return folder


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".partial")))


def test_a_failed_write_leaves_the_earlier_files_whole_and_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.jsonl"
    write_files({first: "old a\n", second: "old b\n"})
    monkeypatch.setattr(atomic.os, "fsync", _no_space)
    with pytest.raises(WriteError, match=rf"^cannot write {first}: No space left on device$"):
        write_files({first: "new a\n", second: "new b\n"})
    assert first.read_text() == "old a\n" and second.read_text() == "old b\n"
    assert _leftovers(tmp_path) == []


def test_a_new_file_gets_the_usual_permissions(tmp_path: Path) -> None:
    path = tmp_path / "new.txt"
    write_atomic(path, "x")
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask


def test_the_arena_keeps_its_earlier_outputs_on_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    report, games = tmp_path / "arena.json", tmp_path / "games.jsonl"
    arguments = ["arena", "random", "random", "--games", "4", "--workers", "0", "--quiet",
                 "--json", str(report), "--games-out", str(games)]
    assert main(arguments) == 0
    before = report.read_text(), games.read_text()
    capsys.readouterr()
    real_stage = atomic._stage

    def stage_until_the_disk_fills(path: Path, data: bytes) -> Path:
        if path == games:
            _no_space()
        return real_stage(path, data)

    monkeypatch.setattr(atomic, "_stage", stage_until_the_disk_fills)
    assert main([*arguments, "--seed", "9"]) == 2
    err = capsys.readouterr().err
    assert err == f"noughts: error: cannot write {games}: No space left on device\n"
    assert (report.read_text(), games.read_text()) == before  # whole, and in agreement
    assert len(games.read_text().splitlines()) == json.loads(before[0])["games"]
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("where", ["read_only_dir", "full_dir"])
def test_the_arena_refuses_an_unwritable_output_before_any_game(
    where: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _unwritable(where, request, monkeypatch)
    started = time.monotonic()
    status = main(["arena", "level:10", "level:10", "--games", "1000", "--quiet",
                   "--json", str(folder / "arena.json")])
    assert status == 2 and time.monotonic() - started < 5
    err = capsys.readouterr().err
    assert err.startswith(f"noughts: error: cannot write {folder / 'arena.json'}: ")
    assert err.count("\n") == 1


@pytest.mark.parametrize("where", ["read_only_dir", "full_dir"])
def test_build_book_refuses_an_unwritable_target_before_it_builds(
    where: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _unwritable(where, request, monkeypatch)
    started = time.monotonic()
    status = main(["build-book", "qubic", "--file", str(folder / "s.bin"), "--time", "15",
                   "--job-seconds", "1"])
    assert status == 2 and time.monotonic() - started < 5
    err = capsys.readouterr().err
    assert err.startswith(f"noughts: error: cannot write {folder / 's.bin'}: ")
    assert err.count("\n") == 1
    assert _leftovers(folder) == []


def test_build_book_whose_save_fails_says_one_line_and_keeps_the_earlier_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.bin"
    arguments = ["build-book", "qubic", "--file", str(path), "--time", "2", "--job-seconds", "1"]
    assert main(arguments) == 0
    before = path.read_bytes(), checkpoint_path(path).read_bytes()
    capsys.readouterr()
    monkeypatch.setattr(atomic.os, "fsync", _no_space)  # the disk fills during the build
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert err == f"noughts: error: cannot write {path}: No space left on device\n"
    assert (path.read_bytes(), checkpoint_path(path).read_bytes()) == before
    assert _leftovers(tmp_path) == []


def test_a_stopped_build_saves_and_its_workers_exit_quietly(tmp_path: Path) -> None:
    path = tmp_path / "qubic.bin"
    command = [sys.executable, "-m", "noughts", "build-book", "qubic", "--file", str(path),
               "--time", "120", "--job-seconds", "1", "--workers", "2"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as build:
        assert build.stdout is not None and build.stderr is not None
        first = build.stdout.readline()  # the workers are running jobs
        assert " jobs · root proof number " in first, first
        os.killpg(build.pid, signal.SIGTERM)  # as a service manager stops the whole group
        status = build.wait(timeout=60)
        err = build.stderr.read()
    assert status == 130 and err == "noughts: interrupted\n", err
    assert ProofTree.load(checkpoint_path(path)).counts()["nodes"] > 2


@pytest.fixture
def nearly_full_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on a disk with 16 KiB free: a 64 KiB tmpfs filled but for that, as
    root, else a directory whose free space the writer is told is 16 KiB."""
    folder = tmp_path / "nearly-full"
    folder.mkdir()
    if _mount_tmpfs(folder, "size=64k"):
        try:
            with open(folder / "filler", "wb", buffering=0) as filler:
                with contextlib.suppress(OSError):
                    while True:
                        filler.write(b"\0" * 4096)
                os.ftruncate(filler.fileno(), os.fstat(filler.fileno()).st_size - 16384)
            space = os.statvfs(folder)
            assert space.f_bavail * space.f_frsize == 16384
            yield folder
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    sixteen_k_free = os.statvfs_result((4096, 4096, 16, 4, 4) + (0,) * 5)
    monkeypatch.setattr(atomic.os, "statvfs", lambda _: sixteen_k_free)
    yield folder


def test_build_book_asks_for_the_space_its_first_save_needs(
    nearly_full_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = nearly_full_dir / "s.bin"  # a fresh build saves a few hundred bytes
    status = main(["build-book", "qubic", "--file", str(path), "--time", "1",
                   "--job-seconds", "1"])
    assert status == 0, capsys.readouterr().err
    assert path.stat().st_size > 0 and checkpoint_path(path).stat().st_size > 0
    os.truncate(path, 20_000)  # (sparse) larger than the space left: its copy won't fit
    assert main(["build-book", "qubic", "--file", str(path), "--time", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"noughts: error: cannot write {path}: No space left on device")
    assert "about 20,000 needed" in err
