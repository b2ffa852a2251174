//go:build tools

// Package tools keeps Pulumi's Node.js language host in this module's requirements. Its own module
// (sdk/nodejs/cmd/pulumi-language-nodejs/v3) is refused by the Go module proxy; github.com/pulumi/pulumi/sdk/v3
// held the command until v3.68.0, so `go build github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs`
// builds it from there (scripts/tools/build.sh).
package tools

import _ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"
