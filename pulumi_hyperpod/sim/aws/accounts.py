"""Whose request it is: the account of a request, from the access key that signed it.

AWS knows the account of every access key. The simulator decides it from the SigV4 `Authorization`
header's `Credential=KEY/…` the way the local AWS emulators do:

- a key id of 12 digits is the account of that id (LocalStack's rule, "Credentials" in its docs:
  `AWS_ACCESS_KEY_ID=111122223333` is account 111122223333), so a script reaches a second account by
  its key alone;
- a key the scenario lists (`accounts: {ACCOUNT: {access_keys: [...]}}`) is that account's, as moto
  looks a key up among the keys its IAM made (`moto/iam/models.py`, `get_account_id_from`);
- any other key, and an unsigned request, is the scenario's default account (`account_id`), as
  moto falls back to its DEFAULT_ACCOUNT_ID: the simulator's own clients sign with a dummy key, so
  a world of one account behaves as it always did.

Signatures are not checked (nothing in the world is secret); only the key id is read.
"""

from __future__ import annotations

import re
from typing import Any

from pulumi_hyperpod.sim.aws.world import World

_CREDENTIAL = re.compile(r"Credential=(?P<key>[^/,\s]+)/")
_ACCOUNT_ID = re.compile(r"\d{12}")


def access_key_id(headers: Any) -> str | None:
    """The access key id a request was signed with (SigV4), or None when it is not signed."""
    authorization = headers.get("Authorization") or ""
    if isinstance(authorization, bytes):
        authorization = authorization.decode("latin-1")
    found = _CREDENTIAL.search(authorization)
    return found["key"] if found is not None else None


def account_of(world: World, key: str | None) -> str:
    """The account whose request a request signed with `key` is (module docstring)."""
    if key is not None and _ACCOUNT_ID.fullmatch(key):
        return key
    if key is not None and world.setting("accounts"):  # the scenario's model is read only when it maps keys
        for account_id, settings in world.scenario.accounts.items():
            if key in settings.access_keys:
                return account_id
    return world.setting("account_id")
