//go:build tools

// Package tools keeps the Kubernetes commands the real tier runs in this module's requirements, so
// `go build k8s.io/kubernetes/cmd/<name>` builds each one as a dependency of this module (whose
// go.mod carries the replace lines k8s.io/kubernetes needs; see scripts/tools/build.sh).
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
