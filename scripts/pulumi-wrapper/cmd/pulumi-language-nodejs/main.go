// pulumi-language-nodejs: pulumi-hyperpod's Node.js language host (TypeScript and JavaScript).
//
// Why this exists: the upstream host is its own Go module
// (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3), which the Go module
// registry reachable here does not serve, so scripts/install-pulumi builds this one instead. It
// speaks pulumirpc.LanguageRuntime and runs a program the way upstream does: `node` runs the
// Node.js SDK's own program runner, `@pulumi/pulumi/cmd/run` from the program's node_modules,
// with the run settings as flags (--monitor, --engine, --project, --stack, --dry-run, --parallel,
// …), the stack config in PULUMI_CONFIG / PULUMI_CONFIG_SECRET_KEYS, and TypeScript through the
// runner's own ts-node registration (PULUMI_NODEJS_TYPESCRIPT, PULUMI_NODEJS_TSCONFIG_PATH).
//
// Runtime options (Pulumi.yaml `runtime.options`): typescript (default true), tsconfig,
// nodeargs, packagemanager (npm, yarn, pnpm, bun; default: from the lock file).
//
// Implemented: Handshake, Run, GetRequiredPlugins/GetRequiredPackages (the installed packages
// whose package.json "pulumi" block or pulumi-plugin.json names a resource plugin),
// InstallDependencies, GetProgramDependencies, About, GetPluginInfo, RuntimeOptionsPrompts
// (none), GeneratePackage (`pulumi package gen-sdk`), RunPlugin (TypeScript/JavaScript policy
// packs through the SDK's `cmd/run-policy-pack`, other plugins through `cmd/run-plugin`).
// Not implemented (Unimplemented): GenerateProject/GenerateProgram, Pack, Link.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"pulumi-hyperpod.local/pulumi-wrapper/internal/langhost"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/nodejs/npm"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// The SDK's runners (programs, policy packs, other plugins), resolved from the program's directory
// the way `require.resolve("@pulumi/pulumi/cmd/run")` would.
var (
	runnerPath    = filepath.Join("node_modules", "@pulumi", "pulumi", "cmd", "run")
	policyRunPath = filepath.Join("node_modules", "@pulumi", "pulumi", "cmd", "run-policy-pack")
	pluginRunPath = filepath.Join("node_modules", "@pulumi", "pulumi", "cmd", "run-plugin")
)

func main() {
	host := &nodeHost{SDKGenerator: langhost.SDKGenerator{Language: "nodejs"}}
	host.RequiredPackages = requiredPackages
	host.ParseFlags("typescript", "tsconfig", "nodeargs", "packagemanager")
	langhost.Serve(host)
}

type nodeHost struct {
	langhost.Base
	langhost.SDKGenerator
}

// searchUp is the first dir/rel at or above dir that exists, "" when none (Node's module resolution).
func searchUp(dir, rel string) string {
	for {
		candidate := filepath.Join(dir, rel)
		if _, err := os.Stat(candidate); err == nil {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func (h *nodeHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	opts := langhost.Options(info)
	programDir := langhost.ProgramDirectory(info, req.GetPwd())
	typescript, err := langhost.BoolOption(opts, "typescript", true)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	tsconfig, err := langhost.StringOption(opts, "tsconfig")
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	nodeargs, err := langhost.StringOption(opts, "nodeargs")
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	runner := searchUp(programDir, runnerPath)
	if runner == "" {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf(
			"the Pulumi Node.js SDK (@pulumi/pulumi) is not installed for %s: run `npm install` (or `pulumi install`) there",
			programDir)}, nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "node is not on PATH: Node.js programs need Node.js installed"}, nil
	}

	args := langhost.RunnerArgs(append(strings.Fields(nodeargs), runner))
	args.Add("monitor", req.GetMonitorAddress())
	args.Add("engine", h.Engine.Get())
	args.Add("organization", req.GetOrganization())
	args.Add("project", req.GetProject())
	args.Add("stack", req.GetStack())
	args.Add("root-directory", info.GetRootDirectory())
	args.Add("pwd", req.GetPwd())
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 1 {
		args.Add("parallel", strconv.Itoa(int(req.GetParallel())))
	}
	args.Add("tracing", h.Tracing)
	entry := info.GetEntryPoint()
	if entry == "" {
		entry = "." // the runner then takes package.json's main (or exports), else index.{ts,js}
	}
	if entry != "." && !filepath.IsAbs(entry) {
		entry = filepath.Join(programDir, entry)
	}
	args = append(args, entry)
	args = append(args, req.GetArgs()...)

	env, err := langhost.ConfigEnv(nil, req)
	if err != nil {
		return nil, err
	}
	env = append(env, "PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(typescript))
	if tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+tsconfig)
	}

	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = env
	return langhost.RunProgram(cmd, req, programDir, "the Node.js program"), nil
}

// requiredPackages reads every installed package at or above the program's node_modules (hoisted
// transitive dependencies included, @scoped ones too) and keeps those naming a resource plugin.
func requiredPackages(_ context.Context, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error) {
	seen := map[string]bool{}
	var out []*pulumirpc.PackageDependency
	for dir := langhost.ProgramDirectory(info, ""); ; {
		modules := filepath.Join(dir, "node_modules")
		if entries, err := os.ReadDir(modules); err == nil {
			for _, e := range entries {
				if !e.IsDir() && e.Type()&os.ModeSymlink == 0 {
					continue
				}
				pkgDirs := []string{filepath.Join(modules, e.Name())}
				if strings.HasPrefix(e.Name(), "@") {
					pkgDirs = nil
					scoped, _ := os.ReadDir(filepath.Join(modules, e.Name()))
					for _, s := range scoped {
						pkgDirs = append(pkgDirs, filepath.Join(modules, e.Name(), s.Name()))
					}
				}
				for _, pkgDir := range pkgDirs {
					dep, err := packageDependency(pkgDir)
					if err != nil {
						return nil, err
					}
					if dep != nil && !seen[dep.Name+"@"+dep.Version] {
						seen[dep.Name+"@"+dep.Version] = true
						out = append(out, dep)
					}
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// packageDependency is the plugin one installed package names: its pulumi-plugin.json, else the
// "pulumi" block of its package.json (older SDKs), with the package's version as the default.
func packageDependency(pkgDir string) (*pulumirpc.PackageDependency, error) {
	var manifest struct {
		Name    string                   `json:"name"`
		Version string                   `json:"version"`
		Pulumi  *plugin.PulumiPluginJSON `json:"pulumi"`
	}
	b, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return nil, nil //nolint:nilerr // not a package (a stray directory): nothing to require
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(pkgDir, "package.json"), err)
	}
	pluginJSON, err := plugin.LoadPulumiPluginJSON(filepath.Join(pkgDir, "pulumi-plugin.json"))
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("%s: %w", filepath.Join(pkgDir, "pulumi-plugin.json"), err)
	}
	if pluginJSON == nil {
		pluginJSON = manifest.Pulumi
	}
	if pluginJSON == nil {
		return nil, nil
	}
	name := strings.TrimPrefix(manifest.Name, "@pulumi/")
	return langhost.PackageFromPluginJSON(pluginJSON, name, manifest.Version), nil
}

func packageManager(info *pulumirpc.ProgramInfo) (npm.PackageManagerType, error) {
	name, err := langhost.StringOption(langhost.Options(info), "packagemanager")
	if err != nil || name == "" {
		return npm.AutoPackageManager, err
	}
	switch pm := npm.PackageManagerType(name); pm {
	case npm.NpmPackageManager, npm.YarnPackageManager, npm.PnpmPackageManager, npm.BunPackageManager, npm.AutoPackageManager:
		return pm, nil
	}
	return "", fmt.Errorf("Pulumi.yaml runtime.options.packagemanager: %q is not one of npm, yarn, pnpm, bun", name)
}

func (h *nodeHost) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	info := langhost.InfoFromInstallRequest(req)
	pm, err := packageManager(info)
	if err != nil {
		return err
	}
	stdout, stderr := langhost.Streams(server)
	name, err := npm.Install(server.Context(), pm, langhost.ProgramDirectory(info, ""), false, stdout, stderr)
	if err != nil {
		return fmt.Errorf("%s install failed: %w", name, err)
	}
	return nil
}

func (h *nodeHost) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	pm, err := packageManager(req.GetInfo())
	if err != nil {
		return nil, err
	}
	dir := langhost.ProgramDirectory(req.GetInfo(), "")
	manager, err := npm.ResolvePackageManager(pm, dir)
	if err != nil {
		return nil, err
	}
	return langhost.ProgramDependencies(manager.ListPackages(ctx, dir, req.GetTransitiveDependencies()))
}

func (h *nodeHost) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not on PATH: %w", err)
	}
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("`node --version`: %w", err)
	}
	return &pulumirpc.AboutResponse{
		Executable: node,
		Version:    strings.TrimPrefix(strings.TrimSpace(string(out)), "v"),
		Metadata:   map[string]string{"languageHost": "pulumi-hyperpod nodejs host"},
	}, nil
}

// RunPlugin runs a plugin written in TypeScript or JavaScript: a policy pack (kind "analyzer",
// `pulumi preview --policy-pack DIR` with `runtime: nodejs` in PulumiPolicy.yaml) through the SDK's
// run-policy-pack with the engine's address, anything else through run-plugin. Its output is
// streamed to the engine, then its exit code.
func (h *nodeHost) RunPlugin(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	info := req.GetInfo()
	opts := langhost.Options(info)
	dir := langhost.ProgramDirectory(info, req.GetPwd())
	typescript, err := langhost.BoolOption(opts, "typescript", true)
	if err != nil {
		return err
	}
	nodeargs, err := langhost.StringOption(opts, "nodeargs")
	if err != nil {
		return err
	}
	runPath := pluginRunPath
	if req.GetKind() == "analyzer" {
		runPath = policyRunPath
	}
	runner := searchUp(dir, runPath)
	if runner == "" {
		return fmt.Errorf("the Pulumi Node.js SDK (@pulumi/pulumi) is not installed for the plugin in %s: run `npm install` there", dir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return errors.New("node is not on PATH: Node.js plugins need Node.js installed")
	}
	args := append(strings.Fields(nodeargs), runner)
	if req.GetKind() == "analyzer" {
		args = append(args, req.GetArgs()...) // <engine address>, then the pack
		args = append(args, dir)
	} else {
		args = append(args, dir)
		args = append(args, req.GetArgs()...)
	}
	cmd := exec.CommandContext(server.Context(), node, args...)
	cmd.Env = append(langhost.PluginEnv(req), "PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(typescript))
	cmd.Dir = dir // @pulumi/policy reads the pack's version from ./package.json
	if req.GetKind() != "analyzer" && req.GetPwd() != "" {
		cmd.Dir = req.GetPwd()
	}
	logging.V(5).Infof("language host running plugin: %s %s", node, strings.Join(args, " "))
	return langhost.RunPluginProcess(cmd, server)
}
