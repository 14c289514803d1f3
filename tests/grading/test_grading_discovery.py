"""Discovery over attacker-shaped trees (issue 37, class 3), and what a run leaves out or
behind: every step before a kernel starts is bounded per submission folder (depth, entries,
time) and one bad folder is one recorded error while the rest of the class is graded (real
sandboxed kernels); hidden folders and notebooks of no student are named in the run's summary;
a ``.tensorlab-undo-*`` folder left by a killed run is undone and removed by the next run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from grading_class import EXERCISES, STRIDES, submission

from tensorlab.grading import collect as collect_mod
from tensorlab.grading.release import Release
from tensorlab.grading.sandbox import probe, remove_tree


def _deep(root: Path, levels: int) -> Path:
    """``root/d/d/.../d`` made one level at a time (no recursion, no path too long)."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        with open(os.open(STRIDES, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("{}")
    finally:
        os.close(fd)
    return root


@pytest.fixture
def class_folder(tmp_path):
    subs = tmp_path / "subs"
    good = json.dumps(submission(STRIDES))
    for student in ("alice", "bob"):
        (subs / student).mkdir(parents=True)
        (subs / student / STRIDES).write_text(good)
    (subs / "deep").mkdir()
    (subs / "deep" / STRIDES).write_text(good)  # graded: found before the bound
    _deep(subs / "deep", 1_100)
    (subs / ".carol").mkdir()
    (subs / ".carol" / STRIDES).write_text(good)
    (subs / "_unassigned").mkdir()
    (subs / "_unassigned" / STRIDES).write_text(good)
    (subs / STRIDES).write_text(good)  # a notebook of no student
    yield subs
    remove_tree(subs)


def test_a_deep_folder_is_one_error_and_the_rest_is_collected(class_folder):
    release = Release.load(EXERCISES, full=True)
    skipped: list[str] = []
    jobs = collect_mod.collect([str(class_folder)], release, skipped)
    by_student = {}
    for j in jobs:
        by_student.setdefault(j.student, []).append(j)
    assert [j.notebook for j in by_student["alice"]] == [STRIDES]
    assert [j.notebook for j in by_student["bob"]] == [STRIDES]
    deep = by_student["deep"]
    errors = [j for j in deep if j.problem]
    assert len(errors) == 1 and "nested deeper than" in errors[0].problem
    assert [j.notebook for j in deep if not j.problem] == [STRIDES]
    assert any(".carol" in s and "hidden folder" in s for s in skipped), skipped
    assert any("_unassigned" in s and "reserved" in s for s in skipped), skipped
    assert any("outside any student folder" in s for s in skipped), skipped


def test_entries_and_time_are_bounded_per_student(tmp_path, monkeypatch):
    subs = tmp_path / "subs"
    (subs / "many").mkdir(parents=True)
    for i in range(60):
        (subs / "many" / f"f{i}.txt").write_text("")
    (subs / "slow" / "a" / "b" / "c" / "d").mkdir(parents=True)
    (subs / "ok").mkdir()
    (subs / "ok" / STRIDES).write_text("{}")
    monkeypatch.setattr(collect_mod, "MAX_ENTRIES", 50)
    ticks = iter(range(0, 10_000, 4))  # every look at the clock: 4 s later
    walk = collect_mod._walk(subs, clock=lambda: next(ticks))
    reasons = {folder.name: why for folder, why in walk.problems}
    assert "more than 50 entries" in reasons["many"]
    assert "took over" in reasons["slow"]
    assert set(reasons) == {"many", "slow"}
    assert [p.name for p, _ in walk.found] == [STRIDES]


@pytest.mark.skipif(probe() is not None, reason="bubblewrap is not usable here")
def test_grading_a_class_with_a_deep_folder(class_folder, tmp_path):
    from tensorlab.grading.grade import grade

    out = tmp_path / "out"
    out.mkdir()
    (out / "alice.json").write_text('{"old": true}\n')
    undo = out / ".tensorlab-undo-x1y2"  # left by a run killed before it could undo itself
    undo.mkdir()
    (undo / "alice.json").write_text('{"before the killed run": true}\n')
    summary = grade(
        [str(class_folder)],
        out,
        EXERCISES,
        jobs=2,
        cell_timeout=10,
        timeout=120,
        memory=2 * 2**30,
        seed=3,
        progress=False,
        sandbox="bwrap",
    )
    assert not summary["grader_errors"]
    assert not list(out.glob(".tensorlab-undo-*"))
    docs = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    for student in ("alice", "bob", "deep"):
        (sub,) = [s for s in docs[student]["submissions"] if s.get("notebook") == STRIDES]
        assert sub["score"] == sub["max_score"] > 0, (student, sub)
    notes = summary["not_graded"]
    assert any(".carol" in s for s in notes) and any("reserved" in s for s in notes)
