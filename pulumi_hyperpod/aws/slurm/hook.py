#!/usr/bin/env python3
"""Installs a Slurm spec on a HyperPod node; run by the bundle's on_create.sh on every node.

Shipped verbatim in every lifecycle bundle `hyperpod slurm render` writes (standard library only,
Python 3.8+, like the base-config lifecycle scripts). Idempotent: running it again converges.

On every node:   mounts the shared home (if the spec has one) and installs the job prolog/epilog
                 scripts into /opt/slurm/etc/prolog.d and epilog.d (what slurmd runs).
On the controller: installs slurm-spec.conf (the spec's `config` lines and the Prolog/Epilog
                 globs), includes it from slurm.conf once, marks the spec's default partition
                 `Default=YES` on HyperPod's partition lines, then `scontrol reconfigure`.

`--root DIR` prefixes every path and `--dry-run` prints commands instead of running them (tests).
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time

SLURM_ETC = "/opt/slurm/etc"
INCLUDE_NAME = "slurm-spec.conf"
RESOURCE_CONFIG = "/opt/ml/config/resource_config.json"


def log(message):
    print("[slurm-spec] " + message, flush=True)


class Node:
    def __init__(self, root, dry_run):
        self.root = root
        self.dry_run = dry_run

    def path(self, path):
        return os.path.join(self.root, path.lstrip("/")) if self.root else path

    def run(self, *command):
        """Run a command that must succeed."""
        print("+ " + " ".join(command), flush=True)
        if not self.dry_run:
            subprocess.run(list(command), check=True)

    def probe(self, *command):
        """Whether a test command succeeds (a dry run answers no: nothing mounted, nothing running)."""
        if self.dry_run:
            print("? " + " ".join(command), flush=True)
            return False
        return subprocess.run(list(command), check=False).returncode == 0


def own_address():
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.connect(("10.254.254.254", 1))  # no packet is sent; this picks the outgoing address
        return sock.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        sock.close()


def own_group(resource_config_path, address):
    with open(resource_config_path) as handle:
        config = json.load(handle)
    for group in config.get("InstanceGroups", []):
        for instance in group.get("Instances") or []:
            if instance.get("CustomerIpAddress") == address:
                return group.get("Name")
    return None


def params_from_roles(roles):
    """provisioning_parameters.json's role fields from slurm-spec.json's `roles` (group -> NodeType)."""
    params = {}
    for group, node_type in roles.items():
        if node_type == "Controller":
            params["controller_group"] = group
        elif node_type == "Login":
            params["login_group"] = group
    return params


def role_of(group, params):
    if group is not None and group == params.get("controller_group"):
        return "controller"
    if group is not None and group == params.get("login_group"):
        return "login"
    return "compute"


def mount_home(node, spec):
    home = spec.get("home_storage")
    if not home:
        return
    kind, address, mount_name = home["kind"], home["address"], home.get("mount_name")
    if home.get("mounted_by") == "InstanceStorageConfigs":
        # HyperPod mounted the file system itself (OpenZFS on /home, Lustre on /fsx): only the
        # Lustre home directory is bound onto /home here
        log("home storage mounted by HyperPod (InstanceStorageConfigs)")
        if kind == "fsx_lustre":
            os.makedirs(node.path("/fsx/home"), exist_ok=True)
            if not node.probe("mountpoint", "-q", "/home"):
                node.run("mount", "--bind", "/fsx/home", "/home")
        return
    if kind == "fsx_openzfs":
        if not node.probe("mountpoint", "-q", "/home"):
            node.run("mount", "-t", "nfs", "-o", "nfsvers=4.2", address + ":/fsx", "/home")
    elif kind == "fsx_lustre":
        os.makedirs(node.path("/fsx"), exist_ok=True)
        if not node.probe("mountpoint", "-q", "/fsx"):
            node.run("mount", "-t", "lustre", "-o", "relatime,flock", address + "@tcp:/" + mount_name, "/fsx")
        os.makedirs(node.path("/fsx/home"), exist_ok=True)
        if not node.probe("mountpoint", "-q", "/home"):
            node.run("mount", "--bind", "/fsx/home", "/home")
    else:
        raise SystemExit(f"home storage of kind {kind!r} cannot be mounted on HyperPod")


def install_scripts(node, bundle):
    for kind in ("prolog", "epilog"):
        source = os.path.join(bundle, kind + ".d")
        target = node.path(SLURM_ETC + "/" + kind + ".d")
        if os.path.isdir(target):
            shutil.rmtree(target)  # the directory is the spec's: scripts removed from it go too
        os.makedirs(target)
        names = sorted(os.listdir(source)) if os.path.isdir(source) else []
        for name in names:
            shutil.copyfile(os.path.join(source, name), os.path.join(target, name))
            os.chmod(os.path.join(target, name), 0o755)
        log(f"installed {len(names)} {kind} script(s) in {target}")


def wait_for(path, seconds):
    deadline = time.time() + seconds
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(5)
    return os.path.exists(path)


def set_default_partition(lines, default):
    """PartitionName lines with Default=YES on `default` and Default=NO on every other one."""
    result = []
    for line in lines:
        words = line.split()
        if not words or not words[0].startswith("PartitionName=") or words[0] == "PartitionName=DEFAULT":
            result.append(line)
            continue
        name = words[0].split("=", 1)[1]
        words = [w for w in words if not w.lower().startswith("default=")]
        words.append("Default=YES" if name == default else "Default=NO")
        result.append(" ".join(words))
    return result


def configure_controller(node, bundle, spec, wait_seconds):
    include = node.path(SLURM_ETC + "/" + INCLUDE_NAME)
    shutil.copyfile(os.path.join(bundle, INCLUDE_NAME), include)
    slurm_conf = node.path(SLURM_ETC + "/slurm.conf")
    if not wait_for(slurm_conf, wait_seconds):
        log(f"no slurm.conf at {slurm_conf} yet: installed {include}, not included")
        return
    with open(slurm_conf) as handle:
        lines = handle.read().splitlines()
    include_line = "Include " + SLURM_ETC + "/" + INCLUDE_NAME
    lines = set_default_partition([line for line in lines if line.strip() != include_line], spec["default_partition"])
    lines.append(include_line)
    with open(slurm_conf + ".slurm-spec.tmp", "w") as handle:
        handle.write("\n".join(lines) + "\n")
    os.replace(slurm_conf + ".slurm-spec.tmp", slurm_conf)
    log("slurm.conf includes {}; default partition {}".format(include, spec["default_partition"]))
    if node.probe("systemctl", "is-active", "--quiet", "slurmctld"):
        node.run("scontrol", "reconfigure")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--root", default="")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--address", default=None, help="this node's IP address (default: detected)")
    parser.add_argument("--wait-seconds", type=float, default=60)
    args = parser.parse_args(argv)
    node = Node(args.root, args.dry_run)
    with open(os.path.join(args.bundle, "slurm-spec.json")) as handle:
        spec = json.load(handle)
    legacy = os.path.join(args.bundle, "provisioning_parameters.json")
    if os.path.exists(legacy):
        with open(legacy) as handle:
            params = json.load(handle)
    else:  # an API-driven cluster: the roles the SlurmConfig of each group says, as rendered
        params = params_from_roles(spec.get("roles") or {})
    resource_config = os.environ.get("SAGEMAKER_RESOURCE_CONFIG_PATH") or node.path(RESOURCE_CONFIG)
    group = own_group(resource_config, args.address or own_address()) if os.path.exists(resource_config) else None
    role = role_of(group, params)
    log("instance group {}: {} node".format(group or "(unknown)", role))
    mount_home(node, spec)
    install_scripts(node, args.bundle)
    if role == "controller":
        configure_controller(node, args.bundle, spec, args.wait_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
