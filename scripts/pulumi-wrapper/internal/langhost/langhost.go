// Package langhost holds what pulumi-hyperpod's language hosts (Python, Node.js, Go) share: the
// gRPC serving, flag handling and language-neutral RPCs every host needs (base.go), runtime
// options, the stack configuration in a program's environment, streaming a child's output into
// InstallDependencies; and for the Node.js and Go hosts the running of a program and the mapping
// of its exit to a RunResponse, plugin discovery from pulumi-plugin.json files, running a plugin,
// and SDK generation (GeneratePackage) with the engine's own TypeScript and Go generators.
package langhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"
)

// BailExitCode is what the SDKs' runners exit with after they have shown the user an actionable
// error themselves: the engine then adds no message of its own.
const BailExitCode = 32

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

// ConfigEnv is env (this process's environment when nil) with the stack configuration as the
// SDKs read it: PULUMI_CONFIG (a JSON map) and PULUMI_CONFIG_SECRET_KEYS (a JSON list).
func ConfigEnv(env []string, req *pulumirpc.RunRequest) ([]string, error) {
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
	return env, nil
}

// RunProgram runs a program's process in the engine's working directory, else programDir (Launch),
// and answers with its Outcome; what names the program in the answer.
func RunProgram(cmd *exec.Cmd, req *pulumirpc.RunRequest, programDir, what string) *pulumirpc.RunResponse {
	cmd.Dir = programDir
	return Outcome(Launch(cmd, req), what)
}

// Launch runs a program's process, in the engine's working directory when the request names one,
// with its output on ours, which the engine streams into the update's diagnostics.
func Launch(cmd *exec.Cmd, req *pulumirpc.RunRequest) error {
	if req.GetPwd() != "" {
		cmd.Dir = req.GetPwd()
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	logging.V(5).Infof("language host launching: %s %s", cmd.Path, strings.Join(cmd.Args[1:], " "))
	return cmd.Run()
}

// PluginEnv is the environment the engine gives a plugin, else this process's.
func PluginEnv(req *pulumirpc.RunPluginRequest) []string {
	if env := req.GetEnv(); len(env) > 0 {
		return env
	}
	return os.Environ()
}

// RunnerArgs are the command line of an SDK's program runner: `--name value` flags.
type RunnerArgs []string

// Add appends `--name value`, only when value is not empty.
func (a *RunnerArgs) Add(name, value string) {
	if value != "" {
		*a = append(*a, "--"+name, value)
	}
}

// ProgramDependencies answers GetProgramDependencies with what an SDK's package manager listed.
func ProgramDependencies(deps []plugin.DependencyInfo, err error) (*pulumirpc.GetProgramDependenciesResponse, error) {
	if err != nil {
		return nil, err
	}
	out := make([]*pulumirpc.DependencyInfo, 0, len(deps))
	for _, d := range deps {
		out = append(out, &pulumirpc.DependencyInfo{Name: d.Name, Version: d.Version})
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: out}, nil
}

// messageWriter sends each chunk a child process writes to the engine as it comes, as one message
// made by wrap; writers sharing mu never send at once (a gRPC stream must not be sent on
// concurrently).
type messageWriter[M any] struct {
	mu   *sync.Mutex
	send func(M) error
	wrap func([]byte) M
}

func (w messageWriter[M]) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.send(w.wrap(append([]byte(nil), p...))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Streams are a stdout/stderr pair for InstallDependencies.
func Streams(server pulumirpc.LanguageRuntime_InstallDependenciesServer) (stdout, stderr io.Writer) {
	type msg = *pulumirpc.InstallDependenciesResponse
	mu := &sync.Mutex{}
	stdout = messageWriter[msg]{mu, server.Send, func(b []byte) msg { return &pulumirpc.InstallDependenciesResponse{Stdout: b} }}
	stderr = messageWriter[msg]{mu, server.Send, func(b []byte) msg { return &pulumirpc.InstallDependenciesResponse{Stderr: b} }}
	return stdout, stderr
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

// RunPluginProcess runs cmd with its output streamed to the engine, then sends its exit code.
func RunPluginProcess(cmd *exec.Cmd, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	// Output goes to the engine as it comes: an analyzer's first stdout line is the port it dials.
	type msg = *pulumirpc.RunPluginResponse
	mu := &sync.Mutex{}
	cmd.Stdout = messageWriter[msg]{mu, server.Send, func(b []byte) msg {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}}
	}}
	cmd.Stderr = messageWriter[msg]{mu, server.Send, func(b []byte) msg {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}}
	}}
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
