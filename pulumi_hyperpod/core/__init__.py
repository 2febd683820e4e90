"""The cloud-neutral core (docs/DESIGN.md, "The core"): what both clouds share and are written once.

- `errors`, `documents`: bad input (Violation, InputError and its kinds) and reading a user's file;
- `cloud`: the `Cloud` interface every cloud implements (read, plan, apply, import) and the registry;
- `contract`: the apply contract (PlanRefused, PlanStale, ApplyError, ApplyResult, ApplyOptions, waits);
- `planfile`: the one saved-plan file format (`hyperpod-plan/3`) for every cloud;
- `preflight`: the neutral preflight section every cloud's checks fill.

Nothing here imports a cloud's package (tests/quality/test_layers.py pins it).
"""
