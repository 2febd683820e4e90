// Package langhost holds what pulumi-hyperpod's Node.js and Go language hosts share: the gRPC
// serving and flag handling every host needs, the mapping of a program's exit to a RunResponse,
// streaming a child's output into InstallDependencies, plugin discovery from pulumi-plugin.json
// files, and SDK generation (GeneratePackage) with the engine's own TypeScript and Go generators.
package langhost

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/structpb"
)

// BailExitCode is what the SDKs' runners exit with after they have shown the user an actionable
// error themselves: the engine then adds no message of its own.
const BailExitCode = 32

// Flags parses the command line the engine gives a language host: logging flags (-v, --logflow,
// --logtostderr), --tracing, runtime options some tools pass as flags (ignored: options come from
// RunRequest.Info), and the engine's address as the first argument.
func Flags() (tracing, engineAddress string) {
	t := flag.String("tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint")
	for _, name := range []string{"logtostderr", "logflow"} {
		if flag.Lookup(name) == nil {
			_ = flag.Bool(name, false, "logging")
		}
	}
	for _, name := range []string{"v", "root", "binary", "buildTarget", "typescript", "nodeargs", "packagemanager", "tsconfig"} {
		if flag.Lookup(name) == nil {
			_ = flag.String(name, "", "ignored")
		}
	}
	flag.Parse()
	logging.InitLogging(false, 0, false)
	if args := flag.Args(); len(args) > 0 {
		engineAddress = args[0]
	}
	return *t, engineAddress
}

// Serve registers the host, prints its port as the first stdout line (the engine reads it) and
// serves until the engine stops it.
func Serve(host pulumirpc.LanguageRuntimeServer) {
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		cmdutil.Exit(fmt.Errorf("could not start language host RPC server: %w", err))
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		cmdutil.Exit(fmt.Errorf("language host RPC stopped serving: %w", err))
	}
}

// EngineAddress is the engine's address, from the command line or the handshake (newer engines).
type EngineAddress struct {
	mu   sync.Mutex
	addr string
}

func (e *EngineAddress) Set(addr string) {
	if addr == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.addr = addr
}

func (e *EngineAddress) Get() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.addr
}

// Options are the project's `runtime.options` from Pulumi.yaml.
func Options(info *pulumirpc.ProgramInfo) map[string]any {
	if info == nil || info.GetOptions() == nil {
		return map[string]any{}
	}
	return info.GetOptions().AsMap()
}

// StringOption is a string runtime option, "" when absent; another type is an error naming it.
func StringOption(opts map[string]any, name string) (string, error) {
	v, ok := opts[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("Pulumi.yaml runtime.options.%s: must be a string, got %v", name, v)
	}
	return s, nil
}

// BoolOption is a boolean runtime option (true/false or their strings), def when absent.
func BoolOption(opts map[string]any, name string, def bool) (bool, error) {
	switch v := opts[name].(type) {
	case nil:
		return def, nil
	case bool:
		return v, nil
	case string:
		switch strings.ToLower(v) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, fmt.Errorf("Pulumi.yaml runtime.options.%s: must be true or false, got %v", name, opts[name])
}

// ProgramDirectory is where the program lives: info's program directory, else its root, else pwd.
func ProgramDirectory(info *pulumirpc.ProgramInfo, pwd string) string {
	if d := info.GetProgramDirectory(); d != "" {
		return d
	}
	if d := info.GetRootDirectory(); d != "" {
		return d
	}
	if pwd != "" {
		return pwd
	}
	cwd, _ := os.Getwd()
	return cwd
}

// InfoFromInstallRequest accepts the older engines' `directory` field too.
func InfoFromInstallRequest(req *pulumirpc.InstallDependenciesRequest) *pulumirpc.ProgramInfo {
	info := req.GetInfo()
	if info == nil && req.GetDirectory() != "" { //nolint:staticcheck
		dir := req.GetDirectory() //nolint:staticcheck
		info = &pulumirpc.ProgramInfo{RootDirectory: dir, ProgramDirectory: dir, EntryPoint: ".", Options: &structpb.Struct{}}
	}
	return info
}

// Outcome maps how a program's process ended to the engine's answer: 0 is success, BailExitCode
// a bail (the program already told the user), anything else an error with the code.
func Outcome(err error, what string) *pulumirpc.RunResponse {
	if err == nil {
		return &pulumirpc.RunResponse{}
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok {
			if ws.Exited() && ws.ExitStatus() == BailExitCode {
				return &pulumirpc.RunResponse{Bail: true}
			}
			if ws.Signaled() {
				return &pulumirpc.RunResponse{Error: fmt.Sprintf("%s was killed by signal %v", what, ws.Signal())}
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("%s exited with non-zero exit code: %d", what, ws.ExitStatus())}
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("%s exited unexpectedly: %v", what, exitErr)}
	}
	return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not start %s: %v", what, err)}
}

// ConfigEnv is the stack configuration as the SDKs read it: PULUMI_CONFIG (a JSON map) and
// PULUMI_CONFIG_SECRET_KEYS (a JSON list).
func ConfigEnv(req *pulumirpc.RunRequest) ([]string, error) {
	var env []string
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
	return env, nil
}

// StreamWriter sends what a child process writes to the engine as InstallDependencies output.
type StreamWriter struct {
	Mu     *sync.Mutex
	Send   func(*pulumirpc.InstallDependenciesResponse) error
	Stderr bool
}

func (w StreamWriter) Write(p []byte) (int, error) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	b := append([]byte(nil), p...)
	resp := &pulumirpc.InstallDependenciesResponse{Stdout: b}
	if w.Stderr {
		resp = &pulumirpc.InstallDependenciesResponse{Stderr: b}
	}
	if err := w.Send(resp); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Streams are a stdout/stderr pair for InstallDependencies.
func Streams(server pulumirpc.LanguageRuntime_InstallDependenciesServer) (StreamWriter, StreamWriter) {
	mu := &sync.Mutex{}
	return StreamWriter{Mu: mu, Send: server.Send}, StreamWriter{Mu: mu, Send: server.Send, Stderr: true}
}

// PackageFromPluginJSON is the resource plugin a package's pulumi-plugin.json (or package.json
// "pulumi" block) names, nil when it names none. fallbackName/fallbackVersion are the package's.
func PackageFromPluginJSON(p *plugin.PulumiPluginJSON, fallbackName, fallbackVersion string) *pulumirpc.PackageDependency {
	if p == nil || !p.Resource {
		return nil
	}
	name, version := p.Name, p.Version
	if name == "" {
		name = fallbackName
	}
	if version == "" {
		version = fallbackVersion
	}
	if name == "" {
		return nil
	}
	dep := &pulumirpc.PackageDependency{Name: name, Kind: "resource", Version: version, Server: p.Server}
	if par := p.Parameterization; par != nil {
		dep.Parameterization = &pulumirpc.PackageParameterization{Name: par.Name, Version: par.Version, Value: par.Value}
	}
	return dep
}

// PluginsFromPackages is the deprecated GetRequiredPlugins answer derived from the packages.
func PluginsFromPackages(pkgs []*pulumirpc.PackageDependency) []*pulumirpc.PluginDependency {
	out := make([]*pulumirpc.PluginDependency, 0, len(pkgs))
	for _, p := range pkgs {
		if p.GetParameterization() != nil {
			continue // a parameterized package is not a plugin of its own
		}
		out = append(out, &pulumirpc.PluginDependency{Name: p.Name, Kind: p.Kind, Version: p.Version, Server: p.Server})
	}
	return out
}

// PluginWriter sends what a plugin process writes to the engine as RunPlugin output, as it comes
// (an analyzer's first stdout line is the port the engine dials).
type PluginWriter struct {
	Mu     *sync.Mutex
	Send   func(*pulumirpc.RunPluginResponse) error
	Stderr bool
}

func (w PluginWriter) Write(p []byte) (int, error) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	b := append([]byte(nil), p...)
	resp := &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}}
	if w.Stderr {
		resp = &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}}
	}
	if err := w.Send(resp); err != nil {
		return 0, err
	}
	return len(p), nil
}

// RunPluginProcess runs cmd with its output streamed to the engine, then sends its exit code.
func RunPluginProcess(cmd *exec.Cmd, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	mu := &sync.Mutex{}
	cmd.Stdout = PluginWriter{Mu: mu, Send: server.Send}
	cmd.Stderr = PluginWriter{Mu: mu, Send: server.Send, Stderr: true}
	code := int32(0)
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return fmt.Errorf("could not start the plugin %s: %w", cmd.Path, err)
		}
		code = int32(exitErr.ExitCode())
	}
	mu.Lock()
	defer mu.Unlock()
	return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}
