package langhost

import (
	"context"
	"flag"
	"fmt"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Base is the part of a language host that is the same in every language: where the engine is,
// where tracing goes, and the RPCs with nothing language-specific to say. A host embeds it (by
// value, in a struct used by pointer) and implements the rest; what it leaves out answers
// Unimplemented.
type Base struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	Tracing string
	Engine  EngineAddress
	// RequiredPackages lists the resource plugins a program needs (GetRequiredPackages and the
	// deprecated GetRequiredPlugins); nil means none.
	RequiredPackages func(context.Context, *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error)
}

// ParseFlags reads the command line the engine gives a language host: logging flags (-v,
// --logflow, --logtostderr), --tracing, the engine's address as the first argument, and the
// host's runtimeOptions (and -root), which some tools pass as flags and which are ignored here
// (options come from RunRequest.Info). A host registers flags of its own before calling it.
func (b *Base) ParseFlags(runtimeOptions ...string) {
	tracing := flag.String("tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint")
	// Some of the logging flags are already registered by imported packages.
	for _, name := range []string{"logtostderr", "logflow"} {
		if flag.Lookup(name) == nil {
			_ = flag.Bool(name, false, "logging")
		}
	}
	for _, name := range append([]string{"v", "root"}, runtimeOptions...) {
		if flag.Lookup(name) == nil {
			_ = flag.String(name, "", "ignored")
		}
	}
	flag.Parse()
	logging.InitLogging(false, 0, false)
	b.Tracing = *tracing
	if args := flag.Args(); len(args) > 0 {
		b.Engine.Set(args[0])
	}
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

func (b *Base) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	b.Engine.Set(req.GetEngineAddress())
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (b *Base) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

func (b *Base) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (b *Base) GetRequiredPackages(
	ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	pkgs, err := b.requiredPackages(ctx, req.GetInfo())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: pkgs}, nil
}

//nolint:staticcheck // deprecated in the protocol but still called by engines
func (b *Base) GetRequiredPlugins(
	ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	pkgs, err := b.requiredPackages(ctx, req.GetInfo())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: PluginsFromPackages(pkgs)}, nil
}

func (b *Base) requiredPackages(ctx context.Context, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error) {
	if b.RequiredPackages == nil {
		return nil, nil
	}
	return b.RequiredPackages(ctx, info)
}
