"""Loading a Google Cloud spec, Slurm layer included, loads nothing of AWS (docs/DESIGN.md, "Layers":
gcp imports nothing of aws): the shared Slurm spec takes the partition-name rule from the cloud
that loads it, so GCP's rule does not read HyperPod's service model (botocore)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gcp-training-cluster" / "cluster.json"

PROBE = """
import json, sys
from pulumi_hyperpod.gcp.spec import ClusterSpec
spec = ClusterSpec.from_file(sys.argv[1])
assert spec.slurm["partitions"], "the example has a Slurm layer: its partitions are checked"
print(json.dumps(sorted(m for m in sys.modules if m == "botocore" or m.startswith(("botocore.", "pulumi_hyperpod.aws")))))
"""


def test_a_gcp_spec_load_imports_no_botocore_and_no_aws() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, str(EXAMPLE)], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_a_bad_gcp_partition_name_is_refused_by_gcps_rule() -> None:
    """The rule GCP passes still refuses what cannot be a slurm.conf PartitionName."""
    from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError

    document = json.loads(EXAMPLE.read_text())
    document["orchestratorSpec"]["slurmSpec"]["partitions"][0]["id"] = "bad name"
    try:
        ClusterSpec.from_document(document)
    except GcpSpecError as error:
        assert "is not a valid partition name" in str(error)
    else:
        raise AssertionError("a partition id with a space was accepted")


def test_the_slurm_layer_imports_no_cloud_even_lazily():
    """What made a GCP spec load botocore: slurm/spec.py read HyperPod's pattern inside a function."""
    from tests.support.imports import PACKAGE, imports_of

    found = sorted(
        f"slurm/{path.name} imports {target}"
        for path in (PACKAGE / "slurm").glob("*.py")
        for target in imports_of(path)
        if target.split(".")[0] in ("aws", "gcp")
    )
    assert found == []
