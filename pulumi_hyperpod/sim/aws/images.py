"""Which AMI a group asks for and a node runs, in one form: {"ImageId", "ImageReleaseVersion"}.

The model's ImageId is an AMI id or `default`, "the default latest system image" — the HyperPod
public AMI. A custom AMI is named by its id and has no HyperPod release; the public AMI has no id
the simulator can know, only a release (ImageReleaseVersion, "If omitted, the latest available
version is used"), so an image on it is `{"ImageId": None, "ImageReleaseVersion": <release or None>}`.
"""

from __future__ import annotations


DEFAULT = "default"


def custom(image_id: str | None) -> str | None:
    """The custom AMI an ImageId names; None for the HyperPod public AMI (no ImageId, or `default`)."""
    return image_id if image_id and image_id != DEFAULT else None


def of_spec(spec: dict) -> dict:
    """The image a group specification records (what its new nodes are built with)."""
    return {"ImageId": custom(spec.get("ImageId")), "ImageReleaseVersion": spec.get("ImageReleaseVersion")}


def for_launch(spec: dict, latest: str | None) -> dict:
    """The image a node launched now from `spec` runs: on the public AMI without a version, the latest release."""
    image = of_spec(spec)
    if image["ImageId"] is None and image["ImageReleaseVersion"] is None:
        image["ImageReleaseVersion"] = latest
    return image


def of_node(built_with: dict | None) -> dict:
    built = built_with or {}
    return {"ImageId": custom(built.get("ImageId")), "ImageReleaseVersion": built.get("ImageReleaseVersion")}


def runs(node_image: dict, wanted: dict) -> bool:
    """The node runs the image wanted: the same custom AMI, or the public AMI at the release wanted
    (any release when none is named)."""
    if wanted["ImageId"] is not None or node_image["ImageId"] is not None:
        return node_image["ImageId"] == wanted["ImageId"]
    return wanted["ImageReleaseVersion"] is None or node_image["ImageReleaseVersion"] == wanted["ImageReleaseVersion"]


def version_status(image: dict, latest: str | None, fresh: bool = False) -> str | None:
    """ClusterImageVersionStatus of an image once a release is published: UpToDate on it (or `fresh`:
    made after it without a version), else UpdateAvailable; none for a custom AMI or before any release."""
    if latest is None or image["ImageId"] is not None:
        return None
    return "UpToDate" if image["ImageReleaseVersion"] == latest or (fresh and image["ImageReleaseVersion"] is None) else "UpdateAvailable"


def reported(image: dict, prefix: str) -> dict:
    """The image under DescribeCluster's / DescribeClusterNode's names (CurrentImageId, DesiredImageReleaseVersion…)."""
    out = {}
    if image["ImageId"] is not None:
        out[f"{prefix}ImageId"] = image["ImageId"]
    if image["ImageReleaseVersion"] is not None:
        out[f"{prefix}ImageReleaseVersion"] = image["ImageReleaseVersion"]
    return out
