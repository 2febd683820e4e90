package main

// RunPlugin: Python policy packs (kind "analyzer", run by `pulumi preview --policy-pack DIR`) and
// Python plugins with a __main__.py, started the way the upstream host starts them
// (sdk/python/cmd/pulumi-language-python/main.go in pulumi/pulumi):
//
//   - a policy pack runs as `python -u -m pulumi.policy <args...> <pack dir>` in the pack's
//     directory, with the pack's virtualenv (PulumiPolicy.yaml `runtime.options.virtualenv`). The
//     engine first sends the stack's configuration over the Analyzer protocol; old-style packs
//     (pulumi-policy) read it from PULUMI_PROJECT / PULUMI_STACK / PULUMI_DRY_RUN / PULUMI_CONFIG,
//     so the SDK's PolicyProxy answers the engine, waits for that configuration, sets the variables
//     and then forwards every Analyzer call to the pack once it has printed its port.
//   - any other plugin runs as `python <plugin dir> <args...>` in the engine's working directory.
//
// Not supported (an error naming it): plugins that are buildable packages without a __main__.py
// (upstream runs them through `pulumi.run.plugin`), and attaching a debugger.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func (h *pythonLanguageHost) RunPlugin(
	req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer,
) error {
	ctx := server.Context()
	info := req.GetInfo()
	if info == nil {
		return errors.New("RunPlugin: the request names no plugin directory")
	}
	if req.GetAttachDebugger() {
		return errors.New("RunPlugin: attaching a debugger is not supported by the pulumi-hyperpod python language host")
	}
	analyzer := req.GetKind() == string(apitype.AnalyzerPlugin)
	name := req.GetName()
	if name == "" { // the engine sends no name for a local policy pack
		name = info.GetProgramDirectory()
	}
	tc, err := resolveToolchain(info)
	if err != nil {
		return err
	}
	if err := tc.ValidateVenv(ctx); err != nil {
		return fmt.Errorf("plugin %s: %w", name, err)
	}

	var args []string
	if analyzer {
		// The pack's directory goes last: pulumi.policy's __main__ reads (engine address, program).
		args = append([]string{"-u", "-m", "pulumi.policy"}, req.GetArgs()...)
		args = append(args, info.GetProgramDirectory())
	} else {
		mainPy := filepath.Join(info.GetProgramDirectory(), "__main__.py")
		if _, err := os.Stat(mainPy); err != nil {
			return fmt.Errorf("plugin %s: no __main__.py in %s (plugins packaged for pulumi.run.plugin are not supported by "+
				"the pulumi-hyperpod python language host)", name, info.GetProgramDirectory())
		}
		args = append([]string{info.GetProgramDirectory()}, req.GetArgs()...)
	}
	cmd, err := tc.Command(ctx, args...)
	if err != nil {
		return err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	// Policy packs have always run in their own directory; other plugins where the engine runs.
	cmd.Dir = req.GetPwd()
	if analyzer {
		cmd.Dir = info.GetProgramDirectory()
	}

	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	defer closer.Close()

	var proxy *sdk.PolicyProxy
	if analyzer {
		// The proxy prints its own port on stdout (what the engine dials) and returns the writer the
		// pack's stdout must go to: the proxy reads the pack's port from it, then copies the rest.
		proxy, stdout, err = sdk.NewPolicyProxy(ctx, stdout)
		if err != nil {
			return fmt.Errorf("could not start the policy pack proxy: %w", err)
		}
		config, err := proxy.AwaitConfiguration(ctx)
		if err != nil {
			return fmt.Errorf("could not get the stack configuration for the policy pack: %w", err)
		}
		env, err := policyPackEnv(config)
		if err != nil {
			return err
		}
		cmd.Env = append(cmd.Env, env...)
	}
	cmd.Env = append(cmd.Env, req.GetEnv()...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	logging.V(5).Infof("RunPlugin %s: %s (in %s)", name, cmd.String(), cmd.Dir)

	if err := runPlugin(ctx, cmd, proxy); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok {
				return server.Send(&pulumirpc.RunPluginResponse{
					Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(ws.ExitStatus())},
				})
			}
			return fmt.Errorf("plugin %s exited unexpectedly: %w", name, exitErr)
		}
		if proxy != nil {
			proxy.Abort(err)
		}
		return fmt.Errorf("could not run plugin %s: %w", name, err)
	}
	return closer.Close()
}

// runPlugin starts the plugin and waits for it; a policy pack is waited for by the proxy, which
// attaches to it once it has printed its port.
func runPlugin(ctx context.Context, cmd *exec.Cmd, proxy *sdk.PolicyProxy) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if proxy != nil {
		return proxy.Attach(ctx, cmd)
	}
	return cmd.Wait()
}

// policyPackEnv: the stack's identity and configuration as pulumi-policy reads them.
func policyPackEnv(config *pulumirpc.AnalyzerStackConfigureRequest) ([]string, error) {
	if config == nil {
		return nil, nil
	}
	var env []string
	add := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	add("PULUMI_ORGANIZATION", config.GetOrganization())
	add("PULUMI_PROJECT", config.GetProject())
	add("PULUMI_STACK", config.GetStack())
	add("PULUMI_DRY_RUN", strconv.FormatBool(config.GetDryRun()))
	if cfg := config.GetConfig(); cfg != nil {
		b, err := json.Marshal(cfg)
		if err != nil {
			return nil, fmt.Errorf("could not serialize the stack configuration: %w", err)
		}
		add("PULUMI_CONFIG", string(b))
	}
	return env, nil
}
