// Command pulumi-resource-kubernetes serves the Pulumi Kubernetes provider from its library package.
//
// The provider's module holds cmd/pulumi-resource-kubernetes without the two files its main embeds, which
// upstream generates at release time; scripts/tools/build.sh generates them in the build folder with
// ./embedgen (from the module's schema.json and terraform-mapping.json), then builds this main with the
// provider's version stamped into pkg/version.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var schema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, schema, terraformMapping)
}
