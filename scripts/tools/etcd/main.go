// Command etcd runs etcd's own entry point; etcd's server module has no installable main of its own.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
