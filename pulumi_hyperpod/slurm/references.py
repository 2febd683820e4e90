"""A Slurm spec against a cluster: every node pool it names must exist.

Cloud-neutral: HyperPod passes its instance group names, GCP its node pool ids. The paths in the
errors are the Slurm spec's own (`partitions[0].node_pool_ids[1]`), prefixed with where the Slurm
spec sits in the caller's document when it gives one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.slurm.spec import SUGGESTIONS, SlurmSpec, SlurmSpecError


def reference_violations(spec: SlurmSpec, pools: Iterable[str], *, kind: str = "node pool", prefix: str = "") -> list[Violation]:
    """One Violation per name the spec uses that is not among `pools`.

    `kind` names what the pools are in the cluster ("instance group" on HyperPod, "node pool" on
    GCP), so the message speaks the user's words.
    """
    known = list(dict.fromkeys(pools))
    members = set(known)
    problems = []
    for pool, path in spec.referenced_pools().items():
        if pool not in members:
            where = f"{prefix}.{path}" if prefix else path
            # "did you mean" (a fuzzy match over every pool) only for as many names as an error shows
            hint = _near(pool, known, kind) if len(problems) < SUGGESTIONS else ""
            problems.append(Violation(where, f"{pool!r} is not {_article(kind)} {kind} of the cluster{hint}"))
    return problems


def check_references(
    spec: SlurmSpec, pools: Iterable[str], *, kind: str = "node pool", prefix: str = "", source: str | None = None
) -> None:
    """Raise SlurmSpecError naming every unknown pool; return None when all exist."""
    problems = reference_violations(spec, pools, kind=kind, prefix=prefix)
    if problems:
        raise SlurmSpecError(problems, source=source)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _near(name: str, known: list[str], kind: str) -> str:
    if not known:
        return f" (the cluster has no {kind}s)"
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f"; its {kind}s are {', '.join(map(repr, known))}"
