//go:build tools

// Package tools keeps istioctl in this module's requirements, so `go build istio.io/istio/istioctl/cmd/istioctl`
// builds it at the commit go.mod pins (scripts/tools/build.sh says which commit, and why that one).
//
// go.sum started as istio.io/istio's own go.sum at that commit, then `go mod tidy` (which added istio.io/istio's
// own hashes from the checksum database): the checksum database does not know two of its requirements,
// github.com/envoyproxy/go-control-plane/contrib v1.36.1-0.20260418153000-ae8637bdda9d and istio.io/client-go
// v1.30.0-alpha.1.0.20260415171554-0d069047cd3c (its lookups answer 404), so their hashes are the ones Istio's
// repository records. Every requirement here is at the version Istio's go.mod asks for.
package tools

import _ "istio.io/istio/istioctl/cmd/istioctl"
