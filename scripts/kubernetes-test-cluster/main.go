// Command kubernetes-test-cluster is one multi-call binary holding the test cluster's control
// plane: etcd, kube-apiserver, kube-controller-manager and kube-scheduler, and the fake node's
// exec endpoint, pod-exec-server (kwok is a binary of its own, built from ./kwok: see its
// main.go for why). One binary
// means the shared Kubernetes packages compile (and are cached on disk) once. The program is
// chosen by the name it is called as (a symlink named kube-apiserver, …) or by its first
// argument (`kubernetes-test-cluster kube-apiserver --flags…`).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// programs maps a program name to its entry; each entry reads os.Args as its own main would.
var programs = map[string]func(){
	"etcd":                    runEtcd,
	"kube-apiserver":          runAPIServer,
	"kube-controller-manager": runControllerManager,
	"kube-scheduler":          runScheduler,
	"pod-exec-server":         runPodExecServer,
}

func main() {
	if run, ok := programs[filepath.Base(os.Args[0])]; ok {
		run()
		return
	}
	if len(os.Args) > 1 {
		if run, ok := programs[os.Args[1]]; ok {
			// The program sees itself as argv[0] and its own flags after it.
			os.Args = append([]string{os.Args[1]}, os.Args[2:]...)
			run()
			return
		}
	}
	names := make([]string, 0, len(programs))
	for name := range programs {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "usage: %s <program> [flags…]\nprograms: %v\n", filepath.Base(os.Args[0]), names)
	os.Exit(2)
}
