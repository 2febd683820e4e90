"""Scheduled and automatic patching on the simulator's clock.

When a new HyperPod AMI release comes out (`Simulator.publish_image_release`, scenario `image_release`),
a group that is not on it yet is patched (an UpdateClusterSoftware run by the service, `rolling_update`):
- with `ScheduledUpdateConfig`: at the next time its `ScheduleExpression` names after the release
  (AWS cron: `cron(minutes hours day-of-month month day-of-week year)`, day-of-week 1-7 = SUN-SAT), with
  its `DeploymentConfig`;
- with `AutoPatchConfig`: at its `PatchSchedule.NextPatchDate` when given, else
  `timing.auto_patch_delay_seconds` after the release (the service sets NextPatchDate when it detects a
  patch), with its `DeploymentConfig`. Every instance is treated as idle (the simulator runs no jobs),
  so WhenIdle, WhenAllIdle and DrainFirst patch alike.
One update runs at a time: a group due while another update runs goes next. An alarm of the update's
AutoRollbackConfiguration rolls it back (`rolling_update.alarm`), and the group waits for its next time.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from pulumi_hyperpod.sim.aws import ids, rolling_update
from pulumi_hyperpod.sim.aws.model import Cluster, InstanceGroup
from pulumi_hyperpod.sim.aws.world import World
from pulumi_hyperpod.sim.aws.clock import to_seconds

_AWS_CRON = re.compile(r"^cron\((.+)\)$")
_YEARS = re.compile(r"^(\d{4})(?:-(\d{4}))?(?:/(\d+))?$")


def _year_filter(field: str) -> Callable[[int], bool] | None:
    """Which years the year field names (`*`, `2027`, `2027-2029`, `2027/2`, lists of them), or None."""
    if field in ("*", "?"):
        return lambda year: True
    parts = []
    for item in field.split(","):
        match = _YEARS.match(item)
        if not match:
            return None
        first, last, step = (
            int(match.group(1)),
            int(match.group(2) or (9999 if match.group(3) else match.group(1))),
            int(match.group(3) or 1),
        )
        if not 1970 <= first <= last <= 2199 and not (match.group(3) and last == 9999):
            return None  # AWS cron years run from 1970 to 2199
        parts.append((first, last, step))
    return lambda year: any(first <= year <= last and (year - first) % step == 0 for first, last, step in parts)


def _aws_weekday(field: str) -> str | None:
    """AWS's day-of-week (1-7 = SUN-SAT) as croniter's (0-6); a number after `#` or `/` is a count."""
    numbers = [int(n) for n in re.findall(r"(?<![#/\d])\d+", field)]
    if any(not 1 <= n <= 7 for n in numbers):
        return None
    return re.sub(r"(?<![#/\d])\d+", lambda m: str(int(m.group()) - 1), field)


def parse_cron(expression: str) -> tuple[str, Callable[[int], bool]] | None:
    """An AWS cron expression as croniter's five fields and a year filter; None when it cannot be read."""
    from croniter import croniter  # noqa: PLC0415 - croniter: loaded only by a world with scheduled patching

    match = _AWS_CRON.match(expression.strip())
    fields = match.group(1).split() if match else []
    if len(fields) != 6:
        return None
    minutes, hours, day, month, weekday, year = fields
    weekday_field, years = _aws_weekday(weekday), _year_filter(year)
    if weekday_field is None or years is None:
        return None
    five = " ".join([minutes, hours, day.replace("?", "*"), month, weekday_field.replace("?", "*")])
    return (five, years) if croniter.is_valid(five) else None


def next_fire(expression: str, after: float) -> float | None:
    """The first time after `after` (epoch seconds) an AWS cron expression names; None when it cannot be
    read or names no time in the 200 years after `after`."""
    from croniter import croniter  # noqa: PLC0415 - croniter: loaded only by a world with scheduled patching

    parsed = parse_cron(expression)
    if parsed is None:
        return None
    five, years = parsed
    start = dt.datetime.fromtimestamp(after, dt.timezone.utc)
    for year in range(start.year, start.year + 200):
        if not years(year):
            continue
        begin = max(start, dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc) - dt.timedelta(seconds=1))
        try:
            fire = croniter(five, begin).get_next(dt.datetime)
        except (ValueError, KeyError):
            return None
        if fire.year == year:
            return fire.timestamp()
    return None


def _due(world: World, group: InstanceGroup, release: str) -> float | None:
    released = world.scenario.image_released_at or world.now
    if group.patch and group.patch.get("release") == release:
        return group.patch.get("due")
    scheduled = group.spec.get("ScheduledUpdateConfig") or {}
    auto = group.spec.get("AutoPatchConfig") or {}
    due = None
    if scheduled.get("ScheduleExpression"):
        due = next_fire(scheduled["ScheduleExpression"], max(released, group.created_at))
    elif auto:
        date = (auto.get("PatchSchedule") or {}).get("NextPatchDate")
        due = _seconds(date) if date is not None else released + world.scenario.timing.auto_patch_delay_seconds
    group.patch = {"release": release, "due": due}
    return due


def _seconds(value) -> float:
    return to_seconds(value)


def progress(world: World, cluster: Cluster) -> None:
    """Start the patch of the groups whose time came; schedule the cluster for the next one."""
    release = world.setting("image_release")
    if release is None or cluster.status in ("Deleting", "Failed", "Creating"):
        return
    waiting: list[tuple[float, InstanceGroup]] = []
    for group in cluster.groups.values():
        if group.deleting or not (group.spec.get("ScheduledUpdateConfig") or group.spec.get("AutoPatchConfig")):
            continue
        if group.spec.get("ImageReleaseVersion") == release:
            continue
        due = _due(world, group, release)
        if due is not None:
            waiting.append((due, group))
    if not waiting:
        return
    ready = [group for due, group in waiting if due <= world.now]
    if ready and cluster.software_update is None and cluster.status == "InService":
        return _start(world, cluster, ready, release)
    upcoming = min(due for due, _ in waiting)
    when = max(upcoming, world.now + 60)  # a group due now while another update runs: look again in a minute
    if cluster.due is None or cluster.due <= world.now or cluster.due > when:
        world.schedule_cluster(cluster, when)


def _start(world: World, cluster: Cluster, groups: list[InstanceGroup], release: str) -> None:
    config = groups[0].spec.get("ScheduledUpdateConfig") or groups[0].spec.get("AutoPatchConfig") or {}
    deployment = config.get("DeploymentConfig") if cluster.orchestrator != "Slurm" else None
    for group in groups:
        group.patch = None
    how = "scheduled update" if groups[0].spec.get("ScheduledUpdateConfig") else "automatic patching"
    world.emit(
        cluster,
        "Info",
        "Cluster",
        f"Cluster {cluster.name}: {how} to HyperPod AMI release {release} starting for {', '.join(g.name for g in groups)}",
    )
    rolling_update.start(
        world,
        cluster,
        [{"InstanceGroupName": g.name, "ImageReleaseVersion": release} for g in groups],
        deployment,
        None,
        ids.new_uuid(world.rng),
    )
    rolling_update.progress(world, cluster)  # the first batch now: this reconcile pass has run the update's step already


def fill_next_patch_date(world: World, group: InstanceGroup, item: dict, release: str) -> None:
    """A group with AutoPatchConfig that has an update available reports the NextPatchDate the service
    set (its PatchSchedule gives none): "The system sets this automatically when a patch is detected"
    (the model's ClusterPatchSchedule; read-only in the CloudFormation schema)."""
    auto = group.spec.get("AutoPatchConfig")
    if not auto or (auto.get("PatchSchedule") or {}).get("NextPatchDate") is not None:
        return  # no automatic patching, or the user's own date (views report it as given)
    due = _due(world, group, release)
    if due is not None:
        reported = item.setdefault("AutoPatchConfig", {})
        reported["CurrentPatchSchedule"] = {"NextPatchDate": due}
        reported["DesiredPatchSchedule"] = {"NextPatchDate": due}
