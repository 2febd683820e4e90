"""Every step kind, declared once (docs/DESIGN.md, "Step kinds"): what it assumes about the cluster
(its *premise*), what it does to nodes (its *disruption*) and how apply knows it is done (its
*completion*).

Every check reads this table rather than keeping a list of its own: the saved-plan check re-reads
each premise a plan's steps declare and refuses the file when one no longer holds; apply's guards,
the plan's rendering, the Rego input and the CrossGuard bridge read the disruption; apply waits on
the completion. A kind added to `StepKind` without a row here fails `tests/unit/plans/test_steps.py`.

Pure data: no I/O, no cloud.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

# What a step does, the same words for every cloud: renderers, policies and apply's checks read this
# (plans/model.py's Step.kind); each has its row in KINDS below.
StepKind = Literal[
    "create-cluster",
    "update-cluster",
    "delete-cluster",
    # a cluster's extensions (HyperPod's Create/Update/DeleteClusterExtension)
    "create-extension",
    "update-extension",
    "delete-extension",
    "add-nodes",
    "remove-nodes",
    "tag",
    "untag",
    "drain",
    "update-software",
    "reboot-nodes",
    "replace-nodes",
    # node moves (docs/capacity.md, "Node moves")
    "move-nodes",
    # a resource beside the cluster, configured on it (HyperPod task governance: a compute quota, the
    # scheduler configuration); the step's operation says which
    "create-resource",
    "update-resource",
    "delete-resource",
]

# What a step can assume about the cluster. A cloud's saved-plan check has a reader for each premise
# its steps declare (aws/pipeline/saved.py, gcp/pipeline/saved.py), and names what moved when one no longer holds.
Premise = Literal[
    "cluster",  # the cluster the plan saw: absent for a create; otherwise its identity and lifecycle state
    "configuration",  # the cluster-level and group-level members the step diffs, as observed
    "groups",  # each group's target and minimum counts, and which groups exist
    "nodes",  # the nodes the step names or chooses among, and their states
    "image",  # the image each named node runs and when it was last updated: a rollout rolls from it
    "workload",  # what runs on the nodes the step takes down, as observed
    "roles",  # the Slurm role of each group, as its nodes were built
    "tags",  # the cluster's tags, as observed
    "acted",  # nothing the step does has happened since the plan was made: a plan acts at most once
    "extensions",  # the cluster's extensions (each one's identity, version and configuration; absent ones too), as observed
]
PREMISES: tuple[str, ...] = get_args(Premise)

# What a step does to the nodes it touches, the strongest first (docs/DESIGN.md, "Step kinds").
Effect = Literal[
    "destroyed",  # the instance and its volumes are gone: a removal, a replacement, a deleted cluster
    "restarted",  # the node goes down and comes back with its volumes: a reboot, a software rollout
    "drained",  # no new work lands on it; running work is stopped or moved (the orchestrator's drain)
    "none",  # no node goes down
]
EFFECTS: tuple[str, ...] = get_args(Effect)

# Which nodes the effect falls on.
Scope = Literal[
    "victims",  # the nodes the step's victims list (chosen by the planner's victim rules)
    "named",  # the nodes the request names (NodeIds, a drain's Nodes, a rollout's batches): the step's `batches`
    "chosen-by-service",  # nodes of a group whose count is lowered: the service chooses which go
    "all",  # every node of the cluster
    "none",
]
SCOPES: tuple[str, ...] = get_args(Scope)

# How apply knows the step is done.
Completion = Literal[
    "cluster-status",  # the cluster reaches its state (InService; gone for a delete)
    "group-targets",  # each group's target and count reach what the step asked
    "nodes-gone",  # the named nodes are no longer listed
    "nodes-running",  # the named nodes are back to running (a reboot, a replacement)
    "software-status",  # the service reports the rollout finished (or rolled back)
    "tags-match",  # the cluster's tags are the requested ones
    "drained",  # the orchestrator reports the nodes drained
    "operation-done",  # the cloud's long-running operation finished (Google Cloud)
    "nodes-moved",  # the named nodes are listed in the target group and not in Failure
    "extension-status",  # the extension is Active at the version and configuration asked (gone, for a delete)
    "resource-status",  # the resource beside the cluster reports its change settled (created, updated; gone for a delete)
]
COMPLETIONS: tuple[str, ...] = get_args(Completion)


@dataclass(frozen=True)
class Disruption:
    effect: str  # an Effect
    scope: str  # a Scope
    how: str  # in words, for the plan's rendering and the policies' messages


@dataclass(frozen=True)
class KindDeclaration:
    kind: str
    premise: tuple[str, ...]  # Premises
    disruption: Disruption
    completion: str  # a Completion
    summary: str


def _declare(kind: str, premise: tuple[str, ...], disruption: Disruption, completion: str, summary: str) -> KindDeclaration:
    return KindDeclaration(kind, premise, disruption, completion, summary)


KINDS: dict[str, KindDeclaration] = {
    d.kind: d
    for d in (
        _declare(
            "create-cluster",
            ("cluster",),
            Disruption("none", "none", "creates the cluster; no running node is touched"),
            "cluster-status",
            "create the cluster",
        ),
        _declare(
            "update-cluster",
            ("cluster", "configuration", "groups", "roles"),
            Disruption("destroyed", "chosen-by-service", "a lowered count or a deleted group removes nodes the service chooses"),
            "group-targets",
            "change the cluster's or its groups' settings and counts",
        ),
        _declare(
            "delete-cluster",
            ("cluster", "nodes"),
            Disruption("destroyed", "all", "every node and its volumes are deleted with the cluster"),
            "cluster-status",
            "delete the cluster",
        ),
        _declare(
            "add-nodes",
            ("cluster", "groups"),
            Disruption("none", "none", "adds nodes; no running node is touched"),
            "group-targets",
            "add nodes to groups",
        ),
        _declare(
            "remove-nodes",
            ("cluster", "groups", "nodes", "workload", "roles", "acted"),
            Disruption("destroyed", "victims", "the named nodes and their volumes are deleted"),
            "nodes-gone",
            "remove the named nodes",
        ),
        _declare(
            "tag",
            ("cluster", "tags"),
            Disruption("none", "none", "changes the cluster's tags only"),
            "tags-match",
            "add or change tags",
        ),
        _declare(
            "untag",
            ("cluster", "tags"),
            Disruption("none", "none", "changes the cluster's tags only"),
            "tags-match",
            "remove tags",
        ),
        _declare(
            "drain",
            ("cluster", "nodes", "workload", "acted"),
            Disruption("drained", "named", "the orchestrator stops new work on the nodes and moves or ends what runs there"),
            "drained",
            "drain nodes before they go",
        ),
        _declare(
            "update-software",
            ("cluster", "configuration", "nodes", "image", "roles", "acted"),
            Disruption("restarted", "named", "each node is patched and restarted, batch by batch"),
            "software-status",
            "roll the cluster's nodes onto a new image",
        ),
        _declare(
            "reboot-nodes",
            ("cluster", "nodes", "workload", "roles", "acted"),
            Disruption("restarted", "named", "the named nodes are rebooted; their volumes stay"),
            "nodes-running",
            "reboot the named nodes",
        ),
        _declare(
            "replace-nodes",
            ("cluster", "nodes", "workload", "roles", "acted"),
            Disruption("destroyed", "named", "the named nodes are replaced by new instances; their volumes are destroyed"),
            "nodes-running",
            "replace the named nodes",
        ),
        # ---- node moves (docs/capacity.md, "Node moves") ----
        # MoveClusterNodes keeps the instance, its ids, IPs and capacity, but "replaces the node's root
        # Amazon EBS volume and secondary EBS volume, which deletes any data stored on them" (the
        # operation's documentation): for the node's data and its work that is a destruction.
        _declare(
            "move-nodes",
            ("cluster", "groups", "nodes", "workload", "acted"),
            Disruption(
                "destroyed",
                "victims",
                "the named nodes leave their group for another: each keeps its instance, ids and capacity, "
                "but its root and secondary EBS volumes are replaced (their data is lost) and the target's lifecycle scripts run",
            ),
            "nodes-moved",
            "move the named nodes to another group",
        ),
    )
}

# ---- resources beside the cluster (HyperPod task governance: aws/governance/) -------------------------
# No node goes down: what a change does to running work (tasks a lowered quota preempts) is the step's
# reasons and codes (`preempts:…`), said by the cloud's planner where the service documents it.
_RESOURCE_DISRUPTION = Disruption("none", "none", "configures how the cluster's scheduler shares compute; no node is touched")
KINDS.update(
    {
        d.kind: d
        for d in (
            _declare("create-resource", ("cluster",), _RESOURCE_DISRUPTION, "resource-status", "create a resource on the cluster"),
            _declare(
                "update-resource",
                ("cluster", "configuration", "acted"),
                _RESOURCE_DISRUPTION,
                "resource-status",
                "change a resource on the cluster, at the version read",
            ),
            _declare("delete-resource", ("cluster", "acted"), _RESOURCE_DISRUPTION, "resource-status", "delete a resource of the cluster"),
        )
    }
)


# A cluster's extensions. The service's documentation says an extension's software is installed on,
# changed on or removed from every node of the cluster (CreateClusterExtension, UpdateClusterExtension,
# DeleteClusterExtension in botocore's model) and names no restart or drain of a node: none is declared.
KINDS.update(
    {
        d.kind: d
        for d in (
            _declare(
                "create-extension",
                ("cluster", "extensions"),
                Disruption("none", "none", "installs the extension's software on every node; the service names no restart"),
                "extension-status",
                "install a cluster extension",
            ),
            _declare(
                "update-extension",
                ("cluster", "extensions"),
                Disruption("none", "none", "changes the extension's version or settings on every node; the service names no restart"),
                "extension-status",
                "change a cluster extension's version or configuration",
            ),
            _declare(
                "delete-extension",
                ("cluster", "extensions"),
                Disruption("none", "none", "removes the extension's software from every node; the service names no restart"),
                "extension-status",
                "remove a cluster extension",
            ),
        )
    }
)


def declaration(kind: str) -> KindDeclaration:
    """The declaration of a step kind; KeyError for a kind no row declares."""
    return KINDS[kind]


def declared_kinds() -> tuple[str, ...]:
    return get_args(StepKind)
