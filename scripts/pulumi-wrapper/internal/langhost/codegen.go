package langhost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// SDKGenerator, embedded in a host, answers GeneratePackage with GeneratePackage for Language.
type SDKGenerator struct {
	Language string // "nodejs" or "go"
}

func (g SDKGenerator) GeneratePackage(
	ctx context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	return GeneratePackage(ctx, g.Language, req)
}

// GeneratePackage answers `pulumi package gen-sdk --language nodejs|go`: it runs the very
// generators the upstream hosts call (pkg/v3/codegen/nodejs and .../codegen/go at the engine's
// version) with the schema loader the engine serves, and writes the files under req.Directory.
func GeneratePackage(
	_ context.Context, language string, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.GetSchema()), &spec); err != nil {
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
	switch language {
	case "nodejs":
		files, err = nodejs.GeneratePackage("pulumi-language-nodejs", pkg, req.GetExtraFiles(), req.GetLocalDependencies(), req.GetLocal(), loader)
	case "go":
		files, err = gogen.GeneratePackage("pulumi-language-go", pkg, req.GetLocalDependencies())
	default:
		return nil, fmt.Errorf("no SDK generator for %q", language)
	}
	if err != nil {
		return nil, err
	}
	for name, data := range files {
		path := filepath.Join(req.GetDirectory(), name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
	}
	return &pulumirpc.GeneratePackageResponse{}, nil
}
