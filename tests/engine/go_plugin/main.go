// A resource provider written in Go, run from its source directory: the engine reads
// PulumiPlugin.yaml (`runtime: go`) and asks the Go language host to run it (RunPlugin), which
// builds it. tests/engine/test_go_plugin.py declares its one resource from a YAML program.
// `echo:index:Echo` stores its `message` input as its output and changes nothing anywhere.
package main

import (
	"context"

	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

const schema = `{"name": "echo", "version": "0.0.1",
  "resources": {"echo:index:Echo": {
    "inputProperties": {"message": {"type": "string"}}, "requiredInputs": ["message"],
    "properties": {"message": {"type": "string"}}, "required": ["message"]}}}`

type echo struct {
	pulumirpc.UnimplementedResourceProviderServer
}

func (echo) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: "0.0.1"}, nil
}

func (echo) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	return &pulumirpc.GetSchemaResponse{Schema: schema}, nil
}

func (echo) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (echo) DiffConfig(context.Context, *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return &pulumirpc.DiffResponse{}, nil
}

func (echo) Configure(context.Context, *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	return &pulumirpc.ConfigureResponse{AcceptSecrets: true}, nil
}

func (echo) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (echo) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	before := req.GetOldInputs().GetFields()["message"].GetStringValue()
	after := req.GetNews().GetFields()["message"].GetStringValue()
	if before == after {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"message"}}, nil
}

func (echo) Create(_ context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	return &pulumirpc.CreateResponse{Id: "echo", Properties: req.GetProperties()}, nil
}

func (echo) Update(_ context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	return &pulumirpc.UpdateResponse{Properties: req.GetNews()}, nil
}

func (echo) Delete(context.Context, *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// main serves the provider protocol and prints the port as the first stdout line, as every
// provider plugin does (the engine dials it).
func main() {
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterResourceProviderServer(srv, echo{})
			return nil
		},
	})
	if err != nil {
		cmdutil.ExitError(err.Error())
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		cmdutil.ExitError(err.Error())
	}
}
