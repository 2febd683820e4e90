"""What UpdateCluster cannot change on an existing cluster (issue 12, items 14 and 15).

- InstanceType of an existing group: the HyperPod guide ("Updating SageMaker HyperPod cluster
  configuration") says "To update an existing instance group, specify the instance type you initially
  assigned to the group". Switching InstanceType ↔ InstanceRequirements is the same change.
- NodeProvisioningMode of a Slurm cluster: "Existing clusters using the previous scaling model cannot be
  migrated to continuous provisioning" (AWS page on Slurm continuous provisioning). UpdateCluster's model
  accepts only `Continuous`; an EKS cluster moves to it (issue 37 item 5), a Continuous one restates it.
Each refusal is a ValidationException naming the group (or field) and the rule, and changes nothing.
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.support.sim_helpers import eks_request, group, groups_of, seed004_groups, SEED004_SCENARIO


def _error(call) -> tuple[str, str]:
    with pytest.raises(ClientError) as error:
        call()
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


@pytest.fixture
def eks(sim, client):
    client.create_cluster(
        **eks_request(
            "eks",
            [
                group("fixed", 2, "ml.g5.xlarge"),
                group("flex", 2, InstanceRequirements={"InstanceTypes": ["ml.p5.48xlarge", "ml.p4d.24xlarge"]}),
            ],
        )
    )
    sim.advance(1200)
    return client


CHANGES = {
    "another instance type": (
        group("fixed", 2, "ml.g5.2xlarge"),
        "InstanceGroups[0].InstanceType: the instance type of existing group 'fixed' cannot be "
        "changed: to update an existing instance group, specify the instance type you "
        "initially assigned to the group (ml.g5.xlarge)",
    ),
    "InstanceType to InstanceRequirements": (
        group("fixed", 2, InstanceRequirements={"InstanceTypes": ["ml.g5.xlarge", "ml.g5.2xlarge"]}),
        "existing group 'fixed' cannot be changed: to update an existing instance group, specify the instance "
        "type you initially assigned to the group (ml.g5.xlarge)",
    ),
    "InstanceRequirements to InstanceType": (
        group("flex", 2, "ml.p5.48xlarge"),
        "existing group 'flex' cannot be changed: to update an existing instance group, specify the instance type "
        "you initially assigned to the group (InstanceRequirements ['ml.p5.48xlarge', 'ml.p4d.24xlarge'])",
    ),
}


@pytest.mark.parametrize("spec, expected", CHANGES.values(), ids=CHANGES.keys())
def test_an_existing_groups_instance_type_cannot_change(eks, spec, expected):
    before = groups_of(eks, "eks")
    code, message = _error(lambda: eks.update_cluster(ClusterName="eks", InstanceGroups=[spec]))
    assert code == "ValidationException" and expected in message
    assert "add a new instance group" in message
    assert groups_of(eks, "eks") == before, "nothing changed"


def test_the_same_instance_type_and_a_new_flexible_type_list_are_accepted(sim, eks):
    eks.update_cluster(
        ClusterName="eks",
        InstanceGroups=[group("fixed", 3, "ml.g5.xlarge"), group("flex", 2, InstanceRequirements={"InstanceTypes": ["ml.p4d.24xlarge"]})],
    )
    sim.advance(1200)
    groups = groups_of(eks, "eks")
    assert groups["fixed"]["CurrentCount"] == 3
    assert groups["flex"]["InstanceRequirements"]["DesiredInstanceTypes"] == ["ml.p4d.24xlarge"]


def test_an_all_or_nothing_cluster_cannot_be_migrated_to_continuous(make_sim):
    sim, client = make_sim(SEED004_SCENARIO)
    client.create_cluster(ClusterName="classic", InstanceGroups=seed004_groups(1))
    sim.advance(1200)
    code, message = _error(
        lambda: client.update_cluster(ClusterName="classic", InstanceGroups=seed004_groups(3), NodeProvisioningMode="Continuous")
    )
    assert code == "ValidationException"
    assert (
        "NodeProvisioningMode: cluster classic uses all-or-nothing provisioning, and existing Slurm clusters cannot be "
        "migrated to Continuous provisioning"
    ) in message
    assert "create a new cluster with NodeProvisioningMode Continuous" in message
    described = client.describe_cluster(ClusterName="classic")
    assert "NodeProvisioningMode" not in described, "the cluster is still all-or-nothing"
    assert {g["InstanceGroupName"]: g["TargetCount"] for g in described["InstanceGroups"]}["leo-stg-compute-ig"] == 1
    with pytest.raises(ClientError):
        client.list_cluster_events(ClusterName="classic")  # events exist for Continuous clusters only


def test_an_all_or_nothing_eks_cluster_moves_to_continuous(sim, client):
    # issue 37 item 5: UpdateCluster takes NodeProvisioningMode; only the Slurm page forbids the move
    client.create_cluster(**eks_request("eks-classic", [group("a", 1)], continuous=False))
    sim.advance(1200)
    client.update_cluster(ClusterName="eks-classic", InstanceGroups=[group("a", 2)], NodeProvisioningMode="Continuous")
    sim.advance(1200)
    assert client.describe_cluster(ClusterName="eks-classic")["NodeProvisioningMode"] == "Continuous"
    assert groups_of(client, "eks-classic")["a"]["CurrentCount"] == 2
    assert client.list_cluster_events(ClusterName="eks-classic")["Events"]


def test_a_continuous_cluster_may_restate_its_mode(sim, client):
    client.create_cluster(**eks_request("cont", [group("a", 1)]))
    sim.advance(1200)
    client.update_cluster(ClusterName="cont", InstanceGroups=[group("a", 2)], NodeProvisioningMode="Continuous")
    sim.advance(1200)
    assert groups_of(client, "cont")["a"]["CurrentCount"] == 2
