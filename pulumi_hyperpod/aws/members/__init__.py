"""The member table: one verdict per input member of a HyperPod cluster, with its sources (see `table`)."""

from pulumi_hyperpod.aws.members.table import CHANGES, FILLED, MEMBERS, SENTENCES, Member, counts, filled, member, rows

__all__ = ["CHANGES", "FILLED", "MEMBERS", "SENTENCES", "Member", "counts", "filled", "member", "rows"]
