package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

// runEtcd is etcd's own main (go.etcd.io/etcd/server/v3/main.go).
func runEtcd() { etcdmain.Main(os.Args) }
