# Sourced by the scripts: puts the venv and the built Pulumi engine on PATH, with offline settings
# (no update check, a local file backend, no plugin downloads). Nothing here reaches the network.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export VIRTUAL_ENV="$root/.venv"
PATH="$root/.venv/bin:$PATH"
if [ -f "$root/.venv/pulumi-bin-dir" ]; then
  PATH="$(cat "$root/.venv/pulumi-bin-dir"):$PATH"
fi
# the Go toolchain, where this machine keeps it outside PATH (Go programs, examples/go-cluster)
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="$PATH:/usr/local/go/bin"
fi
export PATH
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_HOME="${PULUMI_HOME:-$root/.hyperpod/pulumi-home}"
# the same place Pulumi.yaml names (./state), so plain `pulumi` in the repo finds the stacks too
export PULUMI_BACKEND_URL="${PULUMI_BACKEND_URL:-file://$root/state}"
# one simulated world for everything run from this shell — the CLI, Python, the Pulumi providers of the
# root demo and of every example — wherever it runs from (without it: .hyperpod/ of the working directory)
export HYPERPOD_FAKE_STATE="${HYPERPOD_FAKE_STATE:-$root/.hyperpod/fake.sqlite}"
# The stacks' secrets provider is Pulumi's passphrase one: the passphrase is yours, from
# PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE. Only for this repository's own local
# state (the simulator's stacks; PULUMI_BACKEND_URL not set to another backend) and when you set
# neither, a fixed demo passphrase, so the docs run without a prompt: it protects nothing. No stack
# file is tracked, so no salt pins it (docs/pulumi.md#state-backends).
if [ -z "${PULUMI_CONFIG_PASSPHRASE+set}${PULUMI_CONFIG_PASSPHRASE_FILE:-}" ] && [ "$PULUMI_BACKEND_URL" = "file://$root/state" ]; then
  export PULUMI_CONFIG_PASSPHRASE=hyperpod-demo
fi
mkdir -p "$PULUMI_HOME"
case "$PULUMI_BACKEND_URL" in file://*) mkdir -p "${PULUMI_BACKEND_URL#file://}" ;; esac
