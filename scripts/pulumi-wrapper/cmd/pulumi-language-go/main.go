// pulumi-language-go: pulumi-hyperpod's Go language host.
//
// Why this exists: the upstream host is its own Go module
// (github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3), which the Go module registry reachable
// here does not serve, so scripts/install-pulumi builds this one instead. It speaks
// pulumirpc.LanguageRuntime and runs a program the way upstream does: `go build` compiles the
// program (the module cache and build cache as usual) into a binary kept per program under
// $PULUMI_HYPERPOD_CACHE (default ~/.cache/pulumi-hyperpod)/go-programs, which runs with the settings in the environment the Go SDK reads (PULUMI_MONITOR,
// PULUMI_ENGINE, PULUMI_PROJECT, PULUMI_STACK, PULUMI_DRY_RUN, PULUMI_PARALLEL, PULUMI_CONFIG, …).
//
// Runtime options (Pulumi.yaml `runtime.options`): binary (a prebuilt program to run instead of
// building; relative to the program directory), buildTarget (the package to build, default ".").
//
// Implemented: Handshake, Run, GetRequiredPlugins/GetRequiredPackages (the packages the program
// imports whose directory holds a pulumi-plugin.json naming a resource plugin),
// InstallDependencies (`go mod download`), GetProgramDependencies (`go list -m`), About,
// GetPluginInfo, RuntimeOptionsPrompts (none), GeneratePackage (`pulumi package gen-sdk`),
// RunPlugin (a plugin written in Go, from its source directory: built like a program, then run
// with the engine's arguments and environment).
// Not implemented (Unimplemented): GenerateProject/GenerateProgram, Pack, Link.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"pulumi-hyperpod.local/pulumi-wrapper/internal/langhost"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func main() {
	host := &goHost{SDKGenerator: langhost.SDKGenerator{Language: "go"}}
	host.RequiredPackages = requiredPackages
	host.ParseFlags("binary", "buildTarget")
	langhost.Serve(host)
}

type goHost struct {
	langhost.Base
	langhost.SDKGenerator
}

func goTool() (string, error) {
	if g := os.Getenv("GO"); g != "" {
		return g, nil
	}
	if g, err := exec.LookPath("go"); err == nil {
		return g, nil
	}
	if _, err := os.Stat("/usr/local/go/bin/go"); err == nil {
		return "/usr/local/go/bin/go", nil
	}
	return "", errors.New("the Go toolchain (go) is not on PATH: Go programs need it to build")
}

// goCommand runs `go args...` in dir; its stderr comes back in the error.
func goCommand(ctx context.Context, dir string, args ...string) ([]byte, error) {
	g, err := goTool()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, g, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("`go %s` in %s: %w\n%s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// outputPath is where the program's binary is built: a fixed path per program directory and
// build target under the cache directory, not a fresh temporary file, because `go build` skips
// the link when the binary already there has the build ID it would produce (seconds saved on
// every preview of an unchanged program).
func outputPath(programDir, target string) (string, error) {
	root := os.Getenv("PULUMI_HYPERPOD_CACHE")
	if root == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache directory for the Go program's binary: %w", err)
		}
		root = filepath.Join(dir, "pulumi-hyperpod")
	}
	sum := sha256.Sum256([]byte(programDir + "\x00" + target))
	programs := filepath.Join(root, "go-programs")
	dir := filepath.Join(programs, hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "source"), []byte(programDir), 0o600); err != nil {
		return "", err
	}
	pruneGone(programs)
	return filepath.Join(dir, "program"), nil
}

// pruneGone removes the kept binaries of programs whose directory no longer exists (a deleted
// checkout, a test's temporary project): each entry records its program directory in `source`.
func pruneGone(programs string) {
	entries, err := os.ReadDir(programs)
	if err != nil {
		return
	}
	for _, e := range entries {
		source, err := os.ReadFile(filepath.Join(programs, e.Name(), "source"))
		if err != nil {
			continue // being created by another run, or not ours
		}
		if _, err := os.Stat(string(source)); errors.Is(err, os.ErrNotExist) {
			_ = os.RemoveAll(filepath.Join(programs, e.Name()))
		}
	}
}

// build is the binary to run for the program in dir: the `binary` option's, else `go build` of
// target (default ".") into outputPath. Compiler errors go to errOut, for the user to read.
func build(ctx context.Context, dir, binary, target string, errOut io.Writer) (string, error) {
	if binary != "" {
		if !filepath.IsAbs(binary) {
			binary = filepath.Join(dir, binary)
		}
		return binary, nil
	}
	if target == "" {
		target = "."
	}
	program, err := outputPath(dir, target)
	if err != nil {
		return "", err
	}
	g, err := goTool()
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, g, "build", "-o", program, target)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = errOut, errOut
	logging.V(5).Infof("language host building: go build -o %s %s (in %s)", program, target, dir)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("unable to build the Go program in %s: %w", dir, err)
	}
	return program, nil
}

// buildOptions are the runtime options that say what to run: binary (prebuilt) and buildTarget.
func buildOptions(info *pulumirpc.ProgramInfo) (binary, target string, err error) {
	opts := langhost.Options(info)
	if binary, err = langhost.StringOption(opts, "binary"); err != nil {
		return "", "", err
	}
	target, err = langhost.StringOption(opts, "buildTarget")
	return binary, target, err
}

func (h *goHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	programDir := langhost.ProgramDirectory(info, req.GetPwd())
	binary, target, err := buildOptions(info)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	program, err := build(ctx, programDir, binary, target, os.Stderr)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	env, err := langhost.ConfigEnv(nil, req)
	if err != nil {
		return nil, err
	}
	set := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	set("PULUMI_MONITOR", req.GetMonitorAddress())
	set("PULUMI_ENGINE", h.Engine.Get())
	set("PULUMI_ORGANIZATION", req.GetOrganization())
	set("PULUMI_PROJECT", req.GetProject())
	set("PULUMI_STACK", req.GetStack())
	set("PULUMI_ROOT_DIRECTORY", info.GetRootDirectory())
	set("PULUMI_DRY_RUN", strconv.FormatBool(req.GetDryRun()))
	set("PULUMI_PARALLEL", strconv.Itoa(int(req.GetParallel())))
	set("PULUMI_TRACING", h.Tracing)

	cmd := exec.CommandContext(ctx, program, req.GetArgs()...)
	cmd.Env = env
	return langhost.RunProgram(cmd, req, programDir, "the Go program"), nil
}

// goPackage is the part of `go list -json` output read here.
type goPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *struct {
		Path    string
		Version string
	}
}

// requiredPackages lists the packages the program imports (`go list -deps`) and keeps those
// whose directory holds a pulumi-plugin.json naming a resource plugin: where generated Go SDKs
// (this project's sdk/go/hyperpod among them) say which plugin they need.
func requiredPackages(ctx context.Context, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error) {
	dir := langhost.ProgramDirectory(info, "")
	target, err := langhost.StringOption(langhost.Options(info), "buildTarget")
	if err != nil {
		return nil, err
	}
	if target == "" {
		target = "."
	}
	out, err := goCommand(ctx, dir, "list", "-deps", "-json=ImportPath,Dir,Standard,Module", target)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var pkgs []*pulumirpc.PackageDependency
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading `go list -deps`: %w", err)
		}
		if p.Standard || p.Dir == "" {
			continue
		}
		pluginJSON, err := plugin.LoadPulumiPluginJSON(filepath.Join(p.Dir, "pulumi-plugin.json"))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(p.Dir, "pulumi-plugin.json"), err)
		}
		dep := langhost.PackageFromPluginJSON(pluginJSON, filepath.Base(p.ImportPath), "")
		if dep != nil && !seen[dep.Name+"@"+dep.Version] {
			seen[dep.Name+"@"+dep.Version] = true
			pkgs = append(pkgs, dep)
		}
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Name < pkgs[j].Name })
	return pkgs, nil
}

// InstallDependencies downloads the modules go.mod requires (`go mod download`); it does not
// rewrite go.mod or go.sum.
func (h *goHost) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	info := langhost.InfoFromInstallRequest(req)
	g, err := goTool()
	if err != nil {
		return err
	}
	stdout, stderr := langhost.Streams(server)
	cmd := exec.CommandContext(server.Context(), g, "mod", "download", "-x")
	cmd.Dir = langhost.ProgramDirectory(info, "")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("`go mod download` in %s failed: %w", cmd.Dir, err)
	}
	return nil
}

func (h *goHost) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	out, err := goCommand(ctx, langhost.ProgramDirectory(req.GetInfo(), ""), "list", "-m", "-json", "all")
	if err != nil {
		return nil, err
	}
	var deps []*pulumirpc.DependencyInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct {
			Path, Version  string
			Main, Indirect bool
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading `go list -m`: %w", err)
		}
		if m.Main || (m.Indirect && !req.GetTransitiveDependencies()) {
			continue
		}
		deps = append(deps, &pulumirpc.DependencyInfo{Name: m.Path, Version: m.Version})
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}

func (h *goHost) About(ctx context.Context, _ *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	g, err := goTool()
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, g, "env", "GOVERSION").Output()
	if err != nil {
		return nil, fmt.Errorf("`go env GOVERSION`: %w", err)
	}
	line, _ := bufio.NewReader(bytes.NewReader(out)).ReadString('\n')
	return &pulumirpc.AboutResponse{
		Executable: g,
		Version:    strings.TrimPrefix(strings.TrimSpace(line), "go"),
		Metadata:   map[string]string{"languageHost": "pulumi-hyperpod go host"},
	}, nil
}

// RunPlugin runs a plugin written in Go (a provider or policy pack whose PulumiPlugin.yaml or
// PulumiPolicy.yaml says `runtime: go`): built from its directory like a program, then run with
// the engine's arguments and environment, its output streamed to the engine, then its exit code.
func (h *goHost) RunPlugin(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	info := req.GetInfo()
	dir := langhost.ProgramDirectory(info, req.GetPwd())
	binary, target, err := buildOptions(info)
	if err != nil {
		return err
	}
	var buildOutput bytes.Buffer
	program, err := build(server.Context(), dir, binary, target, &buildOutput)
	if err != nil {
		return fmt.Errorf("%w\n%s", err, strings.TrimSpace(buildOutput.String()))
	}
	cmd := exec.CommandContext(server.Context(), program, req.GetArgs()...)
	cmd.Env = langhost.PluginEnv(req)
	cmd.Dir = dir
	if req.GetPwd() != "" {
		cmd.Dir = req.GetPwd()
	}
	return langhost.RunPluginProcess(cmd, server)
}
