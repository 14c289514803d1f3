"""What each kind of question asks (DESIGN.md 6b), in the learner's words: the line a notebook
shows above the answer cell (``kind_note``, kept in the solutions and checked by the tests), and
the short labels feedback pages and the report use (``kind_label``)."""

from __future__ import annotations

LABELS = {
    "derive": "derive the rule",
    "implement": "implement from allowed parts",
    "predict": "predict, then run",
    "written": "written",  # (scored by a person with a rubric)
    "free": "any correct route",
}


def kind_label(assessment: str, predict: str = "", points: float | None = None) -> str:
    """A short label: "derive the rule", "predict, then run (formative, 0 points)"..."""
    label = LABELS.get(assessment, assessment)
    if assessment == "predict" and (predict == "formative" or points == 0):
        label += " (formative, 0 points)"
    elif assessment == "predict" and predict == "first":
        label += " (your first prediction counts)"
    return label


def kind_note(q) -> str:
    """The markdown line a notebook shows with question ``q`` (before its answer cell)."""
    kind = q.assessment
    allowed = getattr(q, "allowed", None)
    allows = f" Allowed: {allowed.says}." if allowed is not None else ""
    if kind == "derive":
        if getattr(q, "huge", ()):
            return (
                "*Kind: derive the rule.* Write the rule as arithmetic: your check and the "
                "grader also call your function on sizes no tensor can have (such as a side of "
                "1,000,000,000), so building a tensor and running the operation fails." + allows
            )
        return (
            "*Kind: derive the rule.* Write the rule itself; running the operation does not "
            "count." + allows
        )
    if kind == "implement":
        return (
            "*Kind: implement from allowed parts.* Helpers and aliases are followed: what they "
            "use counts as yours." + allows
        )
    if kind == "predict":
        if getattr(q, "predict", "") == "first" and q.points:
            return (
                "*Kind: predict, then run.* Your first checked prediction is recorded and is "
                "what counts; run the code afterwards to see why."
            )
        return (
            "*Kind: predict, then run (formative, 0 points).* Write your prediction before "
            "running anything, then check it and run the code to see why: this self-check "
            "does not count towards your grade."
        )
    if kind == "written":
        return "*Kind: written answer.* A person scores it with a rubric."
    return "*Kind: any correct route.* Any correct way of computing it counts."
