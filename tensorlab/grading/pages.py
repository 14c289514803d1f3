"""What people read after grading: each student's feedback page and the class report.

``DIR/feedback/<student>.html`` (written by ``grade``): per notebook and question the score, the
grader's message, the likely misconception and its hint. ``DIR/report.html`` (``tensorlab
report DIR``): score distributions per notebook and per question, the most common
misconceptions, questions nobody solved, lost and killed notebooks, with matplotlib plots
embedded as PNG. Both are single self-contained files: no script, no network, styles inline,
legible in light and dark browser themes (``prefers-color-scheme``).

For an instructor's own questions the grader's message can name a value at a hidden input; a
feedback page shows it only when the question allows it (``question(..., reveal=True)``).
"""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from pathlib import Path

from .records import UNASSIGNED

FEEDBACK_DIR = "feedback"
REPORT_FILE = "report.html"
KILLED = ("timeout", "kernel_died")

CSS = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e;
  --line: #d1d9e0; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --card: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d;
    --ok: #3fb950; --bad: #f85149; --warn: #d29922; --card: #151b23; }
}
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1, h2, h3 { line-height: 1.25; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1.5rem; }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; text-align: left;
  vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.ok { color: var(--ok); } .bad { color: var(--bad); } .warn { color: var(--warn); }
.muted { color: var(--muted); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px;
  padding: .75rem 1rem; margin: 1rem 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 90%; }
img { max-width: 100%; background: #ffffff; border-radius: 4px; }
"""


def _page(title: str, body: str) -> bytes:
    doc = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head>"
        f"<body>{body}</body></html>\n"
    )
    return doc.encode("utf-8")


def _e(x) -> str:
    """Text for HTML: escaped, and a name's undecodable bytes shown as ``\\xNN`` (never an
    encoding error)."""
    from .text import html_text

    return html_text(x)


def _mark(status: str) -> str:
    if status == "passed":
        return '<span class="ok">✓ passed</span>'
    if status == "not_attempted":
        return '<span class="muted">○ not attempted</span>'
    if status == "scored":
        return '<span class="ok">✎ scored</span>'
    if status == "needs_grading":
        return '<span class="warn">✎ to be graded</span>'
    return f'<span class="bad">✗ {_e(status.replace("_", " "))}</span>'


def feedback_file(student_json: str) -> str:
    """``ann.json`` -> ``ann.html`` (the same safe name as the student's grade file)."""
    return student_json[: -len(".json")] + ".html"


def _question_row(qid: str, rec: dict, hide: bool, info: dict | None = None) -> str:
    info = info or {}
    label = (
        f'<b>{_e(info["title"])}</b> <code class="muted">{_e(qid)}</code>'
        if info.get("title")
        else f"<code>{_e(qid)}</code>"
    )
    label += _kind(info)
    pts = f"{rec.get('points', 0):g}/{rec.get('max_points', 0):g}"
    if rec.get("excused"):
        pts = '<span class="muted">excused</span>'
    elif rec.get("cases") and (rec.get("partial") or rec.get("weighted")):
        pts += f' <span class="muted">({rec.get("cases_passed")}/{rec["cases"]} inputs)</span>'
    message = rec.get("message") or ""
    status = rec.get("status", "")
    if hide and status == "failed" and message and rec.get("stage") != "rules":
        # the grader's message may name a value at a hidden input: the stage only, unless the
        # answer raised (the learner's own error: its type and the line of their cell)
        stage = rec.get("stage") or "checks"
        message = f"failed at the {stage} stage"
        if stage == "runs" and rec.get("error"):
            message = f"your function raised {rec['error'].get('type', 'an error')} on an input"
        if rec.get("cases"):
            message += f" ({rec.get('cases_passed')} of {rec['cases']} inputs pass)"
    parts = [f"<div>{_e(message)}</div>"] if message else []
    err = rec.get("error")
    if err and err.get("line"):
        parts.append(
            f"<div>in your cell, line {_e(err.get('lineno'))}: <code>{_e(err['line'])}</code></div>"
        )
    if rec.get("misconception_message"):
        parts.append(f"<div><b>Likely misconception:</b> {_e(rec['misconception_message'])}</div>")
    if rec.get("misconception_credit"):
        parts.append(
            f"<div>Partial credit for this answer: {100 * rec['misconception_credit']:g}% of "
            "the points.</div>"
        )
    if rec.get("misconception_hint"):
        parts.append(f"<div><b>Hint:</b> {_e(rec['misconception_hint'])}</div>")
    if rec.get("answer"):
        answer = rec["answer"] if len(rec["answer"]) <= 2000 else rec["answer"][:1999] + "…"
        parts.append(f'<div class="muted">Your answer: {_e(answer)}</div>')
    w = rec.get("written")
    if w:
        text = f"Scored by {_e(w.get('grader') or 'a grader')}"
        if w.get("comment"):
            text += f": {_e(w['comment'])}"
        parts.append(f"<div><b>{text}</b></div>")
    o = rec.get("override")
    if o:
        what = "excused" if rec.get("excused") else f"{rec.get('points', 0):g} points"
        parts.append(
            f'<div class="card"><b>Changed by {_e(o.get("by"))}</b> on {_e(o.get("when"))}: '
            f"{what} (the grader gave {o.get('graded_points', 0):g}). {_e(o.get('why'))}</div>"
        )
    return (
        f"<tr><td>{label}</td><td>{_mark(status)}</td><td>{pts}</td><td>{''.join(parts)}</td></tr>"
    )


def _mark_late(late: dict) -> str:
    src = "as the LMS recorded it" if late.get("submitted_from") == "lms" else "the file's time"
    text = f"Submitted {_e(late.get('submitted_at'))} ({src}); due {_e(late.get('due'))}"
    ext = late.get("extension")
    if ext:
        text += f" (extended by {_e(ext.get('by'))}: {_e(ext.get('why'))})"
    if late.get("days_late"):
        text += (
            f". {late['days_late']} day(s) late: {late.get('penalty', 0):g} points deducted "
            f"({_e(late.get('policy'))})."
        )
        return f'<p class="warn">{text}</p>'
    return f'<p class="muted">{text}: on time.</p>'


def _in_order(questions: dict, info: dict) -> dict:
    """``questions`` in the release's order (a grade file keeps them sorted by id), the same
    on every run."""
    rank = {q: i for i, q in enumerate(info)}
    return dict(sorted(questions.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def _kind(info: dict) -> str:
    """What the question asks (``kinds.kind_label``: derive the rule, predict (formative, 0
    points)...), from the release's question info."""
    from .kinds import kind_label

    kind = info.get("assessment") or "free"
    return f' <span class="muted">({_e(kind_label(kind, points=info.get("points")))})</span>'


def student_page(doc: dict, hidden: set[str] = frozenset(), info: dict | None = None) -> bytes:
    """A student's feedback page from their grade file ``doc`` (with the term applied:
    ``term.final``); ``info``: the release's questions (titles, kinds), by id."""
    info = info or {}
    name = doc["student"]
    out = [
        f"<h1>Feedback for {_e(name)}</h1>",
        f'<p class="card">Total: <b>{doc["score"]:g}</b> of {doc["max_score"]:g} points',
    ]
    if doc.get("lost"):
        out.append(
            f' <span class="warn">({doc["lost"]:g} points could not be graded: your '
            "instructor will look at them)</span>"
        )
    out.append("</p>")
    for sub in doc.get("submissions", []):
        title = sub.get("notebook") or Path(sub.get("path") or "?").name
        out.append(
            f'<h2>{_e(title)} <span class="muted">{sub.get("score", 0):g}/'
            f"{sub.get('max_score', 0):g}</span></h2>"
        )
        if sub.get("reason"):
            out.append(f'<p class="warn">{_e(sub["reason"])}</p>')
        if sub.get("late"):
            out.append(_mark_late(sub["late"]))
        questions = _in_order(sub.get("questions") or {}, info)
        if questions:
            out.append("<table><tr><th>Question</th><th>Result</th><th>Points</th><th></th></tr>")
            out += [_question_row(q, r, q in hidden, info.get(q)) for q, r in questions.items()]
            out.append("</table>")
    out.append(f'<p class="muted">Graded by tensorlab {_e(doc.get("tensorlab_version"))}.</p>')
    return _page(f"Feedback: {name}", "".join(out))


# ---------------------------------------------------------------------------- class report
def load_class(out_dir) -> list[dict]:
    """Every student's grade file in ``out_dir`` (``ValueError`` if there is none)."""
    from .collect import student_file

    docs = []
    for path in sorted(Path(out_dir).glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        if (
            isinstance(doc, dict)
            and isinstance(doc.get("student"), str)
            and isinstance(doc.get("submissions"), list)
            and path.name == student_file(doc["student"])
        ):
            docs.append(doc)
    if not docs:
        raise ValueError(f"no grade files in {out_dir} (run `tensorlab grade ... --out {out_dir}`)")
    return docs


def summarise(docs: list[dict], info: dict | None = None) -> dict:
    """The class's numbers: per notebook and question scores, misconceptions, problems, and
    what people changed (overrides, late penalties, written answers waiting for a grader).
    ``docs``: final grade files (``term.final``); ``info``: the release's questions by id."""
    notebooks: dict[str, list[float]] = {}
    max_nb: dict[str, float] = {}
    questions: dict[str, dict] = {}
    lost, killed, overrides, late, pending = [], [], [], [], []
    for doc in docs:
        if doc["student"] == UNASSIGNED:
            continue
        for sub in doc["submissions"]:
            nb = sub.get("notebook")
            if not nb:
                continue
            notebooks.setdefault(nb, []).append(float(sub.get("score", 0)))
            max_nb[nb] = float(sub.get("max_score", 0))
            if sub.get("status") == "grader_error":
                lost.append((doc["student"], nb, sub.get("reason")))
            if (sub.get("late") or {}).get("days_late"):
                lt = sub["late"]
                late.append((doc["student"], nb, lt["days_late"], lt.get("penalty", 0)))
            for qid, rec in (sub.get("questions") or {}).items():
                q = questions.setdefault(
                    qid,
                    {
                        "notebook": nb,
                        "points": [],
                        "max": 0.0,
                        "status": Counter(),
                        "mis": Counter(),
                        "credit": {},
                        "title": (info or {}).get(qid, {}).get("title", ""),
                        "kind": _kind((info or {}).get(qid, {})) if info else "",
                    },
                )
                if rec.get("override"):
                    o = rec["override"]
                    overrides.append((doc["student"], qid, o, rec.get("points", 0)))
                if rec.get("status") == "needs_grading":
                    pending.append((doc["student"], qid))
                if rec.get("excused"):
                    q["status"]["excused"] += 1
                    continue
                q["points"].append(float(rec.get("points", 0)))
                q["max"] = float(rec.get("max_points", 0))
                if rec.get("misconception_credit"):
                    q["credit"][rec["misconception"]] = rec["misconception_credit"]
                q["status"][rec.get("status")] += 1
                if rec.get("misconception"):
                    q["mis"][(rec["misconception"], rec.get("misconception_message") or "")] += 1
                if rec.get("status") in KILLED:
                    killed.append((doc["student"], nb, qid, rec.get("status")))
    questions = _in_order(questions, info or {})
    unsolved = sorted(
        q
        for q, d in questions.items()
        if not d["status"].get("passed") and not d["status"].get("scored") and d["points"]
    )
    return {
        "students": sum(1 for d in docs if d["student"] != UNASSIGNED),
        "notebooks": notebooks,
        "max_notebook": max_nb,
        "questions": questions,
        "unsolved": unsolved,
        "lost": lost,
        "killed": killed,
        "overrides": overrides,
        "late": late,
        "pending": pending,
    }


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96)  # fixed margins: "tight" would draw twice
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _plots(s: dict) -> list[tuple[str, str]]:
    """(caption, data URL) of the report's figures (matplotlib, Agg, no window)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    out = []
    nbs = sorted(s["notebooks"])
    if nbs:
        fig, ax = plt.subplots(figsize=(8, 0.45 * len(nbs) + 1.2))
        data = [
            [
                100 * x / s["max_notebook"][nb] if s["max_notebook"][nb] else 0
                for x in s["notebooks"][nb]
            ]
            for nb in nbs
        ]
        for i, xs in enumerate(data):  # every student a dot, the mean a bar
            jitter = [((k * 7919) % 13 - 6) / 40 for k in range(len(xs))]
            ax.scatter(xs, [i + j for j in jitter], s=14, alpha=0.6, color="#4c72b0")
            if xs:
                mean = sum(xs) / len(xs)
                ax.plot([mean, mean], [i - 0.35, i + 0.35], color="#dd8452", linewidth=2)
        ax.set_yticks(range(len(nbs)), nbs)
        h = fig.get_figheight()
        fig.subplots_adjust(left=0.28, right=0.97, bottom=0.6 / h, top=1 - 0.15 / h)
        ax.set_xlabel("score (% of the notebook's points)")
        ax.set_xlim(-5, 105)
        ax.invert_yaxis()
        out.append(("Score distribution per notebook", _png(fig)))
        plt.close(fig)
    qids = list(s["questions"])
    if qids:
        fig, ax = plt.subplots(figsize=(8, 0.28 * len(qids) + 1.2))
        rates = [
            100
            * sum(s["questions"][q]["points"])
            / (s["questions"][q]["max"] * len(s["questions"][q]["points"]))
            if s["questions"][q]["max"]
            else 0
            for q in qids
        ]
        ax.barh(range(len(qids)), rates, color="#4c72b0")
        ax.set_yticks(range(len(qids)), qids, fontsize=7)
        h = fig.get_figheight()
        fig.subplots_adjust(left=0.3, right=0.97, bottom=0.6 / h, top=1 - 0.15 / h)
        ax.set_ylim(len(qids) - 0.5, -0.5)
        ax.set_xlabel("mean score (% of the question's points)")
        ax.set_xlim(0, 100)
        out.append(("Mean score per question", _png(fig)))
        plt.close(fig)
    return out


def report_page(s: dict, title: str = "Class report") -> bytes:
    out = [f"<h1>{_e(title)}</h1>", f'<p class="card">{s["students"]} students.']
    if s["unsolved"]:
        out.append(f" <b>{len(s['unsolved'])}</b> question(s) nobody solved.")
    if s["lost"] or s["killed"]:
        out.append(
            f' <span class="warn">{len(s["lost"])} notebook(s) lost, {len(s["killed"])} '
            "question(s) timed out or killed the kernel.</span>"
        )
    out.append("</p>")
    for caption, url in _plots(s):
        out.append(f'<h2>{_e(caption)}</h2><img alt="{_e(caption)}" src="{url}">')
    out.append(
        "<h2>Notebooks</h2><table><tr><th>Notebook</th><th>Graded</th><th>Mean</th>"
        "<th>Min</th><th>Max</th><th>Full marks</th></tr>"
    )
    for nb in sorted(s["notebooks"]):
        xs, top = s["notebooks"][nb], s["max_notebook"][nb]
        full = sum(1 for x in xs if top and x >= top)
        out.append(
            f"<tr><td>{_e(nb)}</td><td>{len(xs)}</td><td>{sum(xs) / len(xs):.2f}/{top:g}</td>"
            f"<td>{min(xs):g}</td><td>{max(xs):g}</td><td>{full}</td></tr>"
        )
    out.append(
        "</table><h2>Questions</h2><table><tr><th>Question</th><th>Passed</th>"
        "<th>Mean points</th><th>Most common misconceptions</th></tr>"
    )
    for qid, d in s["questions"].items():
        n = len(d["points"])
        if not n:
            continue
        mis = "".join(
            f"<div>{c}× <code>{_e(k)}</code>: {_e(m)}"
            + (f" (credit {100 * d['credit'][k]:g}%)" if d["credit"].get(k) else "")
            + "</div>"
            for (k, m), c in d["mis"].most_common(3)
        )
        ok = d["status"].get("passed", 0) + d["status"].get("scored", 0)
        cls = "" if ok else ' class="bad"'
        label = f"<code>{_e(qid)}</code>"
        if d.get("title"):
            label = f"{_e(d['title'])} {label}"
        label += d.get("kind", "")
        out.append(
            f"<tr><td{cls}>{label}</td><td>{ok}/{n}</td>"
            f"<td>{sum(d['points']) / n:.2f}/{d['max']:g}</td><td>{mis}</td></tr>"
        )
    out.append("</table>")
    if s.get("pending"):
        out.append(
            f'<p class="warn">{len(s["pending"])} written answer(s) still to be graded '
            "(<code>tensorlab written DIR</code>).</p>"
        )
    if s.get("overrides"):
        out.append(
            "<h2>Overrides</h2><table><tr><th>Student</th><th>Question</th><th>Points</th>"
            "<th>Why</th><th>By, when</th></tr>"
        )
        for student, qid, o, _ in s["overrides"]:
            out.append(
                f"<tr><td>{_e(student)}</td><td><code>{_e(qid)}</code></td><td>"
                f"{o.get('graded_points', 0):g} → {_e(o.get('points'))}</td>"
                f"<td>{_e(o.get('why'))}</td><td>{_e(o.get('by'))}, {_e(o.get('when'))}</td></tr>"
            )
        out.append("</table>")
    if s.get("late"):
        out.append(
            "<h2>Late</h2><table><tr><th>Student</th><th>Notebook</th><th>Days late</th>"
            "<th>Points deducted</th></tr>"
        )
        for student, nb, days, penalty in s["late"]:
            out.append(
                f"<tr><td>{_e(student)}</td><td>{_e(nb)}</td><td>{days}</td><td>{penalty:g}</td></tr>"
            )
        out.append("</table>")
    if s["unsolved"]:
        out.append("<h2>Nobody solved</h2><ul>")
        out += [f"<li><code>{_e(q)}</code></li>" for q in s["unsolved"]]
        out.append("</ul>")
    if s["lost"] or s["killed"]:
        out.append(
            "<h2>Lost and killed</h2><table><tr><th>Student</th><th>Notebook</th><th>What</th></tr>"
        )
        for student, nb, reason in s["lost"]:
            out.append(
                f"<tr><td>{_e(student)}</td><td>{_e(nb)}</td><td>lost: {_e(reason)}</td></tr>"
            )
        for student, nb, qid, status in s["killed"]:
            out.append(
                f"<tr><td>{_e(student)}</td><td>{_e(nb)}</td><td><code>{_e(qid)}</code>: "
                f"{_e(status.replace('_', ' '))}</td></tr>"
            )
        out.append("</table>")
    return _page(title, "".join(out))


def write_report(out_dir) -> tuple[Path, dict]:
    """``DIR/report.html`` from the grade files in ``DIR``; (its path, the summary)."""
    from .assign import write_atomic
    from .term import load_final, load_questions

    s = summarise(load_final(out_dir), load_questions(out_dir))
    path = Path(out_dir) / REPORT_FILE
    write_atomic(path, report_page(s))
    return path, s


def summary_lines(s: dict) -> list[str]:
    """The short summary ``tensorlab report`` prints."""
    lines = [
        f"{s['students']} students, {len(s['notebooks'])} notebooks, {len(s['questions'])} questions"
    ]
    for nb in sorted(s["notebooks"]):
        xs = s["notebooks"][nb]
        lines.append(
            f"  {nb}: mean {sum(xs) / len(xs):.2f}/{s['max_notebook'][nb]:g} over {len(xs)}"
        )
    if s["unsolved"]:
        lines.append(f"nobody solved: {', '.join(s['unsolved'])}")
    tops = []
    for qid, d in s["questions"].items():
        for (key, _), c in d["mis"].most_common(1):
            tops.append((c, qid, key))
    for c, qid, key in sorted(tops, reverse=True)[:5]:
        lines.append(f"misconception {qid}: {key} ({c} students)")
    if s["lost"] or s["killed"]:
        lines.append(
            f"{len(s['lost'])} notebooks lost, {len(s['killed'])} questions killed/timed out"
        )
    if s.get("overrides") or s.get("late") or s.get("pending"):
        lines.append(
            f"{len(s['overrides'])} overrides, {len(s['late'])} late notebooks, "
            f"{len(s['pending'])} written answers to grade"
        )
    return lines
