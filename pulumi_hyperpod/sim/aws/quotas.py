"""Service Quotas for SageMaker HyperPod: ListServiceQuotas, ListAWSDefaultServiceQuotas, GetServiceQuota.

The quotas HyperPod is limited by (developer guide, "SageMaker HyperPod quotas"): one
"<instance type> for cluster usage" per instance type (and "<instance type> for spot cluster usage"
for Spot capacity), plus two counts across the cluster and the account. Codes of the cluster-wide
ones are the service's own; the per-type codes here are stable stand-ins (the real ones are not
derivable from the name), so callers must match per-type quotas by name — as the console's
"cluster usage" search does.

The values are data (data/service_quotas.yaml): ListAWSDefaultServiceQuotas answers a new account's
defaults (0 of every instance type); the scenario's `account` says whether the world's account had
its quotas raised (`raised`, the default world: every quota applied at the file's raised values) or
is new (`new`: only the defaults apply), and its `quotas` are applied values on top. ListServiceQuotas
lists the applied values only, the way AWS does.

Quotas are per account and region, as in AWS: the caller's account (`world.account`) may have its own
`account` and `quotas` (the scenario's `accounts`), and a quota value may name the one region it is
applied in.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from collections.abc import Callable

import yaml

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws import pagination
from pulumi_hyperpod.sim.aws.errors import ServiceError
from pulumi_hyperpod.sim.aws.world import World

SERVICE_CODE, SERVICE_NAME = "sagemaker", "Amazon SageMaker"
PER_CLUSTER = ("L-2CE978FC", "Maximum number instances allowed per SageMaker HyperPod cluster")
ACROSS_CLUSTERS = ("L-3308CCC7", "Total number of instances allowed across SageMaker HyperPod clusters")


class AccessDeniedException(ServiceError):
    code, status = "AccessDeniedException", 400


class NoSuchResourceException(ServiceError):
    code, status = "NoSuchResourceException", 400


def type_quota_name(instance_type: str, spot: bool = False) -> str:
    return f"{instance_type} for {'spot ' if spot else ''}cluster usage"


def _code(name: str) -> str:
    return "L-" + hashlib.sha256(name.encode()).hexdigest()[:8].upper()


@lru_cache(maxsize=1)
def _profiles() -> dict[str, dict[str, float]]:
    text = resources.files("pulumi_hyperpod").joinpath("data/service_quotas.yaml").read_text()
    return yaml.safe_load(text)


def _table(profile: str) -> dict[str, tuple[str, float]]:
    """quota code → (name, value) of a profile of data/service_quotas.yaml, for every instance type HyperPod accepts."""
    values = _profiles()[profile]
    table = {
        PER_CLUSTER[0]: (PER_CLUSTER[1], float(values["per_cluster"])),
        ACROSS_CLUSTERS[0]: (ACROSS_CLUSTERS[1], float(values["across_clusters"])),
    }
    for instance_type in servicemodel.enum("ClusterInstanceGroupSpecification", "InstanceType"):
        for spot, key in ((False, "per_type"), (True, "spot_per_type")):
            name = type_quota_name(instance_type, spot)
            table[_code(name)] = (name, float(values[key]))
    return table


@lru_cache(maxsize=1)
def defaults() -> dict[str, tuple[str, float]]:
    """quota code → (name, AWS default value): a new account's, for every instance type HyperPod accepts."""
    return _table("aws_defaults")


@lru_cache(maxsize=1)
def _raised() -> dict[str, float]:
    return {code: value for code, (_, value) in _table("raised").items()}


def _applied(world: World, region: str) -> dict[str, float]:
    """quota code → the value applied to the caller's account in `region`: the raised account's (its
    `account: raised`, else the scenario's), then the scenario's `quotas`, then its account's own (a
    name the table does not know gets its own code)."""
    by_name = {name: code for code, (name, _) in defaults().items()}
    own = world.scenario.accounts.get(world.account)
    profile = own.account if own is not None and own.account is not None else world.scenario.account
    applied = dict(_raised()) if profile == "raised" else {}
    for quota in _listed(world):
        if quota.region in (None, region):
            applied[quota.quota_code or by_name.get(quota.quota_name, _code(quota.quota_name))] = quota.value
    return applied


def _listed(world: World) -> list:
    """The scenario's applied values, then the caller's account's own (later ones win)."""
    own = world.scenario.accounts.get(world.account)
    return [*world.scenario.quotas, *(own.quotas if own is not None else [])]


def value(world: World, region: str, code: str) -> float:
    """The quota in effect for the caller's account in `region`: the applied value, else the AWS default."""
    applied = _applied(world, region)
    return applied[code] if code in applied else defaults()[code][1]


def type_quota_code(instance_type: str, spot: bool = False) -> str:
    return _code(type_quota_name(instance_type, spot))


def _name(world: World, code: str) -> str:
    known = defaults().get(code)
    if known:
        return known[0]
    return next((q.quota_name for q in _listed(world) if q.quota_name and _code(q.quota_name) == code), code)


def _quota(world: World, region: str, code: str, value: float, applied: bool) -> dict:
    account = world.account if applied else ""
    return {
        "ServiceCode": SERVICE_CODE,
        "ServiceName": SERVICE_NAME,
        "QuotaArn": f"arn:aws:servicequotas:{region}:{account}:{SERVICE_CODE}/{code}",
        "QuotaCode": code,
        "QuotaName": _name(world, code),
        "Value": value,
        "Unit": "None",
        "Adjustable": True,
        "GlobalQuota": False,
    }


def _check(world: World, operation: str, params: dict) -> None:
    if world.scenario.quotas_access_denied:
        raise AccessDeniedException(
            f"User: arn:aws:sts::{world.account}:assumed-role/hyperpod/session is not authorized to perform: "
            f"servicequotas:{operation} because no identity-based policy allows the servicequotas:{operation} action"
        )
    if params.get("ServiceCode") != SERVICE_CODE:
        raise NoSuchResourceException(
            f"The request failed because the specified service {params.get('ServiceCode')} does not "
            "have quotas in the simulator (only sagemaker)."
        )


def _page(world: World, region: str, values: dict[str, float], applied: bool, params: dict) -> dict:
    codes = sorted(values)
    chosen, token = pagination.page(
        codes, [(code,) for code in codes], descending=False, max_results=params.get("MaxResults"), token=params.get("NextToken")
    )
    response: dict = {"Quotas": [_quota(world, region, code, values[code], applied) for code in chosen]}
    if token:
        response["NextToken"] = token
    return response


def list_service_quotas(world: World, region: str, params: dict) -> dict:
    _check(world, "ListServiceQuotas", params)
    applied = _applied(world, region)
    if params.get("QuotaCode"):
        applied = {code: value for code, value in applied.items() if code == params["QuotaCode"]}
    return _page(world, region, applied, True, params)


def list_aws_default_service_quotas(world: World, region: str, params: dict) -> dict:
    _check(world, "ListAWSDefaultServiceQuotas", params)
    return _page(world, region, {code: value for code, (_, value) in defaults().items()}, False, params)


def get_service_quota(world: World, region: str, params: dict) -> dict:
    _check(world, "GetServiceQuota", params)
    code = params.get("QuotaCode")
    applied = _applied(world, region)
    if code in applied:
        return {"Quota": _quota(world, region, code, applied[code], True)}
    if code in defaults():
        return {"Quota": _quota(world, region, code, defaults()[code][1], True)}
    raise NoSuchResourceException(f"The request failed because the specified quota {code} does not exist.")


OPERATIONS: dict[str, Callable[[World, str, dict], dict]] = {
    "ListServiceQuotas": list_service_quotas,
    "ListAWSDefaultServiceQuotas": list_aws_default_service_quotas,
    "GetServiceQuota": get_service_quota,
}
