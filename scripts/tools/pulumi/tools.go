//go:build tools

// Package tools keeps the Pulumi CLI in this module's requirements, so
// `go build github.com/pulumi/pulumi/pkg/v3/cmd/pulumi` builds it as a dependency of this module, whose
// go.mod carries the replace line pulumi's own go.mod has (a replace only applies in the main module).
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
