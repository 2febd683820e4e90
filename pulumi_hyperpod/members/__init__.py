"""The member table: one verdict per input member of a HyperPod cluster (see `table`)."""

from .table import CHANGES, MEMBERS, Member, counts, member, rows

__all__ = ["CHANGES", "MEMBERS", "Member", "counts", "member", "rows"]
