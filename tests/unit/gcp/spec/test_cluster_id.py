"""Google's create bodies carry no `name` (the id is the `modelDevelopmentClusterId` query
parameter); the flex-start page writes `…/modelDevelopmentClusters/` with an empty id. The id then
comes from --cluster-id; with neither, one clear error."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError

from tests.support.gcp import NAME

PARENT = NAME.rsplit("/", 1)[0] + "/"


def test_an_empty_id_is_completed_by_cluster_id(doc):
    doc["name"] = PARENT
    assert ClusterSpec.from_document(doc, cluster_id="llmtrain").name == NAME


def test_no_name_takes_cluster_id_project_and_location(doc):
    del doc["name"]
    spec = ClusterSpec.from_document(doc, project="my-project", location="us-central1", cluster_id="llmtrain")
    assert spec.name == NAME


@pytest.mark.parametrize(
    ("name", "cluster_id", "rule"),
    [(PARENT, None, "no cluster id"), (None, None, "no cluster id"), (NAME, "other", "--cluster-id is 'other'")],
)
def test_without_an_id_or_with_two_the_error_says_so(doc, name, cluster_id, rule):
    if name is None:
        del doc["name"]
    else:
        doc["name"] = name
    with pytest.raises(GcpSpecError) as caught:
        ClusterSpec.from_document(doc, cluster_id=cluster_id)
    ((path, message),) = [(v.path, v.rule) for v in caught.value.violations]
    assert path == "name" and rule in message
