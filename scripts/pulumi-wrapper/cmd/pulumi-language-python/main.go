// pulumi-language-python: a small Python language host for pulumi-hyperpod.
//
// Why this exists: the upstream language host lives in its own Go module
// (github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3) that is
// not obtainable from the Go module registry reachable on our machines, so
// scripts/install-pulumi builds this replacement instead. It speaks the same
// gRPC protocol (pulumirpc.LanguageRuntime) and launches programs the same
// way: it runs the `pulumi-language-python-exec` script that sits beside this
// binary with the project's Python (virtualenv / uv / poetry resolved by the
// SDK's python/toolchain package, exactly as upstream resolves it), passing
// the run settings as flags and the stack config via PULUMI_CONFIG and
// PULUMI_CONFIG_SECRET_KEYS.
//
// Implemented: Handshake, GetRequiredPlugins/GetRequiredPackages (always
// empty: plugins are never acquired automatically in our offline setup; the
// dynamic-provider plugin `pulumi-python` is resolved from PATH by the
// engine), Run, GetPluginInfo, InstallDependencies, About,
// GetProgramDependencies, RuntimeOptionsPrompts (none), RunPlugin (Python
// policy packs and plugins with a __main__.py: runplugin.go).
// Not implemented (the engine treats Unimplemented as "not supported"):
// codegen (GenerateProject/Package/Program), Pack, Link, Template.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"pulumi-hyperpod.local/pulumi-wrapper/internal/langhost"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
)

const execScriptName = "pulumi-language-python-exec"

func main() {
	givenExec := flag.String("use-executor", "", "Use this program instead of the exec script next to this binary")
	host := &pythonLanguageHost{}
	host.ParseFlags("virtualenv", "toolchain", "typechecker")

	host.exec = *givenExec
	if host.exec == "" {
		self, err := os.Executable()
		if err != nil {
			cmdutil.Exit(fmt.Errorf("could not determine current executable: %w", err))
		}
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		host.exec = filepath.Join(filepath.Dir(self), execScriptName)
		if _, err := os.Stat(host.exec); err != nil {
			cmdutil.Exit(fmt.Errorf("missing executor %s: %w", host.exec, err))
		}
	}
	langhost.Serve(host)
}

// pythonLanguageHost leaves GetRequiredPackages empty (langhost.Base without RequiredPackages).
type pythonLanguageHost struct {
	langhost.Base

	exec string
}

// resolveToolchain maps Pulumi.yaml `runtime.options` (virtualenv, toolchain) onto the SDK's toolchain resolver.
func resolveToolchain(info *pulumirpc.ProgramInfo) (toolchain.Toolchain, error) {
	opts := toolchain.PythonOptions{Toolchain: toolchain.Auto}
	if info != nil {
		opts.Root = info.GetRootDirectory()
		opts.ProgramDir = info.GetProgramDirectory()
		m := langhost.Options(info)
		if v, ok := m["virtualenv"].(string); ok {
			opts.Virtualenv = v
		}
		if v, ok := m["toolchain"].(string); ok {
			switch strings.ToLower(v) {
			case "pip":
				opts.Toolchain = toolchain.Pip
			case "poetry":
				opts.Toolchain = toolchain.Poetry
			case "uv":
				opts.Toolchain = toolchain.Uv
			case "", "auto":
			default:
				return nil, fmt.Errorf("unsupported python toolchain %q", v)
			}
		}
	}
	if opts.ProgramDir == "" {
		opts.ProgramDir = opts.Root
	}
	if opts.Root == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.Root, opts.ProgramDir = cwd, cwd
	}
	return toolchain.ResolveToolchain(opts)
}

func (h *pythonLanguageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	tc, err := resolveToolchain(req.GetInfo())
	if err != nil {
		return nil, err
	}
	if err := tc.ValidateVenv(ctx); err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	args := langhost.RunnerArgs{"-u", h.exec}
	args.Add("monitor", req.GetMonitorAddress())
	args.Add("engine", h.Engine.Get())
	args.Add("project", req.GetProject())
	args.Add("stack", req.GetStack())
	args.Add("pwd", req.GetPwd())
	args.Add("dry_run", strconv.FormatBool(req.GetDryRun()))
	args.Add("parallel", strconv.Itoa(int(req.GetParallel())))
	args.Add("tracing", h.Tracing)
	args.Add("organization", req.GetOrganization())
	program := req.GetProgram() //nolint:staticcheck
	if info := req.GetInfo(); info != nil {
		args.Add("root_directory", info.GetRootDirectory())
		entry := info.GetEntryPoint()
		if entry == "" {
			entry = "."
		}
		program = entry
		if info.GetProgramDirectory() != "" && !filepath.IsAbs(entry) {
			program = filepath.Join(info.GetProgramDirectory(), entry)
		}
	}
	if program == "" {
		program = "."
	}
	args = append(args, program)
	args = append(args, req.GetArgs()...)

	cmd, err := tc.Command(ctx, args...)
	if err != nil {
		return nil, err
	}
	if cmd.Env, err = langhost.ConfigEnv(cmd.Env, req); err != nil {
		return nil, err
	}
	// Not langhost.Outcome: the Python host keeps its own wording of these answers.
	if err := langhost.Launch(cmd, req); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok {
				if ws.ExitStatus() == langhost.BailExitCode {
					return &pulumirpc.RunResponse{Bail: true}, nil
				}
				return &pulumirpc.RunResponse{
					Error: fmt.Sprintf("Program exited with non-zero exit code: %d", ws.ExitStatus()),
				}, nil
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited unexpectedly: %v", exitErr)}, nil
		}
		return &pulumirpc.RunResponse{
			Error: fmt.Sprintf("Problem executing program (could not run language executor): %v", err),
		}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

func (h *pythonLanguageHost) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	info := langhost.InfoFromInstallRequest(req)
	tc, err := resolveToolchain(info)
	if err != nil {
		return err
	}
	stdout, stderr := langhost.Streams(server)
	dir := langhost.ProgramDirectory(info, "")
	return tc.InstallDependencies(server.Context(), dir, req.GetUseLanguageVersionTools(), true, stdout, stderr)
}

func (h *pythonLanguageHost) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	tc, err := resolveToolchain(req.GetInfo())
	if err != nil {
		return nil, err
	}
	about, err := tc.About(ctx)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{
		Executable: about.PythonExecutable,
		Version:    about.PythonVersion.String(),
		Metadata:   map[string]string{"languageHost": "pulumi-hyperpod minimal python host"},
	}, nil
}

func (h *pythonLanguageHost) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	tc, err := resolveToolchain(req.GetInfo())
	if err != nil {
		return nil, err
	}
	return langhost.ProgramDependencies(tc.ListPackages(ctx, req.GetTransitiveDependencies()))
}
