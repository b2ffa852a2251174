// The Go module proxy refuses this module at the version pulumi-gcp asks for (403), and only the bridge's
// schema and example generator (pulumi-tfgen-gcp) uses it; scripts/tools/build.sh puts this folder in its place
// so the provider, which never calls it, builds. Every program generator here returns an error.
package codegen

import (
	"errors"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
)

// GenerateProgram is what the bridge's converter calls for this language.
func GenerateProgram(program *pcl.Program) (map[string][]byte, hcl.Diagnostics, error) {
	return nil, nil, errors.New("program generation for this language is not built in")
}

// The C# extensions the bridge writes into a schema's language section (pkg/tfgen/generate_schema.go).
type CSharpPackageInfo struct {
	Compatibility                string            `json:"compatibility,omitempty"`
	PackageReferences            map[string]string `json:"packageReferences,omitempty"`
	Namespaces                   map[string]string `json:"namespaces,omitempty"`
	RootNamespace                string            `json:"rootNamespace,omitempty"`
	DictionaryConstructors       bool              `json:"dictionaryConstructors,omitempty"`
	ProjectReferences            []string          `json:"projectReferences,omitempty"`
	LiftSingleValueMethodReturns bool              `json:"liftSingleValueMethodReturns,omitempty"`
	RespectSchemaVersion         bool              `json:"respectSchemaVersion,omitempty"`
}

type CSharpPropertyInfo struct {
	Name string `json:"name,omitempty"`
}

type CSharpResourceInfo struct {
	Name string `json:"name,omitempty"`
}
