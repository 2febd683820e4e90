"""`python -m pulumi_hyperpod.aws.members [--write]`: the member table's counts; --write regenerates docs/members.md."""

import sys
from pathlib import Path

from pulumi_hyperpod.aws.members.docs import render, summary

if "--write" in sys.argv[1:]:
    from pulumi_hyperpod.core.files import write_whole

    write_whole(Path(__file__).resolve().parents[3] / "docs" / "members.md", render())
print(summary())
