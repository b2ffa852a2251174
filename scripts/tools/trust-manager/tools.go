//go:build tools

// Package tools keeps trust-manager's own command in this module's requirements, so
// `go build github.com/cert-manager/trust-manager/cmd/trust-manager` builds it at the version go.mod pins
// (scripts/tools/build.sh).
package tools

import _ "github.com/cert-manager/trust-manager/cmd/trust-manager"
