from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.core.detect import detect_cloud

from tests.support.gcp import EXAMPLE


def test_seed_002_body_is_gcp():
    assert detect_cloud(json.loads(EXAMPLE.read_text())) == "gcp"


@pytest.mark.parametrize(
    "document, cloud",
    [
        ({"ClusterName": "c", "InstanceGroups": []}, "hyperpod"),
        ({"cluster_name": "c", "instance_groups": []}, "hyperpod"),
        ({"nodePools": []}, "gcp"),
        ({"name": "projects/p/locations/us-central1/modelDevelopmentClusters/x"}, "gcp"),
        ({}, "hyperpod"),
        ([], "hyperpod"),
        ("text", "hyperpod"),
    ],
)
def test_detect(document, cloud):
    assert detect_cloud(document) == cloud
