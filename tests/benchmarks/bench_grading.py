"""Benchmark: grade the class (6 students x the course's 9 notebooks = 54 submissions) with 2
workers, with and without the bubblewrap sandbox, feedback pages included; then ``tensorlab
report`` and ``tensorlab export`` (each format) on the result; and the sandbox's own cost per
answer process.

Run: python tests/benchmarks/bench_grading.py [--jobs 2] [--students 6] [--notebooks 9]
[--sandbox both] [--writes 1000]

Each student answers a different mix of questions (the solutions' answers, the exercise's blank
answer cells), so the grades differ. Prints the load average first (figures taken on a busy
machine are only a direction), then, per mode, the wall time (target with the sandbox: < 40 s
for the 54 submissions with 2 workers on a quiet 2-core machine, feedback files written), the
report's and each export's time (target < 5 s each), the mean time per submission and the
parallel speed-up measured in the same run (sum of per-notebook grading times / wall time); then
the time to start an answer process (the one interpreter a submission runs in) and run one
cell, sandboxed and not, measured alternately in the same run (target: the sandbox costs
< 0.2 s per notebook). First, the cost of writing the grade files as students complete
(atomically, the gradebook at most once a second) against writing them once at the end, for
1,000 synthetic students.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench  # noqa: E402

_bench.setup()  # the graded kernels inherit the thread count (default 1)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tensorlab.grading.grade import grade  # noqa: E402

SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"


def _answer_sources(path: Path) -> dict[str, str]:
    nb = json.loads(path.read_text())
    out = {}
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer":
            src = cell["source"]
            out[tl["question"]] = src if isinstance(src, str) else "".join(src)
    return out


def make_class(root: Path, students: int, notebooks: int = 9) -> int:
    """Write ``students`` x the first ``notebooks`` notebooks under ``root``; returns their
    number."""
    n = 0
    for path in sorted(EXERCISES.glob("*.ipynb"))[:notebooks]:
        solved = _answer_sources(SOLUTIONS / path.name)
        for s in range(students):
            nb = json.loads(path.read_text())
            k = 0
            for cell in nb["cells"]:
                tl = cell.get("metadata", {}).get("tensorlab", {})
                if tl.get("role") == "answer":
                    if (s + k) % 3 != 0:  # student s answers two questions out of three
                        cell["source"] = solved[tl["question"]]
                    k += 1
            target = root / f"student{s:02d}" / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(nb, indent=1))
            n += 1
    return n


def start_cost(repeats: int) -> dict[str, float]:
    """Median seconds to start an answer process (the one interpreter grading runs each
    submission in), run one cell in it and stop it, per mode (alternating)."""
    from tensorlab.grading import answers
    from tensorlab.grading.kernel import Kernel
    from tensorlab.grading.rebuild import ExecCell

    times: dict[str, list[float]] = {"none": [], "bwrap": []}
    for _ in range(repeats):
        for mode in times:
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                box = Kernel(tmp, 4 * 2**30, sandbox=mode == "bwrap", cpu=600)
                try:
                    ran = answers.run(box.spawn_answers, [ExecCell("1 + 1")], [], lambda: 60, 60)
                finally:
                    box.close()
                assert not ran.errors and not ran.poisoned
                times[mode].append(time.perf_counter() - start)
    return {mode: statistics.median(t) for mode, t in times.items()}


def write_cost(students: int) -> None:
    """Seconds to write the grade files as students complete (``grade.Results``: one atomic
    JSON per student, the gradebook at most once a second) against one write at the end
    (``write_results``), for ``students`` x every notebook of synthetic records."""
    from tensorlab.grading.assign import load_release
    from tensorlab.grading.grade import Job, Results, Settings, write_results

    manifest = load_release(EXERCISES)
    settings = Settings(str(EXERCISES))
    records, jobs = [], []
    for s in range(students):
        for nb, info in manifest.notebooks.items():
            qs = {q: {"status": "passed", "points": 1.0, "max_points": 1.0} for q in info.questions}
            student = f"student{s:05d}"
            jobs.append(Job(f"/c/{student}/{nb}", student, nb, b""))
            records.append(
                {"path": jobs[-1].path, "student": student, "notebook": nb, "status": "graded",
                 "score": float(len(qs)), "max_score": float(len(qs)), "questions": qs}
            )  # fmt: skip
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        results = Results(Path(tmp) / "incremental", manifest, settings, jobs)
        for rec in records:
            results.add(rec)
        results.finish()
        times["as students complete"] = time.perf_counter() - start
        start = time.perf_counter()
        write_results(Path(tmp) / "once", records, manifest, settings)
        times["once at the end"] = time.perf_counter() - start
    print(f"--- writing grade files: {students} students x {len(manifest.notebooks)} notebooks")
    for how, t in times.items():
        print(f"{how:<24}: {t:.2f} s  ({t / students * 1000:.2f} ms per student)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--students", type=int, default=6)
    ap.add_argument("--notebooks", type=int, default=9, help="the course's first N notebooks")
    ap.add_argument("--sandbox", choices=("bwrap", "none", "both"), default="both")
    ap.add_argument(
        "--kernels", type=int, default=5, help="answer-process starts per mode (0: skip)"
    )
    ap.add_argument("--cluster", help="also grade on this Dask cluster (e.g. local:2), sandboxed")
    ap.add_argument(
        "--writes", type=int, default=1000, help="students for the file-writing cost (0: skip)"
    )
    _bench.add_arguments(ap, rounds=False)
    args = ap.parse_args()
    print(_bench.banner())
    print(f"load average            : {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    run = _bench.LoadGuard()
    if args.writes:
        write_cost(args.writes)
    modes = ["bwrap", "none"] if args.sandbox == "both" else [args.sandbox]
    if not args.students:
        modes = []
    for mode in modes:
        run_class(args, mode)
    if args.cluster:
        run_class(args, "bwrap", cluster=args.cluster)
    if args.kernels:
        cost = start_cost(args.kernels)
        print(
            f"process start + 1 cell  : sandboxed {cost['bwrap']:.2f} s, unconfined {cost['none']:.2f} s"
        )
        print(f"sandbox cost per process: {cost['bwrap'] - cost['none']:+.2f} s  (target < 0.2 s)")
    _bench.summary("grading", [], run)


def run_class(args, mode: str, cluster: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        n = make_class(root / "submissions", args.students, args.notebooks)
        start = time.perf_counter()
        summary = grade(
            [str(root / "submissions")],
            root / "out",
            EXERCISES,
            jobs=args.jobs,
            seed=0,
            memory=4 * 2**30,
            progress=False,
            sandbox=mode,
            cluster=cluster,
        )
        wall = time.perf_counter() - start
        feedback = len(list((root / "out" / "feedback").glob("*.html")))
        after = report_and_export(root / "out", root)
    durations = [r["duration_s"] for r in summary["records"] if "duration_s" in r]
    scores = [r["score"] for r in summary["records"]]
    print(f"--- sandbox {mode}" + (f", Dask cluster {cluster}" if cluster else ""))
    print(f"submissions graded      : {n} ({args.students} students, {args.jobs} workers)")
    print(f"wall time               : {wall:.1f} s  (target < 40 s for 54 with 2 workers)")
    print(f"feedback pages          : {feedback}")
    for what, t in after.items():
        print(f"{what:<24}: {t:.2f} s  (target < 5 s)")
    print(f"per submission (wall/n) : {wall / n:.2f} s")
    print(
        f"per notebook, in worker : mean {statistics.mean(durations):.2f} s, "
        f"max {max(durations):.2f} s"
    )
    print(f"parallel speed-up       : {sum(durations) / wall:.2f}x (sum of notebook times / wall)")
    print(f"throughput              : {n / wall * 3600:.0f} notebooks/hour")
    print(f"scores                  : min {min(scores):g}, max {max(scores):g}")
    print(f"grader errors           : {len(summary['grader_errors'])}")
    for rec in summary["grader_errors"]:
        print(f"  {rec['path']}: {rec['reason']}\n{rec.get('traceback', '')}")


def report_and_export(out: Path, scratch: Path) -> dict[str, float]:
    """Seconds for ``tensorlab report`` and ``tensorlab export`` (each format) on ``out``, each
    as the command runs it (in a fresh process: imports included)."""
    import subprocess

    students = sorted(p.name for p in (scratch / "submissions").iterdir())
    roster = scratch / "roster.csv"
    roster.write_text(
        "student,name,email,canvas_id,id_number,sid\n"
        + "".join(f"{s},{s.title()},{s}@uni.edu,{i},N{i},{i}\n" for i, s in enumerate(students))
    )
    commands = {"report": ["report", str(out)]}
    for fmt in ("canvas", "moodle", "gradescope"):
        dest = str(scratch / f"{fmt}.csv")
        commands[f"export {fmt}"] = ["export", str(out), "--format", fmt, "--roster", str(roster),
                                     "--out", dest]  # fmt: skip
    times = {}
    for what, argv in commands.items():
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tensorlab.cli", *argv], check=True,
                       capture_output=True, cwd=ROOT)  # fmt: skip
        times[what] = time.perf_counter() - start
    return times


if __name__ == "__main__":
    main()
