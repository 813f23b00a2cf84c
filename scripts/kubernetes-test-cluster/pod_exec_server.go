package main

// pod-exec-server is the exec endpoint of the test cluster's fake node: the API server proxies a
// pod's exec (`…/pods/<pod>/exec`) and log (`…/pods/<pod>/log`) to the node's kubelet port, which
// kwok publishes in the node's status and this program serves: exec with the kubelet's own
// streaming code (websocket and SPDY, status channel with the exit code), a log as a line saying
// no container ran. Each command runs through --pod-command (pod-command.sh:
// bubblewrap over the pod's own folders under --pods-dir), never on the host directly.
//
// A pod's execs share its namespaces, as a container's do: the first exec of a pod starts the
// pod's holder (pod-command.sh --hold: a bubblewrap sandbox running nothing but its init), and
// every exec of the pod enters the holder's namespaces. So a process one exec starts is seen,
// signalled and reached on the pod's loopback by the next. The holders are this program's
// children and die with it.
//
// kwok's own exec (its Exec and ClusterExec resources) would do the same, but it reports every
// non-zero exit as an internal error: it wraps the command's exit error, and the streaming code
// recognises exit codes only from an unwrapped k8s.io/utils/exec.ExitError.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/types"
	remotecommandconsts "k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/client-go/tools/remotecommand"
	streaming "k8s.io/kubelet/pkg/cri/streaming/remotecommand"
	utilexec "k8s.io/utils/exec"
)

// /exec/<namespace>/<pod>/<container>, or with the pod's uid before the container.
var execPath = regexp.MustCompile(`^/exec/([a-z0-9.-]+)/([a-z0-9.-]+)/(?:[a-z0-9-]+/)?([a-z0-9.-]+)$`)

// /containerLogs/<namespace>/<pod>/<container>, as the API server asks a kubelet for pods/log.
var logsPath = regexp.MustCompile(`^/containerLogs/([a-z0-9.-]+)/([a-z0-9.-]+)/([a-z0-9-]+)$`)

type podExecutor struct {
	podsDir    string
	podCommand string
	mutex      sync.Mutex
	// The host pid of each pod's holder (its sandbox's init), by "<namespace>/<pod>".
	holders map[string]int
}

// holder answers the host pid of the pod's holder, starting it on the pod's first exec.
func (executor *podExecutor) holder(name, folder string) (int, error) {
	executor.mutex.Lock()
	defer executor.mutex.Unlock()
	if pid, found := executor.holders[name]; found && syscall.Kill(pid, 0) == nil {
		return pid, nil
	}
	infoReader, infoWriter, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer infoReader.Close()
	cmd := exec.Command(executor.podCommand, "--hold")
	cmd.Env = append(os.Environ(), "CAIRN_POD_DIR="+folder, "CAIRN_POD_NAME="+filepath.Base(name))
	readyReader, readyWriter, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer readyReader.Close()
	cmd.Stderr = os.Stderr
	// The holder says "ready" on stdout once the sandbox is set up; bubblewrap writes the
	// sandbox's pid to fd 3 (--info-fd 3) before that. The holder dies with this program.
	cmd.Stdout = readyWriter
	cmd.ExtraFiles = []*os.File{infoWriter}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	infoWriter.Close()
	readyWriter.Close()
	if err != nil {
		return 0, err
	}
	go func() { _ = cmd.Wait() }()
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	err = json.NewDecoder(infoReader).Decode(&info)
	ready := make([]byte, len("ready\n"))
	if err == nil {
		_, err = io.ReadFull(readyReader, ready)
	}
	if err != nil || info.ChildPid == 0 || string(ready) != "ready\n" {
		_ = cmd.Process.Kill()
		return 0, fmt.Errorf("the holder of pod %s did not start: %v", name, err)
	}
	executor.holders[name] = info.ChildPid
	return info.ChildPid, nil
}

func (executor *podExecutor) ExecInContainer(ctx context.Context, name string, _ types.UID, container string, command []string, in io.Reader, out, errOut io.WriteCloser, tty bool, _ <-chan remotecommand.TerminalSize, _ time.Duration) error {
	if tty {
		return errors.New("the test node does not run commands with a terminal")
	}
	if len(command) == 0 {
		return errors.New("no command")
	}
	folder := filepath.Join(executor.podsDir, name)
	for _, sub := range []string{"workspace", "tmp"} {
		if err := os.MkdirAll(filepath.Join(folder, sub), 0o755); err != nil {
			return err
		}
	}
	holder, err := executor.holder(name, folder)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, executor.podCommand, command...)
	cmd.Env = append(os.Environ(), "CAIRN_POD_HOLDER="+strconv.Itoa(holder), "CAIRN_POD_DIR="+folder, "CAIRN_POD_NAME="+filepath.Base(name), "CAIRN_POD_CONTAINER="+container)
	cmd.Stdout = out
	cmd.Stderr = errOut
	if in != nil {
		// A pipe, not cmd.Stdin = in: Wait would wait for a stdin the client never closes.
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		go func() {
			_, _ = io.Copy(stdin, in)
			_ = stdin.Close()
		}()
	}
	err = cmd.Run()
	var exitError *exec.ExitError
	if errors.As(err, &exitError) && exitError.Exited() {
		return utilexec.CodeExitError{Err: err, Code: exitError.ExitCode()}
	}
	return err
}

func runPodExecServer() {
	flags := flag.NewFlagSet("pod-exec-server", flag.ExitOnError)
	listen := flags.String("listen", "127.0.0.1:10250", "address to serve on")
	certificate := flags.String("tls-cert-file", "", "serving certificate")
	key := flags.String("tls-private-key-file", "", "serving key")
	clientCA := flags.String("client-ca-file", "", "CA of the API server's kubelet client certificate")
	podsDir := flags.String("pods-dir", "", "folder holding each pod's folders (<namespace>/<pod>)")
	podCommand := flags.String("pod-command", "", "program that runs a pod's command (pod-command.sh)")
	_ = flags.Parse(os.Args[1:])
	if *certificate == "" || *key == "" || *clientCA == "" || *podsDir == "" || *podCommand == "" {
		log.Fatal("pod-exec-server needs --tls-cert-file, --tls-private-key-file, --client-ca-file, --pods-dir and --pod-command")
	}
	authorities := x509.NewCertPool()
	caBytes, err := os.ReadFile(*clientCA)
	if err != nil || !authorities.AppendCertsFromPEM(caBytes) {
		log.Fatalf("cannot read the client CA %s: %v", *clientCA, err)
	}
	executor := &podExecutor{podsDir: *podsDir, podCommand: *podCommand, holders: map[string]int{}}
	handler := http.HandlerFunc(func(response http.ResponseWriter, request *http.Request) {
		if logs := logsPath.FindStringSubmatch(request.URL.Path); logs != nil {
			// A container's log (pods/log through the API server). No container ran, so the log
			// says so; it is what the API server hands a client reading it.
			response.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(response, "the test node ran no container: no log for %s/%s %s\n", logs[1], logs[2], logs[3])
			return
		}
		match := execPath.FindStringSubmatch(request.URL.Path)
		if match == nil {
			http.NotFound(response, request)
			return
		}
		options, err := streaming.NewOptions(request)
		if err != nil {
			http.Error(response, err.Error(), http.StatusBadRequest)
			return
		}
		command := request.URL.Query()["command"]
		// One line per exec, its argv as JSON, which the tests read (KubernetesTestCluster.execs).
		argv, _ := json.Marshal(command)
		log.Printf("exec %s/%s %s %s", match[1], match[2], match[3], argv)
		streaming.ServeExec(response, request, executor, match[1]+"/"+match[2], "", match[3], command, options,
			4*time.Hour, 30*time.Second, remotecommandconsts.SupportedStreamingProtocols)
	})
	server := &http.Server{
		Addr:    *listen,
		Handler: handler,
		// Only the API server (its kubelet client certificate) may exec, as on a real node.
		TLSConfig: &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: authorities},
	}
	fmt.Fprintf(os.Stderr, "pod-exec-server: serving on %s\n", *listen)
	log.Fatal(server.ListenAndServeTLS(*certificate, *key))
}
