// pulumi-language-codegen: SDK generation for `pulumi package gen-sdk --language nodejs|go`.
//
// Why this exists: since Pulumi 3.1xx the CLI generates an SDK by asking the language host
// (pulumi-language-nodejs, pulumi-language-go) to run the language's code generator. Those hosts
// live in their own Go modules (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3,
// github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3), which the Go module registry reachable
// here does not serve, so scripts/install-pulumi builds this binary and installs it as
// pulumi-language-nodejs and pulumi-language-go. It runs the very same generators the upstream
// hosts call (github.com/pulumi/pulumi/pkg/v3/codegen/nodejs and .../codegen/go at the engine's
// version), with the schema loader the engine serves.
//
// Implemented: Handshake, GetPluginInfo, GeneratePackage. Everything else (running a TypeScript
// or Go program, GenerateProject/Program, Pack, Link) answers Unimplemented: this host is for
// generating SDKs, not for running programs in those languages.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

func main() {
	for _, name := range []string{"logtostderr", "logflow"} {
		if flag.Lookup(name) == nil {
			_ = flag.Bool(name, false, "logging")
		}
	}
	for _, name := range []string{"v", "root", "tracing", "binary", "buildTarget", "typescript", "nodeargs", "packagemanager"} {
		if flag.Lookup(name) == nil {
			_ = flag.String(name, "", "ignored")
		}
	}
	flag.Parse()

	language := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(os.Args[0]), "pulumi-language-"), ".exe")
	if language != "nodejs" && language != "go" {
		cmdutil.Exit(fmt.Errorf("install this binary as pulumi-language-nodejs or pulumi-language-go, not %q", os.Args[0]))
	}
	host := &codegenHost{language: language}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		cmdutil.Exit(fmt.Errorf("could not start language host RPC server: %w", err))
	}
	fmt.Printf("%d\n", handle.Port) // the engine reads the port from the first stdout line
	if err := <-handle.Done; err != nil {
		cmdutil.Exit(fmt.Errorf("language host RPC stopped serving: %w", err))
	}
}

type codegenHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	language string
}

func (h *codegenHost) Handshake(
	context.Context, *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *codegenHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

func (h *codegenHost) Run(context.Context, *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	return nil, status.Errorf(codes.Unimplemented,
		"this pulumi-language-%s (pulumi-hyperpod's codegen-only host) generates SDKs; it cannot run programs", h.language)
}

func (h *codegenHost) GeneratePackage(
	ctx context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	loader, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.Schema), &spec); err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("the schema does not bind: %v", diags)
	}

	var files map[string][]byte
	switch h.language {
	case "nodejs":
		files, err = nodejs.GeneratePackage("pulumi-language-nodejs", pkg, req.ExtraFiles, req.LocalDependencies, req.Local, loader)
	case "go":
		files, err = gogen.GeneratePackage("pulumi-language-go", pkg, req.LocalDependencies)
	}
	if err != nil {
		return nil, err
	}
	for name, data := range files {
		path := filepath.Join(req.Directory, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
	}
	return &pulumirpc.GeneratePackageResponse{}, nil
}
