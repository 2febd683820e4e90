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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	execScriptName = "pulumi-language-python-exec"
	// Exit code used by the exec script to say "an actionable error was already shown to the user".
	bailExitCode = 32
)

func main() {
	tracing := flag.String("tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint")
	givenExec := flag.String("use-executor", "", "Use this program instead of the exec script next to this binary")
	// Logging flags the engine passes with -v / --logflow (read by logging.InitLogging via flag.CommandLine);
	// some of them are already registered by imported packages. Also accept, and ignore, flags other tools pass
	// to language hosts: runtime options come from RunRequest.Info instead.
	for _, name := range []string{"logtostderr", "logflow"} {
		if flag.Lookup(name) == nil {
			_ = flag.Bool(name, false, "logging")
		}
	}
	for _, name := range []string{"v", "root", "virtualenv", "toolchain", "typechecker"} {
		if flag.Lookup(name) == nil {
			_ = flag.String(name, "", "ignored")
		}
	}
	flag.Parse()
	logging.InitLogging(false, 0, false)

	execPath := *givenExec
	if execPath == "" {
		self, err := os.Executable()
		if err != nil {
			cmdutil.Exit(fmt.Errorf("could not determine current executable: %w", err))
		}
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		execPath = filepath.Join(filepath.Dir(self), execScriptName)
		if _, err := os.Stat(execPath); err != nil {
			cmdutil.Exit(fmt.Errorf("missing executor %s: %w", execPath, err))
		}
	}

	var engineAddress string
	if args := flag.Args(); len(args) > 0 {
		engineAddress = args[0]
	}

	host := &pythonLanguageHost{exec: execPath, engineAddress: engineAddress, tracing: *tracing}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		cmdutil.Exit(fmt.Errorf("could not start language host RPC server: %w", err))
	}
	// The engine reads the port from our first stdout line.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		cmdutil.Exit(fmt.Errorf("language host RPC stopped serving: %w", err))
	}
}

type pythonLanguageHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	exec          string
	tracing       string
	mu            sync.Mutex
	engineAddress string
}

func (h *pythonLanguageHost) engine() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.engineAddress
}

func (h *pythonLanguageHost) Handshake(
	ctx context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	h.mu.Lock()
	if req.GetEngineAddress() != "" {
		h.engineAddress = req.GetEngineAddress()
	}
	h.mu.Unlock()
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *pythonLanguageHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

//nolint:staticcheck // deprecated in the protocol but still called by engines
func (h *pythonLanguageHost) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *pythonLanguageHost) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *pythonLanguageHost) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

// resolveToolchain maps Pulumi.yaml `runtime.options` (virtualenv, toolchain) onto the SDK's toolchain resolver.
func resolveToolchain(info *pulumirpc.ProgramInfo) (toolchain.Toolchain, error) {
	opts := toolchain.PythonOptions{Toolchain: toolchain.Auto}
	if info != nil {
		opts.Root = info.GetRootDirectory()
		opts.ProgramDir = info.GetProgramDirectory()
		m := structOptions(info.GetOptions())
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

func structOptions(s *structpb.Struct) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	return s.AsMap()
}

func (h *pythonLanguageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	tc, err := resolveToolchain(req.GetInfo())
	if err != nil {
		return nil, err
	}
	if err := tc.ValidateVenv(ctx); err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	args := []string{"-u", h.exec}
	add := func(k, v string) {
		if v != "" {
			args = append(args, "--"+k, v)
		}
	}
	add("monitor", req.GetMonitorAddress())
	add("engine", h.engine())
	add("project", req.GetProject())
	add("stack", req.GetStack())
	add("pwd", req.GetPwd())
	add("dry_run", strconv.FormatBool(req.GetDryRun()))
	add("parallel", strconv.Itoa(int(req.GetParallel())))
	add("tracing", h.tracing)
	add("organization", req.GetOrganization())
	program := req.GetProgram() //nolint:staticcheck
	if info := req.GetInfo(); info != nil {
		add("root_directory", info.GetRootDirectory())
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
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	if cfg := req.GetConfig(); len(cfg) > 0 {
		b, err := json.Marshal(cfg)
		if err != nil {
			return nil, fmt.Errorf("failed to serialize configuration: %w", err)
		}
		env = append(env, "PULUMI_CONFIG="+string(b))
	}
	if keys := req.GetConfigSecretKeys(); len(keys) > 0 {
		b, err := json.Marshal(keys)
		if err != nil {
			return nil, fmt.Errorf("failed to serialize secret config keys: %w", err)
		}
		env = append(env, "PULUMI_CONFIG_SECRET_KEYS="+string(b))
	}
	cmd.Env = env
	if req.GetPwd() != "" {
		cmd.Dir = req.GetPwd()
	}
	// Program output goes to our stdout/stderr, which the engine streams into the update's diagnostics.
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	logging.V(5).Infof("language host launching: %s %s", cmd.Path, strings.Join(cmd.Args[1:], " "))

	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok {
				if ws.ExitStatus() == bailExitCode {
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

type streamWriter struct {
	mu     *sync.Mutex
	send   func(*pulumirpc.InstallDependenciesResponse) error
	stderr bool
}

func (w streamWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := append([]byte(nil), p...)
	resp := &pulumirpc.InstallDependenciesResponse{Stdout: b}
	if w.stderr {
		resp = &pulumirpc.InstallDependenciesResponse{Stderr: b}
	}
	if err := w.send(resp); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (h *pythonLanguageHost) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	info := req.GetInfo()
	if info == nil && req.GetDirectory() != "" { //nolint:staticcheck
		info = &pulumirpc.ProgramInfo{RootDirectory: req.GetDirectory(), ProgramDirectory: req.GetDirectory()} //nolint:staticcheck
	}
	tc, err := resolveToolchain(info)
	if err != nil {
		return err
	}
	cwd := info.GetProgramDirectory()
	if cwd == "" {
		cwd = info.GetRootDirectory()
	}
	mu := &sync.Mutex{}
	stdout := streamWriter{mu: mu, send: server.Send}
	stderr := streamWriter{mu: mu, send: server.Send, stderr: true}
	return tc.InstallDependencies(server.Context(), cwd, req.GetUseLanguageVersionTools(), true, stdout, stderr)
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
	deps, err := tc.ListPackages(ctx, req.GetTransitiveDependencies())
	if err != nil {
		return nil, err
	}
	out := make([]*pulumirpc.DependencyInfo, 0, len(deps))
	for _, d := range deps {
		out = append(out, &pulumirpc.DependencyInfo{Name: d.Name, Version: d.Version})
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: out}, nil
}
