"""Identifiers in the service's own formats, drawn from the world's seeded RNG.

Formats follow botocore's model patterns: cluster ARNs end in 12 lowercase alphanumerics, instance
ids are `i-` + 17 hex digits, node logical ids and event ids are UUIDs (as the service's event
examples show), hostnames are `ip-10-1-24-24` style.
"""

from __future__ import annotations

import random
import string

_ALNUM = string.ascii_lowercase + string.digits


def cluster_id(rng: random.Random) -> str:
    return "".join(rng.choice(_ALNUM) for _ in range(12))


def cluster_arn(region: str, account: str, cid: str) -> str:
    return f"arn:aws:sagemaker:{region}:{account}:cluster/{cid}"


def instance_id(rng: random.Random) -> str:
    return f"i-0{rng.getrandbits(64):016x}"


def new_uuid(rng: random.Random) -> str:
    """A version-4 UUID string (formatted by hand: uuid.UUID is 5x slower, and 10k-node worlds make many)."""
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"


def request_id(rng: random.Random) -> str:
    return new_uuid(rng)


class AddressPool:
    """Private IPs of a cluster's nodes: each subnet gets a /20 of 10.1.0.0/16 (subnet 0 is
    10.1.16.0/20, like seed 004's ip-10-1-24-24). A /20 holds ~4,000 instances; a subnet that fills
    up (10k-node benchmarks) overflows into its own 10.(100+k).0.0/16 instead of looping forever.
    """

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.used: dict[str, int] = {}
        for address in taken:
            prefix = self._prefix(address)
            self.used[prefix] = self.used.get(prefix, 0) + 1

    @staticmethod
    def _prefix(address: str) -> str:
        first, second, third, _ = address.split(".")
        return f"{first}.{second}.{int(third) // 16}" if second == "1" else f"{first}.{second}"

    def allocate(self, rng: random.Random, subnet_index: int) -> str:
        base = 16 * (subnet_index % 15 + 1)
        if self.used.get(f"10.1.{base // 16}", 0) < 3800:
            while True:
                offset = rng.randrange(1, 4095)
                third, fourth = base + offset // 256, offset % 256
                address = f"10.1.{third}.{fourth}"
                if fourth not in (0, 255) and address not in self.taken:
                    return self._take(address)
        while True:
            address = f"10.{100 + subnet_index % 150}.{rng.randrange(0, 256)}.{rng.randrange(1, 255)}"
            if address not in self.taken:
                return self._take(address)

    def _take(self, address: str) -> str:
        self.taken.add(address)
        prefix = self._prefix(address)
        self.used[prefix] = self.used.get(prefix, 0) + 1
        return address


def short_hostname(ip: str) -> str:
    return "ip-" + ip.replace(".", "-")


def dns_hostname(ip: str, region: str) -> str:
    return f"{short_hostname(ip)}.{region}.compute.internal"


def availability_zone_id(az: str) -> str:
    """us-west-2a → usw2-az1 (the AZ-id shape; real ids are account-specific)."""
    parts = az[:-1].split("-")
    prefix = parts[0] + "".join(part[0] for part in parts[1:-1]) + parts[-1]
    return f"{prefix[:6]}-az{ord(az[-1]) - ord('a') + 1}"
