"""What every command shares: the backend options, output, and turning errors into exit codes."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any, Callable

import click
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError
from rich.console import Console

from ..client import connect
from ..plan import Policy
from ..spec import SpecError, parse_document

EXIT_OK, EXIT_ERROR, EXIT_REFUSED = 0, 1, 2

out = Console(soft_wrap=False)
err = Console(stderr=True, soft_wrap=True)  # never split a field path or a message across lines


def client_from(ctx: click.Context, service: str = "sagemaker") -> Any:
    options = ctx.obj
    return connect(backend=options["backend"], region=options["region"], profile=options["profile"], service=service)


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True, default=str))


def load_policy(path: str | None, protect: tuple[str, ...] = ()) -> Policy:
    data: dict[str, Any] = {}
    if path:
        loaded = parse_document(Path(path).read_text(encoding="utf-8"), Path(path).suffix)
        if not isinstance(loaded, dict):
            raise click.UsageError(f"{path}: a policy file is an object (keys: {', '.join(Policy.model_fields)})")
        data = loaded
    if protect:
        data["protected_node_ids"] = sorted(set(data.get("protected_node_ids") or ()) | set(protect))
    try:
        return Policy.model_validate(data)
    except Exception as error:  # pydantic.ValidationError: show it as a usage problem
        raise click.UsageError(f"policy: {error}") from None


def handle_errors(command: Callable) -> Callable:
    """Errors a user can act on become one clear message and exit code 1, never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except SpecError as error:
            err.print(f"[red]error:[/red] {error}", markup=True, highlight=False)
        except NoCredentialsError:
            err.print("[red]error:[/red] no AWS credentials found (set AWS_PROFILE or use --profile); "
                      "to try without AWS, use --backend fake", markup=True)
        except ClientError as error:
            detail = error.response.get("Error", {})
            err.print(f"[red]error:[/red] {error.operation_name}: {detail.get('Code')}: {detail.get('Message')}", markup=True, highlight=False)
        except BotoCoreError as error:
            err.print(f"[red]error:[/red] {error}", markup=True, highlight=False)
        except (OSError, ValueError, LookupError) as error:
            err.print(f"[red]error:[/red] {error}", markup=True, highlight=False)
        sys.exit(EXIT_ERROR)

    return wrapper
