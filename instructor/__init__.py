"""instructor: the workshop instructor's server (``python -m instructor serve --db FILE``).

Learners' lab runs post their step results to it (labsteps.report, signed with the
workshop's key); it keeps them in one SQLite file (:mod:`instructor.store`), refuses unsigned,
forged and replayed posts and learners posting too fast (:mod:`instructor.guard`), and shows
the instructor a live page of learners × steps, updated by Server-Sent Events
(:mod:`instructor.app`). ``pull`` runs the checks in each learner environment through an exec
command instead (:mod:`instructor.pull`); ``loadtest`` measures the server
(:mod:`instructor.loadtest`). Learners are pseudonyms: no name is ever stored.

The signing protocol is the learners' own (labs/labsteps/report.py, which runs in the lab
VM's Python), so labs/ goes on the import path here.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LABS = REPO / "labs"
if str(LABS) not in sys.path:
    sys.path.insert(0, str(LABS))
