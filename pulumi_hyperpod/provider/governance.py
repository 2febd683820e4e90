"""Task governance's providers: a compute quota (`hyperpod:ComputeQuota`) and the cluster's scheduler
configuration (`hyperpod:ClusterSchedulerConfig`), planned and applied by `aws/governance` — the same
plan and apply `hyperpod plan|apply|delete -f` run (docs/capacity.md, "Task governance").

`GovernanceCore` is check/diff/create/update/read/delete once, for both resources and both transports:
the dynamic provider below (`GovernanceProvider`, pickled into the state by this module's path, holding
the resource's noun, a simulator's name for tests and the stack-config defaults: no client, no
credential) and the native provider (native/governance.py).

The inputs are the spec (create's `--cli-input-json` document), checked against botocore's model in
`check` (a failure names the member and the rule), and where the resource lives and how to wait
(`backend`, `region`, `profile`, `wait`, `timeout`). `diff` compares the inputs member by member, by
each member's verdict (aws/governance/kinds.py): Name or ClusterArn another value is another resource
(a replacement); an in-place member a change (one Update call at the version read); Tags, which the
service neither updates nor returns, no change. The plan made at create, update and delete is shown
on the engine's log, with what it preempts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pulumi_hyperpod.provider import console
from pulumi_hyperpod.provider.base import DynamicProvider
from pulumi_hyperpod.provider.cloud_provider import Checked, Created, Diffed, Found
from pulumi_hyperpod.provider.settings import DEFAULT_TIMEOUT, Defaults, check_settings, locate_inputs

NOUNS = ("ComputeQuota", "ClusterSchedulerConfig")
SETTINGS = ("backend", "region", "profile", "wait", "timeout")
OUTPUTS = ("arn", "resource_id", "version", "status", "cluster_arn", "location")


@dataclass
class GovernanceCore:
    noun: str  # "ComputeQuota" | "ClusterSchedulerConfig"
    simulator: str | None = None
    defaults: Defaults = field(default_factory=Defaults)
    log: Any = None  # callable(text): where a plan is shown (the engine's log); None: nowhere

    # ---- check and diff: the inputs alone ------------------------------------------------------------
    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> Checked:
        from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore's model: check's, never loaded when the provider is unpickled
        from pulumi_hyperpod.core.errors import InputError  # noqa: PLC0415 - with the model above
        from pulumi_hyperpod.provider.props import plain  # noqa: PLC0415 - the engine's numbers as the model's (props loads the spec's request)
        from pulumi_hyperpod.provider.unknowns import is_unknown, unknown_paths  # noqa: PLC0415 - with props

        failures: list[tuple[str, str]] = []
        # `__provider`: the dynamic provider itself, serialized by the SDK among the inputs
        unknown = sorted(key for key in set(news) - {"spec", *SETTINGS, *OUTPUTS} if not key.startswith("__"))
        failures += [(key, f"is not an input of {self.noun}; known: spec, {', '.join(SETTINGS)}") for key in unknown]
        settings, problems = check_settings(plain({key: news[key] for key in SETTINGS if key in news}), is_unknown)
        failures += problems
        spec = news.get("spec") if is_unknown(news.get("spec")) else plain(news.get("spec"))
        if is_unknown(spec) or (isinstance(spec, dict) and unknown_paths(spec)):
            return Checked({"spec": spec, **settings}, failures)  # a preview before another resource's output is known: checked at `up`
        try:
            checked = governance.from_dict(spec)
        except InputError as error:
            failures += [(f"spec.{v.path}" if v.path else "spec", v.rule) for v in error.violations]
        else:
            if checked.kind.noun != self.noun:
                failures.append(("spec", f"is a {checked.kind.label} spec; this resource is a {self.noun}"))
        return Checked({"spec": spec, **settings}, failures)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> Diffed:
        from pulumi_hyperpod.aws.governance.kinds import KINDS  # noqa: PLC0415 - botocore's model: a diff's, never loaded when the provider is unpickled

        kind = next(k for k in KINDS if k.noun == self.noun)
        before, after = olds.get("spec") or {}, news.get("spec") or {}
        verdicts = kind.verdicts()
        replaces = [f"spec.{name}" for name, verdict in verdicts.items() if verdict == "identity" and before.get(name) != after.get(name)]
        changed = [name for name, verdict in verdicts.items() if verdict == "in place" and before.get(name) != after.get(name)]
        moved = [key for key in ("backend", "region") if (olds.get(key) or None) != (news.get(key) or None)]
        return Diffed(changes=bool(replaces or changed or moved), replaces=replaces + moved)

    # ---- the calls -----------------------------------------------------------------------------------
    def _session(self, inputs: dict[str, Any]) -> tuple[Any, Any, Any]:
        from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore: a call's, never loaded when the provider is unpickled
        from pulumi_hyperpod.core.contract import ApplyOptions  # noqa: PLC0415 - with the client
        from pulumi_hyperpod.provider.worlds import open_backend  # noqa: PLC0415 - the clients: a call's, never loaded when the provider is unpickled

        location = locate_inputs(inputs, self.defaults)
        client, clock = open_backend(location, self.simulator)
        wait = "none" if inputs.get("wait") == "none" else "InService"
        options = ApplyOptions(wait=wait, timeout=float(inputs.get("timeout") or DEFAULT_TIMEOUT), poll_seconds=clock.poll_seconds)
        return client, clock, (governance, options, location)

    def _run(self, inputs: dict[str, Any], *, delete: bool = False) -> dict[str, Any]:
        """Plan against the resource as it is now, show the plan, apply it; the outputs after."""
        from pulumi_hyperpod.plans.render import plan_text  # noqa: PLC0415 - rich: a call's

        from pulumi_hyperpod.provider.props import plain  # noqa: PLC0415 - the engine's numbers as the model's

        client, clock, (governance, options, location) = self._session(inputs)
        spec = governance.from_dict(plain(inputs["spec"]))
        plan = governance.prepare(client, spec, delete=delete)
        if self.log is not None and not plan.empty:
            self.log(plan_text(plan, subject=f"{spec.label} on cluster {plan.cluster_name}"))
        governance.execute(client, plan, options, sleep=clock.sleep)
        if delete:
            return {}
        found = governance.observe.read(client, spec)
        if found.resource is None:
            raise RuntimeError(f"{spec.label} was not found on cluster {found.cluster.name} after it was applied")
        kind = spec.kind
        return {
            **inputs,
            "arn": found.resource[kind.arn_member],
            "resource_id": found.resource[kind.id_member],
            "version": found.resource[kind.version_member],
            "status": found.resource["Status"],
            "cluster_arn": found.cluster.arn,
            "location": location.to_outputs(),
        }

    def create(self, props: dict[str, Any]) -> Created:
        from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore: a call's

        from pulumi_hyperpod.provider.props import plain  # noqa: PLC0415 - the engine's numbers as the model's

        client, _clock, _rest = self._session(props)
        spec = governance.from_dict(plain(props["spec"]))
        if governance.observe.read(client, spec).resource is not None:  # never taken over without a word
            raise ValueError(f"{spec.label} already exists on cluster {spec.cluster}: import it (pulumi import) or give another Name")
        outputs = self._run(props)
        return Created(outputs["arn"], outputs)

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
        return self._run(news)

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        self._run(props, delete=True)

    def read(self, id_: str, props: dict[str, Any]) -> Found:
        from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore: a call's
        from pulumi_hyperpod.provider.props import plain  # noqa: PLC0415 - the engine's numbers as the model's

        client, _clock, _rest = self._session(props)
        spec = governance.from_dict(plain(props["spec"]))
        found = governance.observe.read(client, spec)
        if found.resource is None:
            return Found("", {})
        return Found(id_, {**props, "version": found.resource[spec.kind.version_member], "status": found.resource["Status"]}, None)


class GovernanceProvider(DynamicProvider):
    """The dynamic provider of `ComputeQuota` and `ClusterSchedulerConfig` (pulumi_hyperpod.provider)."""

    def __init__(self, noun: str, simulator: str | None = None) -> None:
        super().__init__()
        self.noun = noun
        self.simulator = simulator  # a name in worlds' registry, never the simulator itself
        self.defaults = Defaults()

    def configure(self, req: Any) -> None:
        self.defaults = Defaults.from_config(req.config)
        super().configure(req)

    def core(self) -> Any:
        return GovernanceCore(self.noun, self.simulator, self.defaults, log=console.say)
