"""provider/errors.py is where errors become the user's one line, for every front end: importable
without pulumi, botocore or Google's libraries (the CLI uses it too), and the contract's errors
worded the same for both clouds."""

from __future__ import annotations

import json

from pulumi_hyperpod.core.contract import ApplyError, ConcurrentChange, PlanRefused, PlanStale
from pulumi_hyperpod.plans import Plan
from pulumi_hyperpod.plans.model import Refusal
from pulumi_hyperpod.provider.errors import ProviderError, contract_message, is_user_error, user_message

from tests.support.fresh import run_fresh

IMPORT = """
import json, sys
from pulumi_hyperpod.provider.errors import contract_message, user_message
from pulumi_hyperpod.core.errors import InputError
user_message(InputError("bad"))
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & {"pulumi", "botocore", "boto3", "google", "grpc", "rich"})))
"""


def test_the_module_imports_no_pulumi_and_no_cloud_library():
    assert json.loads(run_fresh(IMPORT)) == []


def test_the_contract_errors_are_one_line_naming_the_cluster_and_what_to_do():
    plan = Plan(cluster_name="c1", action="update").refuse(Refusal("protected_nodes", "node i-1 is protected"))
    refused = contract_message(PlanRefused(plan), "c1")
    assert refused.startswith("cluster c1: the plan is refused by policy") and "[protected_nodes] node i-1 is protected" in refused
    stale = contract_message(PlanStale(Plan(cluster_name="c1", action="update"), ["workers grew"]), "c1")
    assert "workers grew" in stale and stale.endswith("make the plan again: run `pulumi up` again")
    failed = contract_message(ApplyError("UpdateCluster failed: throttled", ["CreateCluster"]), "c1", again="run `hyperpod apply` again")
    assert failed == "cluster c1: UpdateCluster failed: throttled (calls made: CreateCluster); run `hyperpod apply` again to continue"
    moved = contract_message(ConcurrentChange("c1", ["workers: 2 → 3"], []), "c1")
    assert "another writer" in moved and "(calls made: none)" in moved


def test_a_user_error_is_its_message_and_a_bug_keeps_its_traceback():
    assert is_user_error(ProviderError("do this")) and user_message(ProviderError("do this")) == "do this"
    try:
        raise KeyError("bug")
    except KeyError as error:
        assert "Traceback" in user_message(error)
